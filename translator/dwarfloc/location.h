// location.h - a DWARF location expression (DW_AT_location of a parameter
// or variable: one expression, or the location list entry covering a pc)
// compiled at one probe address into stap_pmu::Location
// (probes/kernel_facts.h): a register, a register plus an offset, a stack
// slot (through DW_OP_fbreg and the function's frame base, which may be
// the CFA from the CFI), a static address or a constant. What a Location
// cannot say (entry values, pieces, implicit pointers, chains of memory
// reads) is an Error worded for the user.
#pragma once

#include <elfutils/libdw.h>

#include <string>
#include <vector>

#include "translator/probes/kernel_facts.h"
#include "translator/support/arch.h"
#include "translator/support/result.h"

namespace stap_pmu::dwarfloc {

// The DWARF register numbers a Location holds, by architectures
// (support/arch.h): x86-64 (0 rax, 1 rdx, 2 rcx, 3 rbx, 4 rsi, 5 rdi, 6 rbp,
// 7 rsp, 8-15 r8-r15, 16 the return address) and arm64 (0-30 x0-x30, 31 sp).

// The name of DWARF register reg ("rdi", "x0"); "" when it is not a
// general-purpose register a Location may hold (vector, float, ...).
std::string reg_name(Arch a, int reg);

// The DWARF register number of a register name as SDT notes and assembly
// spell it: x86-64 "rdi", "edi", "di", "dil", "r8d", "rip" (-1: rip, which
// is no DWARF register); arm64 "x0", "w0", "sp". -2 when unknown.
int reg_number(Arch a, const std::string &name);

// Everything a location is compiled against: the probe address, the
// function (its DW_AT_frame_base), the call frame information, and the
// words of the messages ("$x", "main+0x12").
struct Context {
	Arch arch = Arch::X86_64;
	Dwarf_Addr pc = 0;          // link-time address of the probe
	Dwarf_Die *function = nullptr; // for DW_OP_fbreg
	std::vector<Dwarf_CFI *> cfi;  // .eh_frame and/or .debug_frame, tried in order
	std::string var;            // "$x"
	std::string where;          // "main+0x12"
};

// The location of attribute loc (DW_AT_location) at c.pc.
Result<Location> location_at(const Context &c, Dwarf_Attribute *loc);

// One expression (ops of a DW_AT_location or a location list entry); attr
// is the attribute it came from (for DW_OP_implicit_value), may be null.
Result<Location> compile(const Context &c, const Dwarf_Op *ops, size_t n, Dwarf_Attribute *attr);

// The canonical frame address at c.pc from the CFI: a RegOffset (the CFA is
// register + offset); an Error when no CFI covers pc or the rule is an
// expression.
Result<Location> cfa_at(const Context &c);

} // namespace stap_pmu::dwarfloc
