// tracepoint.cpp - kernel.trace("subsystem:event"): the kernel's static
// tracepoints, by name or with wildcards in the event part. Their arguments
// (names and types) come from the kernel's facts (kernel_facts.h); the
// runtime registers each with tracepoint_probe_register()
// (runtime/stp_tracepoint.h).
#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <iterator>

#include "translator/probes/probe_kind.h"
#include "translator/support/suggest.h"

namespace stap_pmu {

static bool valid_sys_char(char c)
{
	return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
}

Result<TracepointSpec> split_tracepoint_spec(const std::string &spec)
{
	size_t colon = spec.find(':');
	TracepointSpec ts;
	if (colon == std::string::npos) {
		ts.event = spec; // a bare event: its subsystem is searched for
	} else {
		if (colon == 0 || colon + 1 == spec.size() || spec.find(':', colon + 1) != std::string::npos)
			return fail("kernel.trace needs \"subsystem:event\" or \"event\", e.g. "
				    "kernel.trace(\"sched:sched_switch\")");
		ts = {spec.substr(0, colon), spec.substr(colon + 1)};
	}
	if (!std::all_of(ts.sys.begin(), ts.sys.end(), valid_sys_char))
		return fail(ts.sys.find_first_of("*?[") != std::string::npos
				    ? "wildcards are only supported in the event part of kernel.trace(\"" +
					      spec + "\")"
				    : "'" + ts.sys + "' is not a tracepoint subsystem name");
	for (char c : ts.event)
		if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '*' &&
		    c != '?' && c != '[' && c != ']' && c != '!' && c != '-')
			return fail("'" + ts.event + "' is not a tracepoint name or pattern");
	return ts;
}

static SourceLoc shifted(SourceLoc l, size_t cols)
{
	l.col += static_cast<unsigned>(cols);
	return l;
}

static std::optional<std::vector<ResolvedPoint>> resolve_in(const ProbePoint &pp,
							    const ProbeContext &ctx,
							    const std::string &sys,
							    const std::string &event, bool quiet);

// kernel.trace("event"), as SystemTap takes it: every subsystem whose header
// declares a matching event.
static std::optional<std::vector<ResolvedPoint>> resolve_bare(const ProbePoint &pp,
							      const ProbeContext &ctx,
							      const std::string &event)
{
	const ProbeComponent &t = pp.components[1];
	std::vector<ResolvedPoint> out;
	for (const std::string &sys : ctx.facts.tracepoint_subsystems(event)) {
		auto r = resolve_in(pp, ctx, sys, event, true);
		if (r)
			std::move(r->begin(), r->end(), std::back_inserter(out));
	}
	if (out.empty()) {
		ctx.diags.error(shifted(t.arg_loc, 1),
				"no tracepoint '" + event + "' in the target kernel's trace/events headers",
				"name its subsystem, e.g. kernel.trace(\"sched:sched_switch\"); list one "
				"subsystem's with -l 'kernel.trace(\"sched:*\")'");
		return std::nullopt;
	}
	return out;
}

static std::optional<std::vector<ResolvedPoint>> resolve(const ProbePoint &pp,
							 const ProbeContext &ctx)
{
	Diagnostics &diags = ctx.diags;
	const auto &cs = pp.components;
	if (cs[0].has_arg) {
		diags.error(cs[0].arg_loc, "'kernel' takes no argument");
		return std::nullopt;
	}
	const ProbeComponent &t = cs[1];
	if (!t.has_arg || !t.arg_is_string || t.str_arg.empty()) {
		diags.error(t.has_arg ? t.arg_loc : t.loc,
			    "kernel.trace needs \"subsystem:event\" in quotes",
			    "e.g. kernel.trace(\"sched:sched_switch\"), or kernel.trace(\"sched:sched_wak*\")");
		return std::nullopt;
	}
	if (cs.size() > 2) {
		diags.error(cs[2].loc, "unexpected '." + cs[2].name + "' in '" + probe_point_str(pp) + "'",
			    "kernel.trace(\"subsystem:event\") takes no suffix");
		return std::nullopt;
	}
	auto spec = split_tracepoint_spec(t.str_arg);
	if (!spec) {
		diags.error(t.arg_loc, spec.error().what);
		return std::nullopt;
	}
	if (!spec->sys.empty())
		return resolve_in(pp, ctx, spec->sys, spec->event, false);
	return resolve_bare(pp, ctx, spec->event);
}

// kernel.trace("sys:event") for one subsystem. quiet: a bare event searched
// over several subsystems; one without a match is no error.
static std::optional<std::vector<ResolvedPoint>> resolve_in(const ProbePoint &pp,
							    const ProbeContext &ctx,
							    const std::string &sys,
							    const std::string &event, bool quiet)
{
	Diagnostics &diags = ctx.diags;
	const ProbeComponent &t = pp.components[1];
	// the string starts after its opening quote
	SourceLoc sys_loc = shifted(t.arg_loc, 1);
	SourceLoc ev_loc = quiet ? sys_loc : shifted(t.arg_loc, 1 + sys.size() + 1);
	TracepointLookup found = ctx.facts.tracepoints(sys);
	if (auto *e = std::get_if<TracepointError>(&found)) {
		if (quiet)
			return std::vector<ResolvedPoint>{};
		diags.error(e->unknown_subsystem ? sys_loc : t.arg_loc, e->error.what, e->error.hint);
		return std::nullopt;
	}
	const TracepointSubsystem *s = std::get<const TracepointSubsystem *>(found);
	bool glob = quiet || event.find_first_of("*?[") != std::string::npos;
	std::vector<ResolvedPoint> out;
	std::vector<std::string> names, skipped;
	for (const TracepointEvent &ev : s->events) {
		names.push_back(ev.name);
		if (fnmatch(event.c_str(), ev.name.c_str(), 0) != 0)
			continue;
		const std::string point = "kernel.trace(\"" + sys + ":" + ev.name + "\")";
		if (!ev.unsupported.empty()) {
			if (!glob) {
				diags.error(ev_loc, "cannot probe tracepoint " + sys + ":" + ev.name + ": " +
							    ev.unsupported);
				return std::nullopt;
			}
			skipped.push_back(ev.name + " (" + ev.unsupported + ")");
			continue;
		}
		ResolvedPoint r;
		r.kind = ProbeKind::Tracepoint;
		r.name = point;
		r.tracepoint = ev.name;
		r.func = ev.func;
		r.loc = pp.loc;
		out.push_back(std::move(r));
	}
	for (const std::string &sk : skipped)
		diags.warning(ev_loc, "'" + event + "' skips tracepoint " + sys + ":" + sk);
	if (out.empty() && !quiet) {
		if (!skipped.empty()) {
			diags.error(ev_loc, "no tracepoint matching '" + event + "' in " + s->header +
						    " can be probed");
			return std::nullopt;
		}
		if (!glob) {
			std::string near = closest_name(event, names);
			diags.error(ev_loc, "no tracepoint '" + event + "' in " + s->header,
				    near.empty() ? "list them with -l 'kernel.trace(\"" + sys + ":*\")'"
						 : "did you mean '" + near + "'?");
		} else {
			diags.error(ev_loc, "no tracepoint in " + s->header + " matches '" + event + "'",
				    "list them with -l 'kernel.trace(\"" + sys + ":*\")'");
		}
		return std::nullopt;
	}
	return out;
}

const ProbeProvider tracepoint_provider = {
	"kernel", "kernel.trace(\"subsystem:event\")", nullptr, resolve, "trace"};

} // namespace stap_pmu
