// cmap.cpp - marker comments in the generated C and compiler errors mapped
// back to script locations (see cmap.h).
#include "translator/codegen/cmap.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <regex>
#include <set>
#include <sstream>
#include <string_view>

#include "translator/frontend/diagnostics.h"

namespace stap_pmu::cmap {

namespace {

const std::string kOpen = "/* @stp";

// File names go into a C comment: '*' (which could close it), '%' and
// control bytes are written as %XX.
std::string encode_name(const std::string &name)
{
	std::string out;
	for (unsigned char c : name) {
		if (c == '%' || c == '*' || c < 0x20 || c == 0x7f) {
			char buf[4];
			std::snprintf(buf, sizeof(buf), "%%%02X", c);
			out += buf;
		} else {
			out += static_cast<char>(c);
		}
	}
	return out;
}

std::string decode_name(const std::string &s)
{
	std::string out;
	for (size_t i = 0; i < s.size(); i++) {
		if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
		    std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
			out += static_cast<char>(std::strtoul(s.substr(i + 1, 2).c_str(), nullptr, 16));
			i += 2;
		} else {
			out += s[i];
		}
	}
	return out;
}

std::string loc_text(const SourceLoc &loc)
{
	return encode_name(loc.file ? loc.file->name() : "?") + ":" + std::to_string(loc.line) + ":" +
	       std::to_string(loc.col);
}

// "FILE:LINE:COL" (FILE may contain ':').
bool parse_loc(const std::string &s, ScriptPos &pos)
{
	size_t c2 = s.rfind(':');
	if (c2 == std::string::npos || c2 == 0)
		return false;
	size_t c1 = s.rfind(':', c2 - 1);
	if (c1 == std::string::npos)
		return false;
	std::string l = s.substr(c1 + 1, c2 - c1 - 1), c = s.substr(c2 + 1);
	if (l.empty() || c.empty() || l.find_first_not_of("0123456789") != std::string::npos ||
	    c.find_first_not_of("0123456789") != std::string::npos)
		return false;
	pos.file = decode_name(s.substr(0, c1));
	pos.line = static_cast<unsigned>(std::stoul(l));
	pos.col = static_cast<unsigned>(std::stoul(c));
	return true;
}

} // namespace

std::string marker(const SourceLoc &loc)
{
	return kOpen + " " + loc_text(loc) + " */";
}

std::string end_marker()
{
	return kOpen + " - */";
}

std::string embedded(const SourceLoc &open, const std::string &text)
{
	size_t lines = std::count(text.begin(), text.end(), '\n') + 1;
	// the text starts 2 bytes after the '%{' at column open.col
	return kOpen + "-embedded " + std::to_string(lines) + " " + loc_text(open) + " */\n" +
	       std::string(open.col + 1, ' ') + text;
}

Map::Map(const std::string &c)
{
	unsigned line = 1;
	unsigned skip_until = 0; // last line of the embedded text being skipped
	size_t start = 0;
	while (start <= c.size()) {
		size_t end = c.find('\n', start);
		if (end == std::string::npos)
			end = c.size();
		if (line > skip_until) {
			std::string_view text(c.data() + start, end - start);
			size_t at = 0;
			while ((at = text.find(kOpen, at)) != std::string_view::npos) {
				size_t close = text.find("*/", at + kOpen.size());
				if (close == std::string_view::npos)
					break;
				std::string body(text.substr(at + kOpen.size(), close - at - kOpen.size()));
				Mark m;
				m.line = line;
				m.end_col = static_cast<unsigned>(close + 2) + 1;
				bool ok = false;
				if (body == " - ") {
					m.none = ok = true;
				} else if (body.rfind("-embedded ", 0) == 0) {
					// "-embedded N FILE:LINE:COL " (FILE may hold spaces)
					std::string rest = body.substr(10);
					size_t sp = rest.find(' ');
					std::string n = rest.substr(0, sp);
					if (sp != std::string::npos && !n.empty() && n.size() < 9 &&
					    n.find_first_not_of("0123456789") == std::string::npos &&
					    rest.back() == ' ' &&
					    parse_loc(rest.substr(sp + 1, rest.size() - sp - 2), m.pos) &&
					    (m.lines = static_cast<unsigned>(std::stoul(n))) > 0) {
						m.pos.embedded = ok = true;
						skip_until = line + m.lines;
					}
				} else if (body.size() > 2 && body[0] == ' ' && body.back() == ' ') {
					ok = parse_loc(body.substr(1, body.size() - 2), m.pos);
				}
				if (ok)
					marks_.push_back(m);
				at = close + 2;
			}
		}
		if (end == c.size())
			break;
		start = end + 1;
		line++;
	}
}

std::optional<ScriptPos> Map::locate(unsigned line, unsigned col) const
{
	// the last marker before line:col
	auto it = std::upper_bound(marks_.begin(), marks_.end(), std::make_pair(line, col),
				   [](const std::pair<unsigned, unsigned> &p, const Mark &m) {
					   return p.first < m.line ||
						  (p.first == m.line && p.second < m.end_col);
				   });
	if (it == marks_.begin())
		return std::nullopt;
	const Mark &m = *std::prev(it);
	if (m.none)
		return std::nullopt;
	ScriptPos p = m.pos;
	if (m.lines && line > m.line && line <= m.line + m.lines) {
		p.line = m.pos.line + (line - m.line - 1);
		p.col = col;
	}
	return p;
}

namespace {

bool names_c(const std::string &file, const std::string &c_name)
{
	return file == c_name || (file.size() > c_name.size() &&
				  file.compare(file.size() - c_name.size(), c_name.size(), c_name) == 0 &&
				  file[file.size() - c_name.size() - 1] == '/');
}

} // namespace

std::vector<CompilerError> compiler_errors(const std::string &log, const std::string &c_name)
{
	static const std::regex diag(R"(^(.+?):([0-9]+):(?:([0-9]+):)? (fatal error|error|note|warning): (.*)$)");
	static const std::regex included(R"(^(?:In file included|\s+) from (.+?):([0-9]+)(?::([0-9]+))?[:,]$)");
	std::vector<CompilerError> out;
	std::istringstream in(log);
	std::string line;
	// the line of NAME.c whose #include led to the header being compiled
	unsigned origin = 0;
	bool want_expansion = false; // the last error was not in NAME.c
	std::smatch m;
	while (std::getline(in, line)) {
		if (!line.empty() && line.back() == '\r')
			line.pop_back();
		if (std::regex_match(line, m, included)) {
			if (line.rfind("In file included", 0) == 0)
				origin = 0; // a new chain, innermost first
			if (names_c(m[1], c_name))
				origin = static_cast<unsigned>(std::stoul(m[2]));
			continue;
		}
		if (!std::regex_match(line, m, diag))
			continue;
		std::string kind = m[4];
		unsigned l = static_cast<unsigned>(std::stoul(m[2]));
		unsigned c = m[3].matched ? static_cast<unsigned>(std::stoul(m[3])) : 0;
		bool here = names_c(m[1], c_name);
		if (kind == "note") {
			if (want_expansion && here &&
			    std::string(m[5]).rfind("in expansion of macro", 0) == 0) {
				CompilerError &e = out.back();
				e.macro = true;
				e.c_line = l;
				e.c_col = c;
				want_expansion = false;
			}
			continue;
		}
		want_expansion = false;
		if (here)
			origin = 0;
		if (kind == "warning")
			continue;
		CompilerError e;
		e.file = m[1];
		e.line = l;
		e.col = c;
		e.text = m[5];
		// a UTF-8 locale's quotes, as ASCII
		for (const char *q : {"\xe2\x80\x98", "\xe2\x80\x99"})
			for (size_t at; (at = e.text.find(q)) != std::string::npos;)
				e.text.replace(at, 3, "'");
		if (here) {
			e.in_c = true;
			e.c_line = l;
			e.c_col = c;
		} else {
			want_expansion = true;
			e.c_line = origin; // the #include that led to the header (0: none)
			e.c_col = origin ? 1 : 0;
		}
		out.push_back(std::move(e));
	}
	return out;
}

namespace {

// Line n (1-based) of text, without its newline.
std::string_view line_of(const std::string &text, unsigned n)
{
	size_t start = 0;
	for (unsigned i = 1; i < n; i++) {
		start = text.find('\n', start);
		if (start == std::string::npos)
			return {};
		start++;
	}
	size_t end = text.find('\n', start);
	return std::string_view(text).substr(start, end == std::string::npos ? end : end - start);
}

// "FILE:LINE" or "FILE:LINE:COL" (col 0: none).
std::string file_pos(const std::string &file, unsigned line, unsigned col)
{
	return file + ":" + std::to_string(line) + (col ? ":" + std::to_string(col) : std::string());
}

// Where each error's line of the generated C comes from in the script
// (nullopt: from no script code).
std::vector<std::optional<ScriptPos>> locate_errors(const Map &map,
						    const std::vector<CompilerError> &errs)
{
	std::vector<std::optional<ScriptPos>> out;
	for (const CompilerError &e : errs) {
		std::optional<ScriptPos> pos;
		if (e.c_line)
			pos = map.locate(e.c_line, e.c_col ? e.c_col : 1);
		out.push_back(pos);
	}
	return out;
}

// One shown error and what explain_failure says about every error.
struct Shown {
	const CompilerError &e;
	std::string where;   // its FILE:LINE:COL as the compiler printed it
	std::string c_where; // its line of the generated C
	std::string via;     // for an error in a header: where the generated C used it
	const std::string &internal_why;
};

// An error at no script location: on the "#define" of a -D option, a
// "#error" of the runtime's own checks, or else an internal error.
void report_unmapped(FailureReport &r, const Shown &s, const std::string &c_source,
		     const Defines &defines)
{
	const CompilerError &e = s.e;
	// on the "#define NAME VALUE" line of a -D option?
	std::string_view cl = e.in_c ? line_of(c_source, e.line) : std::string_view();
	const std::pair<std::string, std::string> *def = nullptr;
	for (const auto &d : defines)
		for (const std::string &name : {d.first, "STP_" + d.first})
			if (cl == "#define " + name + " " + d.second)
				def = &d;
	if (def) {
		r.text += "stap-pmu: error: -D " + def->first + "=" + def->second +
			  ": the generated C does not compile: " + e.text + "\n";
		r.text += "note: the module's C uses the value of " + def->first + " as C (" +
			  s.where + ")\n";
		return;
	}
	if (e.text.rfind("#error ", 0) == 0) {
		// the runtime's own checks (of -D values, the kernel's config)
		std::string why = e.text.substr(7);
		if (why.size() >= 2 && why.front() == '"' && why.back() == '"')
			why = why.substr(1, why.size() - 2);
		r.text += "stap-pmu: error: the module cannot be built: " + why + "\n";
		r.text += "note: checked at " + s.where + "\n";
		return;
	}
	r.internal++;
	r.text += "stap-pmu: error: internal error: the generated C does not compile: " + e.text +
		  "\n";
	r.text += "note: at " + s.where + s.via +
		  ", in C that stap-pmu generates or includes for every script; " + s.internal_why +
		  "\n";
}

// An error at the script location pos of src, with the script line and a caret.
void report_mapped(FailureReport &r, const Shown &s, const SourceFile &src, const ScriptPos &pos)
{
	r.mapped++;
	Diagnostic d;
	d.loc = {&src, pos.line, pos.col};
	std::string note = "generated C: " + (s.e.in_c ? s.c_where : s.where + s.via);
	if (pos.embedded) {
		d.message = "the generated C does not compile: " + s.e.text;
		d.hint = note;
	} else {
		d.message = "the C generated for this does not compile: " + s.e.text;
		d.hint = note + "; " + s.internal_why;
	}
	r.text += render_diagnostic(d);
}

// No compiler error: modpost ("ERROR: modpost: ...") or the linker.
void report_kbuild_lines(FailureReport &r, const std::string &log)
{
	std::istringstream in(log);
	std::string line;
	unsigned n = 0;
	while (std::getline(in, line) && n < 5)
		if (line.rfind("ERROR: ", 0) == 0 || line.find(" error: ") != std::string::npos ||
		    line.find(": undefined reference") != std::string::npos) {
			r.text += "stap-pmu: error: kbuild: " + line + "\n";
			n++;
		}
}

} // namespace

FailureReport explain_failure(const std::string &log, const std::string &c_source,
			      const std::string &c_path,
			      const std::vector<const SourceFile *> &sources, const Defines &defines,
			      size_t max_errors)
{
	FailureReport r;
	std::string c_name = c_path.substr(c_path.rfind('/') + 1);
	std::vector<CompilerError> errs = compiler_errors(log, c_name);
	const std::string internal_why =
		std::string("this is an internal error of stap-pmu") +
		(defines.empty() ? "" : " (or a -D value that is not valid C)");
	// When some errors are in the script's embedded C, the others are most
	// likely their consequences (the compiler lost its way): only those are
	// shown.
	std::vector<std::optional<ScriptPos>> where_in_script = locate_errors(Map(c_source), errs);
	bool any_embedded = false;
	for (const std::optional<ScriptPos> &pos : where_in_script)
		any_embedded |= pos && pos->embedded;
	size_t shown = 0, left_out = 0;
	std::set<std::string> seen; // a macro expanded twice: the same error twice
	for (size_t i = 0; i < errs.size(); i++) {
		const CompilerError &e = errs[i];
		const std::optional<ScriptPos> &pos = where_in_script[i];
		std::string where = file_pos(e.file, e.line, e.col);
		if (!seen.insert(where + " " + e.text).second)
			continue;
		if ((any_embedded && !(pos && pos->embedded)) || shown == max_errors) {
			left_out++;
			continue;
		}
		shown++;
		std::string c_where = file_pos(c_path, e.c_line, e.c_col);
		std::string via = e.in_c || !e.c_line ? std::string()
				  : e.macro ? " (in a macro expanded at " + c_where + ")"
					    : " (included from " + c_where + ")";
		Shown s{e, where, c_where, via, internal_why};
		const SourceFile *src = nullptr;
		if (pos)
			for (const SourceFile *f : sources)
				if (f->name() == pos->file)
					src = f;
		if (pos && src)
			report_mapped(r, s, *src, *pos);
		else
			report_unmapped(r, s, c_source, defines);
	}
	if (left_out)
		r.text += "note: " + std::to_string(left_out) + " more compiler error" +
			  (left_out == 1 ? "" : "s") + " in make's output" +
			  (any_embedded ? ", probably consequences of these" : "") + "\n";
	if (errs.empty())
		report_kbuild_lines(r, log);
	return r;
}

} // namespace stap_pmu::cmap
