// tracepoint.cpp - kernel.trace("subsystem:event"): the kernel's static
// tracepoints, by name or with wildcards in the event part. Their arguments
// (names and types) come from a query module's DWARF (tracequery.h); the
// runtime registers each with tracepoint_probe_register()
// (runtime/stp_tracepoint.h).
#include <fnmatch.h>

#include "translator/probes/probe_kind.h"
#include "translator/support/suggest.h"
#include "translator/kernelinfo/tracequery.h"

namespace stap_pmu {

static SourceLoc shifted(SourceLoc l, size_t cols)
{
	l.col += static_cast<unsigned>(cols);
	return l;
}

static std::optional<std::vector<ResolvedPoint>> resolve(const ProbePoint &pp, Diagnostics &diags)
{
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
	std::string sys, event, err, hint;
	if (!tracequery::split_spec(t.str_arg, sys, event, err)) {
		diags.error(t.arg_loc, err);
		return std::nullopt;
	}
	// the string starts after its opening quote
	SourceLoc sys_loc = shifted(t.arg_loc, 1), ev_loc = shifted(t.arg_loc, 1 + sys.size() + 1);
	bool unknown_sys = false;
	const tracequery::Subsystem *s = tracequery::subsystem(sys, err, hint, &unknown_sys);
	if (!s) {
		diags.error(unknown_sys ? sys_loc : t.arg_loc, err, hint);
		return std::nullopt;
	}
	bool glob = event.find_first_of("*?[") != std::string::npos;
	std::vector<ResolvedPoint> out;
	std::vector<std::string> names, skipped;
	for (const tracequery::Event &ev : s->events) {
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
	if (out.empty()) {
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
