// tracepoint_test.cpp - kernel.trace("subsystem:event"): the spec, the
// query source, header lookup and its errors, and the whole path from a
// query object's DWARF (compiled here with the host's gcc -g from a fake
// trace/events/fakesys.h) through the provider, target variables and the
// generated probe functions. The real query modules (kbuild against the
// kernel headers) are tested by cli.trace_* and cli.tracepoint_cache.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "frontend_helpers.h"
#include "translator/codegen/codegen.h"
#include "translator/kernelinfo/tracequery.h"

using namespace stap_pmu;
using stap_pmu::test::Checked;
using stap_pmu::test::first_error;
namespace fs = std::filesystem;

namespace {

void write(const fs::path &p, const std::string &text)
{
	fs::create_directories(p.parent_path());
	std::ofstream(p) << text;
}

TEST(Tracepoint, SplitSpec)
{
	std::string sys, ev, err;
	ASSERT_TRUE(tracequery::split_spec("sched:sched_switch", sys, ev, err));
	EXPECT_EQ(sys, "sched");
	EXPECT_EQ(ev, "sched_switch");
	ASSERT_TRUE(tracequery::split_spec("intel-sst:sched_wak*", sys, ev, err));
	EXPECT_EQ(sys, "intel-sst");
	EXPECT_EQ(ev, "sched_wak*");
	for (const char *bad : {"sched_switch", ":x", "sched:", "a:b:c"}) {
		EXPECT_FALSE(tracequery::split_spec(bad, sys, ev, err)) << bad;
		EXPECT_EQ(err, "kernel.trace needs \"subsystem:event\", e.g. "
			       "kernel.trace(\"sched:sched_switch\")");
	}
	EXPECT_FALSE(tracequery::split_spec("sch*:x", sys, ev, err));
	EXPECT_EQ(err, "wildcards are only supported in the event part of kernel.trace(\"sch*:x\")");
	EXPECT_FALSE(tracequery::split_spec("../x:y", sys, ev, err));
	EXPECT_EQ(err, "'../x' is not a tracepoint subsystem name");
	EXPECT_FALSE(tracequery::split_spec("sched:a b", sys, ev, err));
	EXPECT_EQ(err, "'a b' is not a tracepoint name or pattern");
}

TEST(Tracepoint, QuerySourceRedefinesEveryDeclarationMacro)
{
	std::string src = tracequery::query_source("sched");
	// linux/tracepoint.h first, the redefinitions, then the header
	size_t tp = src.find("#include <linux/tracepoint.h>");
	size_t hdr = src.find("#include <trace/events/sched.h>");
	ASSERT_NE(tp, std::string::npos);
	ASSERT_NE(hdr, std::string::npos);
	for (const char *m : {"DECLARE_TRACE", "DECLARE_TRACE_CONDITION", "DECLARE_TRACE_EVENT",
			      "DECLARE_TRACE_EVENT_CONDITION", "DECLARE_TRACE_SYSCALL"}) {
		size_t u = src.find(std::string("#undef ") + m + "\n");
		size_t d = src.find(std::string("#define ") + m + "(");
		EXPECT_TRUE(u != std::string::npos && tp < u && u < d && d < hdr) << m;
	}
	EXPECT_NE(src.find("noinline void stp_tq_##name(proto) { }"), std::string::npos);
}

TEST(Tracepoint, IncludeDirsFollowDebiansSplitHeaders)
{
	fs::path t = fs::temp_directory_path() / "stp_tq_dirs_test";
	fs::remove_all(t);
	write(t / "flavour/Makefile", "include " + (t / "common").string() + "/Makefile\n");
	write(t / "common/include/trace/events/alpha.h", "");
	write(t / "flavour/include/trace/events/beta.h", "");
	write(t / "common/include/trace/events/notes.txt", "");
	std::vector<std::string> want = {(t / "flavour/include").string(), (t / "common/include").string()};
	EXPECT_EQ(tracequery::include_dirs((t / "flavour").string()), want);
	EXPECT_EQ(tracequery::subsystems((t / "flavour").string()),
		  (std::vector<std::string>{"alpha", "beta"}));
	fs::remove_all(t);
}

// A fake kernel tree whose trace/events/fakesys.h defines the query
// functions directly, compiled with gcc -g -c: real DWARF, no kbuild.
struct FakeKernel : ::testing::Test {
	static inline fs::path dir;
	static inline int builds = 0;

	static void SetUpTestSuite()
	{
		dir = fs::temp_directory_path() / ("stp_tq_fake_" + std::to_string(getpid()));
		fs::remove_all(dir);
		write(dir / "include/trace/events/fakesys.h",
		      "struct stp_fake { int a; long b; char name[8]; };\n"
		      "struct stp_byval { long a, b; };\n"
		      "void stp_tq_ev_one(bool on, struct stp_fake *f, unsigned char c, short s,\n"
		      "\t\t   unsigned long long u) { }\n"
		      "void stp_tq_ev_two(int x) { }\n"
		      "void stp_tq_ev_byval(struct stp_byval v) { }\n"
		      "void stp_tq_other(void) { }\n");
		write(dir / "include/trace/events/broken.h", "");
		write(dir / "q.c", "#include <stdbool.h>\n#include <trace/events/fakesys.h>\n"
				    "void stp_tq_not_from_the_header(int z) { }\n");
		tracequery::Config &c = tracequery::config();
		c.target = [](std::string &) {
			tracequery::Target t;
			t.tree = dir.string();
			t.release = "9.9.9-test";
			return std::optional<tracequery::Target>(t);
		};
		c.build = [](const tracequery::Target &, const std::string &name, const std::string &src,
			     std::string &err, std::string &detail) -> std::optional<std::string> {
			builds++;
			if (name != "stp_tq_fakesys" ||
			    src.find("#include <trace/events/fakesys.h>") == std::string::npos) {
				err = "kbuild failed (make exit status 2)";
				detail = "broken.h:1:1: error: something";
				return std::nullopt;
			}
			std::string o = (dir / "q.o").string();
			std::string cmd = "gcc -g -O0 -c -I" + (dir / "include").string() + " -o " + o +
					  " " + (dir / "q.c").string();
			if (std::system(cmd.c_str()) != 0) {
				err = "gcc failed";
				return std::nullopt;
			}
			return o;
		};
	}
	static void TearDownTestSuite()
	{
		fs::remove_all(dir);
		tracequery::config() = {};
	}
};

TEST_F(FakeKernel, EventsAndTheirPrototypes)
{
	std::string err, hint;
	const tracequery::Subsystem *s = tracequery::subsystem("fakesys", err, hint);
	ASSERT_NE(s, nullptr) << err;
	EXPECT_EQ(s->header, "trace/events/fakesys.h");
	std::vector<std::string> names;
	for (const auto &e : s->events)
		names.push_back(e.name);
	// sorted; a function defined outside the header is not a tracepoint
	EXPECT_EQ(names, (std::vector<std::string>{"ev_byval", "ev_one", "ev_two", "other"}));
	EXPECT_EQ(s->events[0].unsupported,
		  "argument 'v' of type struct stp_byval is not an integer or pointer (passed by value)");
	EXPECT_EQ(tracequery::probe_params(s->events[0]), "");
	EXPECT_EQ(tracequery::probe_params(s->events[1]),
		  "void *__data, bool a0, void *a1, u8 a2, s16 a3, u64 a4");
	EXPECT_EQ(tracequery::probe_params(s->events[3]), "void *__data");
	EXPECT_EQ(dwarf::describe_vars(*s->events[1].func, false),
		  "$on:_Bool $f:struct stp_fake* $c:unsigned char $s:short int $u:long long unsigned int");
	// remembered: asking again builds nothing
	int before = builds;
	EXPECT_EQ(tracequery::subsystem("fakesys", err, hint), s);
	EXPECT_EQ(builds, before);
}

TEST_F(FakeKernel, ErrorsAtTheSubsystemAndTheEvent)
{
	EXPECT_EQ(first_error("probe kernel.trace(\"fakesy:ev_one\") {}"),
		  "t.stp:1:21: no tracepoint subsystem 'fakesy': trace/events/fakesy.h not found in " +
			  (dir / "include").string() + " [did you mean 'fakesys'?]");
	EXPECT_EQ(first_error("probe kernel.trace(\"fakesys:ev_onr\") {}"),
		  "t.stp:1:29: no tracepoint 'ev_onr' in trace/events/fakesys.h [did you mean 'ev_one'?]");
	EXPECT_EQ(first_error("probe kernel.trace(\"fakesys:zz*\") {}"),
		  "t.stp:1:29: no tracepoint in trace/events/fakesys.h matches 'zz*' "
		  "[list them with -l 'kernel.trace(\"fakesys:*\")']");
	EXPECT_EQ(first_error("probe kernel.trace(\"fakesys:ev_byval\") {}"),
		  "t.stp:1:29: cannot probe tracepoint fakesys:ev_byval: argument 'v' of type "
		  "struct stp_byval is not an integer or pointer (passed by value)");
	EXPECT_EQ(first_error("probe kernel.trace(\"broken:x\") {}"),
		  "t.stp:1:20: cannot compile trace/events/broken.h for 9.9.9-test to read its "
		  "tracepoints: kbuild failed (make exit status 2) [broken.h:1:1: error: something]");
	EXPECT_EQ(first_error("probe kernel.trace(\"fakesys:ev_one\") { x = $nosuch }"),
		  "t.stp:1:44: '$nosuch' is not an argument of tracepoint ev_one "
		  "(arguments: $on $f $c $s $u)");
	EXPECT_EQ(first_error("probe kernel.trace(\"fakesys:ev_one\") { x = $f->name->x }"),
		  "t.stp:1:44: '$f->name' is not a pointer to a struct or union in tracepoint ev_one, "
		  "cannot use '->x'");
}

TEST_F(FakeKernel, WildcardsSkipWhatCannotBeProbed)
{
	Checked c("probe kernel.trace(\"fakesys:ev_*\") { println(pp()) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.instances.size(), 2u);
	EXPECT_EQ(c.sema.instances[0].point.name, "kernel.trace(\"fakesys:ev_one\")");
	EXPECT_EQ(c.sema.instances[1].point.name, "kernel.trace(\"fakesys:ev_two\")");
	EXPECT_EQ(c.sema.instances[1].point.kind, ProbeKind::Tracepoint);
	EXPECT_EQ(c.sema.instances[1].point.tracepoint, "ev_two");
	ASSERT_EQ(c.diags.all().size(), 1u);
	EXPECT_EQ(c.diags.all()[0].severity, Severity::Warning);
	EXPECT_EQ(c.diags.all()[0].message,
		  "'ev_*' skips tracepoint fakesys:ev_byval (argument 'v' of type struct stp_byval "
		  "is not an integer or pointer (passed by value))");
}

TEST_F(FakeKernel, TargetVariablesAndGeneratedCode)
{
	Checked c("global n\n"
		  "probe kernel.trace(\"fakesys:ev_one\") { n = $f->b + $s + $on; println($$parms) }\n"
		  "probe kernel.trace(\"fakesys:other\") { n++ }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	const ResolvedPoint &p = c.sema.instances[0].point;
	ASSERT_EQ(p.tvars.size(), 3u);
	EXPECT_EQ(p.tvars[0].base, dwarf::Access::TpArg);
	EXPECT_EQ(p.tvars[0].arg, 1);
	EXPECT_EQ(p.tvars[0].offsets, (std::vector<int32_t>{8}));
	EXPECT_EQ(p.tvars[0].size, 8u);
	EXPECT_TRUE(p.tvars[0].deref_last);
	EXPECT_EQ(p.tvars[1].arg, 3);
	EXPECT_EQ(p.tvars[1].size, 2u);
	EXPECT_TRUE(p.tvars[1].is_signed);
	EXPECT_EQ(p.tvars[2].arg, 0);
	EXPECT_EQ(p.tvars[2].size, 1u);
	CodegenInput in;
	in.script = &c.script;
	in.sema = &c.sema;
	in.module_name = "m";
	std::string code = generate_c(in);
	for (const char *want :
	     {"#define STP_HAVE_TRACEPOINTS 1\n",
	      "static void stp_tp_0(void *__data, bool a0, void *a1, u8 a2, s16 a3, u64 a4)\n{\n"
	      "\tconst u64 args[5] = { (u64)a0, (unsigned long)a1, (u64)a2, (u64)a3, (u64)a4 };\n\n"
	      "\tstp_run_probe_data(__data, NULL, STP_STATE_RUNNING, args);\n}\n",
	      "static void stp_tp_1(void *__data)\n{\n"
	      "\tstp_run_probe_data(__data, NULL, STP_STATE_RUNNING, NULL);\n}\n",
	      "{ .base = STP_TVAR_TPARG, .arg = 1, .size = 8, .is_signed = 1, .nderef = 1, "
	      ".deref_last = 1, .at_entry = 0, .off = { 8 } },",
	      ".kind = STP_PROBE_TRACEPOINT,", ".tp_name = \"ev_one\",", ".tp_func = (void *)stp_tp_0,",
	      ".tp_nargs = 5,", ".tp_argnames = \"on\\000f\\000c\\000s\\000u\\000\",",
	      ".tp_nargs = 0,", "stp_parms(c, "})
		EXPECT_NE(code.find(want), std::string::npos) << want;
}

TEST_F(FakeKernel, ParmsNeedDwarfOrTracepoint)
{
	EXPECT_EQ(first_error("probe kernel.trace(\"fakesys:other\"), begin { println($$parms) }"),
		  "t.stp:1:54: '$$parms' in 'begin', which has no DWARF [$$parms needs "
		  "kernel.function(\"f\"), module(\"m\").function(\"f\") or "
		  "kernel.trace(\"sys:event\")]");
	EXPECT_EQ(first_error("function f() { return $$vars } probe begin { f() }"),
		  "t.stp:1:23: '$$vars' used in a function; only probe bodies have it "
		  "[pass it to the function as an argument]");
}

// A wildcard whose every match cannot be probed (tests/diagnostics/coverage.py:
// each diagnostic kind is produced by some test).
TEST_F(FakeKernel, WildcardMatchingOnlyUnprobeableEvents)
{
	EXPECT_EQ(first_error("probe kernel.trace(\"fakesys:ev_b*\") {}"),
		  "t.stp:1:29: no tracepoint matching 'ev_b*' in trace/events/fakesys.h can be probed");
}

} // namespace
