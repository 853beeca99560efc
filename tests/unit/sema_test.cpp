// sema_test.cpp - name binding, type inference, and semantic errors with
// exact text and location.
#include <gtest/gtest.h>

#include "frontend_helpers.h"
#include "translator/sema/format.h"

using namespace stap_pmu;
using stap_pmu::test::Checked;
using stap_pmu::test::first_error;

TEST(Sema, InfersTypesFromAssignments)
{
	Checked c("global n, name, lat\n"
		  "probe kprobe.function(\"f\") { n++; t = gettimeofday_ns(); lat <<< t;"
		  " name = execname(); s = name . \"!\" }\n"
		  "probe end { printf(\"%d %s %d\\n\", n, name, @avg(lat)) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.globals.size(), 3u);
	EXPECT_EQ(c.sema.globals[0]->type, Type::Long);
	EXPECT_EQ(c.sema.globals[1]->type, Type::String);
	EXPECT_EQ(c.sema.globals[2]->type, Type::Stats);
	ASSERT_EQ(c.sema.bodies[0].locals.size(), 2u);
	EXPECT_EQ(c.sema.bodies[0].locals[0]->name, "t");
	EXPECT_EQ(c.sema.bodies[0].locals[0]->type, Type::Long);
	EXPECT_EQ(c.sema.bodies[0].locals[1]->type, Type::String);
	EXPECT_TRUE(c.sema.bodies[0].uses_globals);
}

TEST(Sema, TypeFlowsBackwardsThroughGlobals)
{
	// 'x' gets its type from a probe that comes later in the file.
	Checked c("global x, y\nprobe begin { y = x }\nprobe end { x = \"s\" }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	EXPECT_EQ(c.sema.globals[1]->type, Type::String);
}

TEST(Sema, ResolvesProbePoints)
{
	Checked c("probe begin, end, kprobe.function(\"vfs_read\"), "
		  "kprobe.function(\"vfs_read\").return, timer.ms(10), timer.hz(100), timer.s(2) {}");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	auto &in = c.sema.instances;
	ASSERT_EQ(in.size(), 7u);
	EXPECT_EQ(in[2].point.kind, ProbeKind::Kprobe);
	EXPECT_EQ(in[2].point.symbol, "vfs_read");
	EXPECT_EQ(in[3].point.kind, ProbeKind::Kretprobe);
	EXPECT_EQ(in[3].point.name, "kprobe.function(\"vfs_read\").return");
	EXPECT_EQ(in[4].point.period_ns, 10000000u);
	EXPECT_EQ(in[5].point.period_ns, 10000000u);
	EXPECT_EQ(in[6].point.period_ns, 2000000000u);
}

TEST(Sema, CollectsDistinctPmuEvents)
{
	Checked c("probe begin { a = @pmu(\"cycles\"); b = @pmu(\"INST_RETIRED:ANY_P:u\");"
		  " d = @pmu(\"cycles\") - a }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.events.size(), 2u);
	EXPECT_EQ(c.sema.events[0].name, "cycles");
	EXPECT_EQ(c.sema.events[0].loc.str(), "t.stp:1:24");
	EXPECT_EQ(c.sema.events[1].name, "INST_RETIRED:ANY_P:u");
}

TEST(Sema, Errors)
{
	EXPECT_EQ(first_error("probe begin { println(cnt) }"),
		  "t.stp:1:23: cannot infer the type of 'cnt', which is never assigned [assign it "
		  "first, or declare it with 'global cnt']");
	EXPECT_EQ(first_error("global count\nprobe begin { println(cout); count = 1 }"),
		  "t.stp:2:23: cannot infer the type of 'cout', which is never assigned [did you "
		  "mean 'count'?]");
	EXPECT_EQ(first_error("probe begin { x = 1; x = \"a\" }"),
		  "t.stp:1:24: type mismatch: 'x' is long, assigned string");
	EXPECT_EQ(first_error("probe begin { x = 1 + \"a\" }"),
		  "t.stp:1:23: right operand of '+' must be long, not string");
	EXPECT_EQ(first_error("probe begin { printf(\"%s\\n\", pid()) }"),
		  "t.stp:1:30: argument for '%s' must be string, not long");
	EXPECT_EQ(first_error("probe begin { printf(\"%d %d\\n\", 1) }"),
		  "t.stp:1:15: printf format has 2 conversion(s) but 1 argument(s) follow it");
	EXPECT_EQ(first_error("probe begin { printf(\"%y\", 1) }"),
		  "t.stp:1:22: printf format: unknown conversion '%y' [conversions: %d %i %u %x "
		  "%X %o %c %p %s %%]");
	EXPECT_EQ(first_error("probe begin { x = pidd() }"),
		  "t.stp:1:19: unknown function 'pidd' [did you mean 'pid'?]");
	EXPECT_EQ(first_error("probe begin { x = @cnt(y) }"),
		  "t.stp:1:19: unknown operator '@cnt' [did you mean '@count'?]");
	// a statistic local to the probe (SystemTap 4.x has them)
	EXPECT_EQ(first_error("probe begin { s <<< 1; println(@count(s)) }"), "no error");
	EXPECT_EQ(first_error("probe begin { s <<< 1; x = s + 1 }"),
		  "t.stp:1:28: 's' is a statistics aggregate; read it with @count, @sum, @min, "
		  "@max, @avg or @variance");
	EXPECT_EQ(first_error("global s\nprobe begin { s <<< 1; x = s + 1 }"),
		  "t.stp:2:28: 's' is a statistics aggregate; read it with @count, @sum, @min, "
		  "@max, @avg or @variance");
	EXPECT_EQ(first_error("global n\nprobe begin { n = 1; y = @count(n) }"),
		  "t.stp:2:33: @count needs a statistics aggregate, but 'n' is long");
	EXPECT_EQ(first_error("probe begin { x = @pmu(cycles) }"),
		  "t.stp:1:19: @pmu takes one event name in quotes, e.g. @pmu(\"cycles\")");
	EXPECT_EQ(first_error("probe begin { x = exit() }"),
		  "t.stp:1:19: right side of '=' has no value");
	EXPECT_EQ(first_error("probe begin { cpu(1) }"), "t.stp:1:15: 'cpu' takes 0 argument(s), 1 given");
	EXPECT_EQ(first_error("probe begin { 3 = 4 }"),
		  "t.stp:1:15: left side of '=' must be a variable or array element");
}

TEST(Sema, ProbePointErrors)
{
	EXPECT_EQ(first_error("probe kernl.function(\"f\") {}"),
		  "t.stp:1:7: unknown probe point 'kernl.function(\"f\")' [probe points known: "
		  "begin, end, error, kprobe[.module(\"m\")].function(\"f\")[.return[.maxactive(N)]], "
		  "timer.ms(N)/s/us/ns/hz[.randomize(M)], timer.profile, "
		  "perf.event(\"E\").sample(N)/.hz(F), perf.type(T).config(C).sample(N), "
		  "kernel.function(\"pattern\")[.call|.return[.maxactive(N)]], "
		  "kernel.statement(\"f@file:line\"), "
		  "module(\"m\").function(\"pattern\")[.call|.return], "
		  "kernel.trace(\"subsystem:event\"), never, "
		  "procfs(\"NAME\").read[.maxsize(N)], procfs(\"NAME\").write, .umask(U), "
		  "process(\"PATH\").function(\"f\")[.call|.return]/.statement/.mark/.plt/.begin/.end, "
		  "process.begin/.end, "
		  "netfilter.hook(\"NF_INET_...\").pf(\"NFPROTO_...\")[.priority(N)]]");
	EXPECT_EQ(first_error("probe kernel.functio(\"f\") {}"),
		  "t.stp:1:14: expected kernel.function(\"pattern\") in 'kernel.functio(\"f\")'");
	EXPECT_EQ(first_error("probe kprobe.function(\"a*\") {}"),
		  "t.stp:1:23: 'a*' is not a kernel symbol name [kprobe.function takes an exact "
		  "symbol; wildcards need kernel.function]");
	EXPECT_EQ(first_error("probe kprobe.function(\"f\").retrun {}"),
		  "t.stp:1:28: unexpected '.retrun' in 'kprobe.function(\"f\").retrun' "
		  "[kprobe.function(\"f\") may only be followed by .return (and .maxactive(N))]");
	EXPECT_EQ(first_error("probe timer.ms(0) {}"),
		  "t.stp:1:16: timer.ms needs a positive number, e.g. timer.ms(10)");
	EXPECT_EQ(first_error("probe timer.mins(1) {}"),
		  "t.stp:1:13: unknown timer unit 'mins' [use timer.s, timer.ms, timer.us, timer.ns, "
		  "timer.hz or timer.jiffies]");
	EXPECT_EQ(first_error("probe timer.us(1) {}"),
		  "t.stp:1:16: timer period 1000 ns is shorter than the minimum of 100000 ns");
	EXPECT_EQ(first_error("probe begin.x {}"), "t.stp:1:13: unexpected '.x' after 'begin'");
}

TEST(Sema, AllErrorsInOneRun)
{
	Checked c("probe begin { a = b }\nprobe end { c = 1 + \"x\" }\nprobe nosuch {}");
	ASSERT_EQ(c.diags.error_count(), 3u) << c.rendered();
}

namespace {

// The first warning's "loc: message [hint]", or "no warning".
std::string first_warning(const std::string &text)
{
	stap_pmu::test::Checked c(text);
	for (const Diagnostic &d : c.diags.all())
		if (d.severity == Severity::Warning)
			return d.loc.str() + ": " + d.message + (d.hint.empty() ? "" : " [" + d.hint + "]");
	return "no warning";
}

} // namespace

TEST(Sema, NeverJiffiesProfileTickMaxactive)
{
	Checked c("probe never, timer.jiffies(5).randomize(2), timer.profile.tick,"
		  " kprobe.function(\"vfs_read\").return.maxactive(64),"
		  " kprobe.function(\"vfs_read\").return { }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	auto &in = c.sema.instances;
	ASSERT_EQ(in.size(), 5u);
	EXPECT_EQ(in[0].point.kind, ProbeKind::Never);
	EXPECT_EQ(in[1].point.kind, ProbeKind::Timer);
	EXPECT_TRUE(in[1].point.in_jiffies);
	EXPECT_EQ(in[1].point.period_ns, 5u);
	EXPECT_EQ(in[1].point.randomize_ns, 2u);
	EXPECT_EQ(in[2].point.kind, ProbeKind::Perf);
	EXPECT_TRUE(in[2].point.tick_period);
	EXPECT_EQ(in[3].point.kind, ProbeKind::Kretprobe);
	EXPECT_EQ(in[3].point.maxactive, 64u);
	EXPECT_EQ(in[3].point.symbol, "vfs_read");
	EXPECT_EQ(in[4].point.maxactive, 0u);
}

TEST(Sema, LocalReadBeforeAssignment)
{
	EXPECT_EQ(first_warning("probe begin { total = count + 1; println(total) }"),
		  "t.stp:1:23: local variable 'count' is read but never assigned: it is 0 [assign "
		  "it first, or declare it with 'global count']");
	EXPECT_EQ(first_warning("global name\nprobe begin { println(nmae . \"\"); name = \"a\" }"),
		  "t.stp:2:23: local variable 'nmae' is read but never assigned: it is \"\" [did you "
		  "mean 'name'?]");
	Checked c("function f() { return k * 2 }\nprobe begin { println(f()) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.functions[0].locals.size(), 1u);
	EXPECT_EQ(c.sema.functions[0].locals[0]->type, Type::Long);
	EXPECT_TRUE(c.sema.functions[0].locals[0]->never_assigned);
}

TEST(Sema, PassOneRefusals)
{
	EXPECT_EQ(first_error("function f(a, a) { return a }\nprobe begin { println(f(1, 2)) }"),
		  "t.stp:1:15: parameter 'a' is declared twice");
	EXPECT_EQ(first_error("probe begin { return }"),
		  "t.stp:1:15: 'return' outside a function [use 'next' to leave a probe]");
	EXPECT_EQ(first_error("probe begin { printd(\",\", 1) }"),
		  "t.stp:1:15: 'printd' takes a delimiter and at least two values");
	EXPECT_EQ(first_error("probe begin { printd(1, 2, 3) }"),
		  "t.stp:1:22: the delimiter of 'printd' must be a string literal");
	EXPECT_EQ(first_error("probe begin { s = \"a\"; if (s =~ s) next }"),
		  "t.stp:1:33: the right side of '=~' must be a string literal (a regular "
		  "expression)");
	EXPECT_EQ(first_error("probe begin { println($0) }"),
		  "t.stp:1:23: '$0' is not a script argument: they count from $1");
	EXPECT_EQ(first_error("%( arch <= \"x86_64\" %? probe begin { } %)"),
		  "t.stp:1:9: 'arch' is compared with == or != only");
	EXPECT_EQ(first_error("probe kernel.function(\"a\")?, kernel.function(\"b\")? { }"),
		  "t.stp:1:1: no probes left: every probe point is optional and none exists on this "
		  "kernel [drop the '?' to see why a point does not resolve]");
	EXPECT_EQ(first_error("global g\nprobe begin { println(g) }"),
		  "t.stp:1:8: cannot infer the type of global 'g' [assign it a number or a string "
		  "somewhere]");
}

// Flags C ignores for a conversion are dropped from the kernel format: the
// kernel's vsnprintf ignores them as well, and gcc's -Werror=format would
// refuse the module (a fuzz input found "%0s" in CI).
TEST(Sema, PrintfDropsFlagsTheConversionIgnores)
{
	Diagnostics d;
	auto f = parse_format("%05s|%-05s|%0c|%+u|%#d|% +d|%05.3d|%.*c|%#p|%--5x|%+ i", {}, d);
	ASSERT_TRUE(f);
	EXPECT_EQ(f->kernel_fmt, "%5s|%-5s|%c|%llu|%lld|%+lld|%5.3lld|%c|%#llx|%-5llx|%+lld");
	// '.*' of %c is still an argument (evaluated, not passed)
	ASSERT_EQ(f->args.size(), 12u);
	EXPECT_EQ(f->args[7].conv, '*');
	EXPECT_FALSE(f->args[7].passed);
	EXPECT_TRUE(f->args[8].passed);
	// what gcc accepts is kept as written
	auto g = parse_format("%-+8d|%#o|%08x|%-10.4s|%*d", {}, d);
	ASSERT_TRUE(g);
	EXPECT_EQ(g->kernel_fmt, "%-+8lld|%#llo|%08llx|%-10.4s|%*lld");
}
