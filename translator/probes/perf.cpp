// perf.cpp - sampling probes on a perf event's overflow:
//   perf.event("EVENT")[.sample(N) | .hz(F)]
//   perf.type(T).config(C)[.sample(N) | .hz(F)]     (SystemTap's spelling)
// EVENT is anything the PMU tables resolve (a portable concept, a vendor
// name, perf::cpu-clock); T/C are perf_event_attr type and config, the same
// on every CPU. Without .sample/.hz the period is 1000000 events, as in
// SystemTap (so the perf.hw.* / perf.sw.* tapset aliases work bare).
#include <cstdio>

#include "translator/probes/probe_kind.h"

namespace stap_pmu {

static constexpr uint64_t default_period = 1000000;
// the kernel's default perf_event_max_sample_rate
static constexpr uint64_t max_freq = 100000;

static bool is_number(const ProbeComponent &c)
{
	return c.has_arg && !c.arg_is_string;
}

static std::optional<ResolvedPoint> resolve(const ProbePoint &pp, const ProbeContext &ctx)
{
	Diagnostics &diags = ctx.diags;
	const auto &cs = pp.components;
	const std::string usage = "perf.event(\"EVENT\").sample(N) or .hz(F), "
				  "perf.type(T).config(C).sample(N)";
	ResolvedPoint r;
	r.kind = ProbeKind::Perf;
	r.loc = pp.loc;
	size_t next;
	if (cs.size() >= 2 && cs[1].name == "event") {
		if (!cs[1].has_arg || !cs[1].arg_is_string || cs[1].str_arg.empty()) {
			diags.error(cs[1].has_arg ? cs[1].arg_loc : cs[1].loc,
				    "perf.event needs an event name in quotes, e.g. "
				    "perf.event(\"cycles\")");
			return std::nullopt;
		}
		r.event = cs[1].str_arg;
		r.event_loc = cs[1].arg_loc;
		next = 2;
	} else if (cs.size() >= 3 && cs[1].name == "type" && cs[2].name == "config") {
		for (size_t i = 1; i <= 2; i++)
			if (!is_number(cs[i]) || cs[i].num_arg < 0 ||
			    (i == 1 && cs[i].num_arg > UINT32_MAX)) {
				diags.error(cs[i].has_arg ? cs[i].arg_loc : cs[i].loc,
					    "perf." + cs[i].name + " needs a non-negative number");
				return std::nullopt;
			}
		// the spelling pmu/fat_table.cpp (parse_raw_event) takes as a
		// fixed encoding for every row
		char buf[64];
		std::snprintf(buf, sizeof(buf), "perf.type(%u).config(%#llx)",
			      static_cast<unsigned>(cs[1].num_arg),
			      static_cast<unsigned long long>(cs[2].num_arg));
		r.event = buf;
		r.event_loc = cs[1].loc;
		next = 3;
	} else {
		diags.error(cs.size() < 2 ? cs[0].loc : cs[1].loc,
			    "expected perf.event(\"EVENT\") or perf.type(T).config(C) in '" +
				    probe_point_str(pp) + "'",
			    "sampling probes: " + usage);
		return std::nullopt;
	}
	r.sample_period = default_period;
	if (next < cs.size()) {
		const ProbeComponent &c = cs[next];
		if (c.name != "sample" && c.name != "hz") {
			diags.error(c.loc, "unexpected '." + c.name + "' in '" + probe_point_str(pp) + "'",
				    "sampling probes: " + usage);
			return std::nullopt;
		}
		if (!is_number(c) || c.num_arg <= 0) {
			diags.error(c.has_arg ? c.arg_loc : c.loc,
				    "perf ." + c.name + " needs a positive number, e.g. ." + c.name +
					    (c.name == "hz" ? "(1000)" : "(100000)"));
			return std::nullopt;
		}
		if (c.name == "hz") {
			if (static_cast<uint64_t>(c.num_arg) > max_freq) {
				diags.error(c.arg_loc, "perf .hz(" + std::to_string(c.num_arg) +
							       ") is above the kernel's default maximum "
							       "sample rate of 100000");
				return std::nullopt;
			}
			r.sample_period = 0;
			r.sample_freq = static_cast<uint64_t>(c.num_arg);
		} else {
			r.sample_period = static_cast<uint64_t>(c.num_arg);
		}
		next++;
	}
	if (next < cs.size()) {
		diags.error(cs[next].loc, "unexpected '." + cs[next].name + "' in '" +
						  probe_point_str(pp) + "'",
			    "sampling probes: " + usage);
		return std::nullopt;
	}
	r.name = probe_point_str(pp);
	return r;
}

const ProbeProvider perf_provider = {
	"perf", "perf.event(\"E\").sample(N)/.hz(F), perf.type(T).config(C).sample(N)", resolve};

} // namespace stap_pmu
