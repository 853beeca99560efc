// format.cpp - printf format checking and rewriting.
#include "translator/format.h"

#include <cctype>
#include <cstring>

namespace stap_pmu {

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
		std::string spec = "%";
		while (i < fmt.size() && std::strchr("-+ #0", fmt[i]))
			spec += fmt[i++];
		while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i])))
			spec += fmt[i++];
		if (i < fmt.size() && fmt[i] == '.') {
			spec += fmt[i++];
			while (i < fmt.size() && std::isdigit(static_cast<unsigned char>(fmt[i])))
				spec += fmt[i++];
		}
		if (i < fmt.size() && fmt[i] == '*') {
			diags.error(loc, "printf format: '*' width is not supported yet in '" +
						 fmt.substr(start, i - start + 1) + "'");
			return std::nullopt;
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
		switch (conv) {
		case 'd':
		case 'i':
			out.kernel_fmt += spec + "lld";
			out.convs.push_back({conv, Type::Long});
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			out.kernel_fmt += spec + "ll" + conv;
			out.convs.push_back({conv, Type::Long});
			break;
		case 'c':
			out.kernel_fmt += spec + "c";
			out.convs.push_back({conv, Type::Long});
			break;
		case 'p':
			out.kernel_fmt += spec + "p";
			out.convs.push_back({conv, Type::Long});
			break;
		case 's':
			out.kernel_fmt += spec + "s";
			out.convs.push_back({conv, Type::String});
			break;
		default:
			diags.error(loc, std::string("printf format: unknown conversion '%") + conv + "'",
				    "conversions: %d %i %u %x %X %o %c %p %s %%");
			return std::nullopt;
		}
	}
	return out;
}

} // namespace stap_pmu
