// timer.cpp - timer.ms(N), timer.us(N), timer.ns(N), timer.s(N),
// timer.sec(N), timer.hz(N), timer.jiffies(N), each optionally .randomize(M)
// (M in the same unit: every period is N +- a uniformly random part of M):
// periodic probes on an hrtimer (jiffies: N kernel ticks, TICK_NSEC each,
// known when the module is built). timer.profile (or timer.profile.tick): on
// every CPU once per kernel tick, a sampling probe on the perf::cpu-clock
// software event (period TICK_NSEC).
#include <string_view>

#include "translator/probes/probe_kind.h"

namespace stap_pmu {

struct Unit {
	const char *name;
	uint64_t ns; // nanoseconds per unit; 0 for hz and jiffies
};

static const Unit units[] = {
	{"s", 1000000000ull}, {"sec", 1000000000ull}, {"ms", 1000000ull}, {"msec", 1000000ull},
	{"us", 1000ull},      {"usec", 1000ull},      {"ns", 1},          {"nsec", 1},
	{"hz", 0},           {"jiffies", 0},
};

// Shorter periods would let one script swamp a CPU with timer interrupts.
static constexpr uint64_t min_period_ns = 100000;

static std::optional<ResolvedPoint> profile(const ProbePoint &pp, Diagnostics &diags)
{
	const auto &cs = pp.components;
	bool tick = cs.size() == 3 && cs[2].name == "tick" && !cs[2].has_arg;
	if (cs[1].has_arg || (cs.size() > 2 && !tick)) {
		diags.error(cs[1].has_arg ? cs[1].arg_loc : cs[2].loc,
			    "timer.profile takes no argument and no suffix",
			    "it fires on every CPU at each kernel tick");
		return std::nullopt;
	}
	ResolvedPoint r;
	r.kind = ProbeKind::Perf;
	r.event = "perf::cpu-clock";
	r.event_loc = cs[1].loc;
	r.tick_period = true;
	r.name = probe_point_str(pp);
	r.loc = pp.loc;
	return r;
}

// unit->ns * n, saturating (hz: the period of n per second; jiffies: n)
static uint64_t scaled(const Unit *unit, uint64_t n)
{
	if (std::string_view(unit->name) == "jiffies")
		return n;
	if (unit->ns == 0)
		return 1000000000ull / n;
	if (n > UINT64_MAX / unit->ns)
		return UINT64_MAX;
	return n * unit->ns;
}

static std::optional<ResolvedPoint> resolve(const ProbePoint &pp, const ProbeContext &ctx)
{
	Diagnostics &diags = ctx.diags;
	const auto &cs = pp.components;
	if (cs.size() >= 2 && cs[1].name == "profile")
		return profile(pp, diags);
	const ProbeComponent *rnd = nullptr;
	if (cs.size() == 3 && cs[2].name == "randomize")
		rnd = &cs[2];
	if (cs.size() != 2 && !rnd) {
		diags.error(cs.size() < 2 ? cs[0].loc : cs[2].loc,
			    "expected timer.ms(N) (or s, us, ns, hz, jiffies), optionally .randomize(M), or "
			    "timer.profile in '" + probe_point_str(pp) + "'");
		return std::nullopt;
	}
	const ProbeComponent &c = cs[1];
	const Unit *unit = nullptr;
	for (const Unit &u : units)
		if (c.name == u.name)
			unit = &u;
	if (!unit) {
		diags.error(c.loc, "unknown timer unit '" + c.name + "'",
			    "use timer.s, timer.ms, timer.us, timer.ns, timer.hz or timer.jiffies");
		return std::nullopt;
	}
	if (!c.has_arg || c.arg_is_string || c.num_arg <= 0) {
		diags.error(c.has_arg ? c.arg_loc : c.loc,
			    "timer." + c.name + " needs a positive number, e.g. timer." + c.name + "(10)");
		return std::nullopt;
	}
	uint64_t n = static_cast<uint64_t>(c.num_arg);
	bool jiffies = c.name == "jiffies";
	uint64_t period = scaled(unit, n);
	uint64_t spread = 0;
	if (rnd) {
		if (unit->ns == 0 && !jiffies) {
			diags.error(rnd->loc, "timer.hz cannot be randomized",
				    "use a period, e.g. timer.ms(10).randomize(2)");
			return std::nullopt;
		}
		if (!rnd->has_arg || rnd->arg_is_string || rnd->num_arg <= 0) {
			diags.error(rnd->has_arg ? rnd->arg_loc : rnd->loc,
				    "randomize needs a positive number, e.g. .randomize(2)");
			return std::nullopt;
		}
		spread = scaled(unit, static_cast<uint64_t>(rnd->num_arg));
		if (spread >= period) {
			diags.error(rnd->arg_loc, "randomize(" + std::to_string(rnd->num_arg) +
							  ") must be smaller than the period (" +
							  std::to_string(n) + ")");
			return std::nullopt;
		}
	}
	// a jiffy is at least 1 ms (HZ at most 1000): any whole number is long enough
	if (!jiffies && period - spread < min_period_ns) {
		diags.error(c.arg_loc, "timer period " + std::to_string(period - spread) +
					       " ns is shorter than the minimum of 100000 ns");
		return std::nullopt;
	}
	ResolvedPoint r;
	r.kind = ProbeKind::Timer;
	r.period_ns = period;
	r.randomize_ns = spread;
	r.in_jiffies = jiffies;
	r.name = probe_point_str(pp);
	r.loc = pp.loc;
	return r;
}

const ProbeProvider timer_provider = {"timer", "timer.ms(N)/s/us/ns/hz[.randomize(M)], timer.profile",
				       resolve};

} // namespace stap_pmu
