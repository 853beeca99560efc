// suggest.cpp - edit distance based suggestions.
#include "translator/support/suggest.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <utility>

namespace stap_pmu {

size_t edit_distance(std::string_view a, std::string_view b, bool ignore_case)
{
	auto fold = [ignore_case](char c) {
		return ignore_case ? std::tolower(static_cast<unsigned char>(c)) : c;
	};
	std::vector<size_t> row(b.size() + 1);
	std::iota(row.begin(), row.end(), size_t{0});
	for (size_t i = 1; i <= a.size(); ++i) {
		size_t diag = row[0]; // distance(a[0..i-1), b[0..j-1))
		row[0] = i;
		for (size_t j = 1; j <= b.size(); ++j) {
			size_t subst = diag + (fold(a[i - 1]) == fold(b[j - 1]) ? 0 : 1);
			diag = row[j];
			row[j] = std::min({row[j] + 1, row[j - 1] + 1, subst});
		}
	}
	return row[b.size()];
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

std::vector<std::string> nearest_names(std::string_view query,
				       const std::vector<std::string> &candidates, size_t n)
{
	// No event name is this long: a longer query is not a misspelling, and
	// the quadratic distance over thousands of names would take seconds.
	constexpr size_t max_query = 96;
	std::vector<std::pair<size_t, const std::string *>> scored;
	if (query.size() > max_query)
		return {};
	scored.reserve(candidates.size());
	size_t limit = std::max(query.size(), size_t{1});
	for (const auto &c : candidates) {
		// the distance is at least the difference of the lengths
		size_t diff = c.size() > query.size() ? c.size() - query.size() : query.size() - c.size();
		if (diff >= limit)
			continue;
		size_t d = edit_distance(query, c, true);
		if (d < limit)
			scored.emplace_back(d, &c);
	}
	std::sort(scored.begin(), scored.end(), [](const auto &x, const auto &y) {
		return x.first != y.first ? x.first < y.first : *x.second < *y.second;
	});
	std::vector<std::string> out;
	for (const auto &[d, s] : scored) {
		if (out.size() == n)
			break;
		if (std::find(out.begin(), out.end(), *s) == out.end())
			out.push_back(*s);
	}
	return out;
}

} // namespace stap_pmu
