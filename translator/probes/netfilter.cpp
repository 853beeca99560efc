// netfilter.cpp - netfilter.hook("NF_INET_...").pf("NFPROTO_...")
// [.priority(N)]: a netfilter hook the runtime registers on the initial
// network namespace (runtime/stp_netfilter.h). Its context variables
// ($hooknum, $skb, $in, $out, $okfn; $verdict, set in guru mode) are the
// hook function's arguments, typed by the kernel's nf_hook_slow(skb,
// state), whose BTF (or DWARF) says what struct sk_buff and struct
// nf_hook_state hold.
#include <cctype>

#include "translator/probes/probe_kind.h"
#include "translator/support/suggest.h"

namespace stap_pmu {

namespace {

struct Named {
	const char *name;
	int value;
};

// the hooks of each family (include/uapi/linux/netfilter*.h)
constexpr Named hooks[] = {
	{"NF_INET_PRE_ROUTING", 0}, {"NF_INET_LOCAL_IN", 1}, {"NF_INET_FORWARD", 2},
	{"NF_INET_LOCAL_OUT", 3},   {"NF_INET_POST_ROUTING", 4},
	{"NF_IP_PRE_ROUTING", 0},   {"NF_IP_LOCAL_IN", 1},   {"NF_IP_FORWARD", 2},
	{"NF_IP_LOCAL_OUT", 3},     {"NF_IP_POST_ROUTING", 4},
	{"NF_IP6_PRE_ROUTING", 0},  {"NF_IP6_LOCAL_IN", 1},  {"NF_IP6_FORWARD", 2},
	{"NF_IP6_LOCAL_OUT", 3},    {"NF_IP6_POST_ROUTING", 4},
	{"NF_ARP_IN", 0},           {"NF_ARP_OUT", 1},       {"NF_ARP_FORWARD", 2},
	{"NF_BR_PRE_ROUTING", 0},   {"NF_BR_LOCAL_IN", 1},   {"NF_BR_FORWARD", 2},
	{"NF_BR_LOCAL_OUT", 3},     {"NF_BR_POST_ROUTING", 4},
};
constexpr Named families[] = {
	{"NFPROTO_IPV4", 2}, {"NFPROTO_ARP", 3}, {"NFPROTO_BRIDGE", 7}, {"NFPROTO_IPV6", 10},
	{"PF_INET", 2},      {"PF_INET6", 10},   {"AF_INET", 2},        {"AF_INET6", 10},
};
// include/uapi/linux/netfilter_ipv4.h's names of priorities
constexpr Named priorities[] = {
	{"NF_IP_PRI_FIRST", INT32_MIN}, {"NF_IP_PRI_RAW", -300},     {"NF_IP_PRI_CONNTRACK", -200},
	{"NF_IP_PRI_MANGLE", -150},     {"NF_IP_PRI_NAT_DST", -100}, {"NF_IP_PRI_FILTER", 0},
	{"NF_IP_PRI_SECURITY", 50},     {"NF_IP_PRI_NAT_SRC", 100},  {"NF_IP_PRI_LAST", INT32_MAX},
};
// hooks per family (ARP has three; the others five)
int hook_count(int pf) { return pf == 3 ? 3 : 5; }

// The value of component c's argument: a number, or a name of table; the
// error reported at its argument.
template <size_t N>
std::optional<int64_t> value_of(const ProbeComponent &c, const Named (&table)[N], const char *what,
				Diagnostics &diags)
{
	if (!c.has_arg) {
		diags.error(c.loc, "netfilter." + c.name + " needs " + what + " in parentheses");
		return std::nullopt;
	}
	if (!c.arg_is_string)
		return c.num_arg;
	const std::string &s = c.str_arg;
	if (!s.empty() && (std::isdigit(static_cast<unsigned char>(s[0])) || s[0] == '-')) {
		char *end = nullptr;
		long long v = std::strtoll(s.c_str(), &end, 0);
		if (*end == '\0')
			return v;
	}
	std::vector<std::string> names;
	for (const Named &n : table) {
		if (s == n.name)
			return n.value;
		names.push_back(n.name);
	}
	std::string near = closest_name(s, names);
	diags.error(c.arg_loc, "'" + s + "' is not " + what,
		    near.empty() ? "" : "did you mean '" + near + "'?");
	return std::nullopt;
}

// the hook function's types: nf_hook_slow's (skb, state) parameters
std::shared_ptr<const KernelFunction> hook_prototype(const ProbeComponent &at,
						     const ProbeContext &ctx)
{
	Result<std::vector<KernelFunction>> fs = ctx.facts.functions("", "nf_hook_slow");
	if (!fs || fs->empty() || fs->front().params.size() < 2) {
		ctx.diags.error(at.loc,
				"netfilter probes need the kernel's nf_hook_slow (CONFIG_NETFILTER) "
				"and its types" +
					std::string(fs ? "" : ": " + fs.error().what),
				fs ? "" : fs.error().hint);
		return nullptr;
	}
	auto f = std::make_shared<KernelFunction>(fs->front());
	f->params.resize(2); // skb, state: the hook's arguments the probe keeps
	return f;
}

} // namespace

static std::optional<ResolvedPoint> resolve(const ProbePoint &pp, const ProbeContext &ctx)
{
	Diagnostics &diags = ctx.diags;
	const auto &cs = pp.components;
	const char *form = "netfilter.hook(\"NF_INET_LOCAL_IN\").pf(\"NFPROTO_IPV4\")[.priority(N)]";
	std::optional<int64_t> hook, pf, prio;
	const ProbeComponent *hook_c = nullptr;
	for (size_t i = 1; i < cs.size(); i++) {
		const ProbeComponent &c = cs[i];
		std::optional<int64_t> *slot = c.name == "hook" ? &hook : c.name == "pf" ? &pf
					      : c.name == "priority" ? &prio : nullptr;
		if (!slot || slot->has_value()) {
			diags.error(c.loc,
				    (slot ? "a second '." : "unexpected '.") + c.name + "' in '" +
					    probe_point_str(pp) + "'",
				    std::string("netfilter probes are ") + form);
			return std::nullopt;
		}
		if (c.name == "hook")
			hook_c = &c;
		*slot = c.name == "hook" ? value_of(c, hooks, "a netfilter hook", diags)
			: c.name == "pf" ? value_of(c, families, "a protocol family (NFPROTO_...)", diags)
					 : value_of(c, priorities, "a priority (a number or NF_IP_PRI_...)", diags);
		if (!slot->has_value())
			return std::nullopt;
	}
	if (cs[0].has_arg || !hook || !pf) {
		diags.error(cs[0].has_arg ? cs[0].arg_loc : cs.back().loc,
			    std::string(cs[0].has_arg ? "'netfilter' takes no argument"
					: !hook	   ? "netfilter probe without .hook(...)"
						   : "netfilter probe without .pf(...)"),
			    std::string("write ") + form);
		return std::nullopt;
	}
	if (*pf != 2 && *pf != 3 && *pf != 7 && *pf != 10) {
		diags.error(cs[0].loc, "protocol family " + std::to_string(*pf) + " has no netfilter hooks here",
			    "NFPROTO_IPV4, NFPROTO_IPV6, NFPROTO_ARP or NFPROTO_BRIDGE");
		return std::nullopt;
	}
	if (*hook < 0 || *hook >= hook_count(static_cast<int>(*pf))) {
		diags.error(hook_c->arg_loc, "hook " + std::to_string(*hook) +
						     " does not exist in protocol family " + std::to_string(*pf),
			    "its hooks are 0 to " + std::to_string(hook_count(static_cast<int>(*pf)) - 1));
		return std::nullopt;
	}
	if (prio && (*prio < INT32_MIN || *prio > INT32_MAX)) {
		diags.error(cs[0].loc, "netfilter priority out of range (an int)");
		return std::nullopt;
	}
	ResolvedPoint r;
	r.kind = ProbeKind::Netfilter;
	r.name = probe_point_str(pp);
	r.loc = pp.loc;
	r.nf_hook = static_cast<int>(*hook);
	r.nf_pf = static_cast<int>(*pf);
	r.nf_priority = prio ? static_cast<int>(*prio) : 0;
	r.func = hook_prototype(cs[0], ctx);
	if (!r.func)
		return std::nullopt;
	return r;
}

const ProbeProvider netfilter_provider = {
	"netfilter", "netfilter.hook(\"NF_INET_...\").pf(\"NFPROTO_...\")[.priority(N)]", resolve};

} // namespace stap_pmu
