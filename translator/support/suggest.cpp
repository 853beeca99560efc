// suggest.cpp - edit distance based suggestions.
#include "translator/support/suggest.h"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <utility>

namespace stap_pmu {

namespace {

unsigned char fold(char c)
{
	return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c - 'A' + 'a')
				    : static_cast<unsigned char>(c);
}

} // namespace

size_t edit_distance(std::string_view a, std::string_view b, bool ignore_case)
{
	auto same = [ignore_case](char x, char y) { return ignore_case ? fold(x) == fold(y) : x == y; };
	std::vector<size_t> prev2(b.size() + 1), prev(b.size() + 1), cur(b.size() + 1);
	std::iota(prev.begin(), prev.end(), size_t{0});
	for (size_t i = 1; i <= a.size(); ++i) {
		cur[0] = i;
		for (size_t j = 1; j <= b.size(); ++j) {
			size_t cost = same(a[i - 1], b[j - 1]) ? 0 : 1;
			cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
			if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
				cur[j] = std::min(cur[j], prev2[j - 2] + 1);
		}
		std::swap(prev2, prev);
		std::swap(prev, cur);
	}
	return prev[b.size()];
}

LetterBag::LetterBag(std::string_view q) : size_(q.size())
{
	for (char c : q)
		if (count_[fold(c)]++ == 0)
			letters_.push_back(fold(c));
}

size_t LetterBag::operator()(std::string_view name)
{
	for (char c : name)
		--count_[fold(c)];
	size_t more = 0; // letters of the query the name lacks
	for (unsigned char c : letters_)
		more += count_[c] > 0 ? count_[c] : 0;
	for (char c : name)
		++count_[fold(c)];
	size_t fewer = name.size() + more - size_; // letters of the name the query lacks
	return std::max(more, fewer);
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
