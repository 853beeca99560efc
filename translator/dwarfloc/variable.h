// variable.h - a target variable ($x->a[2]) at one probe address, for the
// kernel's DWARF facts (kernelinfo/dwarf.cpp: statement probes, locals,
// parameters the entry registers do not hold) and the user-space facts
// (userinfo/): the parameter or local visible there, its DWARF location
// compiled at that address (location.h), then the member and index steps
// (types.h). Members of a struct (or elements of an array) held in memory
// fold into the location itself.
#pragma once

#include <elfutils/libdw.h>

#include <string>
#include <vector>

#include "translator/dwarfloc/location.h"
#include "translator/dwarfloc/types.h"

namespace stap_pmu::dwarfloc {

// Where a target variable is read: c.pc and c.function locate it (c.var
// and c.where are filled in by variable_access); the function's name for
// messages; whether memory is user space; declarations completed by
// `complete` (the kernel's facts know definitions in other units).
struct Site {
	Context c;
	std::string function; // "main"
	bool user = false;
	Completer complete = [](Dwarf_Die *) {};
};

// $parts[0]->parts[1]... (split_target_spelling) at s: a TargetAccess of
// base Loc. at_entry: read whole at the entry of a .return probe
// (@entry($x)). Errors are worded for the user: no such variable (with a
// "did you mean"), optimized out, floating point, an aggregate held in
// registers, a failed member step. end: the type the walk ends at.
Result<TargetAccess> variable_access(Site s, const std::vector<std::string> &parts, bool at_entry,
				     Dwarf_Die *end = nullptr);

// The locals (not parameters) visible at pc in function fn, innermost
// scope first, each name once: their names and C types (arg unused).
std::vector<KernelParam> locals_at(Dwarf_Die *fn, Dwarf_Addr pc);

// "name+0x12": the probe address as an offset into fn.
std::string where_in(Dwarf_Die *fn, const std::string &name, Dwarf_Addr pc);

} // namespace stap_pmu::dwarfloc
