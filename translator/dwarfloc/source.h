// source.h - source file patterns of probe points ("func@fileglob:line"),
// matched against DWARF's file names the same way for the kernel's and the
// user-space facts.
#pragma once

#include <elfutils/libdw.h>

#include <optional>
#include <string>

namespace stap_pmu::dwarfloc {

// Whether `file` (a DWARF file name, absolute or relative) matches `glob`:
// the whole name, its base name, or any tail of directories ("*/" + glob).
// A relative name also matches as the path it has under cu's compilation
// directory (DW_AT_comp_dir: "src/prog.c" of a program built in /home/u/p
// matches "/home/u/p/src/prog.c" and "*/p/src/prog.c"). An empty glob
// matches every file.
bool file_matches(const std::string &glob, const std::string &file, Dwarf_Die *cu = nullptr);

// The lowest address of a statement of `line` (in a file matching
// file_glob) inside fn's code (cu: fn's compilation unit); nothing when the
// line holds none of fn's statements.
std::optional<Dwarf_Addr> line_addr(Dwarf_Die *cu, Dwarf_Die *fn, int line,
				    const std::string &file_glob);

} // namespace stap_pmu::dwarfloc
