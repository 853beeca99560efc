// functions.cpp - the functions of a user binary: DWARF subprograms with
// code (probed past their prologue, at entry for .call/.return, or at a
// line's first statement), else the ELF symbol table.
#include "translator/dwarfloc/source.h"
#include "translator/dwarfloc/types.h"
#include "translator/support/suggest.h"
#include "translator/support/text.h"
#include "translator/userinfo/binary.h"

#include <dwarf.h>
#include <fnmatch.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

namespace stap_pmu::userinfo {

namespace {

namespace fs = std::filesystem;
using dwarfloc::file_matches;
using dwarfloc::line_addr;

const char *die_name(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	return dwarf_attr_integrate(d, DW_AT_name, &a) ? dwarf_formstring(&a) : nullptr;
}

// Calls visit(cu, fn) for each subprogram with code at the top of each
// compilation unit.
template <class Visit> void each_function(Dwarf *dbg, Visit &&visit)
{
	dwarfloc::each_top_die(dbg, [&](Dwarf_Die *cu, Dwarf_Die *d) {
		Dwarf_Addr entry;
		if (dwarf_tag(d) == DW_TAG_subprogram && dwarf_entrypc(d, &entry) == 0 && die_name(d))
			visit(cu, d);
	});
}

KernelFunction make_function(Dwarf_Die *fn, const Binary &b)
{
	KernelFunction f;
	f.name = die_name(fn);
	f.module = b.path;
	const char *df = dwarf_decl_file(fn);
	f.file = df ? df : "";
	dwarf_decl_line(fn, &f.line);
	f.ret_type = dwarfloc::type_str(fn);
	Dwarf_Die rt;
	unsigned sz;
	bool sg;
	f.ret_scalar = dwarfloc::type_die(fn, &rt) && dwarfloc::scalar(rt, sz, sg);
	f.info_file = b.debug_path.empty() ? b.path : b.debug_path;
	f.info_id = dwarf_dieoffset(fn);
	Dwarf_Die p;
	if (dwarf_child(fn, &p) != 0)
		return f;
	do {
		if (dwarf_tag(&p) != DW_TAG_formal_parameter)
			continue;
		KernelParam pa;
		const char *pn = die_name(&p);
		pa.name = pn ? pn : "";
		pa.type = dwarfloc::type_str(&p);
		f.params.push_back(pa);
	} while (dwarf_siblingof(&p, &p) == 0);
	return f;
}



// Where a function probe goes: past the prologue as SystemTap places it
// (the line table's prologue end, else the function's second line row).
Dwarf_Addr after_prologue(Dwarf_Die *fn, Dwarf_Addr entry)
{
	Dwarf_Addr *bk = nullptr;
	int n = dwarf_entry_breakpoints(fn, &bk);
	Dwarf_Addr a = n > 0 ? bk[0] : entry;
	free(bk);
	return a;
}

// A UserFunction of b at vaddr, or nothing when no segment holds it.
bool place(const Binary &b, UserFunction &u, uint64_t vaddr)
{
	auto off = b.file_offset(vaddr);
	if (!off)
		return false;
	u.path = b.path;
	u.vaddr = vaddr;
	u.offset = *off;
	return true;
}

// DWARF function fn of b as pattern fp places it (name: as the probe
// point names it, an alias's symbol or the DWARF name); false when a line
// asked for holds none of its statements or no segment holds it.
bool dwarf_function(const Binary &b, Dwarf_Die *cu, Dwarf_Die *fn, const std::string &name,
		    const FunctionPattern &fp, bool call, UserFunction &u)
{
	u.fn = make_function(fn, b);
	u.fn.name = name;
	u.has_dwarf = true;
	if (!file_matches(fp.file_glob, u.fn.file, cu))
		return false;
	Dwarf_Addr entry = 0, at;
	dwarf_entrypc(fn, &entry);
	if (fp.line > 0) {
		auto a = line_addr(cu, fn, fp.line, fp.file_glob);
		if (!a)
			return false;
		at = *a;
		u.fn.line = fp.line;
		u.fn.offset = static_cast<uint32_t>(at - entry);
	} else {
		at = call ? entry : after_prologue(fn, entry);
		u.after_prologue = !call;
	}
	return place(b, u, at);
}

// The DWARF functions of b matching fp, into out (names into seen); the
// DIE offsets of all by entry address into by_entry.
void dwarf_functions(const Binary &b, const FunctionPattern &fp, bool call,
		     std::vector<UserFunction> &out, std::set<std::string> &seen,
		     std::map<uint64_t, Dwarf_Off> &by_entry)
{
	each_function(b.dbg, [&](Dwarf_Die *cu, Dwarf_Die *fn) {
		const char *nm = die_name(fn);
		Dwarf_Addr entry = 0;
		dwarf_entrypc(fn, &entry);
		by_entry.emplace(entry, dwarf_dieoffset(fn));
		if (fnmatch(fp.glob.c_str(), nm, 0) != 0 || seen.count(nm))
			return;
		UserFunction u;
		if (dwarf_function(b, cu, fn, nm, fp, call, u) && seen.insert(nm).second)
			out.push_back(std::move(u));
	});
}

// Symbol s as a function probe: an alias of a DWARF function (glibc's
// malloc is __libc_malloc) gets that function's DWARF, else only its entry.
bool symbol_function(const Binary &b, const Symbol &s, const std::map<uint64_t, Dwarf_Off> &by_entry,
		     const FunctionPattern &fp, bool call, UserFunction &u)
{
	auto it = by_entry.find(s.value);
	Dwarf_Die fn;
	if (it != by_entry.end() && dwarf_offdie(b.dbg, it->second, &fn))
		return dwarf_function(b, nullptr, &fn, s.name, fp, call, u);
	u.fn.name = s.name;
	u.fn.module = b.path;
	return place(b, u, s.value);
}

// All function names b knows, for "did you mean".
std::vector<std::string> all_names(const Binary &b)
{
	std::set<std::string> names;
	if (b.dbg)
		each_function(b.dbg, [&](Dwarf_Die *, Dwarf_Die *fn) { names.insert(die_name(fn)); });
	for (const Symbol &s : b.funcs)
		names.insert(s.name);
	return {names.begin(), names.end()};
}

Error nothing_matches(const Binary &b, const std::string &pattern, const FunctionPattern &fp)
{
	std::string hint;
	if (fp.line > 0)
		hint = "the line must hold a statement of the function";
	else if (auto near = closest_names(fp.glob, all_names(b)); !near.empty())
		hint = "did you mean " + text::join(near, ", ") + "?";
	if (!b.dbg && hint.empty())
		hint = b.path + " has no debugging information; only its symbol table was searched";
	return fail("no function matches \"" + pattern + "\" in " + b.path, hint);
}

} // namespace

// The names nearest to name (up to three, all as near as the nearest).
std::vector<std::string> closest_names(const std::string &name, const std::vector<std::string> &all)
{
	std::vector<std::string> near = nearest_names(name, all, 3);
	while (near.size() > 1 && edit_distance(near.back(), name, true) >
					  edit_distance(near.front(), name, true))
		near.pop_back();
	return near;
}

Result<std::vector<UserFunction>> find_functions(const Binary &b, const std::string &pattern,
						 bool call)
{
	auto fp = parse_function_pattern(pattern);
	if (!fp)
		return fp.error();
	if (b.dbg && fp->many_lines())
		return many_lines_unsupported(pattern);
	if (!b.dbg && (fp->line > 0 || !fp->file_glob.empty()))
		return fail("\"" + pattern + "\" needs the debugging information of " + b.path +
				    ", which has none",
			    "build it with -g, or install its separate debug file "
			    "(looked for by build-id and .gnu_debuglink)");
	if (!b.dbg && b.funcs.empty())
		return fail(b.path + " has no symbol table and no debugging information",
			    "probe a binary that is not stripped, or install its separate debug file");
	std::vector<UserFunction> out;
	std::set<std::string> seen;
	std::map<uint64_t, Dwarf_Off> by_entry;
	if (b.dbg)
		dwarf_functions(b, *fp, call, out, seen, by_entry);
	for (const Symbol &s : fp->file_glob.empty() ? b.funcs : std::vector<Symbol>{}) {
		if (fnmatch(fp->glob.c_str(), s.name.c_str(), 0) != 0 || seen.count(s.name))
			continue;
		UserFunction u;
		if (symbol_function(b, s, by_entry, *fp, call, u) && seen.insert(s.name).second)
			out.push_back(std::move(u));
	}
	if (out.empty())
		return nothing_matches(b, pattern, *fp);
	std::sort(out.begin(), out.end(),
		  [](const UserFunction &a, const UserFunction &c) { return a.fn.name < c.fn.name; });
	return out;
}

} // namespace stap_pmu::userinfo
