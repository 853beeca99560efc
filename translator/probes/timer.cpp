// timer.cpp - timer.ms(N), timer.us(N), timer.ns(N), timer.s(N),
// timer.sec(N), timer.hz(N): periodic probes on an hrtimer.
#include "translator/probes/probe_kind.h"

namespace stap_pmu {

struct Unit {
	const char *name;
	uint64_t ns; // nanoseconds per unit; 0 for hz
};

static const Unit units[] = {
	{"s", 1000000000ull}, {"sec", 1000000000ull}, {"ms", 1000000ull}, {"msec", 1000000ull},
	{"us", 1000ull},      {"usec", 1000ull},      {"ns", 1},          {"nsec", 1},
	{"hz", 0},
};

// Shorter periods would let one script swamp a CPU with timer interrupts.
static constexpr uint64_t min_period_ns = 100000;

static std::optional<ResolvedPoint> resolve(const ProbePoint &pp, Diagnostics &diags)
{
	const auto &cs = pp.components;
	if (cs.size() != 2) {
		diags.error(cs.size() < 2 ? cs[0].loc : cs[2].loc,
			    "expected timer.ms(N) (or s, us, ns, hz) in '" + probe_point_str(pp) + "'");
		return std::nullopt;
	}
	const ProbeComponent &c = cs[1];
	const Unit *unit = nullptr;
	for (const Unit &u : units)
		if (c.name == u.name)
			unit = &u;
	if (!unit) {
		diags.error(c.loc, "unknown timer unit '" + c.name + "'",
			    "use timer.s, timer.ms, timer.us, timer.ns or timer.hz");
		return std::nullopt;
	}
	if (!c.has_arg || c.arg_is_string || c.num_arg <= 0) {
		diags.error(c.has_arg ? c.arg_loc : c.loc,
			    "timer." + c.name + " needs a positive number, e.g. timer." + c.name + "(10)");
		return std::nullopt;
	}
	uint64_t n = static_cast<uint64_t>(c.num_arg);
	uint64_t period;
	if (unit->ns == 0)
		period = 1000000000ull / n;
	else if (n > UINT64_MAX / unit->ns)
		period = UINT64_MAX;
	else
		period = n * unit->ns;
	if (period < min_period_ns) {
		diags.error(c.arg_loc, "timer period " + std::to_string(period) +
					       " ns is shorter than the minimum of 100000 ns");
		return std::nullopt;
	}
	ResolvedPoint r;
	r.kind = ProbeKind::Timer;
	r.period_ns = period;
	r.name = probe_point_str(pp);
	r.loc = pp.loc;
	return r;
}

const ProbeProvider timer_provider = {"timer", "timer.ms(N)/s/us/ns/hz", resolve};

} // namespace stap_pmu
