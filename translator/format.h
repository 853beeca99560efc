// format.h - SystemTap printf formats checked against argument types and
// rewritten for the kernel's vsnprintf (all integers are 64-bit there).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "translator/diagnostics.h"
#include "translator/types.h"

namespace stap_pmu {

struct Conversion {
	char conv;   // d i u x X o c s p
	Type type;   // type the argument must have
};

struct Format {
	std::string kernel_fmt; // e.g. "%lld calls\n"
	std::vector<Conversion> convs;
};

// Reports errors at loc (the format string's location).
std::optional<Format> parse_format(const std::string &fmt, SourceLoc loc, Diagnostics &diags);

} // namespace stap_pmu
