// fat_table.h - the per-CPU-model candidate rows a module carries, and the C
// text that declares them (docs/runtime.md, "PMU tables").
#pragma once

#include "pmu/pmu.h"

#include <cstddef>
#include <string>
#include <vector>

namespace stap_pmu::pmu {

// A target that could not encode one event.
struct MissingTarget {
	std::string pmu;
	std::string reason;   // libpfm4's text, e.g. "event not found"
};

// A target that got no row, and why.
struct DroppedTarget {
	std::string pmu;
	std::string reason;   // "lacks INST_RETIRED:ANY_P", "no CPU model selects it", ...
};

struct FatTable {
	std::vector<std::string> events;                 // script order
	std::vector<Row> rows;                           // CPUID rows first, generic rows last
	std::vector<std::vector<MissingTarget>> missing; // per event: targets lacking it
	std::vector<DroppedTarget> dropped;              // targets without a row
};

// Encode every event for every target (libpfm4 PMU names, as returned by
// Resolver::expand_targets). A target that lacks any event gets no row; it is
// listed in `dropped` and, per event, in `missing`. Non-generic targets with
// no CPU match entry are dropped too (their row could never be selected).
FatTable build_fat_table(const std::vector<std::string> &events,
			 const std::vector<std::string> &targets);

// The PMU part of a generated module: stp_pmu_match_* and stp_pmu_events_*
// arrays, stp_pmu_rows and stp_pmu_event_names. Identical event vectors are
// emitted once and shared by their rows. Uses STP_NEVENTS, which the
// generated file defines as table.events.size().
std::string emit_pmu_tables(const FatTable &table);

// Value for STP_PMU_TARGETS: the row PMUs, comma separated ("skl,perf").
std::string pmu_targets_string(const FatTable &table);

// Bytes of .rodata the emitted tables take on x86_64 (structs as the runtime
// defines them, the shared event arrays counted once, plus the strings).
size_t pmu_tables_size(const FatTable &table);

} // namespace stap_pmu::pmu
