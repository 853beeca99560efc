// fat_table.h - the per-CPU-model candidate rows a module carries, and the C
// text that declares them (docs/runtime.md, "PMU tables").
#pragma once

#include "pmu/pmu.h"

#include <cstddef>
#include <optional>
#include <string_view>
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

// What a CPU model's row does for an event its PMU lacks.
enum class Fallback {
	none,     // no generic row; a target lacking an event gets no row
	row,      // (default) plus the generic perf row for CPUs no model row matches
	generic,  // also: a model row lacking an event uses its generic perf encoding
};

// "none", "row", "generic"; nullopt for anything else.
std::optional<Fallback> parse_fallback(std::string_view s);

struct FatTable {
	std::vector<std::string> events;                 // script order
	std::vector<Row> rows;                           // CPUID rows first, generic rows last
	std::vector<std::vector<MissingTarget>> missing; // per event: targets lacking it
	std::vector<DroppedTarget> dropped;              // targets without a row
	std::vector<std::vector<std::string>> generic;   // per event: targets using
							 // the generic encoding
};

// "perf.type(T).config(C)" (C decimal or 0x hex), the spelling
// translator/probes/perf.cpp gives SystemTap's perf.type(T).config(C)
// probes: the same encoding (no exclude bits) for every target. nullopt for
// any other name.
std::optional<Encoding> parse_raw_event(std::string_view name);

// Encode every event for every target (libpfm4 PMU names, as returned by
// Resolver::expand_targets). A target that lacks any event gets no row; it is
// listed in `dropped` and, per event, in `missing`. Non-generic targets with
// no CPU match entry are dropped too (their row could never be selected).
// With Fallback::generic a target lacking an event uses the event's generic
// perf encoding when it has one (listed in `generic`, not in `missing`).
FatTable build_fat_table(const std::vector<std::string> &events,
			 const std::vector<std::string> &targets,
			 Fallback fallback = Fallback::row);

// The PMU part of a generated module: the const object stp_pmu_data (shared
// encodings, packed match entries, event vectors, rows without pointers,
// front-coded row names, event names) and stp_pmu_init_tables(), which
// hands it to the runtime (docs/runtime.md, "PMU tables"). Uses
// STP_NEVENTS, which the generated file defines as table.events.size().
std::string emit_pmu_tables(const FatTable &table);

// Value for STP_PMU_TARGETS: the row PMUs, comma separated ("skl,perf").
std::string pmu_targets_string(const FatTable &table);

// sizeof(stp_pmu_data): the bytes of .rodata the emitted tables take (the
// runtime's struct sizes and alignments; x86 or arm64 match entries).
size_t pmu_tables_size(const FatTable &table);

} // namespace stap_pmu::pmu
