// cmap.h - script locations carried by the generated C, and compiler errors
// mapped back to them.
//
// Code generation writes marker comments into the C:
//   /* @stp FILE:LINE:COL */      the C after it (up to the next marker) was
//                                 generated for the script construct there
//   /* @stp-embedded N FILE:LINE:COL */
//                                 the next N lines are the embedded C that
//                                 follows the '%{' at FILE:LINE:COL, copied
//                                 so that their lines and columns are the
//                                 script's; the C after them, up to the next
//                                 marker, belongs to that '%{'
//   /* @stp - */                  the C after it belongs to no script code
// Comments rather than #line: a #line would also move the compiler's
// locations for everything after it (tables, runtime code, the rest of the
// body), and -p3 keeps the real C line numbers. When kbuild fails, pass 4
// parses the compiler's "NAME.c:LINE:COL: error: ..." lines and reports each
// at the script location of the nearest marker before it.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "translator/frontend/source.h"

namespace stap_pmu::cmap {

std::string marker(const SourceLoc &loc);
std::string end_marker();
// The marker, a newline and `text` (what follows the '%{' at `open`), its
// first line indented so that its columns are the script's.
std::string embedded(const SourceLoc &open, const std::string &text);

struct ScriptPos {
	std::string file;
	unsigned line = 0, col = 0;
	bool embedded = false; // inside (or right after) embedded C
};

// The markers of one C file, by position.
class Map {
public:
	explicit Map(const std::string &c_source);
	// Where C line:col (1-based) comes from; nullopt before any marker or
	// after an end marker.
	std::optional<ScriptPos> locate(unsigned line, unsigned col) const;
	size_t size() const { return marks_.size(); }

private:
	struct Mark {
		unsigned line = 0, end_col = 0; // the marker's line, column after it
		bool none = false;
		unsigned lines = 0;             // @stp-embedded: lines copied
		ScriptPos pos;
	};
	std::vector<Mark> marks_;
};

// One "FILE:LINE:COL: error: TEXT" (or "fatal error:") line of a
// compiler's output and the line of the generated C it comes from: its own
// location, or for an error in a header the "NAME.c:L:C: note: in expansion
// of macro" after it, else the #include in NAME.c that led to the header.
struct CompilerError {
	std::string file; // as the compiler printed it
	unsigned line = 0, col = 0;
	std::string text;
	unsigned c_line = 0, c_col = 0; // in the generated C (0: nowhere)
	bool in_c = false;              // file is the generated C
	bool macro = false;             // c_line: where a header's macro was expanded
};

// c_name: the generated file's name (NAME.c); a path ending in /NAME.c matches.
std::vector<CompilerError> compiler_errors(const std::string &log, const std::string &c_name);

struct FailureReport {
	std::string text;     // the diagnostics, rendered
	unsigned mapped = 0;  // errors reported at a script location
	unsigned internal = 0; // errors in C that is not the script's
};

// What pass 4 prints when kbuild fails: each compiler error at the script
// location of the C it is in (with the script line and a caret, then a note
// with the C location), errors elsewhere as internal errors of stap-pmu, and
// errors on the "#define" of a -D option as that option's, and when the
// compiler printed none, make's "ERROR:"/"error:" lines. `sources`
// are the script and the tapsets it uses (the markers name them); at most
// `max_errors` errors are shown.
using Defines = std::vector<std::pair<std::string, std::string>>; // -D NAME=VALUE
FailureReport explain_failure(const std::string &log, const std::string &c_source,
			      const std::string &c_path,
			      const std::vector<const SourceFile *> &sources, const Defines &defines,
			      size_t max_errors = 20);

} // namespace stap_pmu::cmap
