// closest.cpp - "did you mean" suggestions over the event names of some PMUs.
#include "pmu/intel_hybrid.h"
#include "pmu/internal.h"
#include "pmu/pmu.h"
#include "translator/support/suggest.h"

#include <algorithm>
#include <map>

#include <perfmon/pfmlib.h>

namespace stap_pmu::pmu {
namespace {

// Event names of one PMU, with their "EVENT:UMASK" forms and, for the
// generic PMU, the short aliases ("cycles" for PERF_COUNT_HW_CPU_CYCLES).
void collect_names(const detail::PmuDesc &pmu, std::vector<std::string> &out)
{
	for (int idx = pmu.first_event; idx >= 0; idx = pfm_get_event_next(idx)) {
		pfm_event_info_t ev{};
		ev.size = sizeof(ev);
		if (pfm_get_event_info(idx, PFM_OS_NONE, &ev) != PFM_SUCCESS || !ev.name)
			continue;
		out.emplace_back(ev.name);
		if (ev.equiv)
			out.emplace_back(ev.equiv);
		for (int a = 0; a < ev.nattrs; ++a) {
			pfm_event_attr_info_t at{};
			at.size = sizeof(at);
			if (pfm_get_event_attr_info(idx, a, PFM_OS_NONE, &at) != PFM_SUCCESS)
				continue;
			if (at.type == PFM_ATTR_UMASK && at.name)
				out.push_back(std::string(ev.name) + ":" + at.name);
		}
	}
}

} // namespace

std::vector<std::string> Resolver::closest(const std::string &event,
					   const std::vector<std::string> &pmus, size_t n)
{
	if (!init())
		return {};
	std::string_view query = event;
	if (auto pos = query.find("::"); pos != std::string_view::npos)
		query.remove_prefix(pos + 2);

	// Names per PMU are collected once per process; most PMUs of a vendor
	// share most names, so the union is deduplicated before the edit
	// distances (48 x86 PMUs: a few thousand names instead of ~70000).
	static std::map<std::string, std::vector<std::string>> per_pmu;
	std::vector<std::string> names;
	for (const auto &name : pmus) {
		auto it = per_pmu.find(name);
		if (it == per_pmu.end()) {
			std::vector<std::string> v;
			if (const detail::PmuDesc *pmu = detail::find_pmu(name))
				collect_names(*pmu, v);
			else if (const detail::HybridPmu *h = detail::find_hybrid_pmu(name))
				for (const auto &e : h->events)
					v.emplace_back(e.name);
			it = per_pmu.emplace(name, std::move(v)).first;
		}
		names.insert(names.end(), it->second.begin(), it->second.end());
	}
	std::sort(names.begin(), names.end());
	names.erase(std::unique(names.begin(), names.end()), names.end());
	return nearest_names(query, names, n);
}

} // namespace stap_pmu::pmu
