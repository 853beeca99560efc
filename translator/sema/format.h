// format.h - SystemTap printf formats checked against argument types and
// rewritten for the kernel's vsnprintf (all integers are 64-bit there).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "translator/frontend/diagnostics.h"
#include "translator/frontend/types.h"

namespace stap_pmu {

// One argument a format consumes: a '*' width or precision, or a value.
struct FormatArg {
	char conv;        // d i u x X o c s p, or '*'
	Type type;        // type the argument must have
	std::string spec; // "%-10s", "*" in "%*d" (for messages)
	bool passed = true; // false: evaluated, not passed (a '.*' precision of %c)
};

struct Format {
	std::string kernel_fmt; // e.g. "%lld calls\n"
	std::vector<FormatArg> args;
};

// Reports errors at loc (the format string's location).
std::optional<Format> parse_format(const std::string &fmt, SourceLoc loc, Diagnostics &diags);

} // namespace stap_pmu
