// fat_table.cpp - build the candidate rows of a fat module.
#include "pmu/fat_table.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace stap_pmu::pmu {
namespace {

constexpr std::string_view generic_pmu = "perf";

// Generic rows (no CPU match: any CPU) must come after every CPUID row.
void order_rows(std::vector<Row> &rows)
{
	std::stable_partition(rows.begin(), rows.end(),
			      [](const Row &r) { return !r.match.empty(); });
}

} // namespace

std::optional<Encoding> parse_raw_event(std::string_view name)
{
	constexpr std::string_view pre = "perf.type(", mid = ").config(";
	if (name.substr(0, pre.size()) != pre || name.empty() || name.back() != ')')
		return std::nullopt;
	std::string rest(name.substr(pre.size(), name.size() - pre.size() - 1));
	size_t m = rest.find(mid);
	if (m == std::string::npos || m == 0 || m + mid.size() >= rest.size())
		return std::nullopt;
	std::string t = rest.substr(0, m), c = rest.substr(m + mid.size());
	auto number = [](const std::string &s, uint64_t max) -> std::optional<uint64_t> {
		if (s.empty() || !std::isdigit(static_cast<unsigned char>(s[0])))
			return std::nullopt;
		errno = 0;
		char *end = nullptr;
		unsigned long long v = std::strtoull(s.c_str(), &end, 0);
		if (errno || *end || v > max)
			return std::nullopt;
		return v;
	};
	auto type = number(t, UINT32_MAX);
	auto config = number(c, UINT64_MAX);
	if (!type || !config)
		return std::nullopt;
	Encoding e;
	e.type = static_cast<uint32_t>(*type);
	e.config = *config;
	return e;
}

std::optional<Fallback> parse_fallback(std::string_view s)
{
	if (s == "none")
		return Fallback::none;
	if (s == "row")
		return Fallback::row;
	if (s == "generic")
		return Fallback::generic;
	return std::nullopt;
}

FatTable build_fat_table(const std::vector<std::string> &events,
			 const std::vector<std::string> &targets, Fallback fallback)
{
	FatTable t;
	t.events = events;
	t.missing.resize(events.size());
	t.generic.resize(events.size());

	std::vector<std::string_view> seen;
	for (const auto &target : targets) {
		if (std::find(seen.begin(), seen.end(), target) != seen.end())
			continue;
		seen.push_back(target);
		Row row;
		row.pmu = target;
		if (target != generic_pmu) {
			row.match = Resolver::cpu_matches(target);
			if (row.match.empty()) {
				t.dropped.push_back({target, "no CPU model selects it"});
				continue;
			}
		}
		std::vector<std::string> lacking;
		for (size_t i = 0; i < events.size(); ++i) {
			if (auto raw = parse_raw_event(events[i])) {
				row.events.push_back(*raw);
				continue;
			}
			TargetEncoding te = Resolver::encode(events[i], target);
			if (!te.enc && fallback == Fallback::generic && target != generic_pmu) {
				TargetEncoding g = Resolver::encode_generic(events[i]);
				if (g.enc) {
					t.generic[i].push_back(target);
					row.events.push_back(*g.enc);
					continue;
				}
			}
			if (!te.enc) {
				t.missing[i].push_back({target, te.reason});
				lacking.push_back(events[i]);
				continue;
			}
			row.events.push_back(*te.enc);
		}
		if (!lacking.empty()) {
			t.dropped.push_back({target, fmt::format("lacks {}", fmt::join(lacking, ", "))});
			continue;
		}
		t.rows.push_back(std::move(row));
	}
	order_rows(t.rows);
	return t;
}

std::string pmu_targets_string(const FatTable &table)
{
	std::vector<std::string_view> names;
	for (const auto &r : table.rows)
		names.push_back(r.pmu);
	return fmt::format("{}", fmt::join(names, ","));
}

} // namespace stap_pmu::pmu
