// pmu_pass.cpp - @pmu events through pmu/, with diagnostics.
#include "translator/sema/pmu_pass.h"

#include <algorithm>

#include "pmu/pmu.h"
#include "translator/support/text.h"

namespace stap_pmu {

using text::join;

static constexpr const char *generic_pmu = "perf";

// The targets of event I that lack it (the implicit generic row excluded).
static std::vector<std::string> lacking(const PmuPassResult &r, size_t i)
{
	std::vector<std::string> out;
	for (const pmu::MissingTarget &m : r.table.missing[i])
		if (!(r.implicit_generic && m.pmu == generic_pmu))
			out.push_back(m.pmu);
	return out;
}

PmuPassResult resolve_pmu_events(const std::vector<EventUse> &events,
				 const std::vector<std::string> &target_spec, Diagnostics &diags)
{
	PmuOptions o;
	o.targets = target_spec;
	o.fallback = "none"; // the old form adds no generic row of its own
	return resolve_pmu_events(events, o, diags);
}

PmuPassResult resolve_pmu_events(const std::vector<EventUse> &events, const PmuOptions &opts,
				 Diagnostics &diags)
{
	PmuPassResult r;
	if (auto st = pmu::Resolver::init(); !st) {
		diags.error({}, "cannot initialize libpfm4: " + st.error().what);
		return r;
	}
	auto fallback = pmu::parse_fallback(opts.fallback);
	if (!fallback) {
		diags.error({}, "--pmu-fallback must be none, row or generic, not '" + opts.fallback +
					"'");
		return r;
	}
	auto targets = pmu::Resolver::expand_targets(opts.targets, opts.arch);
	if (!targets) {
		diags.error({}, targets.error().what);
		return r;
	}
	r.targets = std::move(*targets);
	if (*fallback != pmu::Fallback::none &&
	    std::find(r.targets.begin(), r.targets.end(), generic_pmu) == r.targets.end()) {
		r.targets.emplace_back(generic_pmu);
		r.implicit_generic = true;
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
	r.table = pmu::build_fat_table(names, r.targets, *fallback);

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
		std::vector<std::string> lack = lacking(r, i);
		if (lack.empty())
			continue;
		bool has_generic = pmu::Resolver::encode_generic(events[i].name).enc.has_value();
		std::string hint;
		if (*fallback == pmu::Fallback::generic || !has_generic)
			hint = "the event has no generic perf encoding; drop them from --pmu-targets";
		else
			hint = "use --pmu-fallback generic to let those CPUs use the generic encoding, "
			       "or drop them from --pmu-targets";
		diags.error(events[i].loc,
			    "PMU event '" + events[i].name + "' is not available on " +
				    (lack.size() == 1 ? "target " : "targets ") + join(lack) + " (" +
				    missing.front().reason + ")",
			    hint);
	}
	if (!diags.has_errors() && r.table.rows.empty())
		diags.error(events.front().loc, "no PMU target can encode all the script's events",
			    "targets tried: " + join(r.targets));
	return r;
}

std::vector<std::string> pmu_summary(const PmuPassResult &r)
{
	std::vector<std::string> out;
	const pmu::FatTable &t = r.table;
	out.push_back("PMU tables: " + std::to_string(t.rows.size()) + " rows, " +
		      std::to_string(t.events.size()) + " events, " +
		      std::to_string(pmu::pmu_tables_size(t)) + " bytes");
	for (size_t i = 0; i < t.events.size(); i++) {
		std::vector<std::string> lack;
		for (const auto &m : t.missing[i])
			lack.push_back(m.pmu);
		if (!lack.empty())
			out.push_back("PMU event " + t.events[i] + ": lacking on " + join(lack));
		if (i < t.generic.size() && !t.generic[i].empty())
			out.push_back("PMU event " + t.events[i] + ": generic encoding on " +
				      join(t.generic[i]));
	}
	for (const auto &d : t.dropped)
		out.push_back("PMU row " + d.pmu + " dropped: " + d.reason);
	return out;
}

} // namespace stap_pmu
