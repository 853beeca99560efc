// begin_end.cpp - probe begin / probe end / probe error: run once when the
// script starts, when it stops, and when it stops after script errors
// (instead of end).
#include "translator/probes/probe_kind.h"

namespace stap_pmu {

static std::optional<ResolvedPoint> resolve_once(const ProbePoint &pp, Diagnostics &diags,
						 ProbeKind kind)
{
	const ProbeComponent &c = pp.components.front();
	if (pp.components.size() > 1) {
		diags.error(pp.components[1].loc, "unexpected '." + pp.components[1].name +
							  "' after '" + c.name + "'");
		return std::nullopt;
	}
	if (c.has_arg) {
		// SystemTap's begin(N)/end(N) orders probes; accepted, ordered by N later.
		if (c.arg_is_string) {
			diags.error(c.arg_loc, "'" + c.name + "' takes a number, not a string");
			return std::nullopt;
		}
	}
	ResolvedPoint r;
	r.kind = kind;
	r.name = c.name;
	r.loc = pp.loc;
	return r;
}

static std::optional<ResolvedPoint> resolve_begin(const ProbePoint &pp, const ProbeContext &ctx)
{
	return resolve_once(pp, ctx.diags, ProbeKind::Begin);
}

static std::optional<ResolvedPoint> resolve_end(const ProbePoint &pp, const ProbeContext &ctx)
{
	return resolve_once(pp, ctx.diags, ProbeKind::End);
}

static std::optional<ResolvedPoint> resolve_error(const ProbePoint &pp, const ProbeContext &ctx)
{
	return resolve_once(pp, ctx.diags, ProbeKind::Error);
}

const ProbeProvider begin_end_provider_begin = {"begin", "begin", resolve_begin};
const ProbeProvider begin_end_provider_end = {"end", "end", resolve_end};
const ProbeProvider begin_end_provider_error = {"error", "error", resolve_error};

} // namespace stap_pmu
