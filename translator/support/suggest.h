// suggest.h - "did you mean" for misspelled names.
#pragma once

#include <string>
#include <vector>

namespace stap_pmu {

size_t edit_distance(const std::string &a, const std::string &b);

// The candidate closest to name if it is close enough to be a plausible
// typo; "" otherwise.
std::string closest_name(const std::string &name, const std::vector<std::string> &candidates);

} // namespace stap_pmu
