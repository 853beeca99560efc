// source.h - source file patterns of probe points ("func@fileglob:line"),
// matched against DWARF's file names the same way for the kernel's and the
// user-space facts.
#pragma once

#include <string>

namespace stap_pmu::dwarfloc {

// Whether `file` (a DWARF file name, absolute or relative) matches `glob`:
// the whole name, its base name, or any tail of directories ("*/" + glob).
// An empty glob matches every file.
bool file_matches(const std::string &glob, const std::string &file);

} // namespace stap_pmu::dwarfloc
