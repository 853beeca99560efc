// access.cpp - target variables of user functions: the shared walk of
// dwarfloc/variable.h at the probe address, after the checks only a
// user-space binary needs (has it DWARF) and $return in the return
// register.
#include "translator/dwarfloc/types.h"
#include "translator/dwarfloc/variable.h"
#include "translator/userinfo/binary.h"

namespace stap_pmu::userinfo {

namespace {

Result<TargetAccess> return_access(Arch arch, Dwarf_Die *fn, const std::string &name,
				   bool in_return)
{
	if (!in_return)
		return fail("$return is only available in .return probes");
	Dwarf_Die t;
	if (!dwarfloc::type_die(fn, &t))
		return fail(name + "() returns void: no $return");
	if (dwarfloc::is_float(t))
		return fail("$return of " + name + "(): floating point values are not supported");
	TargetAccess acc;
	acc.base = TargetAccess::Loc;
	acc.user = true;
	acc.loc = Location{Location::Reg, 0, 0}; // rax, x0
	(void)arch;
	if (!dwarfloc::scalar(t, acc.size, acc.is_signed))
		return fail("$return of " + name + "() is a " + dwarfloc::type_name(t) +
			    ": only integers and pointers can be read");
	return acc;
}

} // namespace

std::vector<KernelParam> locals_of(const Binary &b, const UserFunction &f)
{
	Dwarf_Die fn;
	if (!f.has_dwarf || !b.dbg || !dwarf_offdie(b.dbg, f.fn.info_id, &fn))
		return {};
	return dwarfloc::locals_at(&fn, f.vaddr);
}

Result<TargetAccess> access_of(const Binary &b, Arch arch, const UserFunction &f,
			       const std::string &spelling, bool in_return)
{
	std::vector<std::string> parts = split_target_spelling(spelling);
	const std::string &name = f.fn.name;
	if (!f.has_dwarf || !b.dbg)
		return fail("$" + parts[0] + " needs debugging information: " + b.path +
				    " has none for " + name + "()",
			    "build it with -g, or install its separate debug file");
	Dwarf_Die fn;
	if (!dwarf_offdie(b.dbg, f.fn.info_id, &fn))
		return fail("lost the DWARF of " + name + "()");
	if (parts[0] == "return")
		return return_access(arch, &fn, name, in_return);
	dwarfloc::Site s{{arch, f.vaddr, &fn, b.cfi(), "", ""}, name, true};
	return dwarfloc::variable_access(s, parts, in_return);
}

} // namespace stap_pmu::userinfo
