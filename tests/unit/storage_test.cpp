// storage_test.cpp - where each global lives (sema/storage.cpp): numbers
// only accumulated into on the hot path and read where a merged value is
// meant are per CPU, with the exact reason -v prints; everything else stays
// shared and locked; bodies lock only for shared globals; the generated C
// adds to this CPU's copy and merges on read.
#include <gtest/gtest.h>

#include "frontend_helpers.h"
#include "translator/codegen/codegen.h"
#include "translator/sema/storage.h"

using namespace stap_pmu;
using stap_pmu::test::Checked;

namespace {

const char *const kp = "probe kprobe.function(\"f\") ";

const Symbol &global(const Checked &c, const std::string &name)
{
	for (const auto &g : c.sema.globals)
		if (g->name == name)
			return *g;
	ADD_FAILURE() << "no global " << name;
	return *c.sema.globals.at(0);
}

std::string why(const std::string &text, const std::string &name)
{
	Checked c(text);
	EXPECT_FALSE(c.diags.has_errors()) << c.rendered();
	if (c.diags.has_errors())
		return "";
	const Symbol &g = global(c, name);
	return std::string(g.storage == Storage::PerCpu ? "per-CPU: " : "shared: ") + g.storage_why;
}

} // namespace

TEST(Storage, AccumulateOnlyNumbersArePerCpu)
{
	std::string s = std::string("global n, m, k, d\n") + kp +
			"{ n++; m += 2; k -= pid(); --d; for (d--; 0; n++) ; }\n"
			"probe timer.ms(100) { println(n) }\nprobe end { println(n, m, k, d) }";
	EXPECT_EQ(why(s, "n"), "per-CPU: only n++ in probes; read in end, timer");
	EXPECT_EQ(why(s, "m"), "per-CPU: only m += e in probes; read in end");
	EXPECT_EQ(why(s, "k"), "per-CPU: only k -= e in probes; read in end");
	EXPECT_EQ(why(s, "d"), "per-CPU: only --d, d-- in probes; read in end");
	Checked c(s);
	EXPECT_EQ(c.sema.accumulates.size(), 6u);
	for (const ProbeBody &b : c.sema.bodies)
		EXPECT_FALSE(b.uses_globals); // no lock anywhere
}

TEST(Storage, BeginEndAndErrorMayAssignTimersMayNot)
{
	EXPECT_EQ(why(std::string("global n\nprobe begin { n = 10; x = n++ }\n") + kp +
			      "{ n++ }\nprobe end { n = n * 2; delete n }\nprobe error { n-- ; println(n) }",
		      "n"),
		  "per-CPU: only n++ in probes; read in begin, end, error");
	EXPECT_EQ(why(std::string("global n\n") + kp + "{ n++ }\nprobe timer.s(1) { println(n); n = 0 }",
		      "n"),
		  "shared: n = e in a timer probe at t.stp:3:32");
	EXPECT_EQ(why(std::string("global n\n") + kp + "{ n++ }\nprobe timer.s(1) { delete n }", "n"),
		  "shared: deleted in a timer probe at t.stp:3:20");
}

TEST(Storage, HotReadsAndUsedValuesKeepTheLock)
{
	EXPECT_EQ(why(std::string("global n\n") + kp + "{ n++; if (n > 10) exit() }", "n"),
		  "shared: read in probe kprobe.function(\"f\") at t.stp:2:39");
	EXPECT_EQ(why(std::string("global n\n") + kp + "{ x = n++; println(x) }", "n"),
		  "shared: the value of n++ in probe kprobe.function(\"f\") at t.stp:2:34");
	EXPECT_EQ(why(std::string("global n\n") + kp + "{ n = 1 }", "n"),
		  "shared: n = e in probe kprobe.function(\"f\") at t.stp:2:30");
	EXPECT_EQ(why(std::string("global n\n") + kp + "{ n *= 3 }", "n"),
		  "shared: n *= e in probe kprobe.function(\"f\") at t.stp:2:30");
	EXPECT_EQ(why("global n\nprobe begin { n = 1 }\nprobe end { println(n) }", "n"),
		  "shared: no probe adds to it outside begin/end/error");
	EXPECT_EQ(why(std::string("global a\n") + kp + "{ a[pid()]++ }\nprobe end { println(a[1]) }",
		      "a"),
		  "shared: an array: arrays keep the lock");
	EXPECT_EQ(why(std::string("global s\n") + kp + "{ s <<< 1 }\nprobe end { println(@count(s)) }",
		      "s"),
		  "per-CPU: a statistic: <<< adds to this CPU's copy, reads merge them");
	Checked c(std::string("global n\n") + kp + "{ n++; if (n > 10) exit() }");
	EXPECT_TRUE(c.sema.bodies[0].uses_globals);
	EXPECT_TRUE(c.sema.accumulates.empty()); // an ordinary locked update
}

TEST(Storage, FunctionsCountWhereverTheyAreCalled)
{
	std::string add = "global n\nfunction bump() { n++ }\nfunction get() { return n }\n";
	EXPECT_EQ(why(add + kp + "{ bump() }\nprobe end { println(get()) }", "n"),
		  "per-CPU: only n++ in probes; read in function get");
	EXPECT_EQ(why(add + kp + "{ bump(); println(get()) }", "n"),
		  "shared: read in function get (called from a probe) at t.stp:3:25");
	// through a second function, from a timer: a read there is allowed
	EXPECT_EQ(why(add + "function outer() { return get() }\n" + kp +
			      "{ bump() }\nprobe timer.ms(5) { println(outer()) }",
		      "n"),
		  "per-CPU: only n++ in probes; read in function get");
	Checked c(add + kp + "{ bump() }\nprobe end { println(get()) }");
	for (const ProbeBody &b : c.sema.bodies)
		EXPECT_FALSE(b.uses_globals);
}

TEST(Storage, EmbeddedCKeepsNumbersShared)
{
	SourceFile f("t.stp", std::string("global n\n%{ /* C */ %}\n") + kp +
				     "{ n++ }\nprobe end { println(n) }");
	Diagnostics d;
	PreprocInput pp;
	pp.guru = true;
	Script script = parse(f, d, pp);
	SemaResult r = analyze(script, d);
	ASSERT_FALSE(d.has_errors());
	EXPECT_EQ(r.globals[0]->storage, Storage::Shared);
	EXPECT_EQ(r.globals[0]->storage_why, "the script has embedded C, which may use it");
	EXPECT_TRUE(r.bodies[0].uses_globals);
}

TEST(Storage, SummaryLines)
{
	Checked c(std::string("global n, str\n") + kp + "{ n++; str = \"x\" }\nprobe end { println(n) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	std::vector<std::string> want = {"global n: per-CPU (only n++ in probes; read in end)",
					 "global str: shared, locked (a string)",
					 "probe at t.stp:2:1 locks str"};
	EXPECT_EQ(storage_summary(c.sema), want);
	EXPECT_TRUE(c.sema.bodies[0].uses_globals); // str
}

TEST(Storage, GeneratedCAddsPerCpuAndMergesOnRead)
{
	Checked c(std::string("global n = 7\n") + kp +
		  "{ n++; n -= 2 }\nprobe end { println(n); n = 0 }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	CodegenInput in;
	in.script = &c.script;
	in.sema = &c.sema;
	std::string code = generate_c(in);
	EXPECT_NE(code.find("static DEFINE_PER_CPU(u64, g_n);"), std::string::npos);
	EXPECT_NE(code.find("static u64 g_n_base = (u64)7LL;"), std::string::npos);
	EXPECT_NE(code.find("__this_cpu_add(g_n, (u64)(1));"), std::string::npos);
	EXPECT_NE(code.find("__this_cpu_sub(g_n, (u64)(((s64)2LL)));"), std::string::npos);
	EXPECT_NE(code.find("stp_printf(c, \"%lld\\n\", (long long)(stp_pcpu_get_n()))"),
		  std::string::npos)
		<< code;
	EXPECT_NE(code.find("stp_pcpu_set_n(v_"), std::string::npos);
	EXPECT_EQ(code.find(".nlocks"), std::string::npos);
	EXPECT_EQ(code.find("DEFINE_RAW_SPINLOCK"), std::string::npos);
}

// Each body holds the locks of the shared globals it and its callees
// touch, no others; the generated tables list them in declaration order.
TEST(Storage, LocksPerGlobal)
{
	Checked c(std::string("global a, b, s, n\nfunction f() { b[\"x\"] = 1 }\n"
			      "function g() { f() }\n") +
		  kp + "{ a[pid()]++ }\n" + kp + "{ g(); s = \"w\" }\n" + kp +
		  "{ n++ }\nprobe timer.s(1) { foreach (k in a) println(k); println(s, n) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	auto names = [&](const ProbeBody &b) {
		std::string out;
		for (const Symbol *g : b.locks)
			out += g->name + " ";
		return out;
	};
	ASSERT_EQ(c.sema.bodies.size(), 4u);
	EXPECT_EQ(names(c.sema.bodies[0]), "a ");
	std::set<std::string> second;
	for (const Symbol *g : c.sema.bodies[1].locks)
		second.insert(g->name);
	EXPECT_EQ(second, (std::set<std::string>{"b", "s"})); // b through g() and f()
	EXPECT_TRUE(c.sema.bodies[2].locks.empty());          // n is per CPU
	CodegenInput in;
	in.script = &c.script;
	in.sema = &c.sema;
	std::string code = generate_c(in);
	EXPECT_NE(code.find("static DEFINE_RAW_SPINLOCK(g_a_lock);"), std::string::npos) << code;
	EXPECT_EQ(code.find("g_n_lock"), std::string::npos);
	EXPECT_NE(code.find("stp_locks_1[] = { &g_b_lock, &g_s_lock };"), std::string::npos);
	EXPECT_NE(code.find("stp_locks_3[] = { &g_a_lock, &g_s_lock };"), std::string::npos);
	EXPECT_NE(code.find(".locks = stp_locks_1,\n\t\t.nlocks = 2,"), std::string::npos);
}

// .percpu: a body that touches per-CPU storage (a per-CPU number, a scalar
// statistic), itself or through a function, is not run in NMI over a body
// of its CPU (runtime/stp_handlers.h stp_nmi_may_run); shared globals, arrays
// (statistics in them included) and no global at all leave it 0.
TEST(Storage, PerCpuBodiesAreMarked)
{
	Checked c(std::string("global n, s, a, str\nfunction bump() { n++ }\n") +
		  kp + "{ bump() }\n" +			// 0: through a function
		  kp + "{ s <<< 1 }\n" +			// 1: scalar statistic
		  kp + "{ a[1] <<< 1; str = \"x\" }\n" +	// 2: an array, a string
		  kp + "{ println(\"x\") }\n" +		// 3: nothing
		  "probe end { printf(\"%d %d %d %s\\n\", n, @count(s), @count(a[1]), str) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.bodies.size(), 5u);
	EXPECT_TRUE(c.sema.bodies[0].uses_percpu);
	EXPECT_FALSE(c.sema.bodies[0].uses_globals);
	EXPECT_TRUE(c.sema.bodies[1].uses_percpu);
	EXPECT_FALSE(c.sema.bodies[1].uses_globals);
	EXPECT_FALSE(c.sema.bodies[2].uses_percpu);
	EXPECT_TRUE(c.sema.bodies[2].uses_globals);
	EXPECT_FALSE(c.sema.bodies[3].uses_percpu);
	EXPECT_FALSE(c.sema.bodies[3].uses_globals);
	EXPECT_TRUE(c.sema.bodies[4].uses_percpu); // end reads n and s
	CodegenInput in;
	in.script = &c.script;
	in.sema = &c.sema;
	std::string code = generate_c(in);
	size_t n = 0;
	for (size_t p = code.find(".percpu = 1,"); p != std::string::npos;
	     p = code.find(".percpu = 1,", p + 1))
		n++;
	EXPECT_EQ(n, 3u) << code; // bodies 0, 1 and end
}
