// perf_probe_test.cpp - sampling probes (perf.event / perf.type.config),
// their events in the fat table, and the compact table size.
#include <gtest/gtest.h>

#include "frontend_helpers.h"
#include "pmu/fat_table.h"
#include "translator/codegen/codegen.h"

#include <algorithm>

using namespace stap_pmu;
using stap_pmu::test::Checked;
using stap_pmu::test::first_error;

namespace {

TEST(PerfProbe, ResolvesSamplingPoints)
{
	Checked c("probe perf.event(\"cycles\").sample(1000), perf.event(\"perf::cpu-clock\").hz(250),"
		  " perf.type(4).config(0x8).sample(100000), perf.type(1).config(0) {}\n"
		  "probe begin { x = @pmu(\"cycles\") }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	auto &in = c.sema.instances;
	ASSERT_EQ(in.size(), 5u);
	EXPECT_EQ(in[0].point.kind, ProbeKind::Perf);
	EXPECT_EQ(in[0].point.sample_period, 1000u);
	EXPECT_EQ(in[1].point.sample_freq, 250u);
	EXPECT_EQ(in[1].point.sample_period, 0u);
	EXPECT_EQ(in[2].point.event, "perf.type(4).config(0x8)");
	EXPECT_EQ(in[3].point.sample_period, 1000000u); // SystemTap's default
	// @pmu events first; each sampling point gets an event of its own, even
	// one named like a counting event
	ASSERT_EQ(c.sema.events.size(), 5u);
	EXPECT_EQ(c.sema.events[0].name, "cycles");
	EXPECT_FALSE(c.sema.events[0].sampling);
	EXPECT_EQ(in[0].point.event_index, 1u);
	EXPECT_EQ(c.sema.events[1].name, "cycles");
	EXPECT_TRUE(c.sema.events[1].sampling);
	EXPECT_EQ(c.sema.events[1].sample_period, 1000u);
	EXPECT_EQ(c.sema.events[2].sample_freq, 250u);
	EXPECT_EQ(in[3].point.event_index, 4u);
}

TEST(PerfProbe, Errors)
{
	EXPECT_EQ(first_error("probe perf.event.sample(10) {}"),
		  "t.stp:1:12: perf.event needs an event name in quotes, e.g. "
		  "perf.event(\"cycles\")");
	EXPECT_EQ(first_error("probe perf.event(\"cycles\").sample(10).hz(5) {}"),
		  "t.stp:1:39: unexpected '.hz' in 'perf.event(\"cycles\").sample(10).hz(5)' "
		  "[sampling probes: perf.event(\"EVENT\").sample(N) or .hz(F), "
		  "perf.type(T).config(C).sample(N)]");
}

TEST(PerfProbe, ArgumentErrors)
{
	EXPECT_EQ(first_error("probe perf.event(\"cycles\").sample(0) {}"),
		  "t.stp:1:35: perf .sample needs a positive number, e.g. .sample(100000)");
	EXPECT_EQ(first_error("probe perf.event(\"cycles\").hz(200000) {}"),
		  "t.stp:1:31: perf .hz(200000) is above the kernel's default maximum sample "
		  "rate of 100000");
	EXPECT_EQ(first_error("probe perf.event(\"cycles\").period(5) {}"),
		  "t.stp:1:28: unexpected '.period' in 'perf.event(\"cycles\").period(5)' "
		  "[sampling probes: perf.event(\"EVENT\").sample(N) or .hz(F), "
		  "perf.type(T).config(C).sample(N)]");
	EXPECT_EQ(first_error("probe perf.cycles {}"),
		  "t.stp:1:12: expected perf.event(\"EVENT\") or perf.type(T).config(C) in "
		  "'perf.cycles' [sampling probes: perf.event(\"EVENT\").sample(N) or .hz(F), "
		  "perf.type(T).config(C).sample(N)]");
	EXPECT_EQ(first_error("probe perf.type(1).config(\"x\") {}"),
		  "t.stp:1:27: perf.config needs a non-negative number");
}

TEST(PerfProbe, ProbeTableEntry)
{
	Checked c("global n\nprobe perf.event(\"perf::cpu-clock\").hz(100) { n++ }\n"
		  "probe perf.type(1).config(0).sample(5000) { n++ }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	CodegenInput in;
	in.script = &c.script;
	in.sema = &c.sema;
	in.module_name = "m";
	std::string src = generate_c(in);
	EXPECT_NE(src.find("\t\t.kind = STP_PROBE_PERF,\n\t\t.event = 0,\n\t\t.sample_freq = 100ULL,\n"),
		  std::string::npos)
		<< src;
	EXPECT_NE(src.find("\t\t.kind = STP_PROBE_PERF,\n\t\t.event = 1,\n\t\t.sample_period = 5000ULL,\n"),
		  std::string::npos)
		<< src;
	EXPECT_NE(src.find("#define STP_NEVENTS 2\n"), std::string::npos) << src;
}

TEST(PerfProbe, RawEventsInEveryRow)
{
	using namespace stap_pmu::pmu;
	auto e = parse_raw_event("perf.type(4).config(0x8)");
	ASSERT_TRUE(e.has_value());
	EXPECT_EQ(e->type, 4u);
	EXPECT_EQ(e->config, 8u);
	EXPECT_FALSE(e->exclude_hv);
	EXPECT_FALSE(parse_raw_event("perf.type(4).config()").has_value());
	EXPECT_FALSE(parse_raw_event("perf.type(x).config(1)").has_value());
	EXPECT_FALSE(parse_raw_event("cycles").has_value());
	FatTable t = build_fat_table({"perf.type(1).config(0)", "cycles"}, {"skl", "perf"});
	ASSERT_EQ(t.rows.size(), 2u);
	for (const Row &r : t.rows) {
		EXPECT_EQ(r.events[0].type, 1u) << r.pmu;
		EXPECT_EQ(r.events[0].config, 0u) << r.pmu;
	}
}

// Issue 4: 4 portable events for every x86 core PMU fit in 1 KB of module
// data. Needs --pmu-fallback generic: netburst lacks instructions and
// branches, nhm branch-misses. Issue 17: still with the 4 hybrid Intel rows.
TEST(PmuCompactTables, FourPortableEventsForEveryX86PmuFitIn1K)
{
	using namespace stap_pmu::pmu;
	ASSERT_TRUE(Resolver::init());
	auto all = Resolver::expand_targets({"all"}, Arch::X86_64);
	ASSERT_TRUE(all) << all.error().what;
	std::vector<std::string> targets = std::move(*all);
	ASSERT_GE(targets.size(), 51u);
	for (const char *hybrid : {"adl_glc", "adl_grt", "mtl_rwc", "mtl_cmt"})
		EXPECT_NE(std::find(targets.begin(), targets.end(), hybrid), targets.end()) << hybrid;
	targets.push_back("perf");
	FatTable t = build_fat_table({"cycles", "instructions", "branches", "branch-misses"},
				     targets, Fallback::generic);
	EXPECT_EQ(t.rows.size(), targets.size());
	for (const auto &r : t.rows) {
		if (r.pmu == "adl_grt" || r.pmu == "mtl_cmt") {
			EXPECT_EQ(r.match.front().core_type, core_type_atom) << r.pmu;
		}
	}
	size_t bytes = pmu_tables_size(t);
	EXPECT_LE(bytes, 1024u);
	EXPECT_GT(bytes, 512u); // a sanity floor: 80+ match entries, 48 names
	std::string c = emit_pmu_tables(t);
	EXPECT_NE(c.find("/* " + std::to_string(bytes) + " bytes: "), std::string::npos) << c;
}

// @pmu_thread: events of their own (not shared with @pmu of the same name),
// flagged for the runtime, read through stp_pmu_thread_read.
TEST(PmuThread, SeparateEventsFlaggedForTheRuntime)
{
	Checked c("global a, b\nprobe kprobe.function(\"vfs_read\") {\n"
		  "\ta = @pmu_thread(\"perf::task-clock\") - @pmu(\"perf::task-clock\")\n"
		  "\tb = @pmu_thread(\"perf::task-clock\") + @pmu_thread(\"cycles\")\n}\n"
		  "probe perf.event(\"cycles\").sample(1000) { b++ }\n"
		  "probe end { printf(\"%d %d\\n\", a, b) }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	ASSERT_EQ(c.sema.events.size(), 4u);
	EXPECT_EQ(c.sema.events[0].name, "perf::task-clock");
	EXPECT_TRUE(c.sema.events[0].per_thread);
	EXPECT_EQ(c.sema.events[0].loc.str(), "t.stp:3:18");
	EXPECT_EQ(c.sema.events[1].name, "perf::task-clock");
	EXPECT_FALSE(c.sema.events[1].per_thread);
	EXPECT_EQ(c.sema.events[2].name, "cycles");
	EXPECT_TRUE(c.sema.events[2].per_thread);
	EXPECT_TRUE(c.sema.events[3].sampling);
	EXPECT_FALSE(c.sema.events[3].per_thread);
	CodegenInput in;
	in.script = &c.script;
	in.sema = &c.sema;
	in.module_name = "m";
	std::string src = generate_c(in);
	EXPECT_NE(src.find("#define STP_PMU_THREAD_EVENTS { 1, 0, 1, 0 }\n"), std::string::npos)
		<< src;
	EXPECT_NE(src.find("stp_pmu_thread_read(c, 0) - (u64)stp_pmu_read(c, 1)"), std::string::npos)
		<< src;
	EXPECT_NE(src.find("stp_pmu_thread_read(c, 0) + (u64)stp_pmu_thread_read(c, 2)"),
		  std::string::npos)
		<< src;
}

TEST(PmuThread, NoFlagsWithoutPmuThread)
{
	Checked c("global a\nprobe begin { a = @pmu(\"cycles\") }");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	CodegenInput in;
	in.script = &c.script;
	in.sema = &c.sema;
	in.module_name = "m";
	EXPECT_EQ(generate_c(in).find("STP_PMU_THREAD_EVENTS"), std::string::npos);
}

TEST(PmuThread, ArgumentErrors)
{
	EXPECT_EQ(first_error("probe begin { x = @pmu_thread(cycles) }"),
		  "t.stp:1:19: @pmu_thread takes one event name in quotes, e.g. "
		  "@pmu_thread(\"cycles\")");
	EXPECT_EQ(first_error("probe begin { x = @pmu_thread(\"a\", \"b\") }"),
		  "t.stp:1:19: @pmu_thread takes one event name in quotes, e.g. "
		  "@pmu_thread(\"cycles\")");
	EXPECT_EQ(first_error("probe begin { x = @pmu_thread(\"\") }"),
		  "t.stp:1:31: @pmu_thread event name is empty");
	EXPECT_EQ(first_error("probe begin { x = @pmu_thred(\"cycles\") }"),
		  "t.stp:1:19: unknown operator '@pmu_thred' [did you mean '@pmu_thread'?]");
}

} // namespace
