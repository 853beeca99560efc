// variable.cpp - a target variable at one probe address (variable.h).
#include "translator/dwarfloc/variable.h"
#include "translator/support/suggest.h"

#include <dwarf.h>

#include <cstdio>
#include <cstdlib>
#include <set>

namespace stap_pmu::dwarfloc {

namespace {

const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(d, DW_AT_name, &a) ? dwarf_formstring(&a) : nullptr;
}

std::string hex(uint64_t v)
{
	char b[24];
	snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
	return b;
}

// The parameter or variable `name` visible at pc in fn: the innermost
// scope's first, up to the compilation unit's globals; false with the
// visible names in `names` when there is none.
bool find_var(Dwarf_Die *fn, Dwarf_Addr pc, const std::string &name, Dwarf_Die *out,
	      std::vector<std::string> &names)
{
	Dwarf_Die cu;
	if (!dwarf_diecu(fn, &cu, nullptr, nullptr))
		return false;
	Dwarf_Die *scopes = nullptr;
	int n = dwarf_getscopes(&cu, pc, &scopes);
	bool found = false;
	for (int i = 0; i < n && !found; i++) {
		Dwarf_Die c;
		if (dwarf_child(&scopes[i], &c) == 0) {
			do {
				int tag = dwarf_tag(&c);
				const char *nm = die_name(&c);
				if ((tag != DW_TAG_variable && tag != DW_TAG_formal_parameter) || !nm)
					continue;
				if (name == nm) {
					*out = c;
					found = true;
					break;
				}
				names.push_back(nm);
			} while (dwarf_siblingof(&c, &c) == 0);
		}
	}
	free(scopes);
	return found;
}

// Where variable v starts at c.pc.
Result<Location> var_location(const Context &c, Dwarf_Die *v)
{
	Dwarf_Attribute a;
	if (dwarf_attr_integrate(v, DW_AT_location, &a))
		return location_at(c, &a);
	if (dwarf_attr_integrate(v, DW_AT_const_value, &a)) {
		Dwarf_Sword s = 0;
		Dwarf_Word u = 0;
		if (dwarf_formsdata(&a, &s) == 0)
			return Location{Location::Const, 0, s};
		if (dwarf_formudata(&a, &u) == 0)
			return Location{Location::Const, 0, static_cast<int64_t>(u)};
	}
	return fail(c.var + " is optimized out at " + c.where + " (it has no location)");
}

bool aggregate(Dwarf_Die t, int &tag)
{
	if (!strip(&t))
		return false;
	tag = dwarf_tag(&t);
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type || tag == DW_TAG_array_type;
}

// Folds leading "->member" and "[N]" steps of a struct or array held in
// memory (loc Mem or Static) into loc; t moves to the type reached, k past
// the steps taken. False: wf says why a step failed.
bool fold_steps(Location &loc, Dwarf_Die &t, const std::vector<std::string> &steps, size_t &k,
		WalkFail &wf)
{
	for (; k < steps.size() && (loc.kind == Location::Mem || loc.kind == Location::Static); k++) {
		Dwarf_Die bare = t;
		if (!strip(&bare))
			return true;
		int tag = dwarf_tag(&bare);
		bool idx = is_index_step(steps[k]);
		if ((tag == DW_TAG_structure_type || tag == DW_TAG_union_type) && !idx) {
			Dwarf_Die m;
			int64_t off = 0;
			bool bitfield = false;
			if (!find_member(&bare, steps[k], &m, off, &bitfield)) {
				wf.what = bitfield ? WalkFail::BitField : WalkFail::NoMember;
				wf.step = k;
				wf.type = type_name(bare);
				if (!bitfield)
					member_names(&bare, wf.names);
				return false;
			}
			loc.off += off;
			type_die(&m, &t);
			continue;
		}
		std::vector<uint64_t> dims = tag == DW_TAG_array_type ? array_dims(&bare)
								       : std::vector<uint64_t>{};
		Dwarf_Die elem;
		Dwarf_Word stride = 0;
		if (!idx || steps[k] == "[]" || dims.size() != 1 || !type_die(&bare, &elem) ||
		    dwarf_aggregate_size(&elem, &stride) != 0)
			return true;
		int64_t n = strtoll(steps[k].c_str() + 1, nullptr, 10);
		if (dims[0] && static_cast<uint64_t>(n) >= dims[0]) {
			wf.what = WalkFail::OutOfBounds;
			wf.step = k;
			wf.type = type_name(t);
			wf.bound = dims[0];
			return false;
		}
		loc.off += n * static_cast<int64_t>(stride);
		t = elem;
	}
	return true;
}

// An array in a stack slot (acc.loc Mem) is its address: with no steps
// left that is the value (for user_string($buf) and the like; true), with
// a run-time index left t becomes the element type at that address
// (pointee set) for the walk.
bool array_address(TargetAccess &acc, Dwarf_Die &t, const std::vector<std::string> &rest,
		   bool &pointee)
{
	Dwarf_Die bare = t, elem;
	if (acc.loc.kind != Location::Mem || !strip(&bare) ||
	    dwarf_tag(&bare) != DW_TAG_array_type || array_dims(&bare).size() != 1 ||
	    !type_die(&bare, &elem) || (!rest.empty() && !is_index_step(rest[0])))
		return false;
	acc.loc.kind = Location::RegOffset;
	if (rest.empty()) {
		acc.size = 8;
		acc.is_signed = false;
		return true;
	}
	t = elem;
	pointee = true;
	return false;
}

} // namespace

std::string where_in(Dwarf_Die *fn, const std::string &name, Dwarf_Addr pc)
{
	Dwarf_Addr entry = 0;
	if (dwarf_entrypc(fn, &entry) != 0)
		dwarf_lowpc(fn, &entry);
	return name + "+" + hex(pc - entry);
}

std::vector<KernelParam> locals_at(Dwarf_Die *fn, Dwarf_Addr pc)
{
	std::vector<KernelParam> out;
	Dwarf_Die cu;
	if (!dwarf_diecu(fn, &cu, nullptr, nullptr))
		return out;
	Dwarf_Die *scopes = nullptr;
	int n = dwarf_getscopes(&cu, pc, &scopes);
	std::set<std::string> seen;
	for (int i = 0; i < n && dwarf_tag(&scopes[i]) != DW_TAG_compile_unit; i++) {
		Dwarf_Die c;
		if (dwarf_child(&scopes[i], &c) != 0)
			continue;
		do {
			const char *nm = die_name(&c);
			if (dwarf_tag(&c) == DW_TAG_variable && nm && seen.insert(nm).second)
				out.push_back({nm, type_str(&c), -1, ""});
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	free(scopes);
	return out;
}

Result<TargetAccess> variable_access(Site s, const std::vector<std::string> &parts, bool at_entry,
				     Dwarf_Die *end)
{
	Context &c = s.c;
	c.var = "$" + parts[0];
	c.where = where_in(c.function, s.function, c.pc);
	Dwarf_Die v;
	std::vector<std::string> names;
	if (!find_var(c.function, c.pc, parts[0], &v, names)) {
		auto near = nearest_names(parts[0], names, 1);
		return fail("no parameter or local $" + parts[0] + " in " + s.function + "() at " +
				    c.where,
			    near.empty() ? "" : "did you mean $" + near[0] + "?");
	}
	Dwarf_Die t;
	if (!type_die(&v, &t))
		return fail(c.var + " in " + s.function + "() has no type");
	if (is_float(t))
		return fail(c.var + " in " + s.function + "(): floating point values are not supported");
	auto loc = var_location(c, &v);
	if (!loc)
		return loc.error();
	TargetAccess acc;
	acc.base = TargetAccess::Loc;
	acc.user = s.user;
	acc.at_entry = at_entry;
	acc.loc = *loc;
	std::vector<std::string> steps(parts.begin() + 1, parts.end());
	size_t k = 0;
	WalkFail wf;
	std::string where = " in " + s.function + "()";
	if (!fold_steps(acc.loc, t, steps, k, wf))
		return tvar_walk_error(wf, parts[0], steps, where);
	int tag = 0;
	if (k == 0 && !steps.empty() && aggregate(t, tag) && acc.loc.kind != Location::Mem &&
	    acc.loc.kind != Location::Static)
		return fail(c.var + " is a " + type_name(t) + " held in registers at " + c.where +
			    ": it has no address to read members from");
	std::vector<std::string> rest(steps.begin() + static_cast<long>(k), steps.end());
	bool pointee = false;
	if (end)
		*end = t;
	if (array_address(acc, t, rest, pointee))
		return acc;
	if (walk_members(s.complete, t, pointee, rest, acc, wf, end))
		return acc;
	wf.step += k;
	return tvar_walk_error(wf, parts[0], steps, where);
}

} // namespace stap_pmu::dwarfloc
