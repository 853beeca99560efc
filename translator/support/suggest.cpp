// suggest.cpp - edit distance based suggestions.
#include "translator/support/suggest.h"

#include <algorithm>

namespace stap_pmu {

size_t edit_distance(const std::string &a, const std::string &b)
{
	std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
	for (size_t j = 0; j <= b.size(); j++)
		prev[j] = j;
	for (size_t i = 1; i <= a.size(); i++) {
		cur[0] = i;
		for (size_t j = 1; j <= b.size(); j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
		}
		std::swap(prev, cur);
	}
	return prev[b.size()];
}

std::string closest_name(const std::string &name, const std::vector<std::string> &candidates)
{
	std::string best;
	size_t best_d = SIZE_MAX;
	for (const std::string &c : candidates) {
		size_t d = edit_distance(name, c);
		if (d < best_d) {
			best_d = d;
			best = c;
		}
	}
	size_t limit = name.size() <= 2 ? 1 : std::max<size_t>(2, name.size() / 3);
	return best_d <= limit ? best : "";
}

} // namespace stap_pmu
