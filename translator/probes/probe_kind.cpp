// probe_kind.cpp - dispatch of probe points to their providers.
#include "translator/probes/probe_kind.h"

namespace stap_pmu {

static const ProbeProvider *const providers[] = {
	&begin_end_provider_begin,
	&begin_end_provider_end,
	&begin_end_provider_error,
	&kprobe_provider,
	&timer_provider,
	&perf_provider,
	&dwarf_kernel_provider,
	&dwarf_module_provider,
	&tracepoint_provider,
	&never_provider,
	&procfs_provider,
	&process_provider,
	&netfilter_provider,
};

// The provider of pp: one naming pp's second component first.
static const ProbeProvider *provider_of(const ProbePoint &pp)
{
	const auto &cs = pp.components;
	for (const ProbeProvider *p : providers)
		if (p->second && cs[0].name == p->first && cs.size() > 1 && cs[1].name == p->second)
			return p;
	for (const ProbeProvider *p : providers)
		if (!p->second && cs[0].name == p->first)
			return p;
	return nullptr;
}

std::optional<ResolvedPoint> resolve_probe_point(const ProbePoint &pp, const ProbeContext &ctx)
{
	const ProbeComponent &first = pp.components.front();
	if (const ProbeProvider *p = provider_of(pp)) {
		if (p->resolve)
			return p->resolve(pp, ctx);
		auto v = p->resolve_many(pp, ctx);
		if (!v)
			return std::nullopt;
		return std::move(v->front());
	}
	std::string known;
	for (const ProbeProvider *p : providers)
		known += std::string(known.empty() ? "" : ", ") + p->summary;
	ctx.diags.error(first.loc, "unknown probe point '" + probe_point_str(pp) + "'",
		    "probe points known: " + known);
	return std::nullopt;
}

std::optional<std::vector<ResolvedPoint>> resolve_probe_points(const ProbePoint &pp,
							       const ProbeContext &ctx)
{
	if (const ProbeProvider *p = provider_of(pp); p && p->resolve_many)
		return p->resolve_many(pp, ctx);
	auto r = resolve_probe_point(pp, ctx);
	if (!r)
		return std::nullopt;
	std::vector<ResolvedPoint> v;
	v.push_back(std::move(*r));
	return v;
}

bool take_maxactive(std::vector<ProbeComponent> &cs, size_t at, Diagnostics &diags,
		    uint32_t &out)
{
	if (at >= cs.size() || cs[at].name != "maxactive")
		return true;
	const ProbeComponent &m = cs[at];
	// the kernel's kretprobe takes an int; more than 4096 in flight is
	// more memory than any probe needs
	if (!m.has_arg || m.arg_is_string || m.num_arg <= 0 || m.num_arg > 4096) {
		diags.error(m.has_arg ? m.arg_loc : m.loc,
			    "maxactive needs a number from 1 to 4096, e.g. .return.maxactive(64)");
		return false;
	}
	out = static_cast<uint32_t>(m.num_arg);
	cs.erase(cs.begin() + static_cast<std::ptrdiff_t>(at));
	return true;
}

const char *probe_kind_name(ProbeKind k)
{
	switch (k) {
	case ProbeKind::Begin: return "begin";
	case ProbeKind::End: return "end";
	case ProbeKind::Kprobe: return "kprobe";
	case ProbeKind::Kretprobe: return "kretprobe";
	case ProbeKind::Timer: return "timer";
	case ProbeKind::Error: return "error";
	case ProbeKind::Perf: return "perf";
	case ProbeKind::Tracepoint: return "tracepoint";
	case ProbeKind::Never: return "never";
	case ProbeKind::ProcfsRead: return "procfs.read";
	case ProbeKind::ProcfsWrite: return "procfs.write";
	case ProbeKind::Uprobe: return "uprobe";
	case ProbeKind::Uretprobe: return "uretprobe";
	case ProbeKind::ProcessBegin: return "process.begin";
	case ProbeKind::ProcessEnd: return "process.end";
	case ProbeKind::Netfilter: return "netfilter";
	}
	return "?";
}

} // namespace stap_pmu
