// never.cpp - probe never: a probe point that never fires. Its body is
// checked like any other and compiled, and nothing is registered (scripts
// use it to keep a function or global referenced, or to turn a probe off).
#include "translator/probes/probe_kind.h"

namespace stap_pmu {

static std::optional<ResolvedPoint> resolve(const ProbePoint &pp, const ProbeContext &ctx)
{
	const ProbeComponent &c = pp.components.front();
	if (c.has_arg || pp.components.size() > 1) {
		SourceLoc at = c.has_arg ? c.arg_loc : pp.components[1].loc;
		ctx.diags.error(at, "'never' takes no argument and no suffix");
		return std::nullopt;
	}
	ResolvedPoint r;
	r.kind = ProbeKind::Never;
	r.name = "never";
	r.loc = pp.loc;
	return r;
}

const ProbeProvider never_provider = {"never", "never", resolve};

} // namespace stap_pmu
