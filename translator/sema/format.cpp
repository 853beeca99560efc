// format.cpp - printf format checking and rewriting.
#include "translator/sema/format.h"

#include <cctype>
#include <cstring>

namespace stap_pmu {

// The flags of a conversion that C and the kernel's vsnprintf honour: the
// others are dropped (the output is the same, and gcc's format check, which
// modules build with -Werror, stays quiet).
static std::string effective_flags(std::string flags, char conv, bool has_prec)
{
	bool is_int = std::strchr("diuxXo", conv) != nullptr;
	auto drop = [&flags](char f) {
		size_t at = flags.find(f);
		if (at != std::string::npos)
			flags.erase(at, 1);
	};
	if (!std::strchr("di", conv)) {
		drop('+');
		drop(' ');
	}
	if (!std::strchr("xXop", conv))
		drop('#');
	if (!is_int && conv != 'p')
		drop('0');
	if (flags.find('-') != std::string::npos || (is_int && has_prec))
		drop('0');
	if (flags.find('+') != std::string::npos)
		drop(' ');
	return flags;
}

std::optional<Format> parse_format(const std::string &fmt, SourceLoc loc, Diagnostics &diags)
{
	Format out;
	for (size_t i = 0; i < fmt.size(); i++) {
		char ch = fmt[i];
		if (ch != '%') {
			out.kernel_fmt += ch;
			continue;
		}
		if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
			out.kernel_fmt += "%%";
			i++;
			continue;
		}
		size_t start = i++;
		std::string flags;
		std::vector<FormatArg> stars;
		while (i < fmt.size() && std::strchr("-+ #0", fmt[i])) {
			if (flags.find(fmt[i]) == std::string::npos)
				flags += fmt[i];
			i++;
		}
		std::string width, prec;
		bool has_prec = false;
		if (i < fmt.size() && fmt[i] == '*') {
			width = fmt[i++];
			stars.push_back({'*', Type::Long, "*"});
		} else {
			while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i])))
				width += fmt[i++];
		}
		if (i < fmt.size() && fmt[i] == '.') {
			has_prec = true;
			i++;
			if (i < fmt.size() && fmt[i] == '*') {
				prec = fmt[i++];
				stars.push_back({'*', Type::Long, ".*"});
			} else {
				while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i])))
					prec += fmt[i++];
			}
		}
		// SystemTap accepts C length modifiers and ignores them.
		while (i < fmt.size() && std::strchr("hlLqjzt", fmt[i]))
			i++;
		if (i >= fmt.size()) {
			diags.error(loc, "printf format ends inside a conversion: '" +
						 fmt.substr(start) + "'");
			return std::nullopt;
		}
		char conv = fmt[i];
		std::string whole = fmt.substr(start, i - start + 1);
		for (FormatArg &s : stars)
			s.spec = "'" + s.spec + "' in '" + whole + "'";
		if (!std::strchr("diuxXocps", conv)) {
			diags.error(loc, std::string("printf format: unknown conversion '%") + conv + "'",
				    "conversions: %d %i %u %x %X %o %c %p %s %%");
			return std::nullopt;
		}
		flags = effective_flags(flags, conv, has_prec);
		if (conv == 'c' && has_prec) {
			has_prec = false; // the kernel ignores a precision on %c
			if (prec == "*")
				stars.back().passed = false;
		}
		std::string spec = "%" + flags + width + (has_prec ? "." + prec : "");
		Type t = Type::Long;
		switch (conv) {
		case 'd':
		case 'i':
			out.kernel_fmt += spec + "lld";
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			out.kernel_fmt += spec + "ll" + conv;
			break;
		case 'c':
			out.kernel_fmt += spec + "c";
			break;
		case 'p':
			// SystemTap prints the address itself, not a hashed pointer
			out.kernel_fmt += spec.size() > 1 ? spec + "llx" : std::string("0x%016llx");
			break;
		case 's':
			out.kernel_fmt += spec + "s";
			t = Type::String;
			break;
		}
		out.args.insert(out.args.end(), stars.begin(), stars.end());
		out.args.push_back({conv, t, whole});
	}
	return out;
}

} // namespace stap_pmu
