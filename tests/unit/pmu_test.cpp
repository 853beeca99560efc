// pmu_test.cpp - pmu/: libpfm4 encodings, CPU match table, targets, fat table.
#include "pmu/fat_table.h"
#include "pmu/pmu.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <perfmon/pfmlib.h>

#include <gtest/gtest.h>

namespace {

using namespace stap_pmu::pmu;

bool has(const std::vector<std::string> &v, const std::string &s)
{
	return std::find(v.begin(), v.end(), s) != v.end();
}

bool contains(const std::string &text, const std::string &part)
{
	return text.find(part) != std::string::npos;
}

Encoding enc_ok(const std::string &event, const std::string &pmu)
{
	TargetEncoding t = Resolver::encode(event, pmu);
	EXPECT_TRUE(t.enc) << event << " on " << pmu << ": " << t.reason;
	return t.enc.value_or(Encoding{});
}

TEST(PmuResolver, Initializes)
{
	auto st = Resolver::init();
	EXPECT_TRUE(st) << st.error().what;
	EXPECT_EQ(Resolver::pfm_version(), "4.13");
}

// Published encodings (pfm-lab REPORT.md section 3, Intel/AMD event files).
TEST(PmuEncode, SkylakeInstRetiredUser)
{
	Encoding e = enc_ok("INST_RETIRED:ANY_P:u", "skl");
	EXPECT_EQ(e.type, 4u); // PERF_TYPE_RAW
	EXPECT_EQ(e.config, 0xc0u);
	EXPECT_EQ(e.config1, 0u);
	EXPECT_TRUE(e.exclude_kernel);
	EXPECT_TRUE(e.exclude_guest);
	EXPECT_FALSE(e.exclude_user);
	EXPECT_FALSE(e.exclude_hv); // Intel core PMUs have no hypervisor level
	EXPECT_FALSE(e.exclude_host);
	EXPECT_EQ(e.precise_ip, 0u);
}

TEST(PmuEncode, QualifiedEventOnlyForItsPmu)
{
	EXPECT_EQ(enc_ok("skl::INST_RETIRED:ANY_P:u", "skl"), enc_ok("INST_RETIRED:ANY_P:u", "skl"));
	TargetEncoding t = Resolver::encode("skl::INST_RETIRED:ANY_P", "skx");
	EXPECT_FALSE(t.enc);
	EXPECT_EQ(t.reason, "event is qualified for pmu skl");
	// Generic events are valid on every CPU model's row.
	Encoding e = enc_ok("perf::cpu-clock", "skl");
	EXPECT_EQ(e.type, 1u);
	EXPECT_EQ(e.config, 0u);
}

TEST(PmuEncode, Zen3RetiredInstructions)
{
	Encoding e = enc_ok("RETIRED_INSTRUCTIONS", "amd64_fam19h_zen3");
	EXPECT_EQ(e.type, 4u);
	EXPECT_EQ(e.config, 0xc0u);
	EXPECT_EQ(e.config1, 0u);
	// AMD PMUs support the hypervisor level; with PLM0|PLM3 libpfm4 excludes it.
	EXPECT_TRUE(e.exclude_hv);
	EXPECT_TRUE(e.exclude_guest);
	EXPECT_FALSE(e.exclude_user);
	EXPECT_FALSE(e.exclude_kernel);
}

TEST(PmuEncode, GenericPerfEvents)
{
	Encoding cycles = enc_ok("cycles", "perf");
	EXPECT_EQ(cycles.type, 0u); // PERF_TYPE_HARDWARE
	EXPECT_EQ(cycles.config, 0u);
	EXPECT_EQ(enc_ok("perf::cycles", "perf"), cycles);
	Encoding insns = enc_ok("instructions", "perf");
	EXPECT_EQ(insns.type, 0u);
	EXPECT_EQ(insns.config, 1u);
	Encoding clock = enc_ok("perf::cpu-clock", "perf");
	EXPECT_EQ(clock.type, 1u); // PERF_TYPE_SOFTWARE
	EXPECT_EQ(clock.config, 0u);
}

// libpfm4 copies the build host's core PMU privilege levels into the generic
// perf PMU (exclude_hv set on an AMD host, clear on an Intel one); the generic
// row must be the same whichever machine built the module.
TEST(PmuEncode, GenericRowDoesNotDependOnTheBuildHost)
{
	EXPECT_TRUE(enc_ok("perf::cpu-clock", "perf").exclude_hv);
	EXPECT_TRUE(enc_ok("cycles", "perf").exclude_hv);
	EXPECT_TRUE(enc_ok("cycles:u", "perf").exclude_hv);
	EXPECT_TRUE(enc_ok("cycles:u", "perf").exclude_kernel);
	// a model's row keeps its own PMU's levels (Intel has no hypervisor level)
	EXPECT_FALSE(enc_ok("INST_RETIRED:ANY_P", "skl").exclude_hv);
}

TEST(PmuEncode, GenericEventOnModelPmuFallsBackToPerf)
{
	TargetEncoding t = Resolver::encode("bus-cycles", "skl");
	ASSERT_TRUE(t.enc) << t.reason;
	EXPECT_EQ(*t.enc, enc_ok("bus-cycles", "perf"));
	EXPECT_EQ(t.fstr.rfind("perf::", 0), 0u) << t.fstr;
	// ...but the generic PMU never borrows a model's events.
	EXPECT_FALSE(Resolver::encode("INST_RETIRED:ANY_P", "perf").enc);
}

TEST(PmuEncode, Config1Events)
{
	// FRONTEND_RETIRED.DSB_MISS: Intel's Skylake event file (also in the
	// kernel's tools/perf/pmu-events JSON) gives EventCode 0xC6, UMask 0x01,
	// MSRIndex 0x3F7 (MSR_PEBS_FRONTEND), MSRValue 0x11. perf puts the MSR
	// value in config1. libpfm4 agrees.
	Encoding fe = enc_ok("FRONTEND_RETIRED:DSB_MISS", "skl");
	EXPECT_EQ(fe.type, 4u);
	EXPECT_EQ(fe.config, 0x1c6u);
	EXPECT_EQ(fe.config1, 0x11u);

	// OFFCORE_RESPONSE_0 (event 0xB7 umask 0x01, MSR 0x1A6 value in config1).
	// Value pinned from libpfm4 4.13: DMND_DATA_RD (bit 0) | L3_MISS (on skl an
	// alias of L3_MISS_LOCAL, bit 26) | SNP_ANY (bits 31-37, added by
	// default) = 0x3f84000001, which is Intel's
	// OFFCORE_RESPONSE.DEMAND_DATA_RD.L3_MISS_LOCAL_DRAM.ANY_SNOOP. Intel's
	// OFFCORE_RESPONSE.DEMAND_DATA_RD.L3_MISS.ANY_SNOOP for Skylake sets bits
	// 26-29 (0x3FBC000001, recalled from skylake_core.json, not re-checked
	// here): the same name means a narrower event in libpfm4.
	TargetEncoding t = Resolver::encode("OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS", "skl");
	ASSERT_TRUE(t.enc) << t.reason;
	EXPECT_EQ(t.enc->config, 0x1b7u);
	EXPECT_EQ(t.enc->config1, 0x3f84000001u);
	EXPECT_TRUE(contains(t.fstr, "L3_MISS_LOCAL")) << t.fstr;
}

TEST(PmuEncode, Unavailable)
{
	TargetEncoding t = Resolver::encode("NO_SUCH_EVENT", "skl");
	EXPECT_FALSE(t.enc);
	EXPECT_EQ(t.reason, "event not found");
	// Names are not portable: icl has no BRANCH_INSTRUCTIONS_RETIRED.
	EXPECT_TRUE(Resolver::encode("BRANCH_INSTRUCTIONS_RETIRED", "skl").enc);
	t = Resolver::encode("BRANCH_INSTRUCTIONS_RETIRED", "icl");
	EXPECT_FALSE(t.enc);
	EXPECT_EQ(t.reason, "event not found");
	t = Resolver::encode("cycles", "nosuchpmu");
	EXPECT_FALSE(t.enc);
	EXPECT_EQ(t.reason, "unknown PMU 'nosuchpmu'");
}

TEST(PmuFormat, ExactLines)
{
	EXPECT_EQ(format_encoding(Resolver::encode("INST_RETIRED:ANY_P:u", "skl")),
		  "skl type=4 config=0xc0 config1=0x0 exclude_kernel=1 exclude_guest=1");
	EXPECT_EQ(format_encoding(Resolver::encode("BRANCH_INSTRUCTIONS_RETIRED", "icl")),
		  "icl unavailable: event not found");
	EXPECT_EQ(format_encoding(Resolver::encode("RETIRED_INSTRUCTIONS", "amd64_fam19h_zen3")),
		  "amd64_fam19h_zen3 type=4 config=0xc0 config1=0x0 exclude_hv=1 exclude_guest=1");
	EXPECT_EQ(format_encoding(Resolver::encode("INST_RETIRED:ANY_P:k:precise=2", "skl")),
		  "skl type=4 config=0xc0 config1=0x0 exclude_user=1 exclude_guest=1 precise_ip=2");
	EXPECT_EQ(format_encoding(Resolver::encode("OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS", "skl")),
		  "skl type=4 config=0x1b7 config1=0x3f84000001 exclude_guest=1");
	EXPECT_EQ(format_encoding(Resolver::encode("perf::cpu-clock", "perf")),
		  "perf type=1 config=0x0 config1=0x0 exclude_hv=1 exclude_guest=1");
}

TEST(PmuClosest, Misspellings)
{
	EXPECT_TRUE(has(Resolver::closest("INST_RETIRD:ANY_P", {"skl"}), "INST_RETIRED:ANY_P"));
	EXPECT_TRUE(has(Resolver::closest("inst_retired:any_p", {"skl"}), "INST_RETIRED:ANY_P"));
	EXPECT_TRUE(has(Resolver::closest("RETIRED_INSTRUCTOINS", {"amd64_fam19h_zen3"}),
			"RETIRED_INSTRUCTIONS"));
	// libpfm4 spells the generic aliases in capitals; matching ignores case.
	EXPECT_TRUE(has(Resolver::closest("cyclse", {"perf"}), "CYCLES"));
	auto best = Resolver::closest("INST_RETIRD", {"skl", "perf"}, 2);
	EXPECT_LE(best.size(), 2u);
	ASSERT_FALSE(best.empty());
	EXPECT_EQ(best.front(), "INST_RETIRED");
	EXPECT_TRUE(Resolver::closest("INST_RETIRD", {"nosuchpmu"}).empty());
}

TEST(PmuCpuMatch, KnownModels)
{
	auto pmu = [](const char *vendor, unsigned fam, unsigned model, unsigned step) {
		return Resolver::pmu_for_cpu({vendor, fam, model, step});
	};
	const char *intel = "GenuineIntel", *amd = "AuthenticAMD";
	EXPECT_EQ(pmu(intel, 6, 94, 3), "skl");  // Skylake-Client
	EXPECT_EQ(pmu(intel, 6, 85, 4), "skx");  // Skylake-Server
	EXPECT_EQ(pmu(intel, 6, 85, 6), "clx");  // Cascade Lake
	EXPECT_EQ(pmu(intel, 6, 60, 1), "hsw");  // Haswell
	EXPECT_EQ(pmu(intel, 6, 143, 8), "spr"); // Sapphire Rapids
	EXPECT_EQ(pmu(intel, 6, 108, 0), "icl"); // Icelake-D: libpfm4 says client
	EXPECT_EQ(pmu(amd, 23, 1, 2), "amd64_fam17h_zen1"); // EPYC (Naples)
	EXPECT_EQ(pmu(amd, 23, 49, 0), "amd64_fam17h_zen2"); // EPYC Rome
	EXPECT_EQ(pmu(amd, 25, 1, 1), "amd64_fam19h_zen3");  // EPYC-Milan
	EXPECT_EQ(pmu(amd, 25, 0x11, 1), "amd64_fam19h_zen4"); // EPYC Genoa
	EXPECT_EQ(pmu(amd, 15, 5, 1), "amd64_k8_revb");
	EXPECT_EQ(pmu(amd, 15, 5, 2), "amd64_k8_revc");
	EXPECT_EQ(pmu(amd, 16, 8, 0), "amd64_fam10h_istanbul");
	EXPECT_EQ(pmu(intel, 6, 207, 2), std::nullopt); // Emerald Rapids: no 4.13 table
	EXPECT_EQ(pmu(amd, 25, 0x61, 2), std::nullopt);  // Raphael: unknown to 4.13
	EXPECT_EQ(pmu(amd, 6, 94, 3), "amd64_k7");
	EXPECT_EQ(pmu("HygonGenuine", 24, 1, 0), std::nullopt);
}

TEST(PmuCpuMatch, TableIsConsistentWithLibpfm)
{
	ASSERT_TRUE(Resolver::init());
	auto pmus = Resolver::matched_pmus();
	// 49 x86 core PMUs minus ix86arch, amd64_fam17h, and the 4 hybrid Intel
	// PMUs of the project's own tables
	EXPECT_EQ(pmus.size(), 51u);
	for (const auto &p : pmus) {
		TargetEncoding t = Resolver::encode("NO_SUCH_EVENT", p);
		EXPECT_EQ(t.reason, "event not found") << p << " is not a known PMU";
	}
	// Entries never overlap: the first row that matches is the only one (the
	// two core types of a hybrid model are apart by their core type).
	for (size_t i = 0; i < pmus.size(); ++i)
		for (size_t j = i + 1; j < pmus.size(); ++j)
			for (const auto &a : Resolver::cpu_matches(pmus[i]))
				for (const auto &b : Resolver::cpu_matches(pmus[j])) {
					bool overlap = a.vendor == b.vendor && a.family == b.family &&
						       a.model_min <= b.model_max &&
						       b.model_min <= a.model_max &&
						       a.stepping_min <= b.stepping_max &&
						       b.stepping_min <= a.stepping_max &&
						       (!a.core_type || !b.core_type ||
							a.core_type == b.core_type);
					EXPECT_FALSE(overlap) << pmus[i] << " / " << pmus[j];
				}
	EXPECT_TRUE(Resolver::cpu_matches("perf").empty());
	auto skx = Resolver::cpu_matches("skx");
	ASSERT_EQ(skx.size(), 1u);
	EXPECT_EQ(skx[0], (CpuMatch{"GenuineIntel", 6, 85, 85, 0, 4}));
}

#if defined(__x86_64__) || defined(__i386__)
// The kernel's own decoding of CPUID (extended family and model folded in):
// the first processor of /proc/cpuinfo, a source independent of host_cpu().
static std::optional<CpuId> cpuinfo_cpu()
{
	std::ifstream in("/proc/cpuinfo");
	CpuId c;
	int seen = 0;
	for (std::string line; std::getline(in, line) && !line.empty();) {
		auto colon = line.find(':');
		if (colon == std::string::npos)
			continue;
		std::string key = line.substr(0, line.find_last_not_of(" \t", colon - 1) + 1);
		std::string val = colon + 2 <= line.size() ? line.substr(colon + 2) : "";
		if (key == "vendor_id")
			c.vendor = val, seen |= 1;
		else if (key == "cpu family")
			c.family = std::stoul(val), seen |= 2;
		else if (key == "model")
			c.model = std::stoul(val), seen |= 4;
		else if (key == "stepping")
			c.stepping = std::stoul(val), seen |= 8;
	}
	if (seen != 15)
		return std::nullopt;
	return c;
}
#endif

// host_cpu() against /proc/cpuinfo, and the "host" target against libpfm4's
// own detection of the host's core PMU (pfm_pmu_info_t.is_present), which
// shares no code with the project's CPU match table.
TEST(PmuHost, CpuIdIsRead)
{
	CpuId cpu = Resolver::host_cpu();
#if defined(__x86_64__) || defined(__i386__)
	auto kernel = cpuinfo_cpu();
	ASSERT_TRUE(kernel) << "no vendor_id, cpu family, model, stepping in /proc/cpuinfo";
	EXPECT_EQ(cpu.vendor, kernel->vendor);
	EXPECT_EQ(cpu.family, kernel->family);
	EXPECT_EQ(cpu.model, kernel->model);
	EXPECT_EQ(cpu.stepping, kernel->stepping);
#endif
	ASSERT_TRUE(Resolver::init());
	auto host = Resolver::expand_targets({"host"});
	ASSERT_TRUE(host) << host.error().what;
	ASSERT_LE(host->size(), 1u);
	auto table = Resolver::matched_pmus();
	std::vector<std::string> present;	// libpfm4's core PMUs detected here
	bool host_is_pfm = false;
	for (int i = 0; i < PFM_PMU_MAX; ++i) {
		pfm_pmu_info_t info{};
		info.size = sizeof(info);
		if (pfm_get_pmu_info(static_cast<pfm_pmu_t>(i), &info) != PFM_SUCCESS || !info.name)
			continue;
		host_is_pfm |= !host->empty() && (*host)[0] == info.name;
		if (info.is_present && info.type == PFM_PMU_TYPE_CORE &&
		    std::find(table.begin(), table.end(), info.name) != table.end())
			present.emplace_back(info.name);
	}
	if (host->empty()) {
		// no row for this CPU: libpfm4 must not know it either
		EXPECT_TRUE(present.empty()) << "libpfm4 detects " << present[0]
					     << " but \"host\" expands to nothing";
	} else if (host_is_pfm) {
		// a hybrid host has two present; ours is the core type we run on
		EXPECT_NE(std::find(present.begin(), present.end(), (*host)[0]), present.end())
			<< "\"host\" expands to " << (*host)[0]
			<< ", which libpfm4 does not detect on this CPU";
	}
}

TEST(PmuTargets, ExpandDedupAndGenericLast)
{
	auto t = Resolver::expand_targets({"perf", "skl", "SKX", "skl", "perf"});
	ASSERT_TRUE(t) << t.error().what;
	EXPECT_EQ(*t, (std::vector<std::string>{"skl", "skx", "perf"}));
	auto none = Resolver::expand_targets({});
	ASSERT_TRUE(none) << none.error().what;
	EXPECT_TRUE(none->empty());
}

TEST(PmuTargets, Errors)
{
	auto error_of = [](const std::vector<std::string> &spec) {
		auto r = Resolver::expand_targets(spec);
		return r ? std::string("(no error)") : r.error().what;
	};
	std::string err = error_of({"skl", "xyz"});
	EXPECT_EQ(err.rfind("unknown PMU 'xyz' (known: ", 0), 0u) << err;
	err = error_of({"sklx"});
	EXPECT_TRUE(contains(err, "skl")) << err;
	EXPECT_TRUE(contains(err, "skx")) << err;
	err = error_of({"ix86arch"});
	EXPECT_TRUE(contains(err, "no CPU model selects it")) << err;
	err = error_of({"perf_raw"});
	EXPECT_TRUE(contains(err, "only CPU core PMUs")) << err;
}

TEST(PmuFatTable, RowsDedupAndMissing)
{
	FatTable t = build_fat_table({"INST_RETIRED:ANY_P", "cycles"}, {"skl", "skx", "perf"});
	ASSERT_EQ(t.rows.size(), 2u);
	EXPECT_EQ(t.rows[0].pmu, "skl");
	EXPECT_EQ(t.rows[1].pmu, "skx");
	EXPECT_EQ(t.rows[0].events, t.rows[1].events);
	ASSERT_EQ(t.rows[0].events.size(), 2u);
	EXPECT_EQ(t.rows[0].events[0].config, 0xc0u);
	EXPECT_EQ(t.rows[0].events[1].type, 4u); // cycles: UNHALTED_CORE_CYCLES
	EXPECT_EQ(t.rows[0].events[1].config, 0x3cu);
	// perf lacks INST_RETIRED:ANY_P: its row is dropped and reported.
	ASSERT_EQ(t.missing.size(), 2u);
	ASSERT_EQ(t.missing[0].size(), 1u);
	EXPECT_EQ(t.missing[0][0].pmu, "perf");
	EXPECT_EQ(t.missing[0][0].reason, "event not found");
	EXPECT_TRUE(t.missing[1].empty());
	ASSERT_EQ(t.dropped.size(), 1u);
	EXPECT_EQ(t.dropped[0].pmu, "perf");
	EXPECT_EQ(pmu_targets_string(t), "skl,skx");

	std::string c = emit_pmu_tables(t);
	// one shared encoding vector, packed match entries in row order, rows
	// { nmatch, same, core, vec } without pointers, front-coded names ("skx"
	// shares "sk"), each name's last byte marked with bit 7
	EXPECT_TRUE(contains(c, "\t\tSTP_PMU_MATCH(STP_VENDOR_INTEL, 6, 78, 78, 0, 15),\n")) << c;
	EXPECT_TRUE(contains(c, "\t\t/* skx */\n"
				"\t\tSTP_PMU_MATCH(STP_VENDOR_INTEL, 6, 85, 85, 0, 4),\n\t},\n"))
		<< c;
	EXPECT_TRUE(contains(c, "\t.enc = {\n"
				"\t\t{ 0xc0, 0, 4, STP_EXCL_GUEST }, /* 0 */\n"
				"\t\t{ 0x3c, 0, 4, STP_EXCL_GUEST }, /* 1 */\n\t},\n"))
		<< c;
	EXPECT_TRUE(contains(c, "\t.vec = {\n\t\t{ 0, 1 },\n\t},\n")) << c;
	EXPECT_TRUE(contains(c, "\t.rows = {\n\t\t{ 5, 0, STP_CORE_ANY, 0 }, /* skl */\n"
				"\t\t{ 1, 0, STP_CORE_ANY, 0 }, /* skx */\n\t},\n"))
		<< c;
	EXPECT_TRUE(contains(c, "\t.row_names = \"\\001sk\\354\\003\\370\",\n")) << c;
	EXPECT_TRUE(contains(c, "\t.event_names = \"INST_RETIRED:ANY_P\\000cycles\",\n")) << c;
	EXPECT_TRUE(contains(c, "/* no row for perf: lacks INST_RETIRED:ANY_P */")) << c;
	// 2 encodings x 8 + 6 match entries x 4 + one 2-byte vector + 2 rows x 2
	// + "\001sk\354\003\370\0" + "INST_RETIRED:ANY_P\0cycles\0" (79), rounded to 4.
	EXPECT_EQ(pmu_tables_size(t), 80u);
}

TEST(PmuFatTable, GenericRowLastAndShared)
{
	FatTable t = build_fat_table({"cycles", "instructions"}, {"perf", "amd64_fam19h_zen3"});
	ASSERT_EQ(t.rows.size(), 2u);
	EXPECT_EQ(t.rows[0].pmu, "amd64_fam19h_zen3");
	EXPECT_EQ(t.rows[1].pmu, "perf");
	EXPECT_TRUE(t.rows[1].match.empty());
	std::string c = emit_pmu_tables(t);
	EXPECT_TRUE(contains(c, "\t\tSTP_PMU_MATCH(STP_VENDOR_AMD, 25, 0, 15, 0, 15),\n")) << c;
	EXPECT_TRUE(contains(c, "\t\t{ 0, 0, STP_CORE_ANY, 1 }, /* perf: any CPU */\n")) << c;
	EXPECT_TRUE(t.dropped.empty());
}

TEST(PmuFatTable, OffcoreAndUnmatchedTargets)
{
	FatTable t = build_fat_table({"OFFCORE_RESPONSE_0:DMND_DATA_RD:L3_MISS:u"},
				     {"skl", "icl", "ix86arch"});
	ASSERT_EQ(t.rows.size(), 1u);
	std::string c = emit_pmu_tables(t);
	// config1 does not fit the 8-byte encoding: it goes to ext[]
	EXPECT_TRUE(contains(c, "\t\t{ .config = 0x1b7, .config1 = 0x3f84000001, .type = 4, .enc = 0 },\n"))
		<< c;
	EXPECT_TRUE(contains(c, "\t\t{ 0, 0, 0, STP_EXCL_KERNEL | STP_EXCL_GUEST | STP_ENC_EXT }, /* 0 */\n"))
		<< c;
	// icl spells its offcore umasks differently (OCR-style DEMAND_DATA_RD_L3_MISS).
	ASSERT_EQ(t.missing[0].size(), 1u);
	EXPECT_EQ(t.missing[0][0].pmu, "icl");
	EXPECT_EQ(t.missing[0][0].reason, "invalid event attribute");
	ASSERT_EQ(t.dropped.size(), 2u);
	EXPECT_EQ(t.dropped[0].pmu, "icl");
	EXPECT_EQ(t.dropped[1].pmu, "ix86arch");
	EXPECT_EQ(t.dropped[1].reason, "no CPU model selects it");
}

TEST(PmuFatTable, NoEvents)
{
	FatTable t = build_fat_table({}, {"skl", "perf"});
	ASSERT_EQ(t.rows.size(), 2u);
	std::string c = emit_pmu_tables(t);
	EXPECT_FALSE(contains(c, ".enc = ")) << c;
	EXPECT_FALSE(contains(c, ".vec = ")) << c;
	EXPECT_TRUE(contains(c, "\t\t{ 0, 0, STP_CORE_ANY, 0 }, /* perf: any CPU */\n")) << c;
}

} // namespace
