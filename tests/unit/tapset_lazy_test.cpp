// tapset_lazy_test.cpp - tapset files parsed only when the script may use
// them: the raw-text scan of what a file may define (tapset_names.h) never
// misses a definition of the real tapsets, and resolution through the lazy
// library pulls in exactly what it did when every file was parsed.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "translator/frontend/parser.h"
#include "translator/frontend/tapset_names.h"
#include "translator/frontend/tapsets.h"

using namespace stap_pmu;
namespace fs = std::filesystem;

namespace {

std::set<std::string> idents(const std::string &text)
{
	TapsetNames n = scan_tapset_names(text);
	EXPECT_FALSE(n.any) << text;
	return {n.idents.begin(), n.idents.end()};
}

bool any(const std::string &text)
{
	return scan_tapset_names(text).any;
}

// A directory of tapset files, removed at the end of the test.
using Files = std::vector<std::pair<std::string, std::string>>;

struct TapsetDir {
	explicit TapsetDir(const Files &files)
	{
		char tmpl[] = "/tmp/tapset_lazy_XXXXXX";
		dir = mkdtemp(tmpl);
		for (const auto &[name, text] : files)
			std::ofstream(dir + "/" + name) << text;
	}
	~TapsetDir() { fs::remove_all(dir); }
	std::string dir;
};

struct Resolved {
	size_t parsed = 0;
	std::vector<std::string> pulled; // file names, in order
	std::vector<std::string> functions;
};

Resolved resolve(const TapsetDir &d, const std::string &script, const PreprocInput &pp = {})
{
	SourceFile f("t.stp", script);
	Diagnostics diags;
	Script s = parse(f, diags, pp);
	EXPECT_FALSE(diags.has_errors());
	TapsetLibrary lib = open_tapsets({d.dir}, pp);
	Resolved r;
	for (auto &src : resolve_tapsets(s, lib, {"printf"}, diags))
		r.pulled.push_back(fs::path(src->name()).filename().string());
	r.parsed = lib.parsed_count();
	for (const Function &fn : s.functions)
		r.functions.push_back(fn.name);
	return r;
}

const char *kChain = "function fa() { return fb() + 1 }\n";
const char *kLeaf = "global counted\nfunction fb() { counted++; return 2 }\n";
const char *kAlias = "probe foo.bar = begin { x = 1 }\nprobe end { printf(\"%d\", fa()) }\n";
const char *kBroken = "function fbroken() { return 1 \n"; // unbalanced: may define anything
const char *kBad = "function fbad() { return 1 + }\n";
const char *kCond = "%( kernel_v >= \"6.0\" %? function newf() { return 1 }\n"
		    "%: function oldf() { return 2 } %)\n";

} // namespace

TEST(TapsetLazy, ScanCollectsDefinitionsNotUses)
{
	std::set<std::string> n = idents(R"(
# a { comment
// and } another
/* and { a block */
global g1, g2[10] = 3
private global g3
function f1:long (a, b) { inner = "}"; return a }
function f2() %{ /* { */ int x = '}'; %}
probe begin { local_var = 1 }
probe timer.s(1) if (g1 == 2) { y = 1 }
probe al.one = kernel.function("x{") { z = 1 }
probe al2.one, al3 += end { }
@define M %( function fm() { q = 1 } %)
)");
	for (const char *want : {"g1", "g2", "g3", "f1", "f2", "al", "al2", "al3", "fm", "q"})
		EXPECT_TRUE(n.count(want)) << want;
	// plain probes' points, what bodies use, later components of alias
	// names (al.one) and the points after an alias's '=' are not
	// definitions
	for (const char *no : {"begin", "local_var", "inner", "y", "z", "x", "one", "kernel", "end"})
		EXPECT_FALSE(n.count(no)) << no;
	EXPECT_FALSE(n.count("timer")); // an ordinary probe with a condition
}

// Where the text defeats the brace-depth argument, a file may define anything.
TEST(TapsetLazy, ScanGivesUpOnWhatItCannotBound)
{
	EXPECT_TRUE(any("function f() { "));
	EXPECT_TRUE(any("function f() { } }\nfunction g() { }"));
	EXPECT_TRUE(any("/* unterminated"));
	EXPECT_TRUE(any("function f() { x = \"unterminated\n }"));
	EXPECT_TRUE(any("function f() %{ unterminated"));
	// a branch that opens a brace the other closes
	EXPECT_TRUE(any("%( kernel_v > \"5\" %? probe a { %: probe b { %) }"));
	EXPECT_TRUE(any("@define OPEN %( { %)\nfunction f() @OPEN }"));
	// balanced branches are fine, and both count
	std::set<std::string> n =
		idents("%( arch == \"x86_64\" %? function fx() { } %: function fy() { } %)");
	EXPECT_TRUE(n.count("fx") && n.count("fy"));
	// $# and @1 are not comments; "\"" does not end a string
	n = idents("function f1() { return $# }\nfunction f2() { return @1 }\n"
		   "function f3() { return \"a\\\"{\" }\nfunction f4() { }");
	EXPECT_TRUE(n.count("f1") && n.count("f2") && n.count("f3") && n.count("f4"));
}

// Every name every real tapset file defines (parsed with several kernels'
// facts) passes the library's test: the lazy library cannot miss one.
TEST(TapsetLazy, RealTapsetsScanCoversEveryDefinition)
{
	std::string dir = STAP_PMU_SOURCE_DIR "/tapsets";
	for (const char *kv : {"4.19.0", "5.10.0", "6.1.0", "6.12.0"})
		for (Arch arch : {Arch::X86_64, Arch::Arm64}) {
			PreprocInput pp;
			pp.kernel_v = kv;
			pp.kernel_vr = std::string(kv) + "-1-amd64";
			pp.arch = arch;
			std::vector<TapsetFile> all = load_tapsets({dir}, pp);
			TapsetLibrary lib = open_tapsets({dir}, pp);
			ASSERT_EQ(all.size(), lib.files.size());
			ASSERT_GT(all.size(), 20u);
			size_t names = 0;
			for (size_t i = 0; i < all.size(); i++) {
				EXPECT_FALSE(lib.files[i].names.any) << all[i].source->name();
				for (const std::string &d : all[i].defines) {
					EXPECT_TRUE(lib.may_define(i, d)) << all[i].source->name() << ": " << d;
					names++;
				}
				for (const Probe &p : all[i].script.probes)
					for (const ProbePoint &n : p.alias_names)
						EXPECT_TRUE(lib.may_define(i, probe_point_str(n) + ".return"));
			}
			EXPECT_GT(names, 200u);
			EXPECT_EQ(lib.parsed_count(), 0u); // asking parses nothing
		}
}

TEST(TapsetLazy, OnlyWhatTheScriptMayUseIsParsed)
{
	TapsetDir d(Files{{"a.stp", kChain}, {"b.stp", kLeaf}, {"c.stp", kAlias}, {"e.stp", kCond}});
	Resolved r = resolve(d, "probe begin { printf(\"hi\") }");
	EXPECT_EQ(r.parsed, 0u);
	EXPECT_TRUE(r.pulled.empty());
	// a call pulls in its file and, transitively, the file of what it calls
	r = resolve(d, "probe begin { printf(\"%d\", fa()) }");
	EXPECT_EQ(r.pulled, (std::vector<std::string>{"a.stp", "b.stp"}));
	EXPECT_EQ(r.parsed, 2u);
	EXPECT_EQ(r.functions, (std::vector<std::string>{"fa", "fb"}));
	// an alias, a wildcard over aliases, and an alias with a suffix
	for (const char *point : {"foo.bar", "foo.*", "f*.bar", "foo.bar.maxactive(3)"}) {
		r = resolve(d, std::string("probe ") + point + " { printf(\"%d\", x) }");
		EXPECT_EQ(r.pulled, (std::vector<std::string>{"c.stp", "a.stp", "b.stp"})) << point;
		EXPECT_EQ(r.parsed, 3u) << point;
	}
	// a wildcard first component may match any file
	r = resolve(d, "probe *.bar { printf(\"%d\", x) }");
	EXPECT_EQ(r.pulled, (std::vector<std::string>{"c.stp", "a.stp", "b.stp"}));
}

TEST(TapsetLazy, BrokenFileProvidesNothing)
{
	TapsetDir d(Files{{"a.stp", kChain}, {"b.stp", kLeaf}, {"d.stp", kBroken}, {"g.stp", kBad}});
	Resolved r = resolve(d, "probe begin { printf(\"%d\", fbroken()) }");
	EXPECT_TRUE(r.pulled.empty());
	EXPECT_EQ(r.parsed, 1u); // d.stp, whose braces the scan cannot bound
	r = resolve(d, "probe begin { printf(\"%d\", fbad()) }");
	EXPECT_TRUE(r.pulled.empty());
	EXPECT_EQ(r.parsed, 2u); // d.stp and g.stp, which names fbad
	std::vector<TapsetFile> all = load_tapsets({d.dir}, PreprocInput{});
	ASSERT_EQ(all.size(), 4u);
	EXPECT_TRUE(all[2].defines.empty());
	EXPECT_TRUE(all[3].defines.empty());
}

// A conditional definition follows the target kernel's version, as when
// every file was parsed.
TEST(TapsetLazy, ConditionalDefinitionFollowsTheKernel)
{
	TapsetDir d(Files{{"e.stp", kCond}});
	PreprocInput newer, older;
	newer.kernel_v = "6.1.0";
	older.kernel_v = "5.10.0";
	EXPECT_EQ(resolve(d, "probe begin { printf(\"%d\", newf()) }", newer).pulled,
		  (std::vector<std::string>{"e.stp"}));
	EXPECT_TRUE(resolve(d, "probe begin { printf(\"%d\", newf()) }", older).pulled.empty());
	EXPECT_EQ(resolve(d, "probe begin { printf(\"%d\", oldf()) }", older).pulled,
		  (std::vector<std::string>{"e.stp"}));
	EXPECT_TRUE(resolve(d, "probe begin { printf(\"%d\", oldf()) }", newer).pulled.empty());
}

// -D values and script arguments may paste names into any file.
TEST(TapsetLazy, PastedTokensMayDefineAnything)
{
	TapsetDir d(Files{{"m.stp", "@define NAME %( unused %)\nfunction @NAME() { return 1 }\n"}});
	PreprocInput pp;
	pp.defines["NAME"] = "fd";
	EXPECT_EQ(resolve(d, "probe begin { printf(\"%d\", fd()) }", pp).pulled,
		  (std::vector<std::string>{"m.stp"}));
	PreprocInput none;
	TapsetLibrary lib = open_tapsets({d.dir}, none);
	EXPECT_FALSE(lib.may_define(0, "fd"));
	pp.defines["NAME"] = "{";
	EXPECT_TRUE(open_tapsets({d.dir}, pp).may_define(0, "anything"));
}
