// pmu_pass.cpp - @pmu events through libpfm4 (pmu/), with diagnostics.
#include "translator/pmu_pass.h"

#include "pmu/pmu.h"

namespace stap_pmu {

static std::string join(const std::vector<std::string> &v, const char *sep = ", ")
{
	std::string out;
	for (const std::string &s : v)
		out += (out.empty() ? "" : sep) + s;
	return out;
}

PmuPassResult resolve_pmu_events(const std::vector<EventUse> &events,
				 const std::vector<std::string> &target_spec, Diagnostics &diags)
{
	PmuPassResult r;
	if (auto err = pmu::Resolver::init()) {
		diags.error({}, "cannot initialize libpfm4: " + *err);
		return r;
	}
	std::string err;
	r.targets = pmu::Resolver::expand_targets(target_spec, &err);
	if (!err.empty()) {
		diags.error({}, err);
		return r;
	}
	if (events.empty())
		return r;
	if (r.targets.empty()) {
		diags.error(events.front().loc, "no PMU targets to encode '" + events.front().name +
							"' for",
			    "name them with --pmu-targets (this machine's CPU matches no PMU table)");
		return r;
	}
	std::vector<std::string> names;
	for (const EventUse &e : events)
		names.push_back(e.name);
	r.table = pmu::build_fat_table(names, r.targets);

	for (size_t i = 0; i < events.size(); i++) {
		const auto &missing = r.table.missing[i];
		if (missing.empty())
			continue;
		if (missing.size() == r.targets.size()) {
			std::vector<std::string> near = pmu::Resolver::closest(events[i].name, r.targets);
			std::string hint =
				near.empty() ? "" : "did you mean '" + join(near, "', '") + "'?";
			diags.error(events[i].loc,
				    "unknown PMU event '" + events[i].name + "' for " +
					    (r.targets.size() == 1 ? "PMU " : "PMUs ") + join(r.targets) +
					    " (" + missing.front().reason + ")",
				    hint);
			continue;
		}
		for (const pmu::MissingTarget &m : missing)
			diags.warning(events[i].loc, "PMU " + m.pmu + " has no event '" + events[i].name +
							     "' (" + m.reason +
							     "); CPUs of that model will not load the module");
	}
	if (!diags.has_errors() && r.table.rows.empty())
		diags.error(events.front().loc, "no PMU target can encode all the script's events",
			    "targets tried: " + join(r.targets));
	return r;
}

} // namespace stap_pmu
