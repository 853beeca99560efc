// cpu_match_x86.cpp - which x86 CPUs (vendor, family, model range, stepping
// range) each libpfm4 4.13 core PMU table belongs to, as data.
//
// Intel: transcribed from pfm-lab's cpuid_map.out, which ran libpfm4's own
// detection (pfm_intel_x86_detect + each PMU's model list) for every family 6,
// 11 and 15 model. Model 85 is split by stepping: < 5 skx, >= 5 clx.
// AMD: libpfm4 keeps this mapping in code (amd64_get_revision()); the rows
// below transcribe that function as of 4.13.
// Families and models are the kernel's (x86_family()/x86_model()): display
// family, and model including the extended model bits.
// Hybrid Intel parts (Alder Lake and later) are in pmu/intel_hybrid_events.cpp:
// one PMU per core type, each with the part's models and its core type.
// Entries never overlap (the two core types of a hybrid model are told apart
// by the core type), so the order of rows in a fat module does not matter.
#include "pmu/arm64.h"
#include "pmu/intel_hybrid.h"
#include "pmu/pmu.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace stap_pmu::pmu {
namespace {

constexpr std::string_view intel = "GenuineIntel";
constexpr std::string_view amd = "AuthenticAMD";

struct MatchEntry {
	std::string_view vendor;
	unsigned family;
	unsigned model_min, model_max;
	unsigned stepping_min, stepping_max;
	std::string_view pmu;
};

constexpr MatchEntry I(unsigned fam, unsigned lo, unsigned hi, std::string_view pmu)
{
	return {intel, fam, lo, hi, 0, 15, pmu};
}

constexpr MatchEntry A(unsigned fam, unsigned lo, unsigned hi, std::string_view pmu,
		       unsigned slo = 0, unsigned shi = 15)
{
	return {amd, fam, lo, hi, slo, shi, pmu};
}

constexpr auto cpu_table = std::to_array<MatchEntry>({
	// Intel family 6
	I(6, 15, 15, "core"), I(6, 23, 23, "core"), I(6, 29, 29, "core"),
	I(6, 28, 28, "atom"), I(6, 38, 39, "atom"), I(6, 53, 54, "atom"),
	I(6, 26, 26, "nhm"), I(6, 30, 31, "nhm"),
	I(6, 46, 46, "nhm_ex"),
	I(6, 37, 37, "wsm"),
	I(6, 44, 44, "wsm_dp"), I(6, 47, 47, "wsm_dp"),
	I(6, 42, 42, "snb"),
	I(6, 45, 45, "snb_ep"),
	I(6, 58, 58, "ivb"),
	I(6, 62, 62, "ivb_ep"),
	I(6, 60, 60, "hsw"), I(6, 69, 70, "hsw"),
	I(6, 63, 63, "hsw_ep"),
	I(6, 61, 61, "bdw"), I(6, 71, 71, "bdw"),
	I(6, 79, 79, "bdw_ep"), I(6, 86, 86, "bdw_ep"),
	I(6, 78, 78, "skl"), I(6, 94, 94, "skl"), I(6, 142, 142, "skl"),
	I(6, 158, 158, "skl"), I(6, 165, 166, "skl"),
	{intel, 6, 85, 85, 0, 4, "skx"},
	{intel, 6, 85, 85, 5, 15, "clx"},
	I(6, 108, 108, "icl"), I(6, 125, 126, "icl"), I(6, 140, 141, "icl"),
	I(6, 157, 157, "icl"), I(6, 167, 167, "icl"),
	I(6, 106, 106, "icx"),
	I(6, 143, 143, "spr"),
	I(6, 55, 55, "slm"), I(6, 76, 77, "slm"),
	I(6, 92, 92, "glm"), I(6, 95, 95, "glm"),
	I(6, 134, 134, "tmt"), I(6, 150, 150, "tmt"),
	I(6, 87, 87, "knl"),
	I(6, 133, 133, "knm"),
	// Intel family 15 (Pentium 4) and 11 (Knights Corner)
	I(15, 0, 2, "netburst"), I(15, 5, 5, "netburst"), I(15, 7, 15, "netburst"),
	I(15, 3, 4, "netburst_p"), I(15, 6, 6, "netburst_p"),
	I(11, 1, 1, "knc"),

	// AMD family 6: K7
	A(6, 0, 255, "amd64_k7"),
	// AMD family 0xf: K8 revisions, keyed on model >> 4; in the first group
	// model 4 stepping 0 and model 5 steppings 0-1 are RevB, the rest RevC.
	A(15, 0, 3, "amd64_k8_revc"),
	A(15, 4, 4, "amd64_k8_revb", 0, 0), A(15, 4, 4, "amd64_k8_revc", 1, 15),
	A(15, 5, 5, "amd64_k8_revb", 0, 1), A(15, 5, 5, "amd64_k8_revc", 2, 15),
	A(15, 6, 15, "amd64_k8_revc"),
	A(15, 0x10, 0x1f, "amd64_k8_revd"),
	A(15, 0x20, 0x3f, "amd64_k8_reve"),
	A(15, 0x40, 0x5f, "amd64_k8_revf"), A(15, 0xc0, 0xcf, "amd64_k8_revf"),
	A(15, 0x60, 0x8f, "amd64_k8_revg"),
	A(15, 0x90, 0xbf, "amd64_k8_revb"), A(15, 0xd0, 0xff, "amd64_k8_revb"),
	// AMD family 0x10: 4-6 Shanghai, 8-9 Istanbul, otherwise Barcelona
	A(0x10, 0, 3, "amd64_fam10h_barcelona"),
	A(0x10, 4, 6, "amd64_fam10h_shanghai"),
	A(0x10, 7, 7, "amd64_fam10h_barcelona"),
	A(0x10, 8, 9, "amd64_fam10h_istanbul"),
	A(0x10, 10, 255, "amd64_fam10h_barcelona"),
	A(0x11, 0, 255, "amd64_fam11h_turion"),
	A(0x12, 0, 255, "amd64_fam12h_llano"),
	A(0x14, 0, 255, "amd64_fam14h_bobcat"),
	A(0x15, 0, 255, "amd64_fam15h_interlagos"),
	A(0x16, 0, 255, "amd64_fam16h"),
	// AMD family 0x17: model >= 0x30 Zen2, else Zen1
	A(0x17, 0x00, 0x2f, "amd64_fam17h_zen1"),
	A(0x17, 0x30, 0xff, "amd64_fam17h_zen2"),
	// AMD family 0x19: 4.13 knows Zen3 0x00-0x0f and 0x20-0x5f, Zen4 0x11 only
	A(0x19, 0x00, 0x0f, "amd64_fam19h_zen3"),
	A(0x19, 0x20, 0x5f, "amd64_fam19h_zen3"),
	A(0x19, 0x11, 0x11, "amd64_fam19h_zen4"),
});

CpuMatch to_match(const MatchEntry &e)
{
	return {std::string(e.vendor), e.family, e.model_min, e.model_max, e.stepping_min,
		e.stepping_max};
}

bool contains(const MatchEntry &e, const CpuId &cpu)
{
	return e.vendor == cpu.vendor && e.family == cpu.family && e.model_min <= cpu.model &&
	       cpu.model <= e.model_max && e.stepping_min <= cpu.stepping &&
	       cpu.stepping <= e.stepping_max;
}

// A hybrid PMU's entries: family 6, one per model, every stepping.
std::vector<CpuMatch> hybrid_matches(const detail::HybridPmu &p)
{
	std::vector<CpuMatch> out;
	for (unsigned m : p.models)
		out.push_back({std::string(intel), 6, m, m, 0, 15, p.core_type});
	return out;
}

bool hybrid_contains(const detail::HybridPmu &p, const CpuId &cpu, bool any_core_type)
{
	if (cpu.vendor != intel || cpu.family != 6)
		return false;
	if (!any_core_type && !core_type_matches(p.core_type, cpu.core_type))
		return false;
	for (unsigned m : p.models)
		if (m == cpu.model)
			return true;
	return false;
}

} // namespace

bool core_type_matches(unsigned entry_type, unsigned cpu_type)
{
	if (!entry_type || entry_type == cpu_type)
		return true;
	return entry_type == core_type_core && cpu_type == 0;
}

std::vector<CpuMatch> Resolver::cpu_matches(const std::string &pmu)
{
	std::vector<CpuMatch> out;
	if (const detail::ArmPmu *arm = detail::find_arm_pmu(pmu)) {
		// every variant and revision of the part
		out.push_back({"ARM", arm->implementer, arm->part, arm->part, 0, 255});
		return out;
	}
	if (const detail::HybridPmu *h = detail::find_hybrid_pmu(pmu))
		return hybrid_matches(*h);
	for (const auto &e : cpu_table)
		if (e.pmu == pmu)
			out.push_back(to_match(e));
	return out;
}

std::optional<std::string> Resolver::pmu_for_cpu(const CpuId &cpu)
{
	if (cpu.vendor == "ARM") {
		for (const auto &p : detail::arm_pmus())
			if (p.implementer == cpu.family && p.part == cpu.model)
				return std::string(p.name);
		return std::nullopt;
	}
	for (const auto &e : cpu_table)
		if (contains(e, cpu))
			return std::string(e.pmu);
	for (const auto &p : detail::hybrid_pmus())
		if (hybrid_contains(p, cpu, false))
			return std::string(p.name);
	return std::nullopt;
}

std::vector<std::string> Resolver::pmus_for_model(const CpuId &cpu)
{
	std::vector<std::string> out;
	for (const auto &p : detail::hybrid_pmus())
		if (hybrid_contains(p, cpu, true))
			out.emplace_back(p.name);
	if (out.empty())
		if (auto p = pmu_for_cpu(cpu))
			out.push_back(*p);
	return out;
}

std::vector<std::string> Resolver::matched_pmus()
{
	std::vector<std::string> out;
	bool hybrid = false; // the hybrid Intel PMUs follow the other Intel ones
	for (const auto &e : cpu_table) {
		if (e.vendor != intel && !hybrid) {
			for (const auto &p : detail::hybrid_pmus())
				out.emplace_back(p.name);
			hybrid = true;
		}
		if (std::find(out.begin(), out.end(), e.pmu) == out.end())
			out.emplace_back(e.pmu);
	}
	return out;
}

} // namespace stap_pmu::pmu
