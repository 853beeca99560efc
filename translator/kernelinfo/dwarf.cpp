// dwarf.cpp - DWARF lookups through libdw/libdwfl (offline reporting, which
// applies the relocations of .ko files).
#include "translator/kernelinfo/dwarf.h"
#include "translator/dwarfloc/source.h"
#include "translator/dwarfloc/types.h"
#include "translator/dwarfloc/variable.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/support/suggest.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fnmatch.h>
#include <gelf.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>

namespace stap_pmu::dwarf {

namespace fs = std::filesystem;
using dwarfloc::file_matches;
using dwarfloc::array_dims;
using dwarfloc::find_member;
using dwarfloc::member_names;
using dwarfloc::scalar;
using dwarfloc::strip;
using dwarfloc::type_die;
using dwarfloc::type_name;
using dwarfloc::type_str;

namespace {

struct Handle {
	Dwfl *dwfl = nullptr;
	Dwfl_Module *mod = nullptr;
	Dwarf *dbg = nullptr;
	Dwarf_Addr bias = 0;
};

// Named struct, union and typedef definitions of one DWARF file, by
// "struct NAME", "union NAME", "typedef NAME" (the first definition);
// declarations only (no definition in the file) in `declared`.
struct TypeIndex {
	std::map<std::string, Dwarf_Off> defs;
	std::set<std::string> declared;
};

} // namespace

struct Reader::State {
	std::map<std::string, Handle> files; // by path
	// find_in_dir: (dir, module) -> path ("" : not there)
	std::map<std::pair<std::string, std::string>, std::string> found;
	std::map<Dwarf *, TypeIndex> types;

	State() = default;
	State(const State &) = delete;
	State &operator=(const State &) = delete;
	~State()
	{
		for (auto &[path, h] : files)
			dwfl_end(h.dwfl);
	}
};

namespace {

using State = Reader::State;

// Opened files stay open for the life of the reader.
Result<const Handle *> open_file(State &st, const std::string &path)
{
	std::map<std::string, Handle> &cache = st.files;
	auto it = cache.find(path);
	if (it != cache.end())
		return &it->second;
	static const Dwfl_Callbacks cb = {
		.find_elf = nullptr,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = nullptr,
	};
	Handle h;
	h.dwfl = dwfl_begin(&cb);
	Dwfl_Module *m = h.dwfl ? dwfl_report_offline(h.dwfl, path.c_str(), path.c_str(), -1) : nullptr;
	if (!m) {
		Error e = fail("cannot read " + path + ": " + dwfl_errmsg(-1));
		if (h.dwfl)
			dwfl_end(h.dwfl);
		return e;
	}
	dwfl_report_end(h.dwfl, nullptr, nullptr);
	h.mod = m;
	h.dbg = dwfl_module_getdwarf(m, &h.bias);
	if (!h.dbg) {
		dwfl_end(h.dwfl);
		return fail(path + " has no DWARF debugging information");
	}
	return &(cache[path] = h);
}

// Calls visit(cu, fn) for every function with code (not a declaration) in
// every compilation unit of h.
template <class Visit> void each_defined_function(const Handle *h, Visit &&visit)
{
	dwarfloc::each_top_die(h->dbg, [&](Dwarf_Die *cu, Dwarf_Die *fn) {
		if (dwarf_tag(fn) == DW_TAG_subprogram && !dwarf_hasattr(fn, DW_AT_declaration) &&
		    dwarf_hasattr(fn, DW_AT_low_pc))
			visit(cu, fn);
	});
}


std::string norm_mod(std::string s)
{
	std::replace(s.begin(), s.end(), '-', '_');
	return s;
}

bool is_ko_of(const fs::path &p, const std::string &module)
{
	std::string f = p.filename().string();
	for (const char *ext : {".ko", ".ko.xz", ".ko.zst", ".ko.gz"}) {
		std::string e = ext;
		if (f.size() > e.size() && f.compare(f.size() - e.size(), e.size(), e) == 0)
			return norm_mod(f.substr(0, f.size() - e.size())) == norm_mod(module);
	}
	return false;
}

// Searches dir recursively (each dir and module once per run: every @cast
// and DWARF probe point of a module asks again).
std::string find_in_dir(State &st, const std::string &dir, const std::string &module)
{
	auto &cache = st.found;
	auto key = std::make_pair(dir, norm_mod(module));
	if (auto c = cache.find(key); c != cache.end())
		return c->second;
	std::string &found = cache[key];
	std::error_code ec;
	for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
	     !ec && it != end; it.increment(ec))
		if (it->is_regular_file(ec) && is_ko_of(it->path(), module))
			return found = it->path().string();
	return found;
}

// The DWARF file of module ("" : the kernel). for_cast: the messages are
// about @cast's module argument.
Result<std::string> dwarf_file_of(State &st, const Options &c, const std::string &module,
				  bool for_cast = false)
{
	if (module.empty()) {
		std::vector<std::string> cands;
		if (!c.vmlinux.empty())
			cands.push_back(c.vmlinux);
		cands.push_back("/usr/lib/debug/boot/vmlinux-" + c.release);
		cands.push_back("/usr/lib/debug/lib/modules/" + c.release + "/vmlinux");
		cands.push_back("/lib/modules/" + c.release + "/build/vmlinux");
		for (const std::string &p : cands)
			if (fs::is_regular_file(p))
				return p;
		return kernel_info_missing(c.release, cands[c.vmlinux.empty() ? 0 : 1], for_cast);
	}
	for (const std::string &f : c.module_files)
		if (is_ko_of(f, module))
			return f;
	std::vector<std::string> dirs = c.module_dirs;
	dirs.push_back(kernel::modules_dir(c.release));
	for (const std::string &d : dirs) {
		std::string p = find_in_dir(st, d, module);
		if (!p.empty())
			return p;
	}
	std::string in;
	for (size_t i = 0; i < dirs.size(); i++)
		in += (i ? ", " : "") + dirs[i];
	return module_info_missing(module, in, for_cast);
}

const TypeIndex &type_index(State &st, Dwarf *dbg)
{
	std::map<Dwarf *, TypeIndex> &cache = st.types;
	auto it = cache.find(dbg);
	if (it != cache.end())
		return it->second;
	TypeIndex &ix = cache[dbg];
	dwarfloc::each_top_die(dbg, [&](Dwarf_Die *, Dwarf_Die *d) {
		int tag = dwarf_tag(d);
		const char *kw = tag == DW_TAG_structure_type ? "struct "
				 : tag == DW_TAG_union_type   ? "union "
				 : tag == DW_TAG_typedef      ? "typedef "
							      : nullptr;
		const char *nm = kw ? dwarf_diename(d) : nullptr;
		if (!nm)
			return;
		std::string key = kw + std::string(nm);
		if (dwarf_hasattr(d, DW_AT_declaration))
			ix.declared.insert(key);
		else
			ix.defs.emplace(key, dwarf_dieoffset(d));
	});
	for (const auto &[k, o] : ix.defs)
		ix.declared.erase(k);
	return ix;
}

// A struct or union that is only declared here (a pointer to a type
// defined in another compilation unit): its definition in the same file.
void complete(State &st, Dwarf_Die *t)
{
	int tag = dwarf_tag(t);
	const char *nm = dwarf_diename(t);
	if ((tag != DW_TAG_structure_type && tag != DW_TAG_union_type) || !nm ||
	    !dwarf_hasattr(t, DW_AT_declaration))
		return;
	Dwarf *dbg = dwarf_cu_getdwarf(t->cu);
	if (!dbg)
		return;
	const TypeIndex &ix = type_index(st, dbg);
	auto it = ix.defs.find((tag == DW_TAG_structure_type ? "struct " : "union ") + std::string(nm));
	Dwarf_Die def;
	if (it != ix.defs.end() && dwarf_offdie(dbg, it->second, &def))
		*t = def;
}

// complete() as the shared member walk takes it.
dwarfloc::Completer completer(State &st)
{
	return [&st](Dwarf_Die *t) { complete(st, t); };
}

using dwarfloc::walk_members;



const int max_args = 6; // x86-64 SysV: rdi rsi rdx rcx r8 r9 (arm64 has 8)

// The C type a by-value argument of type t is passed as, ABI-compatibly
// (integers by size and sign, pointers as void *); "" for anything else
// (floats, structs and unions by value).
std::string abi_type(Dwarf_Die t)
{
	if (!strip(&t))
		return "";
	if (dwarf_tag(&t) == DW_TAG_base_type) {
		Dwarf_Attribute a;
		Dwarf_Word enc = 0;
		if (dwarf_attr_integrate(&t, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		if (enc == DW_ATE_boolean)
			return "bool";
	}
	unsigned sz;
	bool sg;
	if (!scalar(t, sz, sg))
		return "";
	if (dwarf_tag(&t) == DW_TAG_pointer_type)
		return "void *";
	return (sg ? "s" : "u") + std::to_string(sz * 8);
}

// positional: a tracepoint prototype, every parameter's arg is its position
KernelFunction make_function(Dwarf_Die *fn, const std::string &module, const std::string &file,
		       bool positional = false)
{
	KernelFunction f;
	const char *nm = dwarf_diename(fn);
	f.name = nm ? nm : "";
	f.module = module;
	const char *df = dwarf_decl_file(fn);
	f.file = df ? df : "";
	dwarf_decl_line(fn, &f.line);
	f.ret_type = type_str(fn);
	Dwarf_Die rt;
	unsigned sz;
	bool sg;
	f.ret_scalar = type_die(fn, &rt) && scalar(rt, sz, sg);
	f.info_file = file;
	f.info_id = dwarf_dieoffset(fn);
	f.tracepoint = positional;
	Dwarf_Die p;
	int idx = 0;
	if (dwarf_child(fn, &p) == 0) {
		do {
			if (dwarf_tag(&p) != DW_TAG_formal_parameter)
				continue;
			KernelParam pa;
			const char *pn = dwarf_diename(&p);
			pa.name = pn ? pn : "";
			pa.type = type_str(&p);
			Dwarf_Die pt;
			// integers and pointers take one argument register each
			bool is_scalar = type_die(&p, &pt) && scalar(pt, sz, sg);
			if (is_scalar && (positional || idx < max_args))
				pa.arg = idx;
			if (positional && type_die(&p, &pt))
				pa.abi = abi_type(pt);
			idx++;
			f.params.push_back(pa);
		} while (dwarf_siblingof(&p, &p) == 0);
	}
	return f;
}



// The offset into fn of the first statement of `line` in a file matching
// file_glob; nothing when the line holds none of fn's statements.
std::optional<uint32_t> line_offset(Dwarf_Die *cu, Dwarf_Die *fn, int line,
				    const std::string &file_glob)
{
	Dwarf_Addr lo = 0, hi = 0;
	if (dwarf_lowpc(fn, &lo) != 0 || dwarf_highpc(fn, &hi) != 0)
		return std::nullopt;
	auto a = dwarfloc::line_addr(cu, fn, line, file_glob);
	if (!a || *a < lo || *a >= hi)
		return std::nullopt;
	return static_cast<uint32_t>(*a - lo);
}

bool by_name(const KernelFunction &a, const KernelFunction &b)
{
	return a.name < b.name;
}

// The DWARF type of fn's parameter `name` (which exists) in t.
void param_type(Dwarf_Die *fn, const std::string &name, Dwarf_Die *t)
{
	Dwarf_Die p;
	dwarf_child(fn, &p);
	do {
		const char *pn = dwarf_diename(&p);
		if (dwarf_tag(&p) == DW_TAG_formal_parameter && pn && name == pn)
			break;
	} while (dwarf_siblingof(&p, &p) == 0);
	type_die(&p, t);
}

// The index keys a @cast type may be defined under, in the order tried.
std::vector<std::string> cast_keys(const CastType &t)
{
	if (!t.keyword.empty())
		return {t.keyword + " " + t.name};
	return {"typedef " + t.name, "struct " + t.name, "union " + t.name};
}

// Candidates for "did you mean" among ix's types, spelled as they would be
// used (keyword: @cast's, "" : none).
void near_types(const TypeIndex &ix, const std::string &keyword,
		std::map<std::string, std::string> &near_names)
{
	for (const auto &[k, o] : ix.defs) {
		(void)o;
		std::string bare = k.substr(k.find(' ') + 1);
		bool same = keyword.empty() || k.rfind(keyword + " ", 0) == 0;
		if (!near_names.count(bare) || same)
			near_names[bare] = keyword.empty() || k.rfind("typedef ", 0) == 0 ? bare : k;
	}
}

// The message for a @cast type that none of the `searched` files defines.
CastError cast_type_missing(State &st, const CastType &t, const std::vector<std::string> &searched,
			    std::map<std::string, std::string> &near_names)
{
	CastError e;
	e.part = CastError::Type;
	bool declared = false;
	for (const std::string &p : searched) {
		auto h = open_file(st, p);
		if (h)
			for (const std::string &k : cast_keys(t))
				declared = declared || type_index(st, (*h)->dbg).declared.count(k);
	}
	std::string in;
	for (size_t i = 0; i < searched.size(); i++)
		in += (i ? ", " : "") + searched[i];
	return cast_type_missing_error(e, t, declared, in, near_names);
}

// The file @cast's module entry m names, or the error about it.
std::variant<std::string, CastError> cast_file(State &st, const Options &o, const std::string &m)
{
	CastError me;
	me.part = CastError::Module;
	std::string path = m;
	if (m.find('/') == std::string::npos) {
		auto p = dwarf_file_of(st, o, m == "kernel" ? "" : m, true);
		if (!p) {
			me.msg = p.error().what;
			me.hint = p.error().hint;
			return me;
		}
		path = *p;
	} else if (!fs::is_regular_file(path)) {
		me.msg = "@cast's module file " + path + " does not exist";
		return me;
	}
	return path;
}

} // namespace

Reader::Reader(Options opts) : opts_(std::move(opts)), state_(std::make_unique<State>()) {}

Reader::~Reader() = default;

bool Reader::has_dwarf(const std::string &module) const
{
	Result<std::string> path = module.find('/') != std::string::npos
					   ? Result<std::string>(module)
					   : dwarf_file_of(*state_, opts_, module);
	return path && open_file(*state_, *path);
}

Result<std::vector<KernelFunction>> Reader::find_functions(const std::string &module,
							   const std::string &pattern) const
{
	auto fp = parse_function_pattern(pattern);
	if (!fp)
		return fp.error();
	if (fp->many_lines())
		return many_lines_unsupported(pattern);
	auto path = dwarf_file_of(*state_, opts_, module);
	if (!path)
		return path.error();
	auto h = open_file(*state_, *path);
	if (!h)
		return h.error();
	std::vector<KernelFunction> out;
	std::set<std::string> seen;
	each_defined_function(*h, [&](Dwarf_Die *cu, Dwarf_Die *fn) {
		const char *nm = dwarf_diename(fn);
		if (!nm || fnmatch(fp->glob.c_str(), nm, 0) != 0)
			return;
		KernelFunction f = make_function(fn, module, *path);
		if (!file_matches(fp->file_glob, f.file, cu))
			return;
		if (fp->line > 0) {
			auto off = line_offset(cu, fn, fp->line, fp->file_glob);
			if (!off)
				return;
			f.offset = *off;
			f.line = fp->line;
		}
		if (seen.insert(f.name).second)
			out.push_back(std::move(f));
	});
	if (out.empty())
		return fail("no function matches '" + pattern + "' in " + *path,
			    fp->line > 0 ? "the line must hold a statement of the function" : "");
	std::sort(out.begin(), out.end(), by_name);
	return out;
}

Result<std::vector<KernelFunction>> Reader::tracepoint_functions(const std::string &path,
								 const std::string &prefix,
								 const std::string &decl_suffix) const
{
	auto h = open_file(*state_, path);
	if (!h)
		return h.error();
	auto ends_with = [](const std::string &s, const std::string &suf) {
		return s.size() >= suf.size() && s.compare(s.size() - suf.size(), suf.size(), suf) == 0;
	};
	std::vector<KernelFunction> out;
	each_defined_function(*h, [&](Dwarf_Die *, Dwarf_Die *fn) {
		const char *nm = dwarf_diename(fn);
		const char *df = dwarf_decl_file(fn);
		if (!nm || std::string(nm).rfind(prefix, 0) != 0 || !df ||
		    !ends_with(df, "/" + decl_suffix))
			return;
		KernelFunction f = make_function(fn, "", path, true);
		f.name = f.name.substr(prefix.size());
		out.push_back(std::move(f));
	});
	std::sort(out.begin(), out.end(), by_name);
	return out;
}

// target_access, with the type the walk ends at (end).
namespace {

// Whether $name of f is read from the argument registers at the function's
// entry, by the calling convention (as the BTF facts read parameters):
// tracepoint arguments, and at entry every parameter in an argument
// register. Everything else (any variable of a statement probe inside the
// function, a parameter passed on the stack or by value, a local) is read
// where the DWARF location says it is at the probe address.
bool at_entry_registers(const KernelFunction &f, const std::string &name)
{
	if (f.tracepoint)
		return true;
	if (f.offset != 0)
		return false;
	for (const KernelParam &p : f.params)
		if (p.name == name)
			return p.arg >= 0;
	return false;
}

// The call frame information of h whose addresses are the DWARF's own
// (.debug_frame, else .eh_frame; the kernel has no .eh_frame on x86).
std::vector<Dwarf_CFI *> cfi_of(const Handle &h)
{
	std::vector<Dwarf_CFI *> out;
	Dwarf_Addr b = 0;
	if (Dwarf_CFI *c = dwfl_module_dwarf_cfi(h.mod, &b); c && b == h.bias)
		out.push_back(c);
	if (Dwarf_CFI *c = dwfl_module_eh_cfi(h.mod, &b); c && b == h.bias)
		out.push_back(c);
	return out;
}

// Which registers a Location of h's file numbers: its ELF machine's.
Result<Arch> arch_of(const Handle &h, const std::string &path)
{
	GElf_Ehdr eh;
	Elf *e = dwarf_getelf(h.dbg);
	if (e && gelf_getehdr(e, &eh))
		if (std::optional<Arch> a = arch_of_elf_machine(eh.e_machine))
			return *a;
	return fail(path + ": DWARF locations are read for x86-64 and arm64 only");
}

// $parts... of f read where DWARF places it at the probe address (the
// function's low pc plus f.offset): registers and stack slots of the
// probed context, read by the runtime from its pt_regs. Static variables
// are refused: a module's sections load apart from each other.
Result<TargetAccess> located_access(State &st, const Handle *h, const KernelFunction &f,
				    Dwarf_Die *fn, const std::vector<std::string> &parts,
				    bool in_return, Dwarf_Die *end)
{
	Dwarf_Addr lo = 0;
	if (dwarf_lowpc(fn, &lo) != 0)
		return fail("lost the address of " + f.name + "() in " + f.info_file);
	auto arch = arch_of(*h, f.info_file);
	if (!arch)
		return arch.error();
	dwarfloc::Site s{{*arch, lo + f.offset, fn, cfi_of(*h), "", ""}, f.name, false,
			 completer(st)};
	auto acc = dwarfloc::variable_access(s, parts, in_return, end);
	if (acc && acc->loc.kind == Location::Static)
		return fail("$" + parts[0] + " is a static variable of " +
				    (f.module.empty() ? std::string("the kernel") : f.module) +
				    ": kernel probes read parameters and locals",
			    "read it through a pointer a parameter or local holds, or with "
			    "kernel_long() at its address");
	return acc;
}


Result<TargetAccess> access_of(State &st, const KernelFunction &f, const std::string &spelling,
			       bool in_return, Dwarf_Die *end)
{
	// split "$a->b[2]->c"
	std::vector<std::string> parts = split_target_spelling(spelling);
	auto h = open_file(st, f.info_file);
	if (!h)
		return h.error();
	Dwarf_Die fn;
	if (!dwarf_offdie((*h)->dbg, f.info_id, &fn))
		return fail("lost the DWARF of " + f.name);
	TargetAccess acc;
	Dwarf_Die t;
	std::string where = f.tracepoint ? " in tracepoint " + f.name : " in " + f.name + "()";
	if (parts[0] == "return") {
		if (!in_return)
			return fail("$return is only available in .return probes");
		if (!type_die(&fn, &t))
			return fail(f.name + "() returns void: no $return");
		acc.base = TargetAccess::Return;
	} else if (!at_entry_registers(f, parts[0])) {
		return located_access(st, *h, f, &fn, parts, in_return, end);
	} else {
		auto pa = parameter_access(f, parts[0]);
		if (!pa)
			return pa.error();
		acc = *pa;
		param_type(&fn, parts[0], &t);
	}
	std::vector<std::string> members(parts.begin() + 1, parts.end());
	WalkFail wf;
	if (walk_members(completer(st), t, false, members, acc, wf, end))
		return acc;
	return tvar_walk_error(wf, parts[0], members, where);
}

} // namespace

Result<TargetAccess> Reader::target_access(const KernelFunction &f, const std::string &spelling,
					   bool in_return) const
{
	return access_of(*state_, f, spelling, in_return, nullptr);
}

std::vector<KernelParam> Reader::locals(const KernelFunction &f) const
{
	Dwarf_Die fn;
	Dwarf_Addr lo = 0;
	if (f.tracepoint)
		return {};
	auto h = open_file(*state_, f.info_file);
	if (!h || !dwarf_offdie((*h)->dbg, f.info_id, &fn) || dwarf_lowpc(&fn, &lo) != 0)
		return {};
	return dwarfloc::locals_at(&fn, lo + f.offset);
}

namespace {

void pretty_type(State &st, Dwarf_Die t, int depth, TypeMember &m, int guard = 0);

// The members of struct/union s at offset base into out, anonymous
// members' members inline; a bit field is Other.
void pretty_members(State &st, Dwarf_Die *s, int depth, int64_t base, std::vector<TypeMember> &out,
		    int guard)
{
	Dwarf_Die c;
	if (dwarf_child(s, &c) != 0)
		return;
	do {
		if (dwarf_tag(&c) != DW_TAG_member)
			continue;
		Dwarf_Word moff = 0;
		Dwarf_Attribute a;
		if (dwarf_attr_integrate(&c, DW_AT_data_member_location, &a))
			dwarf_formudata(&a, &moff);
		int64_t off = base + static_cast<int64_t>(moff);
		Dwarf_Die mt;
		bool typed = type_die(&c, &mt);
		const char *mn = dwarf_diename(&c);
		if (!mn) {
			Dwarf_Die bare = mt;
			if (typed && strip(&bare) && guard < 16 &&
			    (dwarf_tag(&bare) == DW_TAG_structure_type ||
			     dwarf_tag(&bare) == DW_TAG_union_type))
				pretty_members(st, &bare, depth, off, out, guard + 1);
			continue;
		}
		TypeMember &m = out.emplace_back();
		m.name = mn;
		m.offset = off;
		if (typed)
			pretty_type(st, mt, depth, m, guard);
		if (dwarf_hasattr(&c, DW_AT_bit_size) || dwarf_hasattr(&c, DW_AT_data_bit_offset))
			m.kind = TypeMember::Other;
	} while (dwarf_siblingof(&c, &c) == 0);
}

// An array type s: a char array (a string), else its element (one
// dimension; more print as "[...]").
void pretty_array(State &st, Dwarf_Die *s, int depth, TypeMember &m, int guard)
{
	std::vector<uint64_t> dims = array_dims(s);
	Dwarf_Die el;
	m.kind = TypeMember::Array;
	if (dims.size() != 1 || !type_die(s, &el))
		return;
	m.count = dims[0];
	Dwarf_Die bare = el;
	const char *en = strip(&bare) ? dwarf_diename(&bare) : nullptr;
	if (dwarf_tag(&bare) == DW_TAG_base_type && en && std::string(en) == "char")
		m.kind = TypeMember::CharArray;
	TypeMember &e = m.members.emplace_back();
	if (guard < 16)
		pretty_type(st, el, depth, e, guard + 1);
	if (!m.size)
		m.size = m.count * e.size;
}

// The pretty-printing shape of a value of type t into m (name and offset
// are the caller's); depth: levels of nested structs still expanded.
void pretty_type(State &st, Dwarf_Die t, int depth, TypeMember &m, int guard)
{
	m.type = type_name(t);
	m.kind = TypeMember::Other;
	Dwarf_Die s = t;
	if (!strip(&s))
		return;
	complete(st, &s);
	Dwarf_Word sz = 0;
	Dwarf_Attribute a;
	if (dwarf_attr_integrate(&s, DW_AT_byte_size, &a))
		dwarf_formudata(&a, &sz);
	m.size = sz;
	switch (dwarf_tag(&s)) {
	case DW_TAG_pointer_type:
		m.kind = TypeMember::Pointer;
		m.size = 8;
		break;
	case DW_TAG_base_type: {
		Dwarf_Word enc = 0;
		if (dwarf_attr_integrate(&s, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
		if (enc != DW_ATE_float)
			m.kind = enc == DW_ATE_signed || enc == DW_ATE_signed_char ? TypeMember::Signed
										    : TypeMember::Unsigned;
		break;
	}
	case DW_TAG_enumeration_type:
		m.kind = TypeMember::Enum;
		break;
	case DW_TAG_array_type:
		pretty_array(st, &s, depth, m, guard);
		break;
	case DW_TAG_structure_type: case DW_TAG_union_type:
		m.kind = dwarf_tag(&s) == DW_TAG_structure_type ? TypeMember::Struct : TypeMember::Union;
		if (depth > 0 && guard < 16 && !dwarf_hasattr(&s, DW_AT_declaration)) {
			m.expanded = true;
			pretty_members(st, &s, depth - 1, 0, m.members, guard + 1);
		}
		break;
	default:
		break;
	}
}

} // namespace

Result<KernelFacts::Pretty> Reader::type_members(const KernelFunction &f,
						 const std::string &spelling, bool in_return,
						 int depth) const
{
	Dwarf_Die end;
	Result<TargetAccess> acc = access_of(*state_, f, spelling, in_return, &end);
	if (!acc)
		return acc.error();
	KernelFacts::Pretty p;
	Dwarf_Die s = end;
	if (strip(&s) && dwarf_tag(&s) == DW_TAG_pointer_type) {
		Dwarf_Die to;
		if (type_die(&s, &to) && strip(&to)) {
			complete(*state_, &to);
			if (dwarf_tag(&to) == DW_TAG_structure_type || dwarf_tag(&to) == DW_TAG_union_type) {
				p.pointee = true;
				end = to;
			}
		}
	}
	pretty_type(*state_, end, depth, p.root);
	return p;
}

CastAccess Reader::cast_access(const std::string &module, const std::string &type,
			       const std::vector<std::string> &members) const
{
	auto parsed = parse_cast_type(type);
	if (auto *e = std::get_if<CastError>(&parsed))
		return *e;
	const CastType &ct = std::get<CastType>(parsed);
	// the modules, in order: the first whose DWARF defines the type
	std::vector<std::string> searched;
	std::map<std::string, std::string> near_names; // name -> its spelling
	std::optional<CastError> missing; // the first module without a DWARF file
	for (const std::string &m : cast_modules(module)) {
		if (auto bad = bad_cast_module(m, module))
			return *bad;
		auto file = cast_file(*state_, opts_, m);
		Result<const Handle *> h = fail("");
		if (auto *p = std::get_if<std::string>(&file)) {
			if (!(h = open_file(*state_, *p))) {
				CastError me;
				me.part = CastError::Module;
				me.msg = h.error().what;
				file = me;
			}
		}
		if (auto *me = std::get_if<CastError>(&file)) {
			if (!missing)
				missing = *me;
			continue;
		}
		const std::string &path = std::get<std::string>(file);
		searched.push_back(path);
		const TypeIndex &ix = type_index(*state_, (*h)->dbg);
		for (const std::string &k : cast_keys(ct)) {
			auto it = ix.defs.find(k);
			Dwarf_Die t;
			if (it == ix.defs.end() || !dwarf_offdie((*h)->dbg, it->second, &t))
				continue;
			TargetAccess acc;
			WalkFail wf;
			if (walk_members(completer(*state_), t, true, members, acc, wf))
				return acc;
			return cast_walk_error(wf, members, ct.shown(), path);
		}
		near_types(ix, ct.keyword, near_names);
	}
	if (searched.empty())
		return *missing;
	return cast_type_missing(*state_, ct, searched, near_names);
}

} // namespace stap_pmu::dwarf
