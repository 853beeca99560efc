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
#include "translator/kernelinfo/dwarf_facts.h"

using namespace stap_pmu;
using stap_pmu::test::Checked;
namespace fs = std::filesystem;

namespace {

void write(const fs::path &p, const std::string &text)
{
	fs::create_directories(p.parent_path());
	std::ofstream(p) << text;
}

// The error of split_tracepoint_spec(spec), "" when it splits.
std::string split_error(const std::string &spec)
{
	auto r = split_tracepoint_spec(spec);
	return r ? "" : r.error().what;
}

TEST(Tracepoint, SplitSpec)
{
	auto r = split_tracepoint_spec("sched:sched_switch");
	ASSERT_TRUE(r);
	EXPECT_EQ(r->sys, "sched");
	EXPECT_EQ(r->event, "sched_switch");
	r = split_tracepoint_spec("intel-sst:sched_wak*");
	ASSERT_TRUE(r);
	EXPECT_EQ(r->sys, "intel-sst");
	EXPECT_EQ(r->event, "sched_wak*");
	r = split_tracepoint_spec("sched_switch"); // SystemTap's bare event
	ASSERT_TRUE(r);
	EXPECT_EQ(r->sys, "");
	EXPECT_EQ(r->event, "sched_switch");
	for (const char *bad : {":x", "sched:", "a:b:c"})
		EXPECT_EQ(split_error(bad), "kernel.trace needs \"subsystem:event\" or \"event\", e.g. "
					    "kernel.trace(\"sched:sched_switch\")") << bad;
	EXPECT_EQ(split_error("sch*:x"),
		  "wildcards are only supported in the event part of kernel.trace(\"sch*:x\")");
	EXPECT_EQ(split_error("../x:y"), "'../x' is not a tracepoint subsystem name");
	EXPECT_EQ(split_error("sched:a b"), "'a b' is not a tracepoint name or pattern");
}

TEST(Tracepoint, DeclaredEventsOfAHeadersText)
{
	// the forms trace/events headers use: the name is TRACE_EVENT*'s and
	// DECLARE_TRACE*'s first argument, DEFINE_EVENT*'s second; a macro
	// whose name only ends in one of them, and comments' prose, are not
	const std::string text = "TRACE_EVENT(sched_kthread_stop,\n\tTP_PROTO(struct task_struct *t),\n"
				 "DEFINE_EVENT(sched_wakeup_template, sched_wakeup,\n"
				 "DEFINE_EVENT_PRINT( writeback_class ,\n  wb_x, TP_PROTO(int a)\n"
				 "TRACE_EVENT_FN(irq_y, TP_PROTO(int a)\n"
				 "DECLARE_TRACE(pelt_cfs_tp,\n"
				 "MY_TRACE_EVENT(not_one,\n"
				 "/* TRACE_EVENT is used below */\n"
				 "DECLARE_EVENT_CLASS(sched_wakeup_template,\n";
	EXPECT_EQ(tracequery::declared_events(text),
		  (std::vector<std::string>{"sched_kthread_stop", "sched_wakeup", "wb_x", "irq_y",
					    "pelt_cfs_tp"}));
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

// Builds "query modules" for the fake kernel tree below with gcc -g -c.
struct FakeBuilder : tracequery::QueryModuleBuilder {
	static inline fs::path dir;
	static inline int builds = 0;

	Result<tracequery::Target> target() const override
	{
		tracequery::Target t;
		t.tree = dir.string();
		t.release = "9.9.9-test";
		return t;
	}
	Result<std::string> build(const tracequery::Target &, const std::string &name,
				  const std::string &src) const override
	{
		builds++;
		if (name != "stp_tq_fakesys" ||
		    src.find("#include <trace/events/fakesys.h>") == std::string::npos)
			return fail("kbuild failed (make exit status 2)", "broken.h:1:1: error: something");
		std::string o = (dir / "q.o").string();
		std::string cmd = "gcc -g -O0 -c -I" + (dir / "include").string() + " -o " + o + " " +
				  (dir / "q.c").string();
		if (std::system(cmd.c_str()) != 0)
			return fail("gcc failed");
		return o;
	}
};

// A fake kernel tree whose trace/events/fakesys.h defines the query
// functions directly, compiled with gcc -g -c: real DWARF, no kbuild. The
// facts are DwarfKernelFacts with the fake builder.
struct FakeKernel : ::testing::Test {
	static inline fs::path dir;
	static inline std::unique_ptr<DwarfKernelFacts> facts;
	static int builds() { return FakeBuilder::builds; }
	static std::string first_error(const std::string &text)
	{
		return test::first_error(text, facts.get());
	}

	static void SetUpTestSuite()
	{
		dir = fs::temp_directory_path() / ("stp_tq_fake_" + std::to_string(getpid()));
		fs::remove_all(dir);
		write(dir / "include/trace/events/fakesys.h",
		      "struct stp_fake;\n"
		      "struct stp_pair { int y; struct stp_fake *up; };\n"
		      "struct stp_fake { int a; long b; char name[8]; struct stp_pair in; };\n"
		      "struct stp_byval { long a, b; };\n"
		      "void stp_tq_ev_one(bool on, struct stp_fake *f, unsigned char c, short s,\n"
		      "\t\t   unsigned long long u) { }\n"
		      "void stp_tq_ev_two(int x) { }\n"
		      "void stp_tq_ev_byval(struct stp_byval v) { }\n"
		      "void stp_tq_other(void) { }\n");
		write(dir / "include/trace/events/broken.h", "");
		write(dir / "q.c", "#include <stdbool.h>\n#include <trace/events/fakesys.h>\n"
				    "void stp_tq_not_from_the_header(int z) { }\n");
		FakeBuilder::dir = dir;
		facts = std::make_unique<DwarfKernelFacts>(dwarf::Options{},
							   std::make_unique<FakeBuilder>());
	}
	static void TearDownTestSuite()
	{
		facts.reset();
		fs::remove_all(dir);
	}
};

TEST_F(FakeKernel, EventsAndTheirPrototypes)
{
	TracepointLookup found = facts->tracepoints("fakesys");
	ASSERT_TRUE(std::holds_alternative<const TracepointSubsystem *>(found))
		<< std::get<TracepointError>(found).error.what;
	const TracepointSubsystem *s = std::get<const TracepointSubsystem *>(found);
	EXPECT_EQ(s->header, "trace/events/fakesys.h");
	std::vector<std::string> names;
	for (const auto &e : s->events)
		names.push_back(e.name);
	// sorted; a function defined outside the header is not a tracepoint
	EXPECT_EQ(names, (std::vector<std::string>{"ev_byval", "ev_one", "ev_two", "other"}));
	EXPECT_EQ(s->events[0].unsupported,
		  "argument 'v' of type struct stp_byval is not an integer or pointer (passed by value)");
	EXPECT_EQ(probe_params(s->events[0]), "");
	EXPECT_EQ(probe_params(s->events[1]),
		  "void *__data, bool a0, void *a1, u8 a2, s16 a3, u64 a4");
	EXPECT_EQ(probe_params(s->events[3]), "void *__data");
	EXPECT_EQ(describe_vars(*s->events[1].func, false),
		  "$on:_Bool $f:struct stp_fake* $c:unsigned char $s:short int $u:long long unsigned int");
	// remembered: asking again builds nothing
	int before = builds();
	EXPECT_EQ(std::get<const TracepointSubsystem *>(facts->tracepoints("fakesys")), s);
	EXPECT_EQ(builds(), before);
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
	Checked c("probe kernel.trace(\"fakesys:ev_*\") { println(pp()) }", facts.get());
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

// "->" into a struct held inside another (not a pointer to it) adds the
// member's offset to the step before, as SystemTap reads it.
TEST_F(FakeKernel, MembersOfAnEmbeddedStruct)
{
	Checked c("global n\n"
		  "probe kernel.trace(\"fakesys:ev_one\") { n = $f->in->y + $f->in->up->b }\n",
		  facts.get());
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	const ResolvedPoint &p = c.sema.instances[0].point;
	ASSERT_EQ(p.tvars.size(), 2u);
	// in at 24 (after a, b and name[8]), y at 0 of it: one read of 4 bytes
	EXPECT_EQ(p.tvars[0].offsets, (std::vector<int32_t>{24}));
	EXPECT_EQ(p.tvars[0].size, 4u);
	EXPECT_TRUE(p.tvars[0].deref_last);
	// up at 8 of in: read the pointer at f + 32, then b at 8 of what it points to
	EXPECT_EQ(p.tvars[1].offsets, (std::vector<int32_t>{32, 8}));
	EXPECT_EQ(p.tvars[1].size, 8u);
	EXPECT_EQ(first_error("probe kernel.trace(\"fakesys:ev_one\") { x = $f->in->y->z }"),
		  "t.stp:1:44: '$f->in->y' is not a pointer to a struct or union in tracepoint "
		  "ev_one, cannot use '->z'");
}

// &$p->m: the member's address, read as no value; only members have one.
TEST_F(FakeKernel, AddressOfAMember)
{
	Checked c("global n\n"
		  "probe kernel.trace(\"fakesys:ev_one\") { n = &$f->in + &$f->b + $f->b }\n",
		  facts.get());
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	const ResolvedPoint &p = c.sema.instances[0].point;
	ASSERT_EQ(p.tvars.size(), 3u);
	EXPECT_EQ(p.tvars[0].offsets, (std::vector<int32_t>{24}));
	EXPECT_FALSE(p.tvars[0].deref_last);
	EXPECT_EQ(p.tvars[1].offsets, (std::vector<int32_t>{8}));
	EXPECT_FALSE(p.tvars[1].deref_last);
	EXPECT_EQ(p.tvars[1].size, 8u);
	// the same member read as a value is a separate target variable
	EXPECT_EQ(p.tvars[2].offsets, (std::vector<int32_t>{8}));
	EXPECT_TRUE(p.tvars[2].deref_last);
	EXPECT_EQ(first_error("probe kernel.trace(\"fakesys:ev_one\") { x = &$f }"),
		  "t.stp:1:45: '$f' is not in memory: '&' needs a member, e.g. &$f->member");
	EXPECT_EQ(first_error("probe kernel.trace(\"fakesys:ev_one\") { x = &n }"),
		  "t.stp:1:44: '&' takes the address of a target variable's member or of "
		  "@cast(...)->member, e.g. &$file->f_path");
}

TEST_F(FakeKernel, TargetVariablesAndGeneratedCode)
{
	Checked c("global n\n"
		  "probe kernel.trace(\"fakesys:ev_one\") { n = $f->b + $s + $on; println($$parms) }\n"
		  "probe kernel.trace(\"fakesys:other\") { n++ }",
		  facts.get());
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	const ResolvedPoint &p = c.sema.instances[0].point;
	ASSERT_EQ(p.tvars.size(), 3u);
	EXPECT_EQ(p.tvars[0].base, TargetAccess::TpArg);
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
		  "kernel.function(\"f\"), module(\"m\").function(\"f\"), "
		  "kernel.trace(\"sys:event\") or process(\"P\").function(\"f\")]");
	EXPECT_EQ(first_error("probe kernel.trace(\"fakesys:other\") { println($$locals) }"),
		  "t.stp:1:47: '$$locals' in 'kernel.trace(\"fakesys:other\")': a tracepoint has "
		  "arguments, no locals [print them with $$parms]");
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
