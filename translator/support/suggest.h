// suggest.h - "did you mean" for misspelled names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stap_pmu {

// Levenshtein distance; ignore_case compares ASCII letters case-insensitively.
size_t edit_distance(std::string_view a, std::string_view b, bool ignore_case = false);

// The candidate closest to name if it is close enough to be a plausible
// typo; "" otherwise.
std::string closest_name(const std::string &name, const std::vector<std::string> &candidates);

// Up to n candidates closest to query, case-insensitively, nearest first
// (ties by name): those within an edit distance below query's length.
std::vector<std::string> nearest_names(std::string_view query,
				       const std::vector<std::string> &candidates, size_t n);

} // namespace stap_pmu
