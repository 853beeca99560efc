// concepts.h - portable event concepts ("cycles", "llc-misses") and the
// per-PMU alias lists that resolve them to model events. Data in concepts.cpp.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stap_pmu::pmu::detail {

struct Concept {
	std::string_view name;        // "llc-misses"
	std::string_view description;
	std::string_view generic;     // the generic perf event for the perf row
};

// Every concept, in documentation order.
std::span<const Concept> concepts();

// The concept named NAME (exact, lower case), or nullptr.
const Concept *find_concept(std::string_view name);

// Model event names to try, in order, for CONCEPT on PMU (libpfm4 names, or
// "perf::X" where the kernel's generic event is the same thing on that
// PMU). Empty: the PMU has no event for the concept.
std::vector<std::string> concept_candidates(const Concept &c, std::string_view pmu);

// "llc-misses:u" -> {"llc-misses", ":u"}; no colon -> {name, ""}.
std::pair<std::string_view, std::string_view> split_modifiers(std::string_view event);

} // namespace stap_pmu::pmu::detail
