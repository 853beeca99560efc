// kprobe.cpp - kprobe.function("sym") and kprobe.function("sym").return:
// probes on a kernel symbol by name, no DWARF needed.
#include <cctype>

#include "translator/probes/probe_kind.h"
#include "translator/support/text.h"

namespace stap_pmu {

static bool valid_symbol(const std::string &s)
{
	if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
		return false;
	for (char c : s)
		if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.')
			return false;
	return true;
}

static std::optional<ResolvedPoint> resolve(const ProbePoint &pp, const ProbeContext &ctx)
{
	Diagnostics &diags = ctx.diags;
	std::vector<ProbeComponent> cs = pp.components;
	// kprobe.module("m").function("f"): the symbol f of module m
	std::string module;
	if (cs.size() >= 2 && cs[1].name == "module") {
		if (!cs[1].has_arg || !cs[1].arg_is_string || !valid_symbol(cs[1].str_arg)) {
			diags.error(cs[1].has_arg ? cs[1].arg_loc : cs[1].loc,
				    "kprobe.module needs a module name in quotes");
			return std::nullopt;
		}
		module = cs[1].str_arg;
		cs.erase(cs.begin() + 1);
	}
	if (cs.size() < 2 || cs[1].name != "function") {
		diags.error(cs.size() < 2 ? cs[0].loc : cs[1].loc,
			    "expected kprobe.function(\"name\") in '" + probe_point_str(pp) + "'");
		return std::nullopt;
	}
	const ProbeComponent &f = cs[1];
	if (!f.has_arg || !f.arg_is_string) {
		diags.error(f.loc, "kprobe.function needs a symbol name in quotes");
		return std::nullopt;
	}
	if (!valid_symbol(f.str_arg)) {
		diags.error(f.arg_loc, "'" + f.str_arg + "' is not a kernel symbol name",
			    "kprobe.function takes an exact symbol; wildcards need kernel.function");
		return std::nullopt;
	}
	// with the target's symbol table known, a name it lacks fails here, not
	// at load after the build
	SymbolCheck sc = ctx.facts.check_symbol(module, f.str_arg);
	if (sc.known && !sc.found) {
		if (!sc.why_not.empty())
			diags.error(f.arg_loc, "cannot probe '" + f.str_arg + "': " + sc.why_not);
		else
			diags.error(f.arg_loc, "no kernel symbol '" + f.str_arg + "'" +
						       (module.empty() ? "" : " in module " + module),
				    sc.nearest.empty() ? ""
						       : "did you mean '" + text::join(sc.nearest, "', '") +
								 "'?");
		return std::nullopt;
	}
	ResolvedPoint r;
	r.kind = ProbeKind::Kprobe;
	r.symbol = module.empty() ? f.str_arg : module + ":" + f.str_arg;
	if (module.empty())
		r.sym_delta = ctx.facts.symbol_delta(f.str_arg);
	r.loc = pp.loc;
	if (cs.size() > 2 && cs[2].name == "return" && !take_maxactive(cs, 3, diags, r.maxactive))
		return std::nullopt;
	if (cs.size() > 2) {
		if (cs[2].name != "return" || cs[2].has_arg || cs.size() > 3) {
			const ProbeComponent &bad = cs[2].name != "return" ? cs[2] : cs.back();
			diags.error(bad.loc, "unexpected '." + bad.name + "' in '" +
						     probe_point_str(pp) + "'",
				    "kprobe.function(\"f\") may only be followed by .return "
				    "(and .maxactive(N))");
			return std::nullopt;
		}
		r.kind = ProbeKind::Kretprobe;
	}
	r.name = probe_point_str(pp);
	return r;
}

const ProbeProvider kprobe_provider = {
	"kprobe", "kprobe[.module(\"m\")].function(\"f\")[.return[.maxactive(N)]]", resolve};

} // namespace stap_pmu
