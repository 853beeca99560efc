// dwarf_function.cpp - kernel.function("pattern") and
// module("name").function("pattern") with .call / .return: functions found
// in the kernel's facts (kernel_facts.h), wildcards and "func@file[:line]" forms, registered as
// kprobes / kretprobes on "module:function" (+ the line's offset).
#include "translator/probes/probe_kind.h"

namespace stap_pmu {

// kernel.statement("func@file:line") and module("m").statement(...):
// SystemTap's spelling of a line probe, the same kprobe at the line's
// address as kernel.function("func@file:line"); a statement has no .return.
static std::optional<std::vector<ResolvedPoint>> statement(const ProbePoint &pp,
							   const ProbeContext &ctx,
							   const std::string &module)
{
	const ProbeComponent &st = pp.components[1];
	const std::string head = module.empty() ? "kernel" : "module(\"" + module + "\")";
	if (!st.has_arg || !st.arg_is_string || st.str_arg.find('@') == std::string::npos ||
	    st.str_arg.find(':', st.str_arg.find('@')) == std::string::npos) {
		ctx.diags.error(st.has_arg ? st.arg_loc : st.loc,
				"statement needs \"function@file:line\" in quotes",
				"e.g. " + head + ".statement(\"vfs_read@fs/read_write.c:470\")");
		return std::nullopt;
	}
	if (pp.components.size() > 2) {
		const ProbeComponent &bad = pp.components[2];
		ctx.diags.error(bad.loc, "unexpected '." + bad.name + "' in '" + probe_point_str(pp) + "'",
				head + ".statement(\"function@file:line\") takes no suffix");
		return std::nullopt;
	}
	auto fns = ctx.facts.functions(module, st.str_arg);
	if (!fns) {
		ctx.diags.error(st.arg_loc, fns.error().what, fns.error().hint);
		return std::nullopt;
	}
	std::vector<ResolvedPoint> out;
	for (KernelFunction &fn : *fns) {
		ResolvedPoint r;
		r.kind = ProbeKind::Kprobe;
		r.symbol = module.empty() ? fn.name : module + ":" + fn.name;
		r.offset = fn.offset;
		r.loc = pp.loc;
		r.name = head + ".statement(\"" + fn.name + "@" + fn.file + ":" +
			 std::to_string(fn.line) + "\")";
		r.func = std::make_shared<const KernelFunction>(std::move(fn));
		out.push_back(std::move(r));
	}
	return out;
}

static std::optional<std::vector<ResolvedPoint>> resolve(const ProbePoint &pp,
							 const ProbeContext &ctx)
{
	Diagnostics &diags = ctx.diags;
	std::vector<ProbeComponent> cs = pp.components;
	std::string module;
	size_t fi = 1;
	if (cs[0].name == "module") {
		if (!cs[0].has_arg || !cs[0].arg_is_string || cs[0].str_arg.empty() ||
		    cs[0].str_arg.find_first_of("*?[:") != std::string::npos) {
			diags.error(cs[0].has_arg ? cs[0].arg_loc : cs[0].loc,
				    "module(\"name\") needs one module name in quotes (no wildcards)");
			return std::nullopt;
		}
		module = cs[0].str_arg;
	} else if (cs[0].has_arg) {
		diags.error(cs[0].arg_loc, "'kernel' takes no argument");
		return std::nullopt;
	}
	const char *form = module.empty() ? "kernel.function(\"pattern\")"
					  : "module(\"name\").function(\"pattern\")";
	if (cs.size() >= 2 && cs[fi].name == "statement")
		return statement(pp, ctx, module);
	if (cs.size() < 2 || cs[fi].name != "function") {
		diags.error(cs.size() < 2 ? cs[0].loc : cs[1].loc,
			    std::string("expected ") + form + " in '" + probe_point_str(pp) + "'");
		return std::nullopt;
	}
	const ProbeComponent &f = cs[fi];
	if (!f.has_arg || !f.arg_is_string || f.str_arg.empty()) {
		diags.error(f.loc, "function needs a pattern in quotes, e.g. function(\"vfs_*\")");
		return std::nullopt;
	}
	bool ret = false;
	uint32_t maxactive = 0;
	if (cs.size() > 2 && cs[2].name == "return" && !take_maxactive(cs, 3, diags, maxactive))
		return std::nullopt;
	if (cs.size() > 2) {
		const ProbeComponent &suf = cs[2];
		if (suf.name == "inline" && !suf.has_arg) {
			diags.error(suf.loc, "'.inline' probes are not supported: an inlined copy of a "
					     "function has no symbol to put a kprobe on",
				    "probe the functions it is inlined into, or use .call for its "
				    "out-of-line copy");
			return std::nullopt;
		}
		if ((suf.name != "return" && suf.name != "call") || suf.has_arg || cs.size() > 3) {
			const ProbeComponent &bad = cs.size() > 3 ? cs[3] : suf;
			diags.error(bad.loc, "unexpected '." + bad.name + "' in '" + probe_point_str(pp) + "'",
				    std::string(form) + " may be followed by .call or .return");
			return std::nullopt;
		}
		ret = suf.name == "return";
	}
	auto fns = ctx.facts.functions(module, f.str_arg);
	if (!fns) {
		diags.error(f.arg_loc, fns.error().what, fns.error().hint);
		return std::nullopt;
	}
	std::vector<ResolvedPoint> out;
	for (KernelFunction &fn : *fns) {
		if (ret && fn.offset) {
			diags.error(f.arg_loc, "a line probe ('" + f.str_arg + "') cannot be .return");
			return std::nullopt;
		}
		ResolvedPoint r;
		r.kind = ret ? ProbeKind::Kretprobe : ProbeKind::Kprobe;
		r.symbol = module.empty() ? fn.name : module + ":" + fn.name;
		r.offset = fn.offset;
		if (module.empty())
			r.sym_delta = ctx.facts.symbol_delta(fn.name);
		r.maxactive = maxactive;
		r.loc = pp.loc;
		std::string spec = fn.name;
		if (fn.offset)
			spec += "@" + fn.file + ":" + std::to_string(fn.line);
		r.name = (module.empty() ? std::string("kernel") : "module(\"" + module + "\")") +
			 ".function(\"" + spec + "\")" + (cs.size() > 2 ? "." + cs[2].name : "") +
			 (maxactive ? ".maxactive(" + std::to_string(maxactive) + ")" : "");
		r.func = std::make_shared<const KernelFunction>(std::move(fn));
		out.push_back(std::move(r));
	}
	return out;
}

const ProbeProvider dwarf_kernel_provider = {
	"kernel",
	"kernel.function(\"pattern\")[.call|.return[.maxactive(N)]], kernel.statement(\"f@file:line\")",
	nullptr, resolve};
const ProbeProvider dwarf_module_provider = {
	"module", "module(\"m\").function(\"pattern\")[.call|.return]", nullptr, resolve};

} // namespace stap_pmu
