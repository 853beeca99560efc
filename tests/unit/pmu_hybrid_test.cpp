// pmu_hybrid_test.cpp - the hybrid Intel rows (pmu/intel_hybrid_events.cpp):
// encodings pinned against Intel's published event data, the match by model
// and core type for every hybrid model, and their place in targets, fat
// tables and listings.
//
// Encodings: github.com/intel/perfmon mapfile.csv and
//   ADL/events/alderlake_goldencove_core.json   (adl_glc, Core Type 0x40)
//   ADL/events/alderlake_gracemont_core.json    (adl_grt, Core Type 0x20)
//   MTL/events/meteorlake_redwoodcove_core.json (mtl_rwc, Core Type 0x40)
//   MTL/events/meteorlake_crestmont_core.json   (mtl_cmt, Core Type 0x20)
// (the Alder Lake ones also in Linux 6.1's tools/perf/pmu-events/arch/x86/
// alderlake, as compiled into Debian's perf 6.1): perf config = EventCode |
// UMask << 8 | EdgeDetect << 18 | CounterMask << 24, PERF_TYPE_RAW. Each
// line gives the published name, EventCode/UMask (and CounterMask/Edge).
#include "pmu/fat_table.h"
#include "pmu/internal.h"
#include "pmu/pmu.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace {

using namespace stap_pmu::pmu;

struct Pinned {
	const char *pmu, *event;
	uint64_t config;
	const char *published;
};

const Pinned pinned[] = {
	// alderlake_goldencove_core.json
	{"adl_glc", "INST_RETIRED:ANY_P", 0xc0, "INST_RETIRED.ANY_P 0xc0/0x00"},
	{"adl_glc", "CPU_CLK_UNHALTED:THREAD_P", 0x3c, "CPU_CLK_UNHALTED.THREAD_P 0x3c/0x00"},
	{"adl_glc", "CPU_CLK_UNHALTED:REF_TSC", 0x0300, "CPU_CLK_UNHALTED.REF_TSC 0x00/0x03 (fixed 2)"},
	{"adl_glc", "BR_INST_RETIRED:ALL_BRANCHES", 0xc4, "BR_INST_RETIRED.ALL_BRANCHES 0xc4/0x00"},
	{"adl_glc", "BR_MISP_RETIRED:ALL_BRANCHES", 0xc5, "BR_MISP_RETIRED.ALL_BRANCHES 0xc5/0x00"},
	{"adl_glc", "LONGEST_LAT_CACHE:MISS", 0x412e, "LONGEST_LAT_CACHE.MISS 0x2e/0x41"},
	{"adl_glc", "LONGEST_LAT_CACHE:REFERENCE", 0x4f2e, "LONGEST_LAT_CACHE.REFERENCE 0x2e/0x4f"},
	{"adl_glc", "MEM_LOAD_RETIRED:L1_MISS", 0x08d1, "MEM_LOAD_RETIRED.L1_MISS 0xd1/0x08"},
	{"adl_glc", "MEM_LOAD_RETIRED:L2_MISS", 0x10d1, "MEM_LOAD_RETIRED.L2_MISS 0xd1/0x10"},
	{"adl_glc", "MEM_LOAD_RETIRED:L3_MISS", 0x20d1, "MEM_LOAD_RETIRED.L3_MISS 0xd1/0x20"},
	{"adl_glc", "MEM_INST_RETIRED:ALL_LOADS", 0x81d0, "MEM_INST_RETIRED.ALL_LOADS 0xd0/0x81"},
	{"adl_glc", "TOPDOWN:SLOTS_P", 0x01a4, "TOPDOWN.SLOTS_P 0xa4/0x01"},
	{"adl_glc", "MACHINE_CLEARS:COUNT", 0x010401c3,
	 "MACHINE_CLEARS.COUNT 0xc3/0x01 CounterMask 1 EdgeDetect 1"},
	// alderlake_gracemont_core.json
	{"adl_grt", "INST_RETIRED:ANY_P", 0xc0, "INST_RETIRED.ANY_P 0xc0/0x00"},
	{"adl_grt", "CPU_CLK_UNHALTED:CORE_P", 0x3c, "CPU_CLK_UNHALTED.CORE_P 0x3c/0x00"},
	{"adl_grt", "CPU_CLK_UNHALTED:REF_TSC", 0x0300, "CPU_CLK_UNHALTED.REF_TSC 0x00/0x03 (fixed 2)"},
	{"adl_grt", "BR_MISP_RETIRED:ALL_BRANCHES", 0xc5, "BR_MISP_RETIRED.ALL_BRANCHES 0xc5/0x00"},
	{"adl_grt", "LONGEST_LAT_CACHE:MISS", 0x412e, "LONGEST_LAT_CACHE.MISS 0x2e/0x41"},
	{"adl_grt", "MEM_UOPS_RETIRED:ALL_LOADS", 0x81d0, "MEM_UOPS_RETIRED.ALL_LOADS 0xd0/0x81"},
	{"adl_grt", "TOPDOWN_FE_BOUND:ALL", 0x71, "TOPDOWN_FE_BOUND.ALL 0x71/0x00"},
	{"adl_grt", "TOPDOWN_BE_BOUND:ALL", 0x74, "TOPDOWN_BE_BOUND.ALL 0x74/0x00"},
	// meteorlake_redwoodcove_core.json
	{"mtl_rwc", "INST_RETIRED:ANY_P", 0xc0, "INST_RETIRED.ANY_P 0xc0/0x00"},
	{"mtl_rwc", "CPU_CLK_UNHALTED:THREAD_P", 0x3c, "CPU_CLK_UNHALTED.THREAD_P 0x3c/0x00"},
	{"mtl_rwc", "LONGEST_LAT_CACHE:MISS", 0x412e, "LONGEST_LAT_CACHE.MISS 0x2e/0x41"},
	{"mtl_rwc", "IDQ_BUBBLES:CORE", 0x019c, "IDQ_BUBBLES.CORE 0x9c/0x01"},
	{"mtl_rwc", "DTLB_LOAD_MISSES:WALK_COMPLETED", 0x0e12,
	 "DTLB_LOAD_MISSES.WALK_COMPLETED 0x12/0x0e"},
	// meteorlake_crestmont_core.json
	{"mtl_cmt", "CPU_CLK_UNHALTED:REF_TSC", 0x0300, "CPU_CLK_UNHALTED.REF_TSC 0x00/0x03 (fixed 2)"},
	{"mtl_cmt", "LD_BLOCKS:STORE_FORWARD", 0x0203, "LD_BLOCKS.STORE_FORWARD 0x03/0x02"},
	{"mtl_cmt", "MEM_SCHEDULER_BLOCK:ALL", 0x0704, "MEM_SCHEDULER_BLOCK.ALL 0x04/0x07"},
	{"mtl_cmt", "CPU_CLK_UNHALTED:CORE_P", 0x3c, "CPU_CLK_UNHALTED.CORE_P 0x3c/0x00"},
	{"mtl_cmt", "LONGEST_LAT_CACHE:MISS", 0x412e, "LONGEST_LAT_CACHE.MISS 0x2e/0x41"},
	{"mtl_cmt", "MEM_BOUND_STALLS_LOAD:ALL", 0x7f34, "MEM_BOUND_STALLS_LOAD.ALL 0x34/0x7f"},
	{"mtl_cmt", "TOPDOWN_RETIRING:ALL", 0x72, "TOPDOWN_RETIRING.ALL 0x72/0x00"},
	{"mtl_cmt", "BR_INST_RETIRED:COND", 0x7ec4, "BR_INST_RETIRED.COND 0xc4/0x7e"},
	{"mtl_cmt", "BR_MISP_RETIRED:ALL_BRANCHES", 0xc5, "BR_MISP_RETIRED.ALL_BRANCHES 0xc5/0x00"},
};

TEST(PmuHybrid, EncodingsArePublishedValues)
{
	for (const auto &p : pinned) {
		TargetEncoding t = Resolver::encode(p.event, p.pmu);
		ASSERT_TRUE(t.enc) << p.pmu << "::" << p.event << ": " << t.reason;
		EXPECT_EQ(t.enc->type, 4u) << p.published;
		EXPECT_EQ(t.enc->config, p.config) << p.pmu << " " << p.published;
		EXPECT_EQ(t.enc->config1, 0u) << p.published;
		EXPECT_EQ(t.fstr, std::string(p.pmu) + "::" + p.event);
	}
}

// The exclude bits are libpfm4's for an Intel core event, so a hybrid row
// shares its encodings with the other Intel rows.
// The own tables' :u/:k: a Status whose error is libpfm4's wording.
TEST(PmuHybrid, UkModifiersFailWithLibpfm4sText)
{
	Encoding e;
	ASSERT_TRUE(detail::apply_uk_modifiers(":u", e).ok());
	EXPECT_TRUE(e.exclude_kernel);
	EXPECT_FALSE(e.exclude_user);
	stap_pmu::Status st = detail::apply_uk_modifiers(":u:c=1", e);
	ASSERT_FALSE(st.ok());
	EXPECT_EQ(st.error().what, "invalid event attribute");
	EXPECT_EQ(st.error().hint, "");
}

TEST(PmuHybrid, ModifiersAsLibpfm4ForIntel)
{
	for (const char *mods : {"", ":u", ":k", ":u:k"}) {
		std::string ev = std::string("INST_RETIRED:ANY_P") + mods;
		TargetEncoding skl = Resolver::encode(ev, "skl");
		TargetEncoding glc = Resolver::encode(ev, "adl_glc");
		ASSERT_TRUE(skl.enc && glc.enc) << ev;
		EXPECT_EQ(*skl.enc, *glc.enc) << ev;
	}
	TargetEncoding t = Resolver::encode("LONGEST_LAT_CACHE:MISS:c=1", "adl_grt");
	EXPECT_FALSE(t.enc);
	EXPECT_EQ(t.reason, "invalid event attribute");
	t = Resolver::encode("adl_glc::INST_RETIRED:ANY_P", "adl_grt");
	EXPECT_FALSE(t.enc);
	EXPECT_EQ(t.reason, "event is qualified for pmu adl_glc");
	// an event one core type lacks
	t = Resolver::encode("MEM_LOAD_RETIRED:L3_MISS", "adl_grt");
	EXPECT_FALSE(t.enc);
	EXPECT_EQ(t.reason, "event not found");
	// generic perf events are valid in every row
	t = Resolver::encode("cpu-clock", "adl_grt");
	ASSERT_TRUE(t.enc);
	EXPECT_EQ(t.enc->type, 1u);
}

// The portable events resolve to the encodings the kernel's x86 PMU maps
// them to on these cores (intel_perfmon_event_map: 0x3c, 0xc0, 0x0300,
// 0xc4, 0xc5, 0x4f2e, 0x412e).
TEST(PmuHybrid, PortableEvents)
{
	const std::pair<const char *, uint64_t> want[] = {
		{"cycles", 0x3c},	   {"instructions", 0xc0},	{"ref-cycles", 0x0300},
		{"branches", 0xc4},	   {"branch-misses", 0xc5},	{"cache-references", 0x4f2e},
		{"llc-misses", 0x412e},
	};
	for (const char *pmu : {"adl_glc", "adl_grt", "mtl_rwc", "mtl_cmt"})
		for (const auto &[concept_name, config] : want) {
			TargetEncoding t = Resolver::encode(concept_name, pmu);
			ASSERT_TRUE(t.enc) << pmu << " " << concept_name << ": " << t.reason;
			EXPECT_EQ(t.enc->type, 4u) << pmu << " " << concept_name;
			EXPECT_EQ(t.enc->config, config) << pmu << " " << concept_name;
		}
	EXPECT_FALSE(Resolver::encode("stalled-cycles-frontend", "adl_glc").enc);
}

CpuId intel(unsigned model, unsigned core_type, unsigned stepping = 0)
{
	return {"GenuineIntel", 6, model, stepping, core_type};
}

// Every hybrid model, with each core type and with none reported.
TEST(PmuHybrid, MatchByModelAndCoreType)
{
	struct Part {
		unsigned model;
		const char *p, *e;
	};
	const Part parts[] = {
		{0x97, "adl_glc", "adl_grt"}, {0x9a, "adl_glc", "adl_grt"},
		{0xb7, "adl_glc", "adl_grt"}, {0xba, "adl_glc", "adl_grt"},
		{0xbf, "adl_glc", "adl_grt"}, {0xaa, "mtl_rwc", "mtl_cmt"},
		{0xac, "mtl_rwc", "mtl_cmt"}, {0xb5, "mtl_rwc", "mtl_cmt"},
	};
	for (const Part &p : parts)
		for (unsigned stepping : {0u, 2u, 15u}) {
			EXPECT_EQ(Resolver::pmu_for_cpu(intel(p.model, 0x40, stepping)), p.p) << p.model;
			EXPECT_EQ(Resolver::pmu_for_cpu(intel(p.model, 0x20, stepping)), p.e) << p.model;
			// no core type reported (a VM forcing the model): the P-core row
			EXPECT_EQ(Resolver::pmu_for_cpu(intel(p.model, 0, stepping)), p.p) << p.model;
			// an unknown core type matches neither
			EXPECT_EQ(Resolver::pmu_for_cpu(intel(p.model, 0x10, stepping)), std::nullopt);
			EXPECT_EQ(Resolver::pmus_for_model(intel(p.model, 0x20)),
				  (std::vector<std::string>{p.p, p.e}));
		}
	// Alder Lake-N is not hybrid and has no row; family 15 model 0x97 neither
	EXPECT_EQ(Resolver::pmu_for_cpu(intel(0xbe, 0)), std::nullopt);
	EXPECT_EQ(Resolver::pmu_for_cpu({"GenuineIntel", 15, 0x97, 0, 0x40}), std::nullopt);
	// a non-hybrid model ignores the core type
	EXPECT_EQ(Resolver::pmu_for_cpu(intel(94, 0x40, 3)), "skl");
	EXPECT_EQ(Resolver::pmus_for_model(intel(94, 0)), (std::vector<std::string>{"skl"}));

	auto m = Resolver::cpu_matches("adl_grt");
	ASSERT_EQ(m.size(), 5u);
	EXPECT_EQ(m[0], (CpuMatch{"GenuineIntel", 6, 0x97, 0x97, 0, 15, core_type_atom}));
	EXPECT_EQ(Resolver::cpu_matches("mtl_rwc").back(),
		  (CpuMatch{"GenuineIntel", 6, 0xb5, 0xb5, 0, 15, core_type_core}));
}

TEST(PmuHybrid, CoreTypeRule)
{
	EXPECT_TRUE(core_type_matches(0, 0));
	EXPECT_TRUE(core_type_matches(0, 0x20));
	EXPECT_TRUE(core_type_matches(0x40, 0x40));
	EXPECT_TRUE(core_type_matches(0x40, 0));
	EXPECT_FALSE(core_type_matches(0x40, 0x20));
	EXPECT_TRUE(core_type_matches(0x20, 0x20));
	EXPECT_FALSE(core_type_matches(0x20, 0));
	EXPECT_FALSE(core_type_matches(0x20, 0x40));
}

TEST(PmuHybrid, TargetsIncludeTheHybridRows)
{
	auto intel_targets = Resolver::expand_targets({"intel"}, Arch::X86_64);
	ASSERT_TRUE(intel_targets);
	for (const char *p : {"adl_glc", "adl_grt", "mtl_rwc", "mtl_cmt"}) {
		EXPECT_NE(std::find(intel_targets->begin(), intel_targets->end(), p),
			  intel_targets->end())
			<< p;
		auto one = Resolver::expand_targets({p}, Arch::X86_64);
		ASSERT_TRUE(one) << p;
		EXPECT_EQ(*one, std::vector<std::string>{p});
		EXPECT_EQ(Resolver::pmu_arch(p), Arch::X86_64);
	}
	auto amd = Resolver::expand_targets({"amd"}, Arch::X86_64);
	ASSERT_TRUE(amd);
	EXPECT_EQ(std::find(amd->begin(), amd->end(), "adl_glc"), amd->end());
	auto arm = Resolver::expand_targets({"adl_glc"}, Arch::Arm64);
	ASSERT_FALSE(arm);
	EXPECT_EQ(arm.error().what, "PMU 'adl_glc' is an x86_64 PMU; the target architecture is arm64");
}

// The two core types of a part share its match entries in the emitted
// table; each row carries its core type.
TEST(PmuHybrid, FatTableRows)
{
	FatTable t = build_fat_table({"instructions", "MEM_LOAD_RETIRED:L3_MISS"},
				     {"adl_glc", "adl_grt", "perf"}, Fallback::generic);
	ASSERT_EQ(t.rows.size(), 1u);
	EXPECT_EQ(t.rows[0].pmu, "adl_glc");
	EXPECT_EQ(t.rows[0].events[1].config, 0x20d1u);
	// the E-core lacks MEM_LOAD_RETIRED:L3_MISS, which has no generic form:
	// --pmu-fallback generic cannot help, the row is dropped (and perf's)
	ASSERT_EQ(t.dropped.size(), 2u);
	EXPECT_EQ(t.dropped[0].pmu, "adl_grt");
	EXPECT_EQ(t.dropped[0].reason, "lacks MEM_LOAD_RETIRED:L3_MISS");
	EXPECT_EQ(t.dropped[1].pmu, "perf");

	t = build_fat_table({"instructions", "llc-misses"}, {"adl_glc", "adl_grt", "perf"});
	ASSERT_EQ(t.rows.size(), 3u);
	std::string c = emit_pmu_tables(t);
	EXPECT_NE(c.find("\t.match = {\n\t\t/* adl_glc */\n"
			 "\t\tSTP_PMU_MATCH(STP_VENDOR_INTEL, 6, 151, 151, 0, 15),\n"
			 "\t\tSTP_PMU_MATCH(STP_VENDOR_INTEL, 6, 154, 154, 0, 15),\n"
			 "\t\tSTP_PMU_MATCH(STP_VENDOR_INTEL, 6, 183, 183, 0, 15),\n"
			 "\t\tSTP_PMU_MATCH(STP_VENDOR_INTEL, 6, 186, 186, 0, 15),\n"
			 "\t\tSTP_PMU_MATCH(STP_VENDOR_INTEL, 6, 191, 191, 0, 15),\n\t},\n"),
		  std::string::npos)
		<< c;
	EXPECT_NE(c.find("\t.rows = {\n"
			 "\t\t{ 5, 0, STP_CORE_CORE, 0 }, /* adl_glc */\n"
			 "\t\t{ 0, 1, STP_CORE_ATOM, 0 }, /* adl_grt: the previous row's CPUs */\n"
			 "\t\t{ 0, 0, STP_CORE_ANY, 1 }, /* perf: any CPU */\n\t},\n"),
		  std::string::npos)
		<< c;
	// 4 encodings x 8 + 5 entries x 4 + 2 vectors x 2 + 3 rows x 2 +
	// "\001adl_gl\343\006r\364\001per\346\0" (17) + "instructions\0llc-misses\0"
	// (24) = 103, rounded to 4
	EXPECT_NE(c.find("\t.row_names = \"\\001adl_gl\\343\\006r\\364\\001per\\346\",\n"),
		  std::string::npos)
		<< c;
	EXPECT_EQ(pmu_tables_size(t), 104u);
}

TEST(PmuHybrid, ListEvents)
{
	std::string out = list_events({"adl_grt"});
	EXPECT_NE(out.find("\nadl_grt events (Intel Alder Lake / Raptor Lake Gracemont E-core, "
			   "core type 0x20; Intel perfmon encodings; modifiers: :u :k):\n"),
		  std::string::npos)
		<< out;
	EXPECT_NE(out.find("  TOPDOWN_BE_BOUND:ALL"), std::string::npos) << out;
	EXPECT_NE(out.find(" adl_grt=CPU_CLK_UNHALTED:THREAD_P"), std::string::npos) << out;
	out = list_events({"adl_glc"});
	EXPECT_NE(out.find("  MACHINE_CLEARS:COUNT"), std::string::npos) << out;
	EXPECT_NE(out.find("(event 0xc3 umask 0x01 cmask 1 edge)"), std::string::npos) << out;
}

TEST(PmuHybrid, ClosestNames)
{
	auto near = Resolver::closest("TOPDOWN_BE_BOUND:AL", {"adl_grt"});
	ASSERT_FALSE(near.empty());
	EXPECT_EQ(near[0], "TOPDOWN_BE_BOUND:ALL");
}

} // namespace
