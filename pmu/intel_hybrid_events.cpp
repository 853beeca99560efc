// intel_hybrid_events.cpp - hybrid Intel core types as data: models, core
// type and events with their published encodings.
//
// Which models carry which core types: Intel's perfmon mapfile.csv
// (github.com/intel/perfmon), "hybridcore" lines: GenuineIntel-6-97, 9A
// (Alder Lake), B7, BA, BF (Raptor Lake) use alderlake_goldencove_core.json
// (Core Type 0x40) and alderlake_gracemont_core.json (0x20); 6-AA, AC, B5
// (Meteor Lake, Arrow Lake-U) use meteorlake_redwoodcove_core.json (0x40)
// and meteorlake_crestmont_core.json (0x20). Raptor Cove P-cores use the
// Golden Cove event file, so Raptor Lake takes the adl_* rows, as libpfm4
// names them (adl_glc, adl_grt). libpfm4 has no Meteor Lake PMU; mtl_rwc and
// mtl_cmt follow its naming (codename_core).
// Alder Lake-N (6-BE) is a Gracemont-only, non-hybrid part (no core type):
// it is not in these rows.
//
// Event codes and unit masks: the same perfmon JSON files (EventCode, UMask,
// CounterMask, EdgeDetect), also transcribed in Linux's
// tools/perf/pmu-events/arch/x86/{alderlake,meteorlake}. The tests in
// tests/unit/pmu_hybrid_test.cpp pin each one next to its source name.
// INST_RETIRED.ANY_P (C0/00) on Crestmont is the architectural event (SDM
// Vol. 3B, "Pre-defined Architectural Performance Events"); its other
// entries were read from meteorlake_crestmont_core.json V1.11.
#include "pmu/intel_hybrid.h"
#include "pmu/internal.h"

#include <array>
#include <strings.h>

#include <fmt/format.h>

namespace stap_pmu::pmu::detail {
namespace {

constexpr auto adl_models = std::to_array<unsigned>({0x97, 0x9a, 0xb7, 0xba, 0xbf});
constexpr auto mtl_models = std::to_array<unsigned>({0xaa, 0xac, 0xb5});

// alderlake_goldencove_core.json
constexpr auto glc_events = std::to_array<HybridEvent>({
	{"INST_RETIRED:ANY_P", 0xc0, 0x00, 0, false, "instructions retired (general counter)"},
	{"CPU_CLK_UNHALTED:THREAD_P", 0x3c, 0x00, 0, false, "thread cycles when not halted"},
	{"CPU_CLK_UNHALTED:REF_TSC_P", 0x3c, 0x01, 0, false, "reference cycles (TSC rate) when not halted"},
	{"CPU_CLK_UNHALTED:REF_TSC", 0x00, 0x03, 0, false, "reference cycles, fixed counter 2 (the kernel's ref-cycles)"},
	{"BR_INST_RETIRED:ALL_BRANCHES", 0xc4, 0x00, 0, false, "branch instructions retired"},
	{"BR_MISP_RETIRED:ALL_BRANCHES", 0xc5, 0x00, 0, false, "mispredicted branch instructions retired"},
	{"LONGEST_LAT_CACHE:REFERENCE", 0x2e, 0x4f, 0, false, "core requests that refer to L3"},
	{"LONGEST_LAT_CACHE:MISS", 0x2e, 0x41, 0, false, "core requests that missed L3"},
	{"MEM_INST_RETIRED:ALL_LOADS", 0xd0, 0x81, 0, false, "retired load instructions"},
	{"MEM_INST_RETIRED:ALL_STORES", 0xd0, 0x82, 0, false, "retired store instructions"},
	{"MEM_LOAD_RETIRED:L1_HIT", 0xd1, 0x01, 0, false, "retired loads that hit L1"},
	{"MEM_LOAD_RETIRED:L2_HIT", 0xd1, 0x02, 0, false, "retired loads that hit L2"},
	{"MEM_LOAD_RETIRED:L3_HIT", 0xd1, 0x04, 0, false, "retired loads that hit L3"},
	{"MEM_LOAD_RETIRED:L1_MISS", 0xd1, 0x08, 0, false, "retired loads that missed L1"},
	{"MEM_LOAD_RETIRED:L2_MISS", 0xd1, 0x10, 0, false, "retired loads that missed L2"},
	{"MEM_LOAD_RETIRED:L3_MISS", 0xd1, 0x20, 0, false, "retired loads that missed L3"},
	{"L2_RQSTS:MISS", 0x24, 0x3f, 0, false, "L2 requests that missed"},
	{"UOPS_ISSUED:ANY", 0xae, 0x01, 0, false, "uops issued by the front end"},
	{"UOPS_RETIRED:SLOTS", 0xc2, 0x02, 0, false, "TMA retiring slots"},
	{"TOPDOWN:SLOTS_P", 0xa4, 0x01, 0, false, "TMA slots (general counter)"},
	{"TOPDOWN:BACKEND_BOUND_SLOTS", 0xa4, 0x02, 0, false, "TMA slots lost to the back end"},
	{"IDQ_UOPS_NOT_DELIVERED:CORE", 0x9c, 0x01, 0, false, "TMA slots the front end did not fill"},
	{"MACHINE_CLEARS:COUNT", 0xc3, 0x01, 1, true, "machine clears (pipeline flushes)"},
	{"LD_BLOCKS:STORE_FORWARD", 0x03, 0x82, 0, false, "loads blocked by store forwarding"},
});

// alderlake_gracemont_core.json
constexpr auto grt_events = std::to_array<HybridEvent>({
	{"INST_RETIRED:ANY_P", 0xc0, 0x00, 0, false, "instructions retired (general counter)"},
	{"CPU_CLK_UNHALTED:CORE_P", 0x3c, 0x00, 0, false, "core cycles when not halted"},
	{"CPU_CLK_UNHALTED:THREAD_P", 0x3c, 0x00, 0, false, "core cycles when not halted"},
	{"CPU_CLK_UNHALTED:REF_TSC_P", 0x3c, 0x01, 0, false, "reference cycles (TSC rate) when not halted"},
	{"CPU_CLK_UNHALTED:REF_TSC", 0x00, 0x03, 0, false, "reference cycles, fixed counter 2 (the kernel's ref-cycles)"},
	{"BR_INST_RETIRED:ALL_BRANCHES", 0xc4, 0x00, 0, false, "branch instructions retired"},
	{"BR_MISP_RETIRED:ALL_BRANCHES", 0xc5, 0x00, 0, false, "mispredicted branch instructions retired"},
	{"LONGEST_LAT_CACHE:REFERENCE", 0x2e, 0x4f, 0, false, "requests that refer to the LLC"},
	{"LONGEST_LAT_CACHE:MISS", 0x2e, 0x41, 0, false, "requests that missed the LLC"},
	{"MEM_UOPS_RETIRED:ALL_LOADS", 0xd0, 0x81, 0, false, "retired load uops"},
	{"MEM_UOPS_RETIRED:ALL_STORES", 0xd0, 0x82, 0, false, "retired store uops"},
	{"MEM_LOAD_UOPS_RETIRED:L2_HIT", 0xd1, 0x02, 0, false, "retired load uops that hit L2"},
	{"MEM_LOAD_UOPS_RETIRED:L3_HIT", 0xd1, 0x04, 0, false, "retired load uops that hit L3"},
	{"MEM_LOAD_UOPS_RETIRED:DRAM_HIT", 0xd1, 0x80, 0, false, "retired load uops served by DRAM"},
	{"UOPS_RETIRED:ALL", 0xc2, 0x00, 0, false, "retired uops"},
	{"TOPDOWN_FE_BOUND:ALL", 0x71, 0x00, 0, false, "TMA slots: front end bound"},
	{"TOPDOWN_BAD_SPECULATION:ALL", 0x73, 0x00, 0, false, "TMA slots: bad speculation"},
	{"TOPDOWN_BE_BOUND:ALL", 0x74, 0x00, 0, false, "TMA slots: back end bound"},
	{"MACHINE_CLEARS:SMC", 0xc3, 0x01, 0, false, "machine clears: self-modifying code"},
	{"LD_BLOCKS:ADDRESS_ALIAS", 0x03, 0x04, 0, false, "loads blocked by 4K aliasing"},
});

// meteorlake_redwoodcove_core.json (V1.01)
constexpr auto rwc_events = std::to_array<HybridEvent>({
	{"INST_RETIRED:ANY_P", 0xc0, 0x00, 0, false, "instructions retired (general counter)"},
	{"CPU_CLK_UNHALTED:THREAD_P", 0x3c, 0x00, 0, false, "thread cycles when not halted"},
	{"CPU_CLK_UNHALTED:REF_TSC_P", 0x3c, 0x01, 0, false, "reference cycles (TSC rate) when not halted"},
	{"CPU_CLK_UNHALTED:REF_TSC", 0x00, 0x03, 0, false, "reference cycles, fixed counter 2 (the kernel's ref-cycles)"},
	{"BR_INST_RETIRED:ALL_BRANCHES", 0xc4, 0x00, 0, false, "branch instructions retired"},
	{"BR_MISP_RETIRED:ALL_BRANCHES", 0xc5, 0x00, 0, false, "mispredicted branch instructions retired"},
	{"LONGEST_LAT_CACHE:REFERENCE", 0x2e, 0x4f, 0, false, "core requests that refer to L3"},
	{"LONGEST_LAT_CACHE:MISS", 0x2e, 0x41, 0, false, "core requests that missed L3"},
	{"MEM_INST_RETIRED:ALL_LOADS", 0xd0, 0x81, 0, false, "retired load instructions"},
	{"MEM_INST_RETIRED:ALL_STORES", 0xd0, 0x82, 0, false, "retired store instructions"},
	{"L2_RQSTS:ALL_DEMAND_DATA_RD", 0x24, 0xe1, 0, false, "demand data reads accessing L2"},
	{"DTLB_LOAD_MISSES:WALK_COMPLETED", 0x12, 0x0e, 0, false, "load page walks completed"},
	{"ITLB_MISSES:WALK_COMPLETED", 0x11, 0x0e, 0, false, "code page walks completed"},
	{"UOPS_RETIRED:SLOTS", 0xc2, 0x02, 0, false, "TMA retiring slots"},
	{"TOPDOWN:SLOTS_P", 0xa4, 0x01, 0, false, "TMA slots (general counter)"},
	{"TOPDOWN:BACKEND_BOUND_SLOTS", 0xa4, 0x02, 0, false, "TMA slots lost to the back end"},
	{"IDQ_BUBBLES:CORE", 0x9c, 0x01, 0, false, "TMA slots the front end did not fill"},
	{"LD_BLOCKS:STORE_FORWARD", 0x03, 0x82, 0, false, "loads blocked by store forwarding"},
});

// meteorlake_crestmont_core.json (V1.11)
constexpr auto cmt_events = std::to_array<HybridEvent>({
	{"INST_RETIRED:ANY_P", 0xc0, 0x00, 0, false, "instructions retired (general counter)"},
	{"CPU_CLK_UNHALTED:CORE_P", 0x3c, 0x00, 0, false, "core cycles when not halted"},
	{"CPU_CLK_UNHALTED:THREAD_P", 0x3c, 0x00, 0, false, "core cycles when not halted"},
	{"CPU_CLK_UNHALTED:REF_TSC_P", 0x3c, 0x01, 0, false, "reference cycles (TSC rate) when not halted"},
	{"CPU_CLK_UNHALTED:REF_TSC", 0x00, 0x03, 0, false, "reference cycles, fixed counter 2 (the kernel's ref-cycles)"},
	{"BR_INST_RETIRED:ALL_BRANCHES", 0xc4, 0x00, 0, false, "branch instructions retired"},
	{"BR_MISP_RETIRED:ALL_BRANCHES", 0xc5, 0x00, 0, false, "mispredicted branch instructions retired"},
	{"LONGEST_LAT_CACHE:REFERENCE", 0x2e, 0x4f, 0, false, "requests that refer to the LLC"},
	{"LONGEST_LAT_CACHE:MISS", 0x2e, 0x41, 0, false, "requests that missed the LLC"},
	{"LD_BLOCKS:DATA_UNKNOWN", 0x03, 0x01, 0, false, "loads blocked: older store data not ready"},
	{"LD_BLOCKS:STORE_FORWARD", 0x03, 0x02, 0, false, "loads blocked by store forwarding"},
	{"LD_BLOCKS:ADDRESS_ALIAS", 0x03, 0x04, 0, false, "loads blocked by 4K aliasing"},
	{"MEM_SCHEDULER_BLOCK:ALL", 0x04, 0x07, 0, false, "cycles uops are blocked: load/store buffer or RSV full"},
	{"MEM_BOUND_STALLS_LOAD:ALL", 0x34, 0x7f, 0, false, "unhalted cycles stalled on an L1 demand load miss"},
	{"TOPDOWN_FE_BOUND:ALL", 0x71, 0x00, 0, false, "TMA slots: front end bound"},
	{"TOPDOWN_RETIRING:ALL", 0x72, 0x00, 0, false, "TMA slots: retiring"},
	{"TOPDOWN_BAD_SPECULATION:ALL", 0x73, 0x00, 0, false, "TMA slots: bad speculation"},
	{"BR_INST_RETIRED:COND", 0xc4, 0x7e, 0, false, "conditional branches retired"},
	{"BR_INST_RETIRED:NEAR_TAKEN", 0xc4, 0xc0, 0, false, "near taken branches retired"},
});

constexpr auto pmu_table = std::to_array<HybridPmu>({
	{"adl_glc", "Intel Alder Lake / Raptor Lake Golden Cove P-core", core_type_core, adl_models,
	 glc_events},
	{"adl_grt", "Intel Alder Lake / Raptor Lake Gracemont E-core", core_type_atom, adl_models,
	 grt_events},
	{"mtl_rwc", "Intel Meteor Lake Redwood Cove P-core", core_type_core, mtl_models, rwc_events},
	{"mtl_cmt", "Intel Meteor Lake Crestmont E-core", core_type_atom, mtl_models, cmt_events},
});

bool iequals(std::string_view a, std::string_view b)
{
	return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// "EVENT:UMASK[:u|:k]..." -> the table entry; mods gets the rest.
const HybridEvent *find_event(std::string_view event, const HybridPmu &pmu, std::string_view &mods)
{
	for (const auto &e : pmu.events) {
		if (event.size() < e.name.size() || !iequals(event.substr(0, e.name.size()), e.name))
			continue;
		std::string_view rest = event.substr(e.name.size());
		if (!rest.empty() && rest[0] != ':')
			continue;
		mods = rest;
		return &e;
	}
	return nullptr;
}

} // namespace

std::span<const HybridPmu> hybrid_pmus()
{
	return pmu_table;
}

const HybridPmu *find_hybrid_pmu(std::string_view name)
{
	for (const auto &p : pmu_table)
		if (iequals(p.name, name))
			return &p;
	return nullptr;
}

Result<Encoding> encode_hybrid(std::string_view event, const HybridPmu &pmu)
{
	if (auto q = event.find("::"); q != std::string_view::npos) {
		if (!iequals(event.substr(0, q), pmu.name))
			return fail(fmt::format("event is qualified for pmu {}", event.substr(0, q)));
		event.remove_prefix(q + 2);
	}
	std::string_view mods;
	const HybridEvent *ev = find_event(event, pmu, mods);
	if (!ev)
		return fail("event not found");
	Encoding e;
	e.type = 4; // PERF_TYPE_RAW: cpu_core's type; the runtime gives cpu_atom's its own
	e.config = ev->code | ev->umask << 8 | (ev->edge ? 1u << 18 : 0u) | ev->cmask << 24;
	// the exclude bits libpfm4 gives an Intel core event with PLM0|PLM3
	e.exclude_guest = true;
	if (Status st = apply_uk_modifiers(mods, e); !st)
		return st.error();
	return e;
}

} // namespace stap_pmu::pmu::detail
