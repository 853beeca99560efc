// dwarf.cpp - DWARF lookups through libdw/libdwfl (offline reporting, which
// applies the relocations of .ko files).
#include "translator/dwarf.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

namespace stap_pmu::dwarf {

namespace fs = std::filesystem;

Config &config()
{
	static Config c;
	return c;
}

namespace {

struct Handle {
	Dwfl *dwfl = nullptr;
	Dwarf *dbg = nullptr;
	Dwarf_Addr bias = 0;
};

// Opened files stay open for the life of the process.
const Handle *open_file(const std::string &path, std::string &err)
{
	static std::map<std::string, Handle> cache;
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
		err = "cannot read " + path + ": " + dwfl_errmsg(-1);
		if (h.dwfl)
			dwfl_end(h.dwfl);
		return nullptr;
	}
	dwfl_report_end(h.dwfl, nullptr, nullptr);
	h.dbg = dwfl_module_getdwarf(m, &h.bias);
	if (!h.dbg) {
		err = path + " has no DWARF debugging information";
		dwfl_end(h.dwfl);
		return nullptr;
	}
	return &(cache[path] = h);
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

std::string find_in_dir(const std::string &dir, const std::string &module)
{
	std::error_code ec;
	for (fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec), end;
	     !ec && it != end; it.increment(ec))
		if (it->is_regular_file(ec) && is_ko_of(it->path(), module))
			return it->path().string();
	return "";
}

// The DWARF file of module ("" : the kernel), or "" with err/hint set.
std::string dwarf_file_of(const std::string &module, std::string &err, std::string &hint)
{
	const Config &c = config();
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
		err = "kernel.function needs the kernel's DWARF: " + cands[c.vmlinux.empty() ? 0 : 1] +
		      " not found";
		hint = "give a debug vmlinux with --vmlinux FILE (package linux-image-" + c.release +
		       "-dbg), or probe by symbol with kprobe.function(\"name\"), which needs no DWARF";
		return "";
	}
	for (const std::string &f : c.module_files)
		if (is_ko_of(f, module))
			return f;
	std::vector<std::string> dirs = c.module_dirs;
	dirs.push_back("/lib/modules/" + c.release);
	for (const std::string &d : dirs) {
		std::string p = find_in_dir(d, module);
		if (!p.empty())
			return p;
	}
	err = "module(\"" + module + "\") needs " + module + ".ko with DWARF: not found in ";
	for (size_t i = 0; i < dirs.size(); i++)
		err += (i ? ", " : "") + dirs[i];
	hint = "give its directory with --module-dir DIR, or probe by symbol with "
	       "kprobe.module(\"" + module + "\").function(\"name\"), which needs no DWARF";
	return "";
}

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

std::string type_str(Dwarf_Die *die)
{
	Dwarf_Die t;
	if (!type_die(die, &t))
		return "void";
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

// Finds member `name` in struct/union t (anonymous members searched too).
bool find_member(Dwarf_Die *t, const std::string &name, Dwarf_Die *out, int64_t &off)
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
			if (dwarf_hasattr(&m, DW_AT_bit_size) || dwarf_hasattr(&m, DW_AT_data_bit_offset))
				return false;
			*out = m;
			off = static_cast<int64_t>(moff);
			return true;
		}
		if (!mn) {
			Dwarf_Die mt;
			int64_t sub = 0;
			if (type_die(&m, &mt) && strip(&mt) && find_member(&mt, name, out, sub)) {
				off = static_cast<int64_t>(moff) + sub;
				return true;
			}
		}
	} while (dwarf_siblingof(&m, &m) == 0);
	return false;
}

const int max_args = 6; // x86-64 SysV: rdi rsi rdx rcx r8 r9 (arm64 has 8)

Function make_function(Dwarf_Die *fn, const std::string &module, const std::string &file)
{
	Function f;
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
	f.dwarf_file = file;
	f.die = dwarf_dieoffset(fn);
	Dwarf_Die p;
	int idx = 0;
	if (dwarf_child(fn, &p) == 0) {
		do {
			if (dwarf_tag(&p) != DW_TAG_formal_parameter)
				continue;
			Param pa;
			const char *pn = dwarf_diename(&p);
			pa.name = pn ? pn : "";
			pa.type = type_str(&p);
			Dwarf_Die pt;
			// integers and pointers take one argument register each
			if (type_die(&p, &pt) && scalar(pt, sz, sg) && idx < max_args)
				pa.arg = idx;
			idx++;
			f.params.push_back(pa);
		} while (dwarf_siblingof(&p, &p) == 0);
	}
	return f;
}

bool file_matches(const std::string &glob, const std::string &file)
{
	if (glob.empty())
		return true;
	std::string base = fs::path(file).filename().string();
	return fnmatch(glob.c_str(), file.c_str(), 0) == 0 ||
	       fnmatch(glob.c_str(), base.c_str(), 0) == 0 ||
	       fnmatch(("*/" + glob).c_str(), file.c_str(), 0) == 0;
}

} // namespace

std::optional<std::vector<Function>> find_functions(const std::string &module,
						    const std::string &pattern, std::string &err,
						    std::string &hint)
{
	std::string fglob = pattern, file_glob;
	int line = 0;
	size_t at = pattern.find('@');
	if (at != std::string::npos) {
		fglob = pattern.substr(0, at);
		file_glob = pattern.substr(at + 1);
		size_t colon = file_glob.rfind(':');
		if (colon != std::string::npos) {
			std::string ln = file_glob.substr(colon + 1);
			if (ln.empty() || ln.find_first_not_of("0123456789") != std::string::npos) {
				err = "bad line number '" + ln + "' in '" + pattern + "'";
				return std::nullopt;
			}
			line = std::stoi(ln);
			file_glob = file_glob.substr(0, colon);
		}
	}
	std::string path = dwarf_file_of(module, err, hint);
	if (path.empty())
		return std::nullopt;
	const Handle *h = open_file(path, err);
	if (!h)
		return std::nullopt;
	std::vector<Function> out;
	std::set<std::string> seen;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_nextcu(h->dbg, off, &next, &hsize, nullptr, nullptr, nullptr) == 0) {
		Dwarf_Die cu, fn;
		Dwarf_Off cuoff = off;
		off = next;
		if (!dwarf_offdie(h->dbg, cuoff + hsize, &cu) || dwarf_child(&cu, &fn) != 0)
			continue;
		do {
			if (dwarf_tag(&fn) != DW_TAG_subprogram || dwarf_hasattr(&fn, DW_AT_declaration) ||
			    !dwarf_hasattr(&fn, DW_AT_low_pc))
				continue;
			const char *nm = dwarf_diename(&fn);
			if (!nm || fnmatch(fglob.c_str(), nm, 0) != 0)
				continue;
			Function f = make_function(&fn, module, path);
			if (!file_matches(file_glob, f.file))
				continue;
			if (line > 0) {
				Dwarf_Addr lo = 0, hi = 0;
				Dwarf_Lines *lines;
				size_t n;
				if (dwarf_lowpc(&fn, &lo) != 0 || dwarf_highpc(&fn, &hi) != 0 ||
				    dwarf_getsrclines(&cu, &lines, &n) != 0)
					continue;
				Dwarf_Addr best = 0;
				bool found = false;
				for (size_t i = 0; i < n; i++) {
					Dwarf_Line *l = dwarf_onesrcline(lines, i);
					int ln;
					Dwarf_Addr a;
					bool stmt = false;
					const char *src = dwarf_linesrc(l, nullptr, nullptr);
					if (dwarf_lineno(l, &ln) != 0 || ln != line || dwarf_lineaddr(l, &a) != 0 ||
					    a < lo || a >= hi || dwarf_linebeginstatement(l, &stmt) != 0 || !stmt ||
					    !src || !file_matches(file_glob, src))
						continue;
					if (!found || a < best)
						best = a;
					found = true;
				}
				if (!found)
					continue;
				f.offset = static_cast<uint32_t>(best - lo);
				f.line = line;
			}
			if (seen.insert(f.name).second)
				out.push_back(std::move(f));
		} while (dwarf_siblingof(&fn, &fn) == 0);
	}
	if (out.empty()) {
		err = "no function matches '" + pattern + "' in " + path;
		if (line > 0)
			hint = "the line must hold a statement of the function";
		return std::nullopt;
	}
	std::sort(out.begin(), out.end(),
		  [](const Function &a, const Function &b) { return a.name < b.name; });
	return out;
}

std::optional<Access> target_access(const Function &f, const std::string &spelling,
				    bool in_return, std::string &err)
{
	// split "$a->b->c"
	std::vector<std::string> parts;
	std::string s = spelling.substr(1);
	for (size_t p; (p = s.find("->")) != std::string::npos; s = s.substr(p + 2))
		parts.push_back(s.substr(0, p));
	parts.push_back(s);
	const Handle *h = open_file(f.dwarf_file, err);
	if (!h)
		return std::nullopt;
	Dwarf_Die fn;
	if (!dwarf_offdie(h->dbg, f.die, &fn)) {
		err = "lost the DWARF of " + f.name;
		return std::nullopt;
	}
	Access acc;
	Dwarf_Die t;
	std::string where = " in " + f.name + "()";
	if (parts[0] == "return") {
		if (!in_return) {
			err = "$return is only available in .return probes";
			return std::nullopt;
		}
		if (!type_die(&fn, &t)) {
			err = f.name + "() returns void: no $return";
			return std::nullopt;
		}
		acc.base = Access::Return;
	} else {
		bool found = false;
		for (const Param &p : f.params)
			if (p.name == parts[0]) {
				if (p.arg < 0) {
					err = "parameter '$" + p.name + "' of type " + p.type + where +
					      " is not an integer or pointer in an argument register";
					return std::nullopt;
				}
				acc.arg = p.arg;
				found = true;
			}
		if (!found) {
			std::string names;
			for (const Param &p : f.params)
				names += (names.empty() ? "" : " ") + ("$" + p.name);
			err = "'$" + parts[0] + "' is not a parameter of " + f.name + "()" +
			      (names.empty() ? " (it has none)" : " (parameters: " + names + ")");
			return std::nullopt;
		}
		Dwarf_Die p;
		dwarf_child(&fn, &p);
		do {
			const char *pn = dwarf_diename(&p);
			if (dwarf_tag(&p) == DW_TAG_formal_parameter && pn && parts[0] == pn)
				break;
		} while (dwarf_siblingof(&p, &p) == 0);
		type_die(&p, &t);
	}
	std::string path = "$" + parts[0];
	for (size_t i = 1; i < parts.size(); i++) {
		Dwarf_Die pt = t;
		if (!strip(&pt) || dwarf_tag(&pt) != DW_TAG_pointer_type || !type_die(&pt, &pt) ||
		    !strip(&pt) ||
		    (dwarf_tag(&pt) != DW_TAG_structure_type && dwarf_tag(&pt) != DW_TAG_union_type)) {
			err = "'" + path + "' is not a pointer to a struct or union" + where +
			      ", cannot use '->" + parts[i] + "'";
			return std::nullopt;
		}
		Dwarf_Die m;
		int64_t moff;
		if (!find_member(&pt, parts[i], &m, moff)) {
			err = "no member '" + parts[i] + "' (or a bit field) in the type of '" + path +
			      "'" + where;
			return std::nullopt;
		}
		acc.offsets.push_back(static_cast<int32_t>(moff));
		type_die(&m, &t);
		path += "->" + parts[i];
	}
	unsigned sz = 8;
	bool sg = false;
	if (scalar(t, sz, sg)) {
		acc.size = sz;
		acc.is_signed = sg;
		acc.deref_last = !acc.offsets.empty();
	} else if (!acc.offsets.empty()) {
		Dwarf_Die st = t;
		strip(&st);
		if (dwarf_tag(&st) != DW_TAG_array_type && dwarf_tag(&st) != DW_TAG_structure_type &&
		    dwarf_tag(&st) != DW_TAG_union_type) {
			err = "'" + path + "' has a type stap-pmu cannot read" + where;
			return std::nullopt;
		}
		acc.deref_last = false; // arrays and structs: their address
	} else {
		err = "'" + path + "' is not an integer or pointer" + where;
		return std::nullopt;
	}
	return acc;
}

std::string describe_vars(const Function &f, bool in_return)
{
	std::string s;
	for (const Param &p : f.params)
		s += (s.empty() ? "" : " ") + ("$" + p.name + ":" + p.type);
	if (in_return && f.ret_type != "void")
		s += (s.empty() ? "" : " ") + ("$return:" + f.ret_type);
	return s;
}

} // namespace stap_pmu::dwarf
