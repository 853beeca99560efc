// userinfo_test.cpp - ElfProcessFacts and dwarfloc against the programs
// tests/unit/CMakeLists.txt builds from tests/unit/userinfo/. Every expected
// address, offset and location is read independently from what binutils
// (nm, readelf, objdump) print for the same files.
#include "translator/dwarfloc/location.h"
#include "translator/support/file.h"
#include "translator/userinfo/elf_process_facts.h"

#include <gtest/gtest.h>

#include <dwarf.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace stap_pmu {
namespace {

namespace fs = std::filesystem;

const std::string dir = STAP_PMU_USERINFO_DIR;
const std::string prog0 = dir + "/prog_O0", prog2 = dir + "/prog_O2";

std::string run(const std::string &cmd)
{
	std::string out;
	FILE *p = popen(cmd.c_str(), "r");
	if (!p)
		return out;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, p)) > 0)
		out.append(buf, n);
	pclose(p);
	return out;
}

std::vector<std::string> names_of(const std::vector<KernelParam> &ps)
{
	std::vector<std::string> v;
	for (const KernelParam &p : ps)
		v.push_back(p.name);
	return v;
}

std::vector<std::string> lines_of(const std::string &s)
{
	std::vector<std::string> v;
	std::istringstream in(s);
	for (std::string l; std::getline(in, l);)
		v.push_back(l);
	return v;
}

// nm's address and size of symbol `name`.
std::pair<uint64_t, uint64_t> nm_symbol(const std::string &file, const std::string &name)
{
	for (const std::string &l : lines_of(run("nm -S " + file))) {
		std::istringstream in(l);
		std::string a, s, t, n;
		if (in >> a >> s >> t >> n && n == name)
			return {std::stoull(a, nullptr, 16), std::stoull(s, nullptr, 16)};
	}
	return {0, 0};
}

// The file offset of vaddr from readelf's program headers.
uint64_t phdr_offset(const std::string &file, uint64_t vaddr)
{
	for (const std::string &l : lines_of(run("readelf -lW " + file))) {
		std::istringstream in(l);
		std::string type, off, va, pa, fsz, msz;
		if (!(in >> type >> off >> va >> pa >> fsz >> msz) || type != "LOAD")
			continue;
		uint64_t o = std::stoull(off, nullptr, 16), v = std::stoull(va, nullptr, 16),
			 m = std::stoull(msz, nullptr, 16);
		if (vaddr >= v && vaddr < v + m)
			return vaddr - v + o;
	}
	return UINT64_MAX;
}

// objdump's decoded line table: (address, line) rows of statements.
std::vector<std::pair<uint64_t, int>> line_rows(const std::string &file)
{
	std::vector<std::pair<uint64_t, int>> rows;
	for (const std::string &l : lines_of(run("objdump --dwarf=decodedline " + file))) {
		std::istringstream in(l);
		std::string f, ln, addr;
		if (!(in >> f >> ln >> addr) || addr.rfind("0x", 0) != 0 ||
		    ln.find_first_not_of("0123456789") != std::string::npos ||
		    l.find(" x") == std::string::npos)
			continue;
		rows.push_back({std::stoull(addr, nullptr, 16), std::stoi(ln)});
	}
	return rows;
}

// The line number of the first line of prog.c containing s.
int source_line(const std::string &s)
{
	std::ifstream in(std::string(STAP_PMU_SOURCE_DIR) + "/tests/unit/userinfo/prog.c");
	int n = 0;
	for (std::string l; std::getline(in, l);)
		if (++n && l.find(s) != std::string::npos)
			return n;
	return 0;
}

// The DW_OP_fbreg offset readelf shows for parameter or variable `var` of
// function `fn`.
long fbreg_of(const std::string &file, const std::string &fn, const std::string &var)
{
	bool in_fn = false, at_var = false;
	for (const std::string &l : lines_of(run("readelf --debug-dump=info " + file))) {
		if (l.find("DW_TAG_subprogram") != std::string::npos)
			in_fn = at_var = false;
		size_t name = l.find("DW_AT_name");
		if (name != std::string::npos) {
			std::string n = l.substr(l.rfind(':') + 2);
			if (l.find("DW_TAG") == std::string::npos && !in_fn && n == fn)
				in_fn = true;
			else if (in_fn)
				at_var = n == var;
		}
		size_t fb = l.find("DW_OP_fbreg: ");
		if (in_fn && at_var && fb != std::string::npos)
			return std::stol(l.substr(fb + 13));
	}
	return LONG_MIN;
}

// The CFA rule readelf's interpreted frames give at pc: (DWARF register, offset).
std::pair<int, long> cfa_rule(const std::string &file, uint64_t pc)
{
	const std::map<std::string, int> regs = {{"rsp", 7}, {"rbp", 6}, {"sp", 31}, {"r29", 29},
						 {"x29", 29}};
	bool in = false;
	std::pair<int, long> rule{-1, 0};
	for (const std::string &l : lines_of(run("readelf --debug-dump=frames-interp " + file))) {
		size_t r = l.find(" pc=");
		if (r != std::string::npos) {
			uint64_t lo = std::stoull(l.substr(r + 4), nullptr, 16);
			uint64_t hi = std::stoull(l.substr(l.find("..", r) + 2), nullptr, 16);
			in = pc >= lo && pc < hi;
			continue;
		}
		std::istringstream row(l);
		std::string loc, cfa;
		if (!in || !(row >> loc >> cfa) || loc == "LOC" || cfa.find('+') == std::string::npos)
			continue;
		if (std::stoull(loc, nullptr, 16) > pc)
			break;
		std::string reg = cfa.substr(0, cfa.find('+'));
		rule = {regs.count(reg) ? regs.at(reg) : -2, std::stol(cfa.substr(cfa.find('+') + 1))};
	}
	return rule;
}

ElfProcessFacts facts(Arch arch = Arch::X86_64, std::vector<std::string> debug = {})
{
	ElfProcessFactsOptions o;
	o.arch = arch;
	o.debug_dirs = std::move(debug);
	return ElfProcessFacts(o);
}

UserFunction one(const ProcessFacts &f, const std::string &path, const std::string &pat, bool call)
{
	auto r = f.functions(path, pat, call);
	EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().what);
	if (!r.ok() || r->size() != 1)
		return {};
	return r->front();
}

TEST(UserInfo, ResolvePath)
{
	auto f = facts();
	auto abs = f.resolve_path(prog0);
	ASSERT_TRUE(abs.ok()) << abs.error().what;
	EXPECT_EQ(*abs, fs::canonical(prog0).string());
	// a bare name through $PATH, symlinks followed to the file uprobes attach to
	std::string sh = run("sh -c 'command -v ls'");
	sh.erase(sh.find_last_not_of('\n') + 1);
	auto ls = f.resolve_path("ls");
	ASSERT_TRUE(ls.ok()) << ls.error().what;
	EXPECT_EQ(*ls, fs::canonical(sh).string());
	auto t = sys::TempDir::create("userinfo");
	ASSERT_TRUE(t.ok());
	fs::create_symlink(prog0, t->path() + "/link");
	auto viaLink = f.resolve_path(t->path() + "/link");
	ASSERT_TRUE(viaLink.ok());
	EXPECT_EQ(*viaLink, fs::canonical(prog0).string());
	// the guest programs' directory after $PATH
	ElfProcessFactsOptions o;
	o.extra_dirs = {dir};
	auto extra = ElfProcessFacts(o).resolve_path("prog_O2");
	ASSERT_TRUE(extra.ok()) << extra.error().what;
	EXPECT_EQ(*extra, fs::canonical(prog2).string());
}

TEST(UserInfo, ResolvePathErrors)
{
	auto f = facts();
	auto missing = f.resolve_path("no-such-program-xyz");
	ASSERT_FALSE(missing.ok());
	EXPECT_EQ(missing.error().what, "cannot find program \"no-such-program-xyz\"");
	EXPECT_EQ(missing.error().hint.rfind("looked in $PATH and the guest programs: ", 0), 0u);
	EXPECT_EQ(f.resolve_path(dir + "/nope").error().what, dir + "/nope: no such file");
	EXPECT_EQ(f.resolve_path(dir).error().what, dir + " is not a regular file");
	std::string src = std::string(STAP_PMU_SOURCE_DIR) + "/tests/unit/userinfo/prog.c";
	EXPECT_EQ(f.resolve_path(src).error().what, src + " is not an ELF file");
	auto t = sys::TempDir::create("userinfo");
	ASSERT_TRUE(t.ok());
	ASSERT_EQ(system(("gcc -c -o " + t->path() + "/prog.o " + src).c_str()), 0);
	EXPECT_EQ(f.resolve_path(t->path() + "/prog.o").error().what,
		  t->path() + "/prog.o is not an executable or a shared library (ELF type 1)");
#ifdef STAP_PMU_USERINFO_ARM64
	std::string arm = fs::canonical(dir + "/prog_arm64_O0").string();
	EXPECT_EQ(f.resolve_path(arm).error().what,
		  arm + " is an arm64 ELF file, the target is x86");
	EXPECT_TRUE(facts(Arch::Arm64).resolve_path(arm).ok());
	EXPECT_EQ(facts(Arch::Arm64).resolve_path(prog0).error().what,
		  fs::canonical(prog0).string() + " is an x86-64 ELF file, the target is arm64");
	// a bare name: the first program of the target's architecture, past
	// one of another architecture earlier in $PATH
	fs::create_directories(t->path() + "/host");
	fs::create_directories(t->path() + "/guest");
	fs::copy_file(prog0, t->path() + "/host/prog");
	fs::copy_file(dir + "/prog_arm64_O0", t->path() + "/guest/prog");
	std::string saved = getenv("PATH") ? getenv("PATH") : "";
	setenv("PATH", (t->path() + "/host").c_str(), 1);
	ElfProcessFactsOptions o;
	o.arch = Arch::Arm64;
	o.extra_dirs = {t->path() + "/guest"};
	auto g = ElfProcessFacts(o).resolve_path("prog");
	o.arch = Arch::X86_64;
	auto h = ElfProcessFacts(o).resolve_path("prog");
	o.arch = Arch::Arm64;
	o.extra_dirs = {};
	auto none = ElfProcessFacts(o).resolve_path("prog");
	setenv("PATH", saved.c_str(), 1);
	ASSERT_TRUE(g.ok()) << g.error().what;
	EXPECT_EQ(*g, t->path() + "/guest/prog");
	ASSERT_TRUE(h.ok());
	EXPECT_EQ(*h, t->path() + "/host/prog");
	ASSERT_FALSE(none.ok());
	EXPECT_EQ(none.error().what, t->path() + "/host/prog is an x86-64 ELF file, the target is arm64");
#endif
}

// Functions from the symbol table alone: a copy without debugging information.
TEST(UserInfo, SymbolTableFunctions)
{
	auto t = sys::TempDir::create("userinfo");
	ASSERT_TRUE(t.ok());
	std::string nodebug = t->path() + "/nodebug";
	ASSERT_EQ(system(("objcopy --strip-debug " + prog2 + " " + nodebug).c_str()), 0);
	auto f = facts();
	auto r = f.functions(nodebug, "add_i*", false);
	ASSERT_TRUE(r.ok()) << r.error().what;
	ASSERT_EQ(r->size(), 1u);
	const UserFunction &u = r->front();
	auto [addr, size] = nm_symbol(nodebug, "add_ints");
	EXPECT_EQ(u.fn.name, "add_ints");
	EXPECT_EQ(u.vaddr, addr);
	EXPECT_EQ(u.offset, phdr_offset(nodebug, addr));
	EXPECT_FALSE(u.has_dwarf);
	EXPECT_FALSE(u.after_prologue);
	EXPECT_EQ(u.path, nodebug);
	auto v = f.target_access(u, "$a", false);
	ASSERT_FALSE(v.ok());
	EXPECT_EQ(v.error().what, "$a needs debugging information: " + nodebug +
					  " has none for add_ints()");
	auto stmt = f.functions(nodebug, "add_ints@prog.c:22", false);
	ASSERT_FALSE(stmt.ok());
	EXPECT_EQ(stmt.error().what, "\"add_ints@prog.c:22\" needs the debugging information of " +
					     nodebug + ", which has none");
}

TEST(UserInfo, StrippedBinary)
{
	auto f = facts();
	std::string s = dir + "/prog_stripped";
	auto r = f.functions(s, "main", false);
	ASSERT_FALSE(r.ok());
	EXPECT_EQ(r.error().what, s + " has no symbol table and no debugging information");
}

TEST(UserInfo, DwarfFunctions)
{
	auto f = facts();
	auto [entry, size] = nm_symbol(prog0, "add_ints");
	UserFunction c = one(f, prog0, "add_ints", true);
	EXPECT_EQ(c.vaddr, entry);
	EXPECT_EQ(c.offset, phdr_offset(prog0, entry));
	EXPECT_TRUE(c.has_dwarf);
	EXPECT_FALSE(c.after_prologue);
	EXPECT_EQ(c.fn.file.substr(c.fn.file.size() - 6), "prog.c");
	EXPECT_EQ(c.fn.line, source_line("int add_ints("));
	EXPECT_EQ(c.fn.ret_type, "int");
	ASSERT_EQ(c.fn.params.size(), 2u);
	EXPECT_EQ(c.fn.params[0].name, "a");
	EXPECT_EQ(c.fn.params[0].type, "int");
	EXPECT_EQ(c.fn.params[1].name, "b");
	EXPECT_EQ(c.fn.module, prog0);
	// past the prologue: the function's second line-table address
	uint64_t second = UINT64_MAX;
	for (auto [a, l] : line_rows(prog0))
		if (a > entry && a < entry + size && a < second)
			second = a;
	UserFunction p = one(f, prog0, "add_ints", false);
	EXPECT_EQ(p.vaddr, second);
	EXPECT_TRUE(p.after_prologue);
	EXPECT_EQ(p.offset, phdr_offset(prog0, second));
	// a statement: the first address of the line inside the function
	int line = source_line("global_count += sum;");
	uint64_t at = UINT64_MAX;
	for (auto [a, l] : line_rows(prog0))
		if (l == line && a >= entry && a < entry + size && a < at)
			at = a;
	UserFunction st = one(f, prog0, "add_ints@prog.c:" + std::to_string(line), false);
	EXPECT_EQ(st.vaddr, at);
	EXPECT_EQ(st.fn.offset, at - entry);
	EXPECT_EQ(st.fn.line, line);
	// globs, sorted by name; symbols without DWARF (crt code) are there too
	auto all = f.functions(prog0, "*", true);
	ASSERT_TRUE(all.ok());
	std::vector<std::string> names;
	for (const UserFunction &u : *all)
		names.push_back(u.fn.name);
	EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
	for (const char *n : {"add_ints", "by_value", "guarded", "main", "scale", "seven", "walk",
			      "_start"})
		EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
}

// A program built with relative source names (DWARF: "userinfo/prog.c"
// under DW_AT_comp_dir tests/unit): its functions match by that name, by
// the absolute path under the compilation directory, and by a tail of it,
// with and without a line; another directory does not match.
TEST(UserInfo, RelativeSourceNames)
{
	auto f = facts();
	const std::string rel = dir + "/prog_rel", src = STAP_PMU_USERINFO_SRC;
	UserFunction u = one(f, rel, "add_ints", true);
	EXPECT_EQ(u.fn.file, "userinfo/prog.c");
	std::string line = std::to_string(source_line("global_count += sum;"));
	for (const std::string &pat : std::vector<std::string>{"add_ints@userinfo/prog.c", "add_ints@" + src + "/prog.c",
				       "add_ints@*/unit/userinfo/prog.c", "add_ints@" + src + "/prog.c:" + line,
				       "add_ints@prog.c:" + line}) {
		auto r = f.functions(rel, pat, true);
		ASSERT_TRUE(r.ok()) << pat << ": " << r.error().what;
		EXPECT_EQ(r->size(), 1u) << pat;
	}
	EXPECT_FALSE(f.functions(rel, "add_ints@/elsewhere/userinfo/prog.c", true).ok());
}

TEST(UserInfo, FunctionErrors)
{
	auto f = facts();
	auto r = f.functions(prog0, "add_int", false);
	ASSERT_FALSE(r.ok());
	EXPECT_EQ(r.error().what, "no function matches \"add_int\" in " + prog0);
	EXPECT_EQ(r.error().hint, "did you mean add_ints?");
	auto l = f.functions(prog0, "add_ints@prog.c:1", false);
	ASSERT_FALSE(l.ok());
	EXPECT_EQ(l.error().hint, "the line must hold a statement of the function");
}

// -O0 on x86-64: parameters and locals live in stack slots below rbp, at
// the frame base (the CFA, rbp + 16 once rbp is set up) plus readelf's
// DW_OP_fbreg offset.
TEST(UserInfo, StackSlotsAtO0)
{
	auto f = facts();
	UserFunction u = one(f, prog0, "add_ints", false);
	for (const char *v : {"a", "b", "sum"}) {
		auto a = f.target_access(u, std::string("$") + v, false);
		ASSERT_TRUE(a.ok()) << a.error().what;
		EXPECT_EQ(a->base, TargetAccess::Loc);
		EXPECT_TRUE(a->user);
		EXPECT_EQ(a->loc.kind, Location::Mem) << v;
		EXPECT_EQ(a->loc.reg, 6) << v;
		EXPECT_EQ(a->loc.off, 16 + fbreg_of(prog0, "add_ints", v)) << v;
		EXPECT_EQ(a->size, 4u);
		EXPECT_TRUE(a->is_signed);
		EXPECT_TRUE(a->offsets.empty());
	}
	// the CFA once the frame is set up: rbp + 16
	EXPECT_EQ(cfa_rule(prog0, u.vaddr), (std::pair<int, long>{6, 16}));
	// the seventh argument is passed on the stack, above the return address
	UserFunction s = one(f, prog0, "seven", false);
	auto a7 = f.target_access(s, "$a7", false);
	ASSERT_TRUE(a7.ok()) << a7.error().what;
	EXPECT_EQ(a7->loc.kind, Location::Mem);
	EXPECT_EQ(a7->loc.off, 16 + fbreg_of(prog0, "seven", "a7"));
	EXPECT_EQ(a7->size, 8u);
	auto ret = f.target_access(one(f, prog0, "add_ints", true), "$return", true);
	ASSERT_TRUE(ret.ok());
	EXPECT_EQ(ret->loc.kind, Location::Reg);
	EXPECT_EQ(ret->loc.reg, 0);
	EXPECT_EQ(ret->size, 4u);
	EXPECT_TRUE(ret->is_signed);
}

TEST(UserInfo, MembersAndErrors)
{
	auto f = facts();
	UserFunction w = one(f, prog0, "walk", false);
	auto next = f.target_access(w, "$p->next->x", false);
	ASSERT_TRUE(next.ok()) << next.error().what;
	EXPECT_EQ(next->loc.kind, Location::Mem);
	EXPECT_EQ(next->offsets, (std::vector<int32_t>{16, 0}));
	EXPECT_TRUE(next->deref_last);
	EXPECT_EQ(next->size, 4u);
	auto v2 = f.target_access(w, "$p->v[2]", false);
	ASSERT_TRUE(v2.ok()) << v2.error().what;
	EXPECT_EQ(v2->offsets, (std::vector<int32_t>{24 + 2 * 4}));
	// a struct by value in a stack slot: its members are in the slot
	UserFunction bv = one(f, prog0, "by_value", false);
	auto pt = f.target_access(bv, "$pt->v[2]", false);
	ASSERT_TRUE(pt.ok()) << pt.error().what;
	EXPECT_EQ(pt->loc.kind, Location::Mem);
	EXPECT_EQ(pt->loc.off, 16 + fbreg_of(prog0, "by_value", "pt") + 24 + 8);
	EXPECT_TRUE(pt->offsets.empty());
	EXPECT_EQ(pt->size, 4u);
	auto bad = f.target_access(w, "$p->nope", false);
	ASSERT_FALSE(bad.ok());
	EXPECT_NE(bad.error().what.find("nope"), std::string::npos);
	UserFunction sc = one(f, prog0, "scale", false);
	EXPECT_EQ(f.target_access(sc, "$f", false).error().what,
		  "$f in scale(): floating point values are not supported");
	EXPECT_EQ(f.target_access(one(f, prog0, "scale", true), "$return", true).error().what,
		  "$return of scale(): floating point values are not supported");
	auto missing = f.target_access(w, "$pp", false);
	ASSERT_FALSE(missing.ok());
	EXPECT_EQ(missing.error().what.rfind("no parameter or local $pp in walk() at walk+0x", 0), 0u);
	EXPECT_EQ(missing.error().hint, "did you mean $p?");
	EXPECT_EQ(f.target_access(w, "$return", false).error().what,
		  "$return is only available in .return probes");
}

// -O2 at entry (.call): the System V ABI's argument registers rdi, rsi.
TEST(UserInfo, RegistersAtEntryO2)
{
	auto f = facts();
	UserFunction c = one(f, prog2, "add_ints", true);
	EXPECT_EQ(c.vaddr, nm_symbol(prog2, "add_ints").first);
	auto a = f.target_access(c, "$a", false);
	auto b = f.target_access(c, "$b", false);
	ASSERT_TRUE(a.ok()) << a.error().what;
	ASSERT_TRUE(b.ok()) << b.error().what;
	EXPECT_EQ(a->loc.kind, Location::Reg);
	EXPECT_EQ(a->loc.reg, 5);
	EXPECT_EQ(b->loc.kind, Location::Reg);
	EXPECT_EQ(b->loc.reg, 4);
	auto r = f.target_access(c, "$a", true);
	ASSERT_TRUE(r.ok());
	EXPECT_TRUE(r->at_entry);
}

// A separate debug file named by .gnu_debuglink, next to the program.
TEST(UserInfo, DebuglinkFile)
{
	auto t = sys::TempDir::create("userinfo");
	ASSERT_TRUE(t.ok());
	std::string d = t->path() + "/prog.debug", p = t->path() + "/prog";
	ASSERT_EQ(system(("cd " + t->path() + " && objcopy --only-keep-debug " + prog0 +
			  " prog.debug && objcopy --strip-debug --remove-section=.note.gnu.build-id "
			  "--add-gnu-debuglink=prog.debug " + prog0 + " prog")
				 .c_str()),
		  0);
	auto f = facts(Arch::X86_64, {});
	UserFunction u = one(f, p, "walk", false);
	EXPECT_TRUE(u.has_dwarf);
	EXPECT_EQ(u.fn.info_file, d);
	EXPECT_EQ(u.vaddr, one(facts(), prog0, "walk", false).vaddr);
}

// A local of a lexical block (main's loop counter) at a line inside it.
TEST(UserInfo, BlockLocal)
{
	auto f = facts();
	int line = source_line("add_alias(i, n);");
	UserFunction st = one(f, prog0, "main@prog.c:" + std::to_string(line), false);
	auto i = f.target_access(st, "$i", false);
	ASSERT_TRUE(i.ok()) << i.error().what;
	EXPECT_EQ(i->loc.kind, Location::Mem);
	EXPECT_EQ(i->loc.reg, 6);
	EXPECT_EQ(i->loc.off, 16 + fbreg_of(prog0, "main", "i"));
	// a global of the compilation unit: its link-time address
	auto g = f.target_access(st, "$global_count", false);
	ASSERT_TRUE(g.ok()) << g.error().what;
	EXPECT_EQ(g->loc.kind, Location::Static);
	EXPECT_EQ(static_cast<uint64_t>(g->loc.off), nm_symbol(prog0, "global_count").first);
	EXPECT_EQ(g->size, 8u);
	EXPECT_TRUE(g->is_signed);
	// $$locals: the block's first, then the function's
	EXPECT_EQ(names_of(f.locals(st)), (std::vector<std::string>{"i", "n", "q", "p", "tag"}));
	// a char array in a stack slot: its address, an element, a run-time index
	long tag = 16 + fbreg_of(prog0, "main", "tag");
	auto addr = f.target_access(st, "$tag", false);
	ASSERT_TRUE(addr.ok()) << addr.error().what;
	EXPECT_EQ(addr->loc.kind, Location::RegOffset);
	EXPECT_EQ(addr->loc.reg, 6);
	EXPECT_EQ(addr->loc.off, tag);
	EXPECT_EQ(addr->size, 8u);
	auto c2 = f.target_access(st, "$tag[2]", false);
	ASSERT_TRUE(c2.ok()) << c2.error().what;
	EXPECT_EQ(c2->loc.kind, Location::Mem);
	EXPECT_EQ(c2->loc.off, tag + 2);
	EXPECT_EQ(c2->size, 1u);
	EXPECT_FALSE(f.target_access(st, "$tag[8]", false).ok());
	auto ci = f.target_access(st, "$tag[]", false);
	ASSERT_TRUE(ci.ok()) << ci.error().what;
	EXPECT_EQ(ci->loc.kind, Location::RegOffset);
	EXPECT_EQ(ci->loc.off, tag);
	EXPECT_EQ(ci->offsets, (std::vector<int32_t>{0}));
	ASSERT_EQ(ci->indices.size(), 1u);
	EXPECT_EQ(ci->indices[0].stride, 1);
	EXPECT_TRUE(ci->deref_last);
	// outside the block the name is unknown
	UserFunction entry = one(f, prog0, "main", false);
	EXPECT_EQ(names_of(f.locals(entry)), (std::vector<std::string>{"n", "q", "p", "tag"}));
	EXPECT_FALSE(f.target_access(entry, "$i", false).ok());
}

// A symbol that names a DWARF function under another name gets its DWARF.
TEST(UserInfo, AliasSymbol)
{
	auto f = facts();
	UserFunction a = one(f, prog0, "add_alias", true);
	EXPECT_EQ(a.fn.name, "add_alias");
	EXPECT_EQ(a.vaddr, nm_symbol(prog0, "add_alias").first);
	EXPECT_EQ(a.vaddr, nm_symbol(prog0, "add_ints").first);
	EXPECT_TRUE(a.has_dwarf);
	ASSERT_EQ(a.fn.params.size(), 2u);
	EXPECT_TRUE(f.target_access(a, "$b", false).ok());
}

// readelf's location lists: offset -> (begin, end, expression) rows.
using LocRows = std::vector<std::tuple<uint64_t, uint64_t, std::string>>;
std::map<uint64_t, LocRows> readelf_loclists(const std::string &file)
{
	std::map<uint64_t, LocRows> lists;
	LocRows *cur = nullptr;
	for (const std::string &l : lines_of(run("readelf --debug-dump=loc " + file))) {
		std::istringstream in(l);
		std::string a, b;
		if (!(in >> a >> b))
			continue;
		if (b == "<End")
			cur = nullptr;
		else if (!cur && (l.find("(base address)") != std::string::npos ||
				  l.find("views at") != std::string::npos))
			cur = &lists[std::stoull(a, nullptr, 16)];
		else if (cur && l.find("(DW_OP") != std::string::npos && a.size() == 16 &&
			 b.size() == 16)
			cur->emplace_back(std::stoull(a, nullptr, 16), std::stoull(b, nullptr, 16),
					  l.substr(l.find('(')));
	}
	return lists;
}

// The location list offset readelf gives for `var` of `fn`.
uint64_t loclist_of(const std::string &file, const std::string &fn, const std::string &var)
{
	bool in_fn = false, at_var = false;
	for (const std::string &l : lines_of(run("readelf --debug-dump=info " + file))) {
		if (l.find("DW_TAG_subprogram") != std::string::npos)
			in_fn = at_var = false;
		if (l.find("DW_AT_name") != std::string::npos) {
			std::string n = l.substr(l.rfind(':') + 2);
			if (!in_fn && n == fn)
				in_fn = true;
			else if (in_fn)
				at_var = n == var;
		}
		if (in_fn && at_var && l.find("(location list)") != std::string::npos)
			return std::stoull(l.substr(l.rfind(':') + 2), nullptr, 16);
	}
	return UINT64_MAX;
}

// -O2: main's local n and parameter argc have location lists; at a line
// where n is live each gives the entry covering that address, at entry n
// is not available yet.
TEST(UserInfo, LocationListsO2)
{
	auto f = facts();
	auto lists = readelf_loclists(prog2);
	int line = source_line("STAP_PROBE3(demo, three");
	UserFunction st = one(f, prog2, "main@prog.c:" + std::to_string(line), false);
	ASSERT_NE(st.vaddr, 0u);
	std::string where = "main+0x" + [&] {
		char b[20];
		snprintf(b, sizeof b, "%x", st.fn.offset);
		return std::string(b);
	}();
	for (const char *v : {"n", "argc"}) {
		uint64_t off = loclist_of(prog2, "main", v);
		ASSERT_TRUE(lists.count(off)) << v;
		std::string expr;
		for (auto &[b, e, x] : lists[off])
			if (st.vaddr >= b && st.vaddr < e)
				expr = x;
		auto a = f.target_access(st, std::string("$") + v, false);
		if (expr.rfind("(DW_OP_reg", 0) == 0) {
			ASSERT_TRUE(a.ok()) << a.error().what;
			EXPECT_EQ(a->loc.kind, Location::Reg) << v;
			EXPECT_EQ(a->loc.reg, std::stoi(expr.substr(10))) << v;
		} else if (expr.rfind("(DW_OP_entry_value", 0) == 0) {
			ASSERT_FALSE(a.ok());
			EXPECT_EQ(a.error().what, std::string("$") + v + " is optimized out at " + where +
							  " (its location is DW_OP_entry_value: known only to the caller)");
		} else {
			ADD_FAILURE() << v << ": an expression this test does not know: " << expr;
		}
	}
	UserFunction entry = one(f, prog2, "main", true);
	auto n = f.target_access(entry, "$n", false);
	ASSERT_FALSE(n.ok());
	EXPECT_EQ(n.error().what,
		  "$n is not available at main+0x0 (its location list has no entry for this address)");
}

// A separate debug file found by build-id under a debug directory.
TEST(UserInfo, BuildIdDebugFile)
{
	auto t = sys::TempDir::create("userinfo");
	ASSERT_TRUE(t.ok());
	std::string id;
	for (const std::string &l : lines_of(run("readelf -n " + prog0)))
		if (size_t p = l.find("Build ID: "); p != std::string::npos)
			id = l.substr(p + 10);
	ASSERT_GT(id.size(), 2u);
	std::string stripped = t->path() + "/prog", ddir = t->path() + "/debug/.build-id/" + id.substr(0, 2);
	fs::create_directories(ddir);
	ASSERT_EQ(system(("objcopy --only-keep-debug " + prog0 + " " + ddir + "/" + id.substr(2) +
			  ".debug && objcopy --strip-all " + prog0 + " " + stripped)
				 .c_str()),
		  0);
	auto none = facts();
	EXPECT_FALSE(none.functions(stripped, "add_ints", false).ok());
	auto f = facts(Arch::X86_64, {t->path() + "/debug"});
	UserFunction u = one(f, stripped, "add_ints", false);
	UserFunction ref = one(facts(), prog0, "add_ints", false);
	EXPECT_TRUE(u.has_dwarf);
	EXPECT_EQ(u.vaddr, ref.vaddr);
	EXPECT_EQ(u.offset, ref.offset);
	EXPECT_EQ(u.fn.info_file, ddir + "/" + id.substr(2) + ".debug");
	auto a = f.target_access(u, "$a", false);
	ASSERT_TRUE(a.ok()) << a.error().what;
	EXPECT_EQ(a->loc.off, 16 + fbreg_of(prog0, "add_ints", "a"));
}

// The SDT notes as readelf prints them: provider, name, location,
// semaphore, arguments.
struct NoteRow {
	std::string provider, name;
	uint64_t pc = 0, sema = 0;
	std::vector<std::string> args;
};

std::vector<NoteRow> readelf_notes(const std::string &file)
{
	std::vector<NoteRow> rows;
	for (const std::string &l : lines_of(run("readelf -n " + file))) {
		std::istringstream in(l);
		std::string key;
		in >> key;
		if (key == "Provider:")
			rows.emplace_back(), in >> rows.back().provider;
		else if (key == "Name:" && !rows.empty())
			in >> rows.back().name;
		else if (key == "Location:" && !rows.empty()) {
			std::string pc, b, base, s, sem;
			in >> pc >> b >> base >> s >> sem;
			rows.back().pc = std::stoull(pc, nullptr, 16);
			rows.back().sema = std::stoull(sem, nullptr, 16);
		} else if (key == "Arguments:" && !rows.empty())
			for (std::string a; in >> a;)
				rows.back().args.push_back(a);
	}
	return rows;
}

void check_marks(const ProcessFacts &f, const std::string &file)
{
	auto m = f.marks(file, "demo", "*");
	ASSERT_TRUE(m.ok()) << m.error().what;
	std::vector<NoteRow> rows = readelf_notes(file);
	ASSERT_EQ(m->size(), rows.size());
	for (size_t i = 0; i < rows.size(); i++) {
		const SdtMark &k = (*m)[i];
		EXPECT_EQ(k.provider, rows[i].provider);
		EXPECT_EQ(k.name, rows[i].name);
		EXPECT_EQ(k.vaddr, rows[i].pc);
		EXPECT_EQ(k.offset, phdr_offset(file, rows[i].pc));
		EXPECT_EQ(k.semaphore_offset, rows[i].sema ? phdr_offset(file, rows[i].sema) : 0);
		EXPECT_EQ(k.arg_text, rows[i].args);
		EXPECT_EQ(k.args.size(), rows[i].args.size());
	}
	EXPECT_EQ((*m)[2].name, "guarded");
	EXPECT_NE((*m)[2].semaphore_offset, 0u);
}

TEST(UserInfo, SdtMarks)
{
	auto f = facts();
	for (const std::string &p : {prog0, prog2})
		check_marks(f, p);
	auto m = f.marks(prog2, "", "three");
	ASSERT_TRUE(m.ok());
	ASSERT_EQ(m->size(), 1u);
	// "-8@global_count(%rip)": the variable's link-time address
	const SdtMark &t = m->front();
	for (size_t i = 0; i < t.args.size(); i++) {
		if (t.arg_text[i].find("(%rip)") == std::string::npos)
			continue;
		EXPECT_EQ(t.args[i].loc.kind, Location::Static);
		EXPECT_EQ(static_cast<uint64_t>(t.args[i].loc.off), nm_symbol(prog2, "global_count").first);
		EXPECT_EQ(t.args[i].size, 8u);
		EXPECT_TRUE(t.args[i].is_signed);
	}
	auto tmp = sys::TempDir::create("userinfo");
	ASSERT_TRUE(tmp.ok());
	std::string bare = tmp->path() + "/bare";
	ASSERT_EQ(system(("objcopy --remove-section=.note.stapsdt " + prog0 + " " + bare).c_str()), 0);
	auto no = f.marks(bare, "", "*");
	ASSERT_FALSE(no.ok());
	EXPECT_EQ(no.error().what, bare + " has no SDT markers (no .note.stapsdt section)");
	auto none = f.marks(prog0, "demo", "nope");
	ASSERT_FALSE(none.ok());
	EXPECT_EQ(none.error().what, "no SDT marker matches \"demo:nope\" in " + prog0);
	EXPECT_EQ(none.error().hint, "it has: demo:start, demo:three, demo:guarded");
}

TEST(UserInfo, SdtArgumentsX86)
{
	struct Case {
		const char *text;
		Location::Kind kind;
		int reg;
		int64_t off;
		unsigned size;
		bool sign;
	};
	const Case cases[] = {
		{"-4@%edi", Location::Reg, 5, 0, 4, true},
		{"8@%rax", Location::Reg, 0, 0, 8, false},
		{"8@%r9", Location::Reg, 9, 0, 8, false},
		{"-4@-24(%rbp)", Location::Mem, 6, -24, 4, true},
		{"2@(%rsp)", Location::Mem, 7, 0, 2, false},
		{"-1@$-1", Location::Const, 0, -1, 1, true},
		{"4@$0x10", Location::Const, 0, 16, 4, false},
	};
	for (const Case &c : cases) {
		TargetAccess a = parse_sdt_arg(c.text, Arch::X86_64);
		EXPECT_EQ(a.base, TargetAccess::Loc) << c.text;
		EXPECT_TRUE(a.user);
		EXPECT_EQ(a.loc.kind, c.kind) << c.text;
		if (c.kind != Location::Const) {
			EXPECT_EQ(a.loc.reg, c.reg) << c.text;
		}
		EXPECT_EQ(a.loc.off, c.off) << c.text;
		EXPECT_EQ(a.size, c.size) << c.text;
		EXPECT_EQ(a.is_signed, c.sign) << c.text;
	}
	for (const char *bad : {"4@(%rax,%rbx,4)", "3@%eax", "x@%eax", "4@%xmm0", "8@foo(%rip)"})
		EXPECT_EQ(parse_sdt_arg(bad, Arch::X86_64).size, 0u) << bad;
}

TEST(UserInfo, SdtArgumentsArm64)
{
	TargetAccess r = parse_sdt_arg("-4@x19", Arch::Arm64);
	EXPECT_EQ(r.loc.kind, Location::Reg);
	EXPECT_EQ(r.loc.reg, 19);
	EXPECT_EQ(r.size, 4u);
	EXPECT_TRUE(r.is_signed);
	TargetAccess w = parse_sdt_arg("4@w3", Arch::Arm64);
	EXPECT_EQ(w.loc.reg, 3);
	TargetAccess sp = parse_sdt_arg("8@[sp, 16]", Arch::Arm64);
	EXPECT_EQ(sp.loc.kind, Location::Mem);
	EXPECT_EQ(sp.loc.reg, 31);
	EXPECT_EQ(sp.loc.off, 16);
	TargetAccess x1 = parse_sdt_arg("8@[x1]", Arch::Arm64);
	EXPECT_EQ(x1.loc.kind, Location::Mem);
	EXPECT_EQ(x1.loc.reg, 1);
	EXPECT_EQ(x1.loc.off, 0);
	TargetAccess neg = parse_sdt_arg("-8@[x29, #-8]", Arch::Arm64);
	EXPECT_EQ(neg.loc.off, -8);
	TargetAccess k = parse_sdt_arg("4@42", Arch::Arm64);
	EXPECT_EQ(k.loc.kind, Location::Const);
	EXPECT_EQ(k.loc.off, 42);
	EXPECT_EQ(parse_sdt_arg("-8@[x0, #:lo12:.LANCHOR0]", Arch::Arm64).size, 0u);
	EXPECT_EQ(parse_sdt_arg("8@x31", Arch::Arm64).size, 0u);
}

#ifdef STAP_PMU_USERINFO_ARM64
TEST(UserInfo, Arm64Binary)
{
	auto f = facts(Arch::Arm64);
	std::string p0 = dir + "/prog_arm64_O0", p2 = dir + "/prog_arm64_O2";
	check_marks(f, p0);
	check_marks(f, p2);
	auto m = f.marks(p2, "demo", "start");
	ASSERT_TRUE(m.ok());
	std::vector<NoteRow> rows = readelf_notes(p2);
	for (size_t i = 0; i < m->front().args.size(); i++) {
		TargetAccess want = parse_sdt_arg(rows[0].args[i], Arch::Arm64);
		EXPECT_EQ(m->front().args[i].loc.kind, want.loc.kind);
		EXPECT_EQ(m->front().args[i].loc.reg, want.loc.reg);
	}
	// at entry (-O2, .call): AAPCS64's x0, x1
	UserFunction c = one(f, p2, "add_ints", true);
	EXPECT_EQ(c.vaddr, nm_symbol(p2, "add_ints").first);
	auto a = f.target_access(c, "$a", false);
	auto b = f.target_access(c, "$b", false);
	ASSERT_TRUE(a.ok()) << a.error().what;
	ASSERT_TRUE(b.ok()) << b.error().what;
	EXPECT_EQ(a->loc.kind, Location::Reg);
	EXPECT_EQ(a->loc.reg, 0);
	EXPECT_EQ(b->loc.reg, 1);
	// -O0: a stack slot at the CFA (readelf's rule at the probe) plus the
	// DW_OP_fbreg offset
	UserFunction u0 = one(f, p0, "add_ints", false);
	auto [reg, off] = cfa_rule(p0, u0.vaddr);
	ASSERT_GE(reg, 0);
	for (const char *v : {"a", "b", "sum"}) {
		auto s = f.target_access(u0, std::string("$") + v, false);
		ASSERT_TRUE(s.ok()) << s.error().what;
		EXPECT_EQ(s->loc.kind, Location::Mem);
		EXPECT_EQ(s->loc.reg, reg) << v;
		EXPECT_EQ(s->loc.off, off + fbreg_of(p0, "add_ints", v)) << v;
	}
}
#endif

// PLT stubs where objdump labels them "<name@plt>" (the arch's objdump: the
// file's path may name either architecture, e.g. a checkout in .../arm64soak).
uint64_t objdump_plt(Arch arch, const std::string &file, const std::string &name)
{
	std::string objdump = arch == Arch::Arm64 ? "aarch64-linux-gnu-objdump" : "objdump";
	for (const std::string &l : lines_of(run(objdump + " -d " + file)))
		if (l.find("<" + name + "@plt>:") != std::string::npos)
			return std::stoull(l, nullptr, 16);
	return 0;
}

TEST(UserInfo, Plt)
{
	std::vector<std::pair<Arch, std::string>> progs = {{Arch::X86_64, prog0}};
#ifdef STAP_PMU_USERINFO_ARM64
	progs.push_back({Arch::Arm64, dir + "/prog_arm64_O0"});
#endif
	for (auto &[arch, p] : progs) {
		auto f = facts(arch);
		auto r = f.plt(p, "atoi");
		ASSERT_TRUE(r.ok()) << r.error().what;
		ASSERT_EQ(r->size(), 1u);
		uint64_t want = objdump_plt(arch, p, "atoi");
		ASSERT_NE(want, 0u);
		EXPECT_EQ(r->front().vaddr, want) << p;
		EXPECT_EQ(r->front().offset, phdr_offset(p, want)) << p;
		EXPECT_FALSE(r->front().has_dwarf);
		auto bad = f.plt(p, "atio");
		ASSERT_FALSE(bad.ok());
		EXPECT_EQ(bad.error().what, "no PLT entry matches \"atio\" in " + p);
		EXPECT_EQ(bad.error().hint, "did you mean atoi?");
	}
}

// dwarfloc on expressions built by hand: each form and each refusal.
dwarfloc::Context ctx()
{
	dwarfloc::Context c;
	c.var = "$x";
	c.where = "f+0x12";
	return c;
}

Result<Location> compile(std::vector<Dwarf_Op> ops)
{
	return dwarfloc::compile(ctx(), ops.data(), ops.size(), nullptr);
}

Dwarf_Op op(uint8_t atom, Dwarf_Word n = 0, Dwarf_Word n2 = 0)
{
	Dwarf_Op o{};
	o.atom = atom;
	o.number = n;
	o.number2 = n2;
	return o;
}

TEST(DwarfLoc, Forms)
{
	auto reg = compile({op(DW_OP_reg5)});
	ASSERT_TRUE(reg.ok());
	EXPECT_EQ(reg->kind, Location::Reg);
	EXPECT_EQ(reg->reg, 5);
	auto regx = compile({op(DW_OP_regx, 12), op(DW_OP_piece, 8)});
	ASSERT_TRUE(regx.ok());
	EXPECT_EQ(regx->reg, 12);
	auto mem = compile({op(DW_OP_breg7, static_cast<Dwarf_Word>(-8))});
	ASSERT_TRUE(mem.ok());
	EXPECT_EQ(mem->kind, Location::Mem);
	EXPECT_EQ(mem->reg, 7);
	EXPECT_EQ(mem->off, -8);
	auto val = compile({op(DW_OP_breg5, 3), op(DW_OP_stack_value)});
	ASSERT_TRUE(val.ok());
	EXPECT_EQ(val->kind, Location::RegOffset);
	EXPECT_EQ(val->off, 3);
	auto sum = compile({op(DW_OP_bregx, 3, 0), op(DW_OP_lit4), op(DW_OP_plus), op(DW_OP_stack_value)});
	ASSERT_TRUE(sum.ok());
	EXPECT_EQ(sum->kind, Location::RegOffset);
	EXPECT_EQ(sum->reg, 3);
	EXPECT_EQ(sum->off, 4);
	auto k = compile({op(DW_OP_lit7), op(DW_OP_stack_value)});
	ASSERT_TRUE(k.ok());
	EXPECT_EQ(k->kind, Location::Const);
	EXPECT_EQ(k->off, 7);
	auto s = compile({op(DW_OP_addr, 0x4010)});
	ASSERT_TRUE(s.ok());
	EXPECT_EQ(s->kind, Location::Static);
	EXPECT_EQ(s->off, 0x4010);
	auto d = compile({op(DW_OP_breg6, static_cast<Dwarf_Word>(-16)), op(DW_OP_deref),
			  op(DW_OP_stack_value)});
	ASSERT_TRUE(d.ok());
	EXPECT_EQ(d->kind, Location::Mem);
	EXPECT_EQ(d->off, -16);
}

TEST(DwarfLoc, Refusals)
{
	EXPECT_EQ(compile({op(DW_OP_entry_value, 1), op(DW_OP_stack_value)}).error().what,
		  "$x is optimized out at f+0x12 (its location is DW_OP_entry_value: known only to the caller)");
	EXPECT_EQ(compile({op(DW_OP_GNU_entry_value, 1), op(DW_OP_stack_value)}).error().what,
		  "$x is optimized out at f+0x12 (its location is DW_OP_GNU_entry_value: known only to the caller)");
	EXPECT_EQ(compile({op(DW_OP_reg0), op(DW_OP_piece, 4), op(DW_OP_reg1), op(DW_OP_piece, 4)})
			  .error()
			  .what,
		  "$x is optimized out at f+0x12 (its location is DW_OP_piece: split into pieces)");
	auto vec = compile({op(DW_OP_reg17)});
	EXPECT_EQ(vec.error().what,
		  "$x is in DWARF register 17 at f+0x12 (a vector or floating-point register)");
	EXPECT_EQ(vec.error().hint, "only integer registers can be read");
	EXPECT_EQ(compile({op(DW_OP_breg6, 0), op(DW_OP_deref), op(DW_OP_deref)}).error().what,
		  "$x is optimized out at f+0x12 (its location needs more than one memory read)");
	EXPECT_EQ(compile({}).error().what, "$x is optimized out at f+0x12 (it has no location here)");
	dwarfloc::Context arm = ctx();
	arm.arch = Arch::Arm64;
	Dwarf_Op sp = op(DW_OP_reg31);
	EXPECT_TRUE(dwarfloc::compile(arm, &sp, 1, nullptr).ok());
	Dwarf_Op v0 = op(DW_OP_regx, 64);
	EXPECT_FALSE(dwarfloc::compile(arm, &v0, 1, nullptr).ok());
	EXPECT_EQ(dwarfloc::reg_name(Arch::X86_64, 5), "rdi");
	EXPECT_EQ(dwarfloc::reg_number(Arch::X86_64, "r10d"), 10);
	EXPECT_EQ(dwarfloc::reg_number(Arch::Arm64, "sp"), 31);
}

} // namespace
} // namespace stap_pmu

namespace stap_pmu {
namespace {

// readelf -wF's rows of the FDEs that list any (LOC, CFA, rbp, ra columns):
// the unwind rows must say the same at each LOC
struct ReadelfRow {
	uint64_t loc = 0;
	std::string cfa, rbp = "u", ra = "u";
};

std::vector<ReadelfRow> readelf_rows(const std::string &path)
{
	std::vector<ReadelfRow> rows;
	std::vector<std::string> cols;
	bool in_fde = false;
	for (const std::string &l : lines_of(run("readelf -wF " + path))) {
		std::istringstream in(l);
		std::vector<std::string> w;
		for (std::string t; in >> t;)
			w.push_back(t);
		if (w.size() > 3 && (w[3] == "FDE" || w[3] == "CIE"))
			in_fde = w[3] == "FDE";
		else if (!w.empty() && w[0] == "LOC")
			cols = w;
		else if (in_fde && w.size() == cols.size() && w.size() >= 2) {
			ReadelfRow r;
			r.loc = std::stoull(w[0], nullptr, 16);
			r.cfa = w[1];
			for (size_t i = 2; i < w.size(); i++) {
				if (cols[i] == "rbp")
					r.rbp = w[i];
				if (cols[i] == "ra")
					r.ra = w[i];
			}
			rows.push_back(r);
		}
	}
	return rows;
}

const UserCfiRow *row_at(const UserUnwindData &u, uint64_t a)
{
	for (const UserCfiRow &r : u.cfi)
		if (a >= r.start && a - r.start < r.len)
			return &r;
	return nullptr;
}

TEST(UserInfo, UnwindRowsAgreeWithReadelf)
{
	auto f = facts();
	auto u = f.unwind_data(prog2);
	ASSERT_TRUE(u.ok()) << u.error().what;
	std::vector<ReadelfRow> want = readelf_rows(prog2);
	ASSERT_GT(want.size(), 5u);
	for (const ReadelfRow &w : want) {
		const UserCfiRow *r = row_at(*u, w.loc);
		ASSERT_NE(r, nullptr) << std::hex << w.loc;
		std::string cfa = r->cfa == UserCfiRow::Cfa::Sp	  ? "rsp+" + std::to_string(r->cfa_off)
				  : r->cfa == UserCfiRow::Cfa::Fp ? "rbp+" + std::to_string(r->cfa_off)
								  : "exp";
		EXPECT_EQ(cfa, w.cfa) << std::hex << w.loc;
		std::string ra = r->ra == UserCfiRow::Ra::Saved ? "c" + std::to_string(r->ra_off) : "u";
		EXPECT_EQ(ra, w.ra) << std::hex << w.loc;
		std::string rbp = r->fp_saved ? "c" + std::to_string(r->fp_off) : "u";
		EXPECT_EQ(rbp, w.rbp) << std::hex << w.loc;
	}
}

TEST(UserInfo, UnwindSymbolsAreNmFunctions)
{
	auto f = facts();
	auto u = f.unwind_data(prog2);
	ASSERT_TRUE(u.ok()) << u.error().what;
	std::map<std::string, uint64_t> nm;
	for (const std::string &l : lines_of(run("nm " + prog2))) {
		std::istringstream in(l);
		std::string addr, kind, name;
		if (in >> addr >> kind >> name && (kind == "T" || kind == "t"))
			nm[name] = std::stoull(addr, nullptr, 16);
	}
	ASSERT_TRUE(nm.count("main"));
	size_t found = 0;
	for (size_t i = 0; i < u->syms.size(); i++) {
		if (i) {
			EXPECT_LT(u->syms[i - 1].vaddr, u->syms[i].vaddr);
		}
		auto it = nm.find(u->syms[i].name);
		if (it == nm.end())
			continue;
		EXPECT_EQ(it->second, u->syms[i].vaddr) << u->syms[i].name;
		found++;
	}
	EXPECT_GE(found, 5u);
	EXPECT_EQ(u->path, prog2);
}

// --ldd: what ldd(1) lists for the program (the loader resolves the same
// names), as canonical paths
TEST(UserInfo, NeededLibrariesAreLdds)
{
	auto f = facts();
	std::vector<std::string> got = f.needed_libraries(prog2);
	std::vector<std::string> want;
	for (const std::string &l : lines_of(run("ldd " + prog2))) {
		size_t slash = l.find('/');
		if (slash == std::string::npos)
			continue; // linux-vdso.so.1
		std::string p = l.substr(slash, l.find(' ', slash) - slash);
		want.push_back(fs::canonical(p).string());
	}
	ASSERT_GE(want.size(), 2u); // libc and the loader
	std::sort(got.begin(), got.end());
	std::sort(want.begin(), want.end());
	EXPECT_EQ(got, want);
}

} // namespace
} // namespace stap_pmu
