// concepts.cpp - portable event concepts as data: for each concept, per PMU
// group, the model event names that count it. A group is "intel", "amd",
// "arm64" (every PMU of that vendor/architecture) or a comma-separated list
// of PMU names; the first group entry that names a PMU is the one used, so
// specific lists come before vendor-wide ones.
//
// Sources: Intel's architectural events (SDM vol. 3B, 20.2.1.2 "Pre-defined
// Architectural Performance Events": 0x3C/0x00 cycles, 0xC0/0x00
// instructions, 0x3C/0x01 reference cycles, 0x2E/0x4F LLC reference,
// 0x2E/0x41 LLC misses, 0xC4/0x00 branches, 0xC5/0x00 branch misses) with
// the model names libpfm4 4.13 gives them; AMD PPRs for families 17h/19h
// (PMCx076 cycles not in halt, PMCx0C0 retired instructions, PMCx0C2/0C3
// retired branches/mispredicted, PMCx0A9 op queue empty, PMCx1A0 dispatch
// stalls on Zen 4) and the BKDGs for 0Fh-16h (PMCx0D0 decoder empty,
// PMCx0D1 dispatch stalls); the ARM ARM common events for arm64. A
// "perf::" candidate is used only where the kernel's generic event is this
// same hardware event on that PMU (Intel's architectural LLC reference
// event, which icl/icx no longer list by name).
#include "pmu/concepts.h"

#include "pmu/pmu.h"

#include <array>

namespace stap_pmu::pmu::detail {
namespace {

constexpr auto concept_table = std::to_array<Concept>({
	{"cycles", "core cycles when not halted", "perf::cycles"},
	{"instructions", "instructions retired", "perf::instructions"},
	{"ref-cycles", "reference (constant rate) cycles when not halted", "perf::ref-cycles"},
	{"branches", "branch instructions retired", "perf::branches"},
	{"branch-misses", "mispredicted branch instructions retired", "perf::branch-misses"},
	{"cache-references", "last level cache references", "perf::cache-references"},
	{"llc-misses", "last level cache misses", "perf::cache-misses"},
	{"stalled-cycles-frontend", "cycles the front end delivered no uops/instructions",
	 "perf::stalled-cycles-frontend"},
	{"stalled-cycles-backend", "cycles the back end could not accept work",
	 "perf::stalled-cycles-backend"},
});

struct Alias {
	std::string_view concept_name;
	std::string_view group;      // "intel", "amd", "arm64" or "pmu1,pmu2"
	std::string_view candidates; // "A|B|perf::C"
};

// The hybrid Intel PMUs (pmu/intel_hybrid_events.cpp) name the events by
// Intel's names; branches, branch-misses, cache-references and llc-misses
// find those under "intel" (BR_INST_RETIRED:ALL_BRANCHES, ...).
constexpr std::string_view hybrid = "adl_glc,adl_grt,mtl_rwc,mtl_cmt";

constexpr auto alias_table = std::to_array<Alias>({
	{"cycles", "netburst,netburst_p", "GLOBAL_POWER_EVENTS:RUNNING"},
	{"cycles", "knc", "CPU_CLK_UNHALTED"},
	{"cycles", hybrid, "CPU_CLK_UNHALTED:THREAD_P"},
	{"cycles", "intel", "UNHALTED_CORE_CYCLES"},
	{"cycles", "amd", "CYCLES_NOT_IN_HALT|CPU_CLK_UNHALTED"},
	{"cycles", "arm64", "CPU_CYCLES"},

	{"instructions", "knc", "INSTRUCTIONS_EXECUTED"},
	{"instructions", hybrid, "INST_RETIRED:ANY_P"},
	{"instructions", "intel", "INSTRUCTION_RETIRED"},
	{"instructions", "amd", "RETIRED_INSTRUCTIONS"},
	{"instructions", "arm64", "INST_RETIRED"},

	// The fixed-counter pseudo encoding 0x0300, as the kernel's ref-cycles.
	{"ref-cycles", hybrid, "CPU_CLK_UNHALTED:REF_TSC"},
	{"ref-cycles", "intel", "UNHALTED_REFERENCE_CYCLES"},

	{"branches", "knc", "BRANCHES"},
	{"branches", "intel", "BR_INST_RETIRED:ALL_BRANCHES|BRANCH_INSTRUCTIONS_RETIRED"},
	{"branches", "amd", "RETIRED_BRANCH_INSTRUCTIONS"},
	{"branches", "arm64", "PC_WRITE_RETIRED"},

	{"branch-misses", "knc", "BRANCHES_MISPREDICTED"},
	{"branch-misses", "intel", "BR_MISP_RETIRED:ALL_BRANCHES|MISPREDICTED_BRANCH_RETIRED"},
	{"branch-misses", "amd",
	 "RETIRED_BRANCH_INSTRUCTIONS_MISPREDICTED|RETIRED_MISPREDICTED_BRANCH_INSTRUCTIONS"},
	{"branch-misses", "arm64", "BR_MIS_PRED"},

	{"cache-references", "netburst,netburst_p,knc", ""},
	{"cache-references", "intel",
	 "LLC_REFERENCES|LONGEST_LAT_CACHE:REFERENCE|perf::cache-references"},
	{"cache-references", "arm64", "LL_CACHE_RD"},

	// LLC_MISSES up to Ivy Bridge (and Silvermont, Knights), its Haswell+
	// name LONGEST_LAT_CACHE:MISS after: both 0x2E/0x41.
	{"llc-misses", "intel", "LLC_MISSES|LONGEST_LAT_CACHE:MISS"},
	{"llc-misses", "arm64", "LL_CACHE_MISS_RD"},

	{"stalled-cycles-frontend", "intel", "IDQ_UOPS_NOT_DELIVERED:CYCLES_0_UOPS_DELIV_CORE"},
	{"stalled-cycles-frontend", "amd64_fam17h_zen1", "INSTRUCTION_PIPE_STALL:IC_STALL_DQ_EMPTY"},
	{"stalled-cycles-frontend", "amd64_fam19h_zen4", "DISPATCH_STALLS_1:FE_NO_OPS"},
	{"stalled-cycles-frontend", "amd", "UOPS_QUEUE_EMPTY|DECODER_EMPTY"},
	{"stalled-cycles-frontend", "arm64", "STALL_FRONTEND"},

	{"stalled-cycles-backend", "intel", "CYCLE_ACTIVITY:STALLS_TOTAL|CYCLE_ACTIVITY:CYCLES_NO_EXECUTE"},
	{"stalled-cycles-backend", "amd64_fam17h_zen1", "INSTRUCTION_PIPE_STALL:IC_STALL_BACK_PRESSURE"},
	{"stalled-cycles-backend", "amd64_fam19h_zen4", "DISPATCH_STALLS_1:BE_STALLS"},
	{"stalled-cycles-backend", "amd", "DISPATCH_STALLS"},
	{"stalled-cycles-backend", "arm64", "STALL_BACKEND"},
});

std::vector<std::string> split(std::string_view s, char sep)
{
	std::vector<std::string> out;
	while (!s.empty()) {
		size_t pos = s.find(sep);
		out.emplace_back(s.substr(0, pos));
		if (pos == std::string_view::npos)
			break;
		s.remove_prefix(pos + 1);
	}
	return out;
}

bool in_group(std::string_view group, std::string_view pmu)
{
	if (group == "arm64" || group == "intel" || group == "amd") {
		auto arch = Resolver::pmu_arch(std::string(pmu));
		if (group == "arm64")
			return arch == Arch::Arm64;
		auto m = Resolver::cpu_matches(std::string(pmu));
		if (arch != Arch::X86_64 || m.empty())
			return false;
		return m.front().vendor == (group == "intel" ? "GenuineIntel" : "AuthenticAMD");
	}
	for (const auto &name : split(group, ','))
		if (name == pmu)
			return true;
	return false;
}

} // namespace

std::span<const Concept> concepts()
{
	return concept_table;
}

const Concept *find_concept(std::string_view name)
{
	for (const auto &c : concept_table)
		if (c.name == name)
			return &c;
	return nullptr;
}

std::vector<std::string> concept_candidates(const Concept &c, std::string_view pmu)
{
	for (const auto &a : alias_table)
		if (a.concept_name == c.name && in_group(a.group, pmu))
			return split(a.candidates, '|');
	return {};
}

std::pair<std::string_view, std::string_view> split_modifiers(std::string_view event)
{
	size_t pos = event.find(':');
	if (pos == std::string_view::npos)
		return {event, {}};
	return {event.substr(0, pos), event.substr(pos)};
}

} // namespace stap_pmu::pmu::detail
