// suggest.h - "did you mean" for misspelled names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace stap_pmu {

// The one edit distance of every "did you mean": insertions, deletions,
// substitutions and a swap of two adjacent letters count one edit each
// (optimal string alignment); ignore_case compares ASCII letters
// case-insensitively.
size_t edit_distance(std::string_view a, std::string_view b, bool ignore_case = false);

// The bag distance to one query from many names: the larger count of
// letters one has that the other lacks, case-insensitively. A lower bound
// of edit_distance(query, name, true) that takes one pass over each name,
// to skip most of a large candidate list before scoring it.
class LetterBag {
public:
	explicit LetterBag(std::string_view query);
	size_t operator()(std::string_view name);

private:
	int count_[256] = {};
	std::vector<unsigned char> letters_;
	size_t size_;
};

// The candidate closest to name if it is close enough to be a plausible
// typo; "" otherwise.
std::string closest_name(const std::string &name, const std::vector<std::string> &candidates);

// Up to n candidates closest to query, case-insensitively, nearest first
// (ties by name): those within an edit distance below query's length.
std::vector<std::string> nearest_names(std::string_view query,
				       const std::vector<std::string> &candidates, size_t n);

} // namespace stap_pmu
