// intel_hybrid.h - the project's own tables for the core types of hybrid
// Intel parts (Debian's libpfm4 4.13 has none): per core type, the CPU
// models, the CPUID leaf 0x1A core type and the events with their published
// encodings (docs/pmu.md, "Hybrid Intel rows").
#pragma once

#include "pmu/pmu.h"

#include <span>
#include <string_view>

namespace stap_pmu::pmu::detail {

// One event as Intel's perfmon JSON publishes it.
struct HybridEvent {
	std::string_view name;  // libpfm4 spelling: "MEM_LOAD_RETIRED:L3_MISS"
	unsigned code;          // EventCode
	unsigned umask;         // UMask
	unsigned cmask = 0;     // CounterMask
	bool edge = false;      // EdgeDetect
	std::string_view description = {};
};

struct HybridPmu {
	std::string_view name;        // libpfm4-style name: "adl_glc"
	std::string_view description;
	unsigned core_type;           // CPUID.1AH:EAX[31:24]: core_type_atom / core_type_core
	std::span<const unsigned> models; // family 6 models (Intel's mapfile)
	std::span<const HybridEvent> events;
};

std::span<const HybridPmu> hybrid_pmus();

// The hybrid PMU named NAME (case-insensitive), or nullptr.
const HybridPmu *find_hybrid_pmu(std::string_view name);

// Encode EVENT ("INST_RETIRED:ANY_P", "adl_grt::LONGEST_LAT_CACHE:MISS:u")
// for a hybrid PMU: PERF_TYPE_RAW with config = code | umask << 8 |
// edge << 18 | cmask << 24, the bits the kernel's x86 PMUs take, and the
// exclude bits libpfm4 gives Intel core events (exclude_guest; :u adds
// exclude_kernel, :k exclude_user).
Result<Encoding> encode_hybrid(std::string_view event, const HybridPmu &pmu);

} // namespace stap_pmu::pmu::detail
