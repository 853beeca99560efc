// arm64.h - the project's own ARMv8 PMUv3 tables (Debian's libpfm4 has no
// ARM tables): common event numbers, arm64 core PMUs and their MIDR keys.
#pragma once

#include "pmu/pmu.h"

#include <span>
#include <string_view>

namespace stap_pmu::pmu::detail {

struct ArmEvent {
	std::string_view name;   // ARM ARM mnemonic: "INST_RETIRED"
	unsigned number;         // PMUv3 event number: 0x08
	std::string_view description;
};

struct ArmPmu {
	std::string_view name;   // libpfm4-style name: "arm_ac57"
	std::string_view alias;  // "cortex-a57"
	std::string_view description;
	unsigned implementer;    // MIDR_EL1[31:24]
	unsigned part;           // MIDR_EL1[15:4]
};

std::span<const ArmEvent> arm_events();
std::span<const ArmPmu> arm_pmus();

// The arm64 PMU named NAME or its alias (case-insensitive), or nullptr.
const ArmPmu *find_arm_pmu(std::string_view name);

// Encode EVENT ("INST_RETIRED", "INST_RETIRED:u", "arm_ac57::CPU_CYCLES:k")
// for an arm64 PMU: PERF_TYPE_RAW with config = event number.
Result<Encoding> encode_arm(std::string_view event, const ArmPmu &pmu);

} // namespace stap_pmu::pmu::detail
