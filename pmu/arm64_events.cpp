// arm64_events.cpp - ARMv8 PMUv3 common events and their perf encoding.
//
// Event numbers: Arm Architecture Reference Manual for A-profile, D7.10
// (ARMv8.0) / D11.11 "The PMU event number space and common events", the
// same numbers as the kernel's include/linux/perf/arm_pmuv3.h
// (ARMV8_PMUV3_PERFCTR_*). Which optional common events a core implements
// is in its PMCEID0/1 registers; the kernel checks them when the counter is
// created, so the table is the same for every arm64 PMU.
//
// Encoding: the kernel's armv8 PMU driver (drivers/perf/arm_pmuv3.c,
// armv8pmu_map_event) takes PERF_TYPE_RAW (4) with config = event number
// (bits 0-15); :u sets exclude_kernel (and exclude_hv), :k sets
// exclude_user; exclude_hv is set by default like libpfm4's PFM_PLM0|PLM3
// encodings (EL2 is counted only when exclude_hv is clear, on non-VHE
// kernels; with VHE the kernel runs at EL2 and exclude_kernel decides).
#include "pmu/arm64.h"
#include "pmu/internal.h"

#include <array>
#include <strings.h>

#include <fmt/format.h>

namespace stap_pmu::pmu::detail {
namespace {

constexpr auto event_table = std::to_array<ArmEvent>({
	{"SW_INCR", 0x00, "software increment (PMSWINC_EL0 writes)"},
	{"L1I_CACHE_REFILL", 0x01, "level 1 instruction cache refill"},
	{"L1I_TLB_REFILL", 0x02, "level 1 instruction TLB refill"},
	{"L1D_CACHE_REFILL", 0x03, "level 1 data cache refill"},
	{"L1D_CACHE", 0x04, "level 1 data cache access"},
	{"L1D_TLB_REFILL", 0x05, "level 1 data TLB refill"},
	{"LD_RETIRED", 0x06, "load instructions architecturally executed"},
	{"ST_RETIRED", 0x07, "store instructions architecturally executed"},
	{"INST_RETIRED", 0x08, "instructions architecturally executed"},
	{"EXC_TAKEN", 0x09, "exceptions taken"},
	{"EXC_RETURN", 0x0a, "exception returns architecturally executed"},
	{"CID_WRITE_RETIRED", 0x0b, "writes to CONTEXTIDR architecturally executed"},
	{"PC_WRITE_RETIRED", 0x0c, "software changes of the PC architecturally executed (branches)"},
	{"BR_IMMED_RETIRED", 0x0d, "immediate branches architecturally executed"},
	{"BR_RETURN_RETIRED", 0x0e, "procedure returns architecturally executed"},
	{"UNALIGNED_LDST_RETIRED", 0x0f, "unaligned loads and stores architecturally executed"},
	{"BR_MIS_PRED", 0x10, "mispredicted or not predicted branches speculatively executed"},
	{"CPU_CYCLES", 0x11, "processor cycles"},
	{"BR_PRED", 0x12, "predictable branches speculatively executed"},
	{"MEM_ACCESS", 0x13, "data memory accesses"},
	{"L1I_CACHE", 0x14, "level 1 instruction cache access"},
	{"L1D_CACHE_WB", 0x15, "level 1 data cache write-back"},
	{"L2D_CACHE", 0x16, "level 2 data cache access"},
	{"L2D_CACHE_REFILL", 0x17, "level 2 data cache refill"},
	{"L2D_CACHE_WB", 0x18, "level 2 data cache write-back"},
	{"BUS_ACCESS", 0x19, "bus accesses"},
	{"MEMORY_ERROR", 0x1a, "local memory errors"},
	{"INST_SPEC", 0x1b, "operations speculatively executed"},
	{"TTBR_WRITE_RETIRED", 0x1c, "writes to TTBR architecturally executed"},
	{"BUS_CYCLES", 0x1d, "bus cycles"},
	{"L1D_CACHE_ALLOCATE", 0x1f, "level 1 data cache allocations without refill"},
	{"L2D_CACHE_ALLOCATE", 0x20, "level 2 data cache allocations without refill"},
	{"BR_RETIRED", 0x21, "branches architecturally executed"},
	{"BR_MIS_PRED_RETIRED", 0x22, "mispredicted branches architecturally executed"},
	{"STALL_FRONTEND", 0x23, "cycles with no operation issued: front end"},
	{"STALL_BACKEND", 0x24, "cycles with no operation issued: back end"},
	{"L1D_TLB", 0x25, "level 1 data TLB access"},
	{"L1I_TLB", 0x26, "level 1 instruction TLB access"},
	{"L3D_CACHE_REFILL", 0x2a, "level 3 data cache refill"},
	{"L3D_CACHE", 0x2b, "level 3 data cache access"},
	{"L2D_TLB_REFILL", 0x2d, "level 2 data TLB refill"},
	{"L2D_TLB", 0x2f, "level 2 data TLB access"},
	{"LL_CACHE_RD", 0x36, "last level cache reads"},
	{"LL_CACHE_MISS_RD", 0x37, "last level cache read misses"},
});

bool iequals(std::string_view a, std::string_view b)
{
	return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

} // namespace

std::span<const ArmEvent> arm_events()
{
	return event_table;
}

Result<Encoding> encode_arm(std::string_view event, const ArmPmu &pmu)
{
	if (auto q = event.find("::"); q != std::string_view::npos) {
		std::string_view qual = event.substr(0, q);
		if (!iequals(qual, pmu.name) && !iequals(qual, pmu.alias))
			return fail(fmt::format("event is qualified for pmu {}", qual));
		event.remove_prefix(q + 2);
	}
	std::string_view name = event.substr(0, event.find(':'));
	const ArmEvent *ev = nullptr;
	for (const auto &e : event_table)
		if (iequals(e.name, name))
			ev = &e;
	if (!ev)
		return fail("event not found");
	Encoding e;
	e.type = 4; // PERF_TYPE_RAW
	e.config = ev->number;
	e.exclude_hv = true;
	if (Status st = apply_uk_modifiers(event.substr(name.size()), e); !st)
		return st.error();
	return e;
}

} // namespace stap_pmu::pmu::detail
