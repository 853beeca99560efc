// types.h - C types from DWARF as target variables need them, shared by the
// kernel's DWARF facts (kernelinfo/dwarf.cpp) and the user-space facts
// (userinfo/): C spellings for -L, scalars' size and sign, struct members,
// array bounds, and the walk of "->member" and "[i]" steps into a
// TargetAccess (probes/kernel_facts.h).
#pragma once

#include <elfutils/libdw.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "translator/probes/kernel_facts.h"

namespace stap_pmu::dwarfloc {

// Calls visit(cu, die) for every top-level DIE of every compilation unit
// of dbg (functions, types, variables), in file order.
template <class Visit> void each_top_die(Dwarf *dbg, Visit &&visit)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(dbg, off, &next, &hsize, nullptr, nullptr, nullptr) == 0) {
		Dwarf_Die cu, d;
		Dwarf_Off cuoff = off;
		off = next;
		if (!dwarf_offdie(dbg, cuoff + hsize, &cu) || dwarf_child(&cu, &d) != 0)
			continue;
		do
			visit(&cu, &d);
		while (dwarf_siblingof(&d, &d) == 0);
	}
}

// The DW_AT_type of die (a variable, parameter, member, function or type);
// false when it has none (void).
bool type_die(Dwarf_Die *die, Dwarf_Die *out);

// Strips typedefs and qualifiers from *t; false for void.
bool strip(Dwarf_Die *t);

// C spelling of type t: "struct stp_tm_rec*", "long int", "char[]".
std::string type_name(Dwarf_Die t);

// C spelling of the type of die (a variable, parameter, member or function);
// "void" when it has none.
std::string type_str(Dwarf_Die *die);

// A scalar (integer, enum, pointer, bool) type of 1, 2, 4 or 8 bytes: its
// size and signedness. False for anything else, floats included.
bool scalar(Dwarf_Die t, unsigned &size, bool &is_signed);

// Whether t (typedefs and qualifiers stripped) is a floating-point base type.
bool is_float(Dwarf_Die t);

// Member `name` of struct/union t (anonymous members searched too) and its
// offset; false for a bit field (*bitfield set).
bool find_member(Dwarf_Die *t, const std::string &name, Dwarf_Die *out, int64_t &off,
		 bool *bitfield = nullptr);

// The member names of struct/union t, anonymous members' members inline.
void member_names(Dwarf_Die *t, std::vector<std::string> &out);

// The element counts of array type t, one per dimension (0: unknown).
std::vector<uint64_t> array_dims(Dwarf_Die *t);

// Replaces a struct or union that is only declared with its definition
// (when the caller knows one).
using Completer = std::function<void(Dwarf_Die *)>;

// Applies "->m" steps to a value of type t into acc: each step needs a
// pointer to a struct or union (pointee: t is the struct or union itself,
// the value its address) and appends the member's offset, or a struct or
// union member of the previous one, whose offset adds to the last. "[i]"
// steps index arrays and pointers. The last type gives the size and
// signedness of a scalar, which is read; an array or struct member gives
// its address. end: the type the walk ends at. False: fail says why.
bool walk_members(const Completer &complete, Dwarf_Die t, bool pointee,
		  const std::vector<std::string> &members, TargetAccess &acc, WalkFail &fail,
		  Dwarf_Die *end = nullptr);

} // namespace stap_pmu::dwarfloc
