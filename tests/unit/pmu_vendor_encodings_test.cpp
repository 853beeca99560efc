// pmu_vendor_encodings_test.cpp - encodings pinned against the vendors'
// published event definitions.
//
// Intel: github.com/intel/perfmon <platform>/events/<platform>_core.json
//   (also the kernel's tools/perf/pmu-events/arch/x86/<platform>/*.json):
//   perf config = EventCode | UMask << 8 | Inv << 23 | CounterMask << 24.
//   Files: SKL/events/skylake_core.json, ICX/events/icelakex_core.json,
//   SPR/events/sapphirerapids_core.json.
// AMD: Processor Programming Reference (PPR) "Core Performance Monitor
//   Counters": PMCxNNN event select, UnitMask; perf config = EventSelect[7:0]
//   | UnitMask << 8 | EventSelect[11:8] << 32. PPR for family 17h model 31h
//   (zen2, pub. 55803), family 19h model 01h (zen3, 55898), family 19h
//   model 11h (zen4, 55901); also tools/perf/pmu-events/arch/x86/amdzen{2,3,4}.
// ARM: Arm Architecture Reference Manual (DDI 0487), "Common event numbers":
//   PERF_TYPE_RAW with config = event number (drivers/perf/arm_pmuv3.c).
// Values as recalled from those files, not re-fetched in this test. Where
// libpfm4 4.13 differs from the vendor, the comment says so and libpfm4's
// value is pinned.
#include "pmu/pmu.h"

#include <gtest/gtest.h>

namespace {

using namespace stap_pmu::pmu;

struct Pinned {
	const char *pmu, *event;
	uint64_t config, config1;
	const char *vendor_name;
};

constexpr uint32_t raw = 4; // PERF_TYPE_RAW

const Pinned pinned[] = {
	// skylake_core.json
	{"skl", "INST_RETIRED:ANY_P", 0xc0, 0, "INST_RETIRED.ANY_P 0xC0/0x00"},
	{"skl", "UNHALTED_CORE_CYCLES", 0x3c, 0, "CPU_CLK_UNHALTED.THREAD_P 0x3C/0x00"},
	{"skl", "BR_INST_RETIRED:ALL_BRANCHES", 0xc4, 0, "BR_INST_RETIRED.ALL_BRANCHES 0xC4/0x00"},
	{"skl", "BR_MISP_RETIRED:ALL_BRANCHES", 0xc5, 0, "BR_MISP_RETIRED.ALL_BRANCHES 0xC5/0x00"},
	{"skl", "LONGEST_LAT_CACHE:MISS", 0x412e, 0, "LONGEST_LAT_CACHE.MISS 0x2E/0x41"},
	{"skl", "LONGEST_LAT_CACHE:REFERENCE", 0x4f2e, 0, "LONGEST_LAT_CACHE.REFERENCE 0x2E/0x4F"},
	{"skl", "CYCLE_ACTIVITY:STALLS_TOTAL", 0x40004a3, 0,
	 "CYCLE_ACTIVITY.STALLS_TOTAL 0xA3/0x04 CounterMask 4"},
	{"skl", "IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", 0x400019c, 0,
	 "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE 0x9C/0x01 CounterMask 4"},
	{"skl", "MEM_LOAD_RETIRED:L3_MISS", 0x20d1, 0, "MEM_LOAD_RETIRED.L3_MISS 0xD1/0x20"},
	{"skl", "FRONTEND_RETIRED:DSB_MISS", 0x1c6, 0x11,
	 "FRONTEND_RETIRED.DSB_MISS 0xC6/0x01 MSR 0x3F7 = 0x11"},
	// icelakex_core.json
	{"icx", "INST_RETIRED:ANY_P", 0xc0, 0, "INST_RETIRED.ANY_P 0xC0/0x00"},
	{"icx", "BR_INST_RETIRED:ALL_BRANCHES", 0xc4, 0, "BR_INST_RETIRED.ALL_BRANCHES 0xC4/0x00"},
	{"icx", "BR_MISP_RETIRED:ALL_BRANCHES", 0xc5, 0, "BR_MISP_RETIRED.ALL_BRANCHES 0xC5/0x00"},
	{"icx", "LONGEST_LAT_CACHE:MISS", 0x412e, 0, "LONGEST_LAT_CACHE.MISS 0x2E/0x41"},
	{"icx", "IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", 0x500019c, 0,
	 "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE 0x9C/0x01 CounterMask 5"},
	{"icx", "CYCLE_ACTIVITY:STALLS_TOTAL", 0x40004a3, 0,
	 "CYCLE_ACTIVITY.STALLS_TOTAL 0xA3/0x04 CounterMask 4"},
	{"icx", "MEM_LOAD_RETIRED:L3_MISS", 0x20d1, 0, "MEM_LOAD_RETIRED.L3_MISS 0xD1/0x20"},
	// sapphirerapids_core.json
	{"spr", "INST_RETIRED:ANY_P", 0xc0, 0, "INST_RETIRED.ANY_P 0xC0/0x00"},
	{"spr", "BR_MISP_RETIRED:ALL_BRANCHES", 0xc5, 0, "BR_MISP_RETIRED.ALL_BRANCHES 0xC5/0x00"},
	{"spr", "LONGEST_LAT_CACHE:MISS", 0x412e, 0, "LONGEST_LAT_CACHE.MISS 0x2E/0x41"},
	{"spr", "IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE", 0x600019c, 0,
	 "IDQ_UOPS_NOT_DELIVERED.CYCLES_0_UOPS_DELIV.CORE 0x9C/0x01 CounterMask 6"},
	{"spr", "MEM_LOAD_RETIRED:L3_MISS", 0x20d1, 0, "MEM_LOAD_RETIRED.L3_MISS 0xD1/0x20"},
	// PPR 17h model 31h (zen2)
	{"amd64_fam17h_zen2", "RETIRED_INSTRUCTIONS", 0xc0, 0, "PMCx0C0 ExRetInstr"},
	{"amd64_fam17h_zen2", "CYCLES_NOT_IN_HALT", 0x76, 0, "PMCx076 LsNotHaltedCyc"},
	{"amd64_fam17h_zen2", "RETIRED_BRANCH_INSTRUCTIONS", 0xc2, 0, "PMCx0C2 ExRetBrn"},
	{"amd64_fam17h_zen2", "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", 0xc3, 0,
	 "PMCx0C3 ExRetBrnMisp"},
	{"amd64_fam17h_zen2", "UOPS_QUEUE_EMPTY", 0xa9, 0, "PMCx0A9 DeDisUopQueueEmpty"},
	// PPR 19h model 01h (zen3)
	{"amd64_fam19h_zen3", "RETIRED_INSTRUCTIONS", 0xc0, 0, "PMCx0C0 ExRetInstr"},
	{"amd64_fam19h_zen3", "CYCLES_NOT_IN_HALT", 0x76, 0, "PMCx076 LsNotHaltedCyc"},
	{"amd64_fam19h_zen3", "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED", 0xc3, 0,
	 "PMCx0C3 ExRetBrnMisp"},
	{"amd64_fam19h_zen3", "RETIRED_TAKEN_BRANCH_INSTRUCTIONS", 0xc4, 0, "PMCx0C4 ExRetBrnTkn"},
	// PPR 19h model 11h (zen4)
	{"amd64_fam19h_zen4", "RETIRED_INSTRUCTIONS", 0xc0, 0, "PMCx0C0 ExRetInstr"},
	{"amd64_fam19h_zen4", "CYCLES_NOT_IN_HALT", 0x76, 0, "PMCx076 LsNotHaltedCyc"},
	{"amd64_fam19h_zen4", "DISPATCH_STALLS_1:FE_NO_OPS", 0x1000001a0, 0,
	 "PMCx1A0 DeNoDispatchPerSlot UnitMask 0x01 (no ops from front end)"},
	{"amd64_fam19h_zen4", "DISPATCH_STALLS_1:BE_STALLS", 0x100001ea0, 0,
	 "PMCx1A0 DeNoDispatchPerSlot UnitMask 0x1E (back-end stalls)"},
	// ARM ARM common events
	{"arm_ac57", "INST_RETIRED", 0x08, 0, "INST_RETIRED 0x0008"},
	{"arm_ac57", "CPU_CYCLES", 0x11, 0, "CPU_CYCLES 0x0011"},
	{"arm_ac57", "BR_MIS_PRED", 0x10, 0, "BR_MIS_PRED 0x0010"},
	{"arm_ac57", "BR_PRED", 0x12, 0, "BR_PRED 0x0012"},
	{"arm_ac72", "L1D_CACHE", 0x04, 0, "L1D_CACHE 0x0004"},
	{"arm_ac72", "L1D_CACHE_REFILL", 0x03, 0, "L1D_CACHE_REFILL 0x0003"},
	{"arm_n1", "L2D_CACHE", 0x16, 0, "L2D_CACHE 0x0016"},
	{"arm_n1", "L2D_CACHE_REFILL", 0x17, 0, "L2D_CACHE_REFILL 0x0017"},
	{"arm_n2", "LL_CACHE_MISS_RD", 0x37, 0, "LL_CACHE_MISS_RD 0x0037"},
	{"arm_n2", "STALL_FRONTEND", 0x23, 0, "STALL_FRONTEND 0x0023"},
	{"arm_v1", "STALL_BACKEND", 0x24, 0, "STALL_BACKEND 0x0024"},
	{"arm_v1", "MEM_ACCESS", 0x13, 0, "MEM_ACCESS 0x0013"},
	{"arm_ac53", "EXC_TAKEN", 0x09, 0, "EXC_TAKEN 0x0009"},
	{"arm_ac76", "BUS_ACCESS", 0x19, 0, "BUS_ACCESS 0x0019"},
};

TEST(PmuVendorEncodings, MatchPublishedValues)
{
	ASSERT_GE(std::size(pinned), 30u);
	for (const Pinned &p : pinned) {
		TargetEncoding t = Resolver::encode(p.event, p.pmu);
		ASSERT_TRUE(t.enc) << p.pmu << " " << p.event << ": " << t.reason;
		EXPECT_EQ(t.enc->type, raw) << p.pmu << " " << p.event;
		EXPECT_EQ(t.enc->config, p.config) << p.pmu << " " << p.event << " (" << p.vendor_name << ")";
		EXPECT_EQ(t.enc->config1, p.config1) << p.pmu << " " << p.event;
	}
}

TEST(PmuVendorEncodings, Arm64Modifiers)
{
	TargetEncoding u = Resolver::encode("INST_RETIRED:u", "arm_ac57");
	ASSERT_TRUE(u.enc) << u.reason;
	EXPECT_TRUE(u.enc->exclude_kernel);
	EXPECT_FALSE(u.enc->exclude_user);
	EXPECT_TRUE(u.enc->exclude_hv);
	TargetEncoding k = Resolver::encode("arm_ac57::CPU_CYCLES:k", "arm_ac57");
	ASSERT_TRUE(k.enc) << k.reason;
	EXPECT_TRUE(k.enc->exclude_user);
	EXPECT_FALSE(k.enc->exclude_kernel);
	EXPECT_EQ(format_encoding(k), "arm_ac57 type=4 config=0x11 config1=0x0 exclude_user=1 exclude_hv=1");
	EXPECT_EQ(Resolver::encode("INST_RETIRED:x", "arm_ac57").reason, "invalid event attribute");
	EXPECT_EQ(Resolver::encode("skl::INST_RETIRED", "arm_ac57").reason,
		  "event is qualified for pmu skl");
	// generic perf events stay valid in arm64 rows
	TargetEncoding clk = Resolver::encode("cpu-clock", "arm_ac57");
	ASSERT_TRUE(clk.enc);
	EXPECT_EQ(clk.enc->type, 1u);
}

// Portable concepts resolve to the model event of each PMU.
TEST(PmuConcepts, ResolvePerPmu)
{
	auto cfg = [](const char *ev, const char *pmu) {
		TargetEncoding t = Resolver::encode(ev, pmu);
		EXPECT_TRUE(t.enc) << ev << " on " << pmu << ": " << t.reason;
		return t.enc ? t.enc->config : ~0ull;
	};
	EXPECT_EQ(cfg("llc-misses", "hsw"), 0x412eu);
	EXPECT_NE(Resolver::encode("llc-misses", "hsw").fstr.find("LONGEST_LAT_CACHE:MISS"),
		  std::string::npos);
	EXPECT_EQ(cfg("llc-misses", "snb"), 0x412eu); // LLC_MISSES (libpfm4 alias)
	EXPECT_EQ(cfg("cycles", "amd64_fam19h_zen3"), 0x76u);
	EXPECT_EQ(cfg("branch-misses", "amd64_fam15h_interlagos"), 0xc3u);
	EXPECT_EQ(cfg("branches", "snb"), 0x4c4u); // libpfm4: snb BR_INST_RETIRED umask 4 (Intel: 0x00)
	EXPECT_EQ(cfg("ref-cycles", "skl"), 0x300u);
	EXPECT_EQ(cfg("instructions", "arm_ac57"), 0x08u);
	EXPECT_EQ(cfg("stalled-cycles-frontend", "amd64_fam17h_zen1"), 0x287u);
	EXPECT_EQ(cfg("stalled-cycles-backend", "arm_n1"), 0x24u);
	// icl/icx no longer name the architectural LLC reference event: the
	// kernel's generic cache-references is that event there.
	TargetEncoding icx = Resolver::encode("cache-references", "icx");
	ASSERT_TRUE(icx.enc);
	EXPECT_EQ(icx.enc->type, 0u);
	EXPECT_EQ(icx.enc->config, 2u);
	// modifiers carry over
	TargetEncoding u = Resolver::encode("cycles:u", "skl");
	ASSERT_TRUE(u.enc);
	EXPECT_TRUE(u.enc->exclude_kernel);
	// lacking: AMD core PMUs have no LLC (L3) events
	TargetEncoding z = Resolver::encode("llc-misses", "amd64_fam19h_zen3");
	EXPECT_FALSE(z.enc);
	EXPECT_EQ(z.reason, "no amd64_fam19h_zen3 event for llc-misses");
	// the generic row
	TargetEncoding g = Resolver::encode("llc-misses", "perf");
	ASSERT_TRUE(g.enc);
	EXPECT_EQ(g.enc->config, 3u); // PERF_COUNT_HW_CACHE_MISSES
}

TEST(PmuTargets, GroupsAndArch)
{
	auto all = Resolver::expand_targets({"all"}, Arch::X86_64);
	ASSERT_TRUE(all) << all.error().what;
	EXPECT_EQ(all->size(), 51u); // 47 libpfm4 PMUs, 4 hybrid Intel ones
	auto intel = Resolver::expand_targets({"intel"}, Arch::X86_64);
	auto amd = Resolver::expand_targets({"amd"}, Arch::X86_64);
	ASSERT_TRUE(intel && amd);
	EXPECT_EQ(intel->size() + amd->size(), 51u);
	EXPECT_EQ(intel->front(), "core");
	EXPECT_EQ(amd->back(), "amd64_fam19h_zen4");
	auto arm = Resolver::expand_targets({"all", "perf"}, Arch::Arm64);
	ASSERT_TRUE(arm) << arm.error().what;
	EXPECT_EQ(*arm, (std::vector<std::string>{"arm_ac53", "arm_ac57", "arm_ac72", "arm_ac76",
						  "arm_n1", "arm_n2", "arm_v1", "perf"}));
	auto a57 = Resolver::expand_targets({"cortex-a57"});
	ASSERT_TRUE(a57) << a57.error().what;
	EXPECT_EQ(*a57, std::vector<std::string>{"arm_ac57"});
	auto skl = Resolver::expand_targets({"skl"}, Arch::Arm64);
	ASSERT_FALSE(skl);
	EXPECT_EQ(skl.error().what, "PMU 'skl' is an x86_64 PMU; the target architecture is arm64");
	auto intel_arm = Resolver::expand_targets({"intel"}, Arch::Arm64);
	ASSERT_FALSE(intel_arm);
	EXPECT_EQ(intel_arm.error().what, "'intel' names x86 PMUs; the target architecture is arm64");
#if !defined(__aarch64__)
	auto host = Resolver::expand_targets({"host"}, Arch::Arm64);
	ASSERT_TRUE(host) << host.error().what;
	EXPECT_TRUE(host->empty());
#endif
}

} // namespace
