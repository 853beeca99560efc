// pmu_cpu_models_test.cpp - the CPU match table against vendor CPU lists
// (tests/data/cpu_models.csv; its header cites the sources).
#include "pmu/pmu.h"

#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

namespace {

using namespace stap_pmu::pmu;

struct Model {
	CpuId cpu;
	std::string pmu, name;
	int line;
};

std::vector<Model> load_models()
{
	std::vector<Model> out;
	std::ifstream in(STAP_PMU_SOURCE_DIR "/tests/data/cpu_models.csv");
	std::string line;
	for (int n = 1; std::getline(in, line); ++n) {
		if (line.empty() || line[0] == '#')
			continue;
		std::stringstream ss(line);
		std::string f[7];
		for (auto &field : f)
			std::getline(ss, field, ',');
		out.push_back({{f[0], static_cast<unsigned>(std::stoul(f[1])),
				static_cast<unsigned>(std::stoul(f[2])),
				static_cast<unsigned>(std::stoul(f[3])),
				f[6].empty() ? 0u : static_cast<unsigned>(std::stoul(f[6], nullptr, 16))},
			       f[4], f[5], n});
	}
	return out;
}

TEST(PmuCpuModels, EveryVendorModelSelectsTheExpectedPmu)
{
	auto models = load_models();
	ASSERT_GE(models.size(), 80u);
	for (const Model &m : models) {
		auto got = Resolver::pmu_for_cpu(m.cpu);
		EXPECT_EQ(got.value_or("none"), m.pmu)
			<< "cpu_models.csv:" << m.line << " " << m.name << " (" << m.cpu.vendor << " "
			<< m.cpu.family << "/" << m.cpu.model << "/" << m.cpu.stepping << " core type "
			<< m.cpu.core_type << ")";
	}
}

TEST(PmuCpuModels, EveryTablePmuHasAVendorModel)
{
	auto models = load_models();
	std::vector<std::string> pmus = Resolver::matched_pmus();
	for (const char *arm : {"arm_ac53", "arm_ac57", "arm_ac72", "arm_ac76", "arm_n1", "arm_n2",
				"arm_v1"})
		pmus.emplace_back(arm);
	// K7, K8 revisions B/D/E/G, fam11h and knc have no row in the CSV: no
	// public list names those parts by CPUID we could cite.
	const std::vector<std::string> unlisted = {"amd64_k7",      "amd64_k8_revb",
						   "amd64_k8_revd", "amd64_k8_reve",
						   "amd64_k8_revg", "amd64_fam11h_turion", "knc"};
	for (const auto &p : pmus) {
		if (std::find(unlisted.begin(), unlisted.end(), p) != unlisted.end())
			continue;
		bool found = false;
		for (const Model &m : models)
			found |= m.pmu == p;
		EXPECT_TRUE(found) << p << " has no vendor model in cpu_models.csv";
	}
}

TEST(PmuCpuModels, Arm64MatchEntries)
{
	auto m = Resolver::cpu_matches("arm_ac57");
	ASSERT_EQ(m.size(), 1u);
	EXPECT_EQ(m[0], (CpuMatch{"ARM", 0x41, 0xd07, 0xd07, 0, 255}));
	EXPECT_EQ(Resolver::cpu_matches("cortex-a72"), Resolver::cpu_matches("arm_ac72"));
	// QEMU's cortex-a57 MIDR 0x411fd070: implementer 0x41, variant 1, part 0xd07, rev 0.
	EXPECT_EQ(Resolver::pmu_for_cpu({"ARM", 0x41, 0xd07, 0x10}), "arm_ac57");
}

} // namespace
