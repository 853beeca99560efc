// pmu_runtime_match_test.cpp - the runtime's row choice (runtime/
// stp_pmu_match.h, stp_pmu_table.h), compiled as a user-space program with
// tests/unit/runtime_shim and the tables pmu/fat_emit.cpp writes, run on
// synthetic CPUID values: family 6, every hybrid model, with core type 0x40,
// 0x20 and none reported (no hybrid flag: a VM forcing the model), and the
// perf type an Atom row's raw encodings get. Compared with pmu/'s own match
// (Resolver::pmu_for_cpu).
#include "pmu/fat_table.h"
#include "pmu/pmu.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include <gtest/gtest.h>

namespace {

using namespace stap_pmu::pmu;

const char *const main_c = R"(
int main(void)
{
	unsigned int sig, hybrid, core_type, max_leaf;

	stp_pmu_init_tables(NULL, 0);
	while (scanf("%x %u %x %x", &sig, &hybrid, &core_type, &max_leaf) == 4) {
		struct stp_cpu_ident id = { 0 };
		struct perf_event_attr a;
		char desc[96], name[STP_PMU_NAME_LEN];
		int r;

		fake_cpu.sig = sig;
		fake_cpu.hybrid = hybrid;
		fake_cpu.core_type = core_type;
		fake_cpu.max_leaf = max_leaf;
		stp_cpu_ident_fill(&id);
		r = stp_pmu_pick_row(&id);
		stp_cpu_ident_describe(&id, desc, sizeof(desc));
		printf("%s|%s", desc, r < 0 ? "none" : stp_pmu_row_name(r, name));
		if (r >= 0) {
			/* the generic cycles event lands on a PMU of type 10 */
			fake_generic_pmu_type = 10;
			stp_pmu_fill_attr(r, 0, &a);
			stp_pmu_core_type_attr(0, r, &a);
			printf("|%u", a.type);
		}
		printf("\n");
	}
	return 0;
}
)";

struct Case {
	unsigned model, stepping, core_type; // core_type: leaf 0x1A's, if read
	std::string want_pmu;                 // pmu/'s answer
	bool hybrid = true;                   // CPUID.7.0:EDX[15]
	unsigned max_leaf = 0x20;
};

// Compiles the runtime with TABLES and runs it on CASES; one output line each.
std::vector<std::string> run_runtime(const std::string &tables, const std::vector<Case> &cases)
{
	char dir[] = "/tmp/stp-rt-match-XXXXXX";
	if (!mkdtemp(dir))
		return {};
	std::string d = dir;
	std::ofstream(d + "/main.c") << "#include \"shim.h\"\n#define STP_NEVENTS 2\n"
				     << "#include \"stp_pmu_table.h\"\n#include \"stp_pmu_match.h\"\n"
				     << tables << main_c;
	std::ofstream in(d + "/in.txt");
	for (const Case &c : cases) {
		unsigned sig = 6u << 8 | (c.model & 0xf) << 4 | (c.model >> 4) << 16 | c.stepping;
		in << std::hex << sig << " " << (c.hybrid ? 1 : 0) << " " << c.core_type << " "
		   << c.max_leaf << "\n";
	}
	in.close();
	std::string cmd = "cc -std=gnu11 -w -I" STAP_PMU_SOURCE_DIR "/tests/unit/runtime_shim -I" STAP_PMU_SOURCE_DIR
			  "/runtime -o " + d + "/prog " + d + "/main.c 2>&1 && " + d + "/prog < " + d +
			  "/in.txt";
	std::vector<std::string> out;
	if (FILE *p = popen(cmd.c_str(), "r")) {
		char line[512];
		while (fgets(line, sizeof(line), p)) {
			out.emplace_back(line);
			out.back().pop_back();
		}
		pclose(p);
	}
	if (!getenv("STP_KEEP")) // STP_KEEP=1 keeps the program for debugging
		std::system(("rm -rf " + d).c_str());
	return out;
}

TEST(PmuRuntimeMatch, HybridModelsAndCoreTypes)
{
	std::vector<std::string> targets = {"skl", "adl_glc", "adl_grt", "mtl_rwc", "mtl_cmt", "perf"};
	FatTable t = build_fat_table({"INST_RETIRED:ANY_P", "llc-misses"}, targets, Fallback::row);
	ASSERT_EQ(t.rows.size(), 5u); // perf lacks INST_RETIRED:ANY_P
	std::vector<Case> cases;
	for (unsigned model : {0x97u, 0x9au, 0xb7u, 0xbau, 0xbfu, 0xaau, 0xacu, 0xb5u}) {
		for (unsigned ct : {0x40u, 0x20u})
			cases.push_back({model, 2, ct, ""});
		// a VM forcing the model: no hybrid flag, max leaf 0x16 (Skylake-Client)
		cases.push_back({model, 2, 0, "", false, 0x16});
		// no hybrid flag: leaf 0x1A (here saying Atom) is not a core type
		cases.push_back({model, 2, 0x20, "", false, 0x20});
	}
	cases.push_back({94, 3, 0x20, "", false, 0x16}); // Skylake: not hybrid
	cases.push_back({0xbe, 0, 0, "", false, 0x20});  // Alder Lake-N: no row
	for (Case &c : cases)
		c.want_pmu = Resolver::pmu_for_cpu({"GenuineIntel", 6, c.model, c.stepping,
						    c.hybrid ? c.core_type : 0})
				     .value_or("none");

	std::vector<std::string> out = run_runtime(emit_pmu_tables(t), cases);
	ASSERT_EQ(out.size(), cases.size()) << (out.empty() ? "" : out[0]);
	for (size_t i = 0; i < cases.size(); ++i) {
		const Case &c = cases[i];
		std::string desc = "GenuineIntel family 6 model " + std::to_string(c.model) +
				   " stepping " + std::to_string(c.stepping);
		bool atom = c.hybrid && c.core_type == 0x20;
		if (c.hybrid)
			desc += atom ? " core type 0x20 (Atom)" : " core type 0x40 (Core)";
		std::string want = desc + "|" + c.want_pmu;
		if (c.want_pmu != "none")
			// Atom rows' raw encodings take the generic PMU's type (10)
			want += atom ? "|10" : "|4";
		EXPECT_EQ(out[i], want);
	}
	// pmu/'s answers themselves: no core type reported is the P-core row
	EXPECT_EQ(cases[2].want_pmu, "adl_glc");
	EXPECT_EQ(cases[3].want_pmu, "adl_glc");
	EXPECT_EQ(cases[1].want_pmu, "adl_grt");
	EXPECT_EQ(cases[cases.size() - 1].want_pmu, "none");
}

// Names decode as written (front coding, bit 7 ending each name) for every
// x86 row, the generic one last.
TEST(PmuRuntimeMatch, RowNamesDecode)
{
	auto all = Resolver::expand_targets({"all", "perf"}, Arch::X86_64);
	ASSERT_TRUE(all);
	FatTable t = build_fat_table({"perf::cpu-clock", "perf::task-clock"}, *all);
	ASSERT_EQ(t.rows.size(), all->size());
	std::string tables = emit_pmu_tables(t);
	// one CPU per row: the row's first match entry
	std::vector<Case> cases;
	for (const auto &r : t.rows)
		if (!r.match.empty() && r.match.front().vendor == "GenuineIntel" &&
		    r.match.front().family == 6)
			cases.push_back({r.match.front().model_min, r.match.front().stepping_min,
					 r.match.front().core_type, r.pmu, r.match.front().core_type != 0});
	std::vector<std::string> out = run_runtime(tables, cases);
	ASSERT_EQ(out.size(), cases.size()) << (out.empty() ? "" : out[0]);
	for (size_t i = 0; i < cases.size(); ++i) {
		std::string row = out[i].substr(out[i].find('|') + 1);
		EXPECT_EQ(row.substr(0, row.find('|')), cases[i].want_pmu) << out[i];
	}
}

} // namespace
