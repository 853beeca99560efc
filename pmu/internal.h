// internal.h - helpers shared by the pmu/ sources. Not part of the public
// interface, and free of libpfm4 types so it can be included anywhere in pmu/.
#pragma once

#include "pmu/pmu.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace stap_pmu::pmu::detail {

enum class PmuKind { core, generic, other };

// One PMU libpfm4 knows about (present on this machine or not).
struct PmuDesc {
	std::string name;
	int id = 0;            // pfm_pmu_t
	PmuKind kind = PmuKind::other;
	int nevents = 0;
	int first_event = -1;  // -1: no event table in this process (ix86arch)
};

inline constexpr std::string_view generic_pmu = "perf";

// Every PMU of the build's tables, in libpfm4 id order. Initializes libpfm4
// on first use; empty if that failed.
const std::vector<PmuDesc> &pmu_inventory();

// The PMU named NAME (case-insensitive), or nullptr.
const PmuDesc *find_pmu(std::string_view name);

// MODS (":u", ":k:u", "" ...) after an event of the project's own tables
// (arm64, hybrid Intel): :u alone sets e.exclude_kernel, :k alone
// e.exclude_user; any other modifier is "invalid event attribute".
Status apply_uk_modifiers(std::string_view mods, Encoding &e);

} // namespace stap_pmu::pmu::detail
