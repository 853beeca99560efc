// types.cpp - C types from DWARF: spellings, scalars, members, arrays, and
// the walk of member and index steps (moved here from kernelinfo/dwarf.cpp
// so that the kernel's and the user-space facts share it).
#include "translator/dwarfloc/types.h"

#include <dwarf.h>

namespace stap_pmu::dwarfloc {

bool type_die(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(die, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

// Strips typedefs and qualifiers; false for void.
bool strip(Dwarf_Die *t)
{
	for (;;) {
		int tag = dwarf_tag(t);
		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type && tag != DW_TAG_volatile_type &&
		    tag != DW_TAG_restrict_type && tag != DW_TAG_atomic_type)
			return true;
		if (!type_die(t, t))
			return false;
	}
}

// C spelling of type t: "struct stp_tm_rec*", "long int", "char[]"
std::string type_name(Dwarf_Die t)
{
	std::string stars;
	for (;;) {
		int tag = dwarf_tag(&t);
		if (tag == DW_TAG_pointer_type)
			stars += "*";
		else if (tag != DW_TAG_const_type && tag != DW_TAG_volatile_type)
			break;
		if (!type_die(&t, &t))
			return "void" + stars;
	}
	const char *nm = dwarf_diename(&t);
	int tag = dwarf_tag(&t);
	std::string kw = tag == DW_TAG_structure_type ? "struct " : tag == DW_TAG_union_type ? "union "
			 : tag == DW_TAG_enumeration_type ? "enum " : "";
	if (tag == DW_TAG_array_type)
		return type_str(&t) + "[]" + stars;
	if (tag == DW_TAG_subroutine_type)
		return "func" + stars;
	return kw + (nm ? nm : "?") + stars;
}

// C spelling of the type of die (a variable, parameter, member or function)
std::string type_str(Dwarf_Die *die)
{
	Dwarf_Die t;
	if (!type_die(die, &t))
		return "void";
	return type_name(t);
}

// A scalar (integer, enum, pointer, bool) type: size and signedness.
bool scalar(Dwarf_Die t, unsigned &size, bool &is_signed)
{
	if (!strip(&t))
		return false;
	int tag = dwarf_tag(&t);
	Dwarf_Word sz = 8;
	if (tag == DW_TAG_pointer_type) {
		size = 8;
		is_signed = false;
		return true;
	}
	if (tag != DW_TAG_base_type && tag != DW_TAG_enumeration_type)
		return false;
	Dwarf_Attribute a;
	if (dwarf_attr_integrate(&t, DW_AT_byte_size, &a))
		dwarf_formudata(&a, &sz);
	is_signed = false;
	if (tag == DW_TAG_base_type && dwarf_attr_integrate(&t, DW_AT_encoding, &a)) {
		Dwarf_Word enc = 0;
		dwarf_formudata(&a, &enc);
		if (enc == DW_ATE_float)
			return false;
		is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	} else if (tag == DW_TAG_enumeration_type) {
		is_signed = true;
	}
	if (sz != 1 && sz != 2 && sz != 4 && sz != 8)
		return false;
	size = static_cast<unsigned>(sz);
	return true;
}

bool is_float(Dwarf_Die t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = 0;
	return strip(&t) && dwarf_tag(&t) == DW_TAG_base_type &&
	       dwarf_attr_integrate(&t, DW_AT_encoding, &a) && dwarf_formudata(&a, &enc) == 0 &&
	       (enc == DW_ATE_float || enc == DW_ATE_complex_float);
}

// Finds member `name` in struct/union t (anonymous members searched too);
// false for a bit field (*bitfield set).
bool find_member(Dwarf_Die *t, const std::string &name, Dwarf_Die *out, int64_t &off,
		 bool *bitfield)
{
	Dwarf_Die m;
	if (dwarf_child(t, &m) != 0)
		return false;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		Dwarf_Word moff = 0;
		Dwarf_Attribute a;
		if (dwarf_attr_integrate(&m, DW_AT_data_member_location, &a))
			dwarf_formudata(&a, &moff);
		const char *mn = dwarf_diename(&m);
		if (mn && name == mn) {
			if (dwarf_hasattr(&m, DW_AT_bit_size) || dwarf_hasattr(&m, DW_AT_data_bit_offset)) {
				if (bitfield)
					*bitfield = true;
				return false;
			}
			*out = m;
			off = static_cast<int64_t>(moff);
			return true;
		}
		if (!mn) {
			Dwarf_Die mt;
			int64_t sub = 0;
			if (type_die(&m, &mt) && strip(&mt) && find_member(&mt, name, out, sub, bitfield)) {
				off = static_cast<int64_t>(moff) + sub;
				return true;
			}
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

// The member names of struct/union t, anonymous members' members inline.
void member_names(Dwarf_Die *t, std::vector<std::string> &out)
{
	Dwarf_Die m;
	if (dwarf_child(t, &m) != 0)
		return;
	do {
		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		Dwarf_Die mt;
		if (const char *mn = dwarf_diename(&m))
			out.push_back(mn);
		else if (type_die(&m, &mt) && strip(&mt))
			member_names(&mt, out);
	} while (dwarf_siblingof(&m, &m) == 0);
}

// The element counts of array type t, one per dimension (0: unknown).
std::vector<uint64_t> array_dims(Dwarf_Die *t)
{
	std::vector<uint64_t> dims;
	Dwarf_Die sub;
	if (dwarf_child(t, &sub) != 0)
		return dims;
	do {
		if (dwarf_tag(&sub) != DW_TAG_subrange_type)
			continue;
		Dwarf_Attribute a;
		Dwarf_Word n = 0;
		if (dwarf_attr_integrate(&sub, DW_AT_count, &a) && dwarf_formudata(&a, &n) == 0)
			dims.push_back(n);
		else if (dwarf_attr_integrate(&sub, DW_AT_upper_bound, &a) &&
			 dwarf_formudata(&a, &n) == 0)
			dims.push_back(n + 1);
		else
			dims.push_back(0);
	} while (dwarf_siblingof(&sub, &sub) == 0);
	return dims;
}

namespace {

// Where a walk is: the type of the value and, inside a multi-dimensional
// array type (one DIE for all dimensions), how many were indexed already.
struct WalkAt {
	Dwarf_Die t;
	size_t dim = 0;
};

// Applies an index step "[]" or "[N]" (step i) at w: an array held in
// memory (a member) adds index times the element size to the last step's
// offset; a pointer (or @cast's type at its address, first_of_cast) starts
// a new step at the element. w moves to the element.
bool index_step(const Completer &complete, WalkAt &w, bool first_of_cast, size_t i, const std::string &step,
		TargetAccess &acc, WalkFail &fail)
{
	Dwarf_Die bare = w.t, elem = w.t;
	bool ok = strip(&bare);
	int tag = ok ? dwarf_tag(&bare) : 0;
	fail.step = i;
	fail.type = type_name(w.t);
	std::vector<uint64_t> dims = tag == DW_TAG_array_type ? array_dims(&bare) : std::vector<uint64_t>{};
	bool embedded = !first_of_cast && tag == DW_TAG_array_type && i > 0 && w.dim < dims.size();
	if (first_of_cast)
		elem = w.t;
	else if (embedded || tag == DW_TAG_pointer_type)
		ok = type_die(&bare, &elem);
	if (!first_of_cast && !embedded && tag != DW_TAG_pointer_type) {
		fail.what = WalkFail::NotIndexable;
		return false;
	}
	Dwarf_Die es = elem;
	Dwarf_Word stride = 0;
	if (ok && strip(&es))
		complete(&es);
	if (!ok || dwarf_hasattr(&es, DW_AT_declaration) || dwarf_aggregate_size(&es, &stride) != 0 ||
	    !stride) {
		fail.what = WalkFail::NoElementSize;
		return false;
	}
	for (size_t d = w.dim + 1; embedded && d < dims.size(); d++)
		stride *= dims[d]; // the rest of a multi-dimensional array's dimensions
	int64_t n = 0;
	if (step != "[]") {
		n = std::stoll(step.substr(1));
		if (embedded && dims[w.dim] && static_cast<uint64_t>(n) >= dims[w.dim]) {
			fail.what = WalkFail::OutOfBounds;
			fail.bound = dims[w.dim];
			return false;
		}
	}
	if (!embedded)
		acc.offsets.push_back(0);
	acc.offsets.back() += static_cast<int32_t>(n * static_cast<int64_t>(stride));
	if (step == "[]")
		acc.indices.push_back({acc.offsets.size() - 1, static_cast<int64_t>(stride)});
	if (embedded && w.dim + 1 < dims.size()) {
		w.dim++; // still inside the array type: its next dimension
		return true;
	}
	w.t = elem;
	w.dim = 0;
	return true;
}

// The end of a walk at a value of type t: a scalar is read (its size and
// signedness); an array, struct or union member gives its address.
bool walk_end(Dwarf_Die t, const std::vector<std::string> &members, TargetAccess &acc,
	      WalkFail &fail)
{
	unsigned sz = 8;
	bool sg = false;
	if (scalar(t, sz, sg)) {
		acc.size = sz;
		acc.is_signed = sg;
		acc.deref_last = !acc.offsets.empty();
		return true;
	}
	fail.type = type_name(t);
	fail.step = members.empty() ? 0 : members.size() - 1;
	if (acc.offsets.empty()) {
		fail.what = WalkFail::NotScalar;
		return false;
	}
	Dwarf_Die bare = t;
	strip(&bare);
	if (dwarf_tag(&bare) != DW_TAG_array_type && dwarf_tag(&bare) != DW_TAG_structure_type &&
	    dwarf_tag(&bare) != DW_TAG_union_type) {
		fail.what = WalkFail::Unreadable;
		return false;
	}
	acc.deref_last = false; // arrays and structs: their address
	return true;
}

} // namespace

// Applies "->m" steps to a value of type t into acc: each step needs a
// pointer to a struct or union (pointee: t is the struct or union itself,
// the value its address) and appends the member's offset, or a struct or
// union member of the previous one, whose offset adds to the last. "[i]"
// steps index arrays and pointers (index_step). The last type gives the
// size and signedness of a scalar, which is read; an array or struct
// member gives its address.
bool walk_members(const Completer &complete, Dwarf_Die t, bool pointee,
		  const std::vector<std::string> &members, TargetAccess &acc, WalkFail &fail,
		  Dwarf_Die *end)
{
	WalkAt w{t, 0};
	for (size_t i = 0; i < members.size(); i++) {
		if (is_index_step(members[i])) {
			if (!index_step(complete, w, pointee && i == 0, i, members[i], acc, fail))
				return false;
			continue;
		}
		t = w.t;
		Dwarf_Die pt = t;
		bool ok = strip(&pt) && w.dim == 0;
		// "->" into a struct or union member held inside the previous one
		// (not a pointer to it): its offset adds to the previous step's
		bool embedded = ok && i > 0 && (dwarf_tag(&pt) == DW_TAG_structure_type ||
						dwarf_tag(&pt) == DW_TAG_union_type);
		if (ok && !(pointee && i == 0) && !embedded)
			ok = dwarf_tag(&pt) == DW_TAG_pointer_type && type_die(&pt, &pt) && strip(&pt);
		if (ok)
			complete(&pt);
		if (!ok || (dwarf_tag(&pt) != DW_TAG_structure_type && dwarf_tag(&pt) != DW_TAG_union_type)) {
			fail.what = WalkFail::NotPointer;
			fail.step = i;
			fail.type = type_name(t);
			return false;
		}
		if (dwarf_hasattr(&pt, DW_AT_declaration)) {
			fail.what = WalkFail::Incomplete;
			fail.step = i;
			fail.type = type_name(pt);
			return false;
		}
		Dwarf_Die m;
		int64_t moff;
		bool bitfield = false;
		if (!find_member(&pt, members[i], &m, moff, &bitfield)) {
			fail.what = bitfield ? WalkFail::BitField : WalkFail::NoMember;
			fail.step = i;
			fail.type = type_name(pt);
			if (!bitfield)
				member_names(&pt, fail.names);
			return false;
		}
		if (embedded)
			acc.offsets.back() += static_cast<int32_t>(moff);
		else
			acc.offsets.push_back(static_cast<int32_t>(moff));
		type_die(&m, &w.t);
	}
	if (end)
		*end = w.t;
	return walk_end(w.t, members, acc, fail);
}

} // namespace stap_pmu::dwarfloc
