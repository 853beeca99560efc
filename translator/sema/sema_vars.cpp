// sema_vars.cpp - Checker: variable binding, target variables, array references and keys.
#include "translator/sema/sema_impl.h"
#include "translator/frontend/printer.h"

#include <algorithm>

namespace stap_pmu::sema_impl {

Symbol *Checker::lookup(const std::string &name)
{
	if (Symbol *l = find_in(*scope_.locals, name))
		return l;
	if (Symbol *g = find_global(name))
		return g;
	return nullptr;
}

// A global touched by a body or function: global_lock() decides from
// these and each global's storage (sema/storage.cpp) whether it locks.
// Scalar statistics are per CPU and never lock.
void Checker::touch(const Symbol &sym)
{
	if (!sym.global || !report_)
		return;
	if (sym.type == Type::Stats && !sym.array) {
		if (scope_.stats)
			*scope_.stats = true;
		return;
	}
	scope_.globals->insert(&sym);
}

std::vector<std::string> Checker::visible_names()
{
	std::vector<std::string> names;
	for (auto &g : r_.globals)
		names.push_back(g->name);
	for (auto &l : *scope_.locals)
		names.push_back(l->name);
	return names;
}

// The special variable `name` (e.g. $value) of a body whose points are of
// one family (is_kind; named `family` in messages): sym, or nullptr when
// the body has no such point (an ordinary target variable). A body shared
// with points of another kind is an error.
Symbol *Checker::body_special(const Expr &e, const std::string &name, bool (*is_kind)(ProbeKind),
			      const std::string &family, Symbol *sym)
{
	if (e.text != name || cur_body_ == SIZE_MAX)
		return nullptr;
	const ResolvedPoint *mine = nullptr, *other = nullptr;
	for (const ProbeInstance &pi : r_.instances)
		if (pi.body == cur_body_)
			(is_kind(pi.point.kind) ? mine : other) = &pi.point;
	if (!mine)
		return nullptr;
	if (other)
		error(e.loc, "'" + name + "' in a probe on both '" + mine->name + "' and '" + other->name + "'",
		      "give the " + family + " probe a body of its own: only " + family + " probes have " +
			      name);
	r_.symbols[&e] = sym;
	return sym;
}

// $value in a body whose every point is a procfs probe: the string read
// or written (nullptr elsewhere: an ordinary target variable)
Symbol *Checker::procfs_value(const Expr &e)
{
	return body_special(
		e, "$value",
		[](ProbeKind k) { return k == ProbeKind::ProcfsRead || k == ProbeKind::ProcfsWrite; },
		"procfs", r_.procfs_value.get());
}

// $verdict in a body whose every point is a netfilter probe: the verdict
// the hook returns (nullptr elsewhere). write: it is assigned, which needs
// guru mode, as setting any target variable does in SystemTap.
Symbol *Checker::nf_verdict(const Expr &e, bool write)
{
	Symbol *v = body_special(
		e, "$verdict", [](ProbeKind k) { return k == ProbeKind::Netfilter; }, "netfilter",
		r_.nf_verdict.get());
	if (v && write && !guru_)
		error(e.loc, "setting '$verdict' needs guru mode",
		      "run stap-pmu with -g to let the probe decide the packet's fate");
	return v;
}

// A netfilter probe's context variables, on its hook's arguments: the skb
// and the nf_hook_state of nf_hook_slow's prototype (p.func).
Result<TargetAccess> Checker::netfilter_access(const ResolvedPoint &p,
					       const std::string &spelling) const
{
	static const std::map<std::string, std::string> state = {
		{"hooknum", "$state->hook"}, {"in", "$state->in"}, {"out", "$state->out"},
		{"okfn", "$state->okfn"},    {"pf", "$state->pf"}, {"skb", "$skb"}};
	std::vector<std::string> steps = split_target_spelling(spelling);
	auto it = steps.empty() ? state.end() : state.find(steps[0]);
	if (it == state.end())
		return fail("netfilter probes have no target variable '" + spelling + "'",
			    "they have $hooknum, $skb, $in, $out, $okfn, $pf and $verdict");
	size_t name_end = 1 + it->first.size();
	Result<TargetAccess> a = facts_.target_access(*p.func, it->second + spelling.substr(name_end), false);
	if (a && a->base == TargetAccess::Arg)
		a->base = TargetAccess::TpArg; // the hook's arguments, as a tracepoint's
	return a;
}

Symbol *Checker::resolve_var(const Expr &e)
{
	if (Symbol *v = procfs_value(e))
		return v;
	if (Symbol *v = nf_verdict(e, true))
		return v;
	if (!e.text.empty() && e.text[0] == '$') {
		error(e.loc, "target variable '" + e.text + "' cannot be assigned or modified");
		return nullptr;
	}
	Symbol *sym = lookup(e.text);
	if (!sym) {
		// read, never assigned: a local that stays 0 or "" (SystemTap
		// warns and goes on); finish() warns once, at the first read
		std::string near = closest_name(e.text, visible_names());
		add_local(*scope_.locals, e.text, e.loc, false);
		sym = lookup(e.text);
		sym->never_assigned = true;
		sym->near = near;
		changed_ = true;
	}
	r_.symbols[&e] = sym;
	touch(*sym);
	return sym;
}

static bool is_process(ProbeKind k)
{
	return k == ProbeKind::Uprobe || k == ProbeKind::Uretprobe || k == ProbeKind::ProcessBegin ||
	       k == ProbeKind::ProcessEnd;
}

static bool is_return(ProbeKind k)
{
	return k == ProbeKind::Kretprobe || k == ProbeKind::Uretprobe;
}

// A user function known from its ELF symbol only.
static Error no_dwarf(const UserFunction &f)
{
	return Error{"no DWARF for " + f.fn.name + " in " + f.path +
			     ": $vars need debugging information (-g, or a debug file under "
			     "/usr/lib/debug)",
		     ""};
}

// $argN of an SDT marker probe: the note's N-th argument.
Result<TargetAccess> Checker::mark_access(const ResolvedPoint &p, const std::string &spelling) const
{
	const SdtMark &m = *p.mark;
	std::vector<std::string> parts = split_target_spelling(spelling);
	const std::string &var = parts.empty() ? spelling : parts[0];
	size_t digits = var.size() > 3 && var.rfind("arg", 0) == 0
				? var.find_first_not_of("0123456789", 3)
				: 0;
	if (digits != std::string::npos) // not $argN
		return fail("'" + spelling + "' in '" + p.name + "': SDT marker probes have $arg1 to $argN",
			    "the marker passes " + std::to_string(m.args.size()) + " argument(s)");
	size_t n = std::stoul(var.substr(3));
	if (n < 1 || n > m.args.size())
		return fail("'$" + var + "' in '" + p.name + "': the marker has " +
				    std::to_string(m.args.size()) + " argument(s)",
			    m.args.empty() ? "it passes none"
					   : "use $arg1 to $arg" + std::to_string(m.args.size()));
	if (parts.size() > 1)
		return fail("'" + spelling + "': an SDT marker's arguments have no types to take "
					     "members or indexes of",
			    "read what $" + var + " points to with user_long(), user_int() or "
			    "user_string()");
	if (m.args[n - 1].size == 0) // a note argument the facts could not parse
		return fail("'$" + var + "' in '" + p.name + "': cannot read the marker's argument '" +
				    (n <= m.arg_text.size() ? m.arg_text[n - 1] : "?") + "'",
			    "the note spells it in a form stap-pmu does not know");
	return m.args[n - 1];
}

Result<TargetAccess> Checker::point_access(const ResolvedPoint &p, const std::string &spelling,
					   bool ret) const
{
	if (p.mark)
		return mark_access(p, spelling);
	if (p.kind == ProbeKind::ProcessBegin || p.kind == ProbeKind::ProcessEnd)
		return fail("target variable '" + spelling + "' in '" + p.name +
				    "': process begin and end probes have no target variables",
			    "probe a function of the program: process(\"PATH\").function(\"f\")");
	if (p.ufunc) {
		if (!p.ufunc->has_dwarf || !process_)
			return no_dwarf(*p.ufunc);
		return process_->target_access(*p.ufunc, spelling, ret);
	}
	if (!p.func)
		return fail("target variable '" + spelling + "' in '" + p.name + "', which has no DWARF");
	if (p.kind == ProbeKind::Netfilter)
		return netfilter_access(p, spelling);
	return facts_.target_access(*p.func, spelling, ret);
}

// A target variable read ($x, $x->f, @entry($x)): resolved with the
// kernel's facts for every probe point of the body. Returns false when it cannot be read.
bool Checker::target_var(const Expr &e, const std::string &spelling, bool entry, bool quiet,
			 bool address)
{
	if (cur_body_ == SIZE_MAX) {
		if (!quiet)
			error(e.loc, "target variable '" + spelling +
					     "' used in a function; only probe bodies have them",
			      "pass it to the function as an argument");
		return false;
	}
	ProbeBody &b = r_.bodies[cur_body_];
	std::string key = (entry ? "@entry:" : "") + std::string(address ? "&" : "") + spelling;
	size_t k = std::find(b.tvars.begin(), b.tvars.end(), key) - b.tvars.begin();
	if (quiet) {
		// @defined: resolve without recording or reporting (the same
		// variable may also be read elsewhere in the body)
		for (ProbeInstance &pi : r_.instances)
			if (pi.body == cur_body_ &&
			    !point_access(pi.point, spelling, is_return(pi.point.kind)))
				return false;
		return true;
	}
	if (k == b.tvars.size()) {
		if (b.tvars.size() >= 63) {
			error(e.loc, "too many target variables in one probe (63 at most)");
			return false;
		}
		b.tvars.push_back(key);
	}
	if (!quiet)
		r_.tvar_of[&e] = k;
	bool ok = true;
	for (ProbeInstance &pi : r_.instances) {
		if (pi.body != cur_body_)
			continue;
		ResolvedPoint &p = pi.point;
		if (p.tvars.size() > k && !tvar_failed_.count({&p, k}))
			continue; // resolved in an earlier round
		// until resolved: a later variable's resolution pads p.tvars past
		// k, which must not hide this one's error in the reporting round
		tvar_failed_.insert({&p, k});
		if (!p.func && !is_process(p.kind)) {
			error(e.loc, "target variable '" + spelling + "' in '" + p.name +
					     "', which has no DWARF",
			      "target variables need kernel.function(\"f\"), "
			      "module(\"m\").function(\"f\") or kernel.trace(\"sys:event\")");
			ok = false;
			continue;
		}
		bool ret = is_return(p.kind);
		if (entry && !ret) {
			error(e.loc, "@entry() is only meaningful in .return probes");
			ok = false;
			continue;
		}
		auto acc = point_access(p, spelling, ret);
		if (!acc) {
			error(e.loc, acc.error().what, acc.error().hint);
			ok = false;
			continue;
		}
		if (acc->offsets.size() > 8) {
			error(e.loc, "'" + spelling + "' has more than 8 member steps");
			ok = false;
			continue;
		}
		if (acc->indices.size() > max_target_indices) {
			error(e.loc, "'" + spelling + "' has more than " +
					     std::to_string(max_target_indices) + " run-time indexes",
			      "index with constants where you can: they cost nothing at run time");
			ok = false;
			continue;
		}
		if (entry && !acc->indices.empty()) {
			error(e.loc, "@entry() of '" + spelling + "' with a run-time index",
			      "only constant indexes can be read at entry; save the element "
			      "you want in the entry probe");
			ok = false;
			continue;
		}
		if (address && acc->offsets.empty()) {
			error(e.loc, "'" + spelling + "' is not in memory: '&' needs a member, e.g. &" +
					     spelling + "->member");
			ok = false;
			continue;
		}
		if (address) { // the last step gives the member's address
			acc->deref_last = false;
			acc->size = 8;
			acc->is_signed = false;
		}
		acc->at_entry = entry;
		p.tvars.resize(std::max(p.tvars.size(), k + 1));
		p.tvars[k] = *acc;
		tvar_failed_.erase({&p, k});
	}
	return ok;
}

Type Checker::var(const Expr &e)
{
	if (e.text == "$$parms$" || e.text == "$$parms$$" || e.text == "$$vars$" ||
	    e.text == "$$vars$$" || e.text == "$$locals$" || e.text == "$$locals$$" ||
	    e.text == "$$return$" || e.text == "$$return$$")
		return pretty_all(e);
	if (e.text == "$$parms" || e.text == "$$vars" || e.text == "$$locals")
		return set(e, parm_lists(e) ? Type::String : Type::Unknown);
	if (e.text == "$$return") {
		// "return=0x..." in .return probes of functions with prototypes
		bool ok = cur_body_ != SIZE_MAX;
		for (ProbeInstance &pi : r_.instances) {
			if (!ok || pi.body != cur_body_ ||
			    (is_return(pi.point.kind) && pi.point.func))
				continue;
			error(e.loc, "'$$return' in '" + pi.point.name + "', which is not a .return probe "
					     "of a function with a prototype",
			      "use it in kernel.function(\"f\").return or module(\"m\").function(\"f\").return");
			return set(e, Type::Unknown);
		}
		if (!ok)
			error(e.loc, "'$$return' used in a function; only probe bodies have it",
			      "pass it to the function as an argument");
		return set(e, ok ? Type::String : Type::Unknown);
	}
	if (e.text.size() > 2 && e.text[0] == '$' && e.text[1] != '$' && e.text.back() == '$') {
		pretty_var(e);
		return set(e, Type::String);
	}
	if (procfs_value(e))
		return set(e, Type::String);
	if (nf_verdict(e, false))
		return set(e, Type::Long);
	if (!e.text.empty() && e.text[0] == '$') {
		subscripts(e);
		target_var(e, e.text, false, false);
		return set(e, Type::Long);
	}
	Symbol *sym = resolve_var(e);
	if (!sym)
		return set(e, Type::Unknown);
	sym->read = true;
	if (sym->array) {
		error(e.loc, "'" + e.text + "' is an array; index it as " + e.text + "[...]");
		return set(e, Type::Unknown);
	}
	return set(e, sym->type);
}

// $$parms, $$vars or $$locals in the current body: for every probe point
// of it, the list it prints ("name=0x... ..."). False: reported.
bool Checker::parm_lists(const Expr &e)
{
	if (cur_body_ == SIZE_MAX) {
		error(e.loc, "'" + e.text + "' used in a function; only probe bodies have it",
		      "pass it to the function as an argument");
		return false;
	}
	for (ProbeInstance &pi : r_.instances) {
		ResolvedPoint &p = pi.point;
		if (pi.body != cur_body_)
			continue;
		if (p.kind == ProbeKind::Tracepoint && e.text == "$$locals") {
			error(e.loc, "'$$locals' in '" + p.name + "': a tracepoint has arguments, no locals",
			      "print them with $$parms");
			return false;
		}
		if (p.kind == ProbeKind::Tracepoint)
			continue;
		if (p.kind == ProbeKind::ProcessBegin || p.kind == ProbeKind::ProcessEnd) {
			error(e.loc, "'" + e.text + "' in '" + p.name +
					     "': process begin and end probes have no parameters");
			return false;
		}
		if (p.mark) { // a marker's arguments, whatever was asked
			if (p.parms.empty())
				for (size_t i = 0; i < p.mark->args.size(); i++)
					p.parms.emplace_back("arg" + std::to_string(i + 1), p.mark->args[i]);
			continue;
		}
		if (!p.func && !p.ufunc) {
			error(e.loc, "'" + e.text + "' in '" + p.name + "', which has no DWARF",
			      "$$parms needs kernel.function(\"f\"), module(\"m\").function(\"f\"), "
			      "kernel.trace(\"sys:event\") or process(\"P\").function(\"f\")");
			return false;
		}
		if (is_return(p.kind)) {
			error(e.loc, "'" + e.text + "' in '" + p.name +
					     "': a .return probe has no parameters",
			      "read them with @entry($name)");
			return false;
		}
		if (p.ufunc && (!p.ufunc->has_dwarf || !process_)) {
			error(e.loc, no_dwarf(*p.ufunc).what);
			return false;
		}
		if (!point_parms(e, p))
			return false;
	}
	return true;
}

// The names $$parms (parameters), $$locals (the locals visible at the
// probe) or $$vars (both) of point p print, each with whether it is a
// pointer.
std::vector<std::pair<std::string, bool>> Checker::parm_names(const std::string &which,
							      const ResolvedPoint &p) const
{
	std::vector<std::pair<std::string, bool>> out;
	auto is_ptr = [](const std::string &type) { return type.find('*') != std::string::npos; };
	const std::vector<KernelParam> &params = p.ufunc ? p.ufunc->fn.params : p.func->params;
	if (which != "$$locals")
		for (const KernelParam &prm : params)
			out.emplace_back(prm.name, is_ptr(prm.type));
	if (which == "$$parms")
		return out;
	if (p.ufunc) {
		for (const KernelParam &l : process_->locals(*p.ufunc))
			out.emplace_back(l.name, false); // user pointers print as they are
	} else if (auto locals = facts_.locals(*p.func)) {
		for (const KernelParam &l : *locals)
			out.emplace_back(l.name, is_ptr(l.type));
	}
	return out;
}

// p.parms for $$parms / $$vars / $$locals (e.text): how each name is read
// (nothing: printed "?"). A point prints one list: two of them that differ
// in one body are an error.
bool Checker::point_parms(const Expr &e, ResolvedPoint &p)
{
	if (e.text == "$$locals" && p.func && !p.ufunc) {
		if (auto l = facts_.locals(*p.func); !l) {
			error(e.loc, "'$$locals' in '" + p.name + "': " + l.error().what,
			      "install the kernel's debugging information (or name it with "
			      "--vmlinux), build the module with -g, or print $$parms");
			return false;
		}
	}
	auto names = parm_names(e.text, p);
	if (auto seen = parms_vars_.find(&p); seen != parms_vars_.end()) {
		if (seen->second == e.text || parm_names(seen->second, p) == names)
			return true;
		error(e.loc, "'" + seen->second + "' and '" + e.text + "' in one probe on '" + p.name +
				     "'",
		      "they print different lists here: use one of them ($$vars has both)");
		return false;
	}
	parms_vars_[&p] = e.text;
	p.parm_ptrmask = 0;
	for (size_t j = 0; j < names.size(); j++) {
		const std::string &name = names[j].first;
		std::optional<TargetAccess> a;
		if (auto r = p.ufunc ? process_->target_access(*p.ufunc, "$" + name, false)
				     : facts_.target_access(*p.func, "$" + name, false))
			a = *r;
		if (a && !a->offsets.empty())
			a.reset(); // a struct passed by value: not one value
		if (names[j].second && j < 64)
			p.parm_ptrmask |= uint64_t{1} << j;
		p.parms.emplace_back(name, a);
	}
	return true;
}

// $x$ (one level: nested structs "{...}", arrays "[...]") and $x$$ (nested
// structs and arrays expanded, pretty_depth levels): the value of $x, and
// for every probe point what it prints (KernelFacts::type_members).
void Checker::pretty_var(const Expr &e)
{
	bool deep = e.text.size() > 3 && e.text[e.text.size() - 2] == '$';
	std::string spelling = e.text.substr(0, e.text.size() - (deep ? 2 : 1));
	int depth = deep ? pretty_depth : 1;
	subscripts(e);
	if (!target_var(e, spelling, false, false))
		return;
	size_t k = r_.tvar_of[&e];
	r_.pretty_of[&e] = {k, depth};
	for (ProbeInstance &pi : r_.instances) {
		if (pi.body != cur_body_ || !pi.point.func || pi.point.pretty.count({k, depth}))
			continue;
		if (is_process(pi.point.kind)) {
			error(e.loc, "'" + e.text + "' in '" + pi.point.name +
					     "': process probes do not pretty-print values",
			      "print the members you want: " + spelling + "->member");
			continue;
		}
		auto p = facts_.type_members(*pi.point.func, spelling,
					     pi.point.kind == ProbeKind::Kretprobe, depth);
		if (!p) {
			error(e.loc, p.error().what, p.error().hint);
			continue;
		}
		pi.point.pretty[{k, depth}] = *p;
	}
}

// $$parms$ / $$vars$ ("name=<$name$> ..."), $$return$ ("return=<$return$>")
// and their $$ forms: checked as $$parms and $$return are, then each
// value's layout for every probe point (none: printed "?").
Type Checker::pretty_all(const Expr &e)
{
	bool deep = e.text.size() > 3 && e.text[e.text.size() - 2] == '$';
	std::string plain = e.text.substr(0, e.text.size() - (deep ? 2 : 1));
	Expr bare(ExprKind::Var, e.loc); // checked as the plain form is
	bare.text = plain;
	Type t = var(bare);
	r_.types.erase(&bare);
	if (t != Type::String)
		return set(e, Type::Unknown);
	int depth = deep ? pretty_depth : 1;
	bool ret = plain == "$$return";
	r_.pretty_of[&e] = {ret ? pretty_return : pretty_parms, depth};
	for (ProbeInstance &pi : r_.instances) {
		ResolvedPoint &p = pi.point;
		if (pi.body != cur_body_ || !p.func)
			continue;
		if (is_process(p.kind)) {
			error(e.loc, "'" + e.text + "' in '" + p.name +
					     "': process probes do not pretty-print values",
			      "print them plainly: " + plain);
			return set(e, Type::Unknown);
		}
		bool in_ret = p.kind == ProbeKind::Kretprobe;
		if (ret) {
			if (p.func->ret_type == "void" || p.pretty_return.count(depth))
				continue;
			auto l = facts_.type_members(*p.func, "$return", true, depth);
			p.pretty_return[depth] = l ? std::optional(*l) : std::nullopt;
			continue;
		}
		if (p.pretty_parms.count(depth))
			continue;
		// the names var() chose ($$parms, $$vars, $$locals); a tracepoint's
		// arguments
		std::vector<std::string> names;
		for (const KernelParam &prm : p.func->params)
			if (p.kind == ProbeKind::Tracepoint)
				names.push_back(prm.name);
		for (const auto &prm : p.parms)
			names.push_back(prm.first);
		auto &v = p.pretty_parms[depth];
		for (const std::string &name : names) {
			auto l = facts_.type_members(*p.func, "$" + name, in_ret, depth);
			v.push_back(l ? std::optional(*l) : std::nullopt);
		}
	}
	return set(e, Type::String);
}

// The "[i]" indexes of a target variable or @cast chain: longs.
void Checker::subscripts(const Expr &e)
{
	for (const ExprPtr &i : e.subscripts)
		expect_type(*i, Type::Long, "an index of '" + expr_str(e) + "'");
}

// &$p->m, &@cast(p, "type")->m, &$p->a[i]: the member's or element's
// address (the parser lets nothing else follow '&').
Type Checker::address_of(const Expr &e)
{
	const Expr &x = *e.args[0];
	if (x.kind == ExprKind::AtCall) {
		if (cast_op(x, false)) { // the address, whole: not the member's size
			TargetAccess &a = r_.cast_of[&x];
			a.deref_last = false;
			a.size = 8;
			a.is_signed = false;
		}
	} else {
		subscripts(x);
		target_var(x, x.text, false, false, true);
	}
	set(x, Type::Long);
	return set(e, Type::Long);
}

// @cast(p, "type"[, "module"])->member...: p read as the address of the
// type, which is looked up once per expression in the module (it
// does not depend on the probe point, so functions may use it too). quiet
// (@defined): no errors; false when it cannot be read.
bool Checker::cast_op(const Expr &e, bool quiet)
{
	auto report = [&](SourceLoc loc, std::string msg, std::string hint = {}) {
		if (!quiet)
			error(loc, std::move(msg), std::move(hint));
	};
	if (e.args.size() < 2 || e.args.size() > 3) {
		report(e.loc, "@cast takes an address, a type and optionally a module",
		       "e.g. @cast(p, \"struct NAME\", \"MODULE\")->member");
		check_children(e);
		return false;
	}
	expect_type(*e.args[0], Type::Long, "the address given to @cast");
	if (!quiet)
		subscripts(e);
	Type at = r_.type_of(*e.args[0]);
	bool ok = at == Type::Long || at == Type::Unknown;
	for (size_t i = 1; i < e.args.size(); i++) {
		const Expr &a = *e.args[i];
		if (a.kind == ExprKind::String) {
			set(a, Type::String);
			continue;
		}
		report(a.loc, std::string("@cast's ") + (i == 1 ? "type" : "module") +
				      " must be a string literal",
		       i == 1 ? "e.g. @cast(p, \"struct task_struct\")->pid"
			      : "e.g. @cast(p, \"struct NAME\", \"MODULE\")->member");
		expr(a);
		ok = false;
	}
	if (e.members.empty()) {
		report(e.loc, "@cast needs ->member",
		       "read a member through the address: @cast(p, \"struct NAME\")->member");
		ok = false;
	} else if (e.members.size() > 8) {
		report(e.member_locs[8], "@cast(...) has more than 8 member steps");
		ok = false;
	} else if (size_t n = std::count(e.members.begin(), e.members.end(), "[]");
		   n > max_target_indices) {
		report(e.loc, "@cast(...) has more than " + std::to_string(max_target_indices) +
				      " run-time indexes",
		       "index with constants where you can: they cost nothing at run time");
		ok = false;
	}
	if (!ok)
		return false;
	auto it = casts_.find(&e);
	if (it == casts_.end()) {
		CastAccess acc = facts_.cast_access(e.args.size() > 2 ? e.args[2]->text : "kernel",
						    e.args[1]->text, e.members);
		std::optional<CastError> err;
		if (auto *a = std::get_if<TargetAccess>(&acc))
			r_.cast_of[&e] = *a;
		else
			err = std::get<CastError>(acc);
		it = casts_.emplace(&e, err).first;
	}
	if (!it->second)
		return true;
	const CastError &ce = *it->second;
	SourceLoc loc = ce.part == CastError::Member ? e.member_locs[ce.member]
			: ce.part == CastError::Type ? e.args[1]->loc
			: e.args.size() > 2          ? e.args[2]->loc
						     : e.loc;
	report(loc, ce.msg, ce.hint);
	return false;
}

// Resolves an array reference (a[k...], [k...] in a, foreach); checks keys.
Symbol *Checker::array_ref(const std::string &name, SourceLoc loc, const Expr *owner,
		  const std::vector<ExprPtr> *keys, size_t nkeys)
{
	Symbol *sym = lookup(name);
	if (!sym) {
		std::string near = closest_name(name, visible_names());
		error(loc, "undefined array '" + name + "'",
		      near.empty() ? "declare it with 'global " + name + "'"
				   : "did you mean '" + near + "'?");
		if (keys)
			for (const ExprPtr &k : *keys)
				if (k->kind != ExprKind::Wildcard)
					expr(*k);
		return nullptr;
	}
	if (!sym->global) {
		error(loc, "'" + name + "' is a local variable, not an array",
		      "arrays must be globals: declare it with 'global " + name + "'");
		return nullptr;
	}
	if (!sym->array) {
		if (sym->init) {
			error(loc, "'" + name + "' is a scalar global, not an array");
			return nullptr;
		}
		sym->array = true;
		changed_ = true;
	}
	if (owner)
		r_.symbols[owner] = sym;
	touch(*sym);
	if (static_cast<int>(nkeys) > max_keys) {
		error(loc, "an array has at most " + std::to_string(max_keys) + " keys");
		return sym;
	}
	if (sym->arity < 0) {
		sym->arity = static_cast<int>(nkeys);
		sym->keys.assign(nkeys, Type::Unknown);
		changed_ = true;
	} else if (sym->arity != static_cast<int>(nkeys)) {
		error(loc, "array '" + name + "' has " + std::to_string(sym->arity) +
				   " key(s), here it is used with " + std::to_string(nkeys));
		if (keys)
			for (const ExprPtr &k : *keys)
				if (k->kind != ExprKind::Wildcard)
					expr(*k);
		return sym;
	}
	if (keys)
		for (size_t i = 0; i < keys->size(); i++)
			key(*sym, i, *(*keys)[i]);
	return sym;
}

void Checker::key(Symbol &sym, size_t i, const Expr &k)
{
	if (k.kind == ExprKind::Wildcard) {
		if (!wildcard_ok_)
			expr(k); // reported there
		return;
	}
	bool outer = wildcard_ok_; // not inside the key: a[*, b[*]]
	wildcard_ok_ = false;
	Type t = expr(k);
	wildcard_ok_ = outer;
	if (t == Type::Unknown && sym.keys[i] != Type::Unknown) {
		wildcard_ok_ = false;
		expect_type(k, sym.keys[i], "key " + std::to_string(i + 1) + " of '" + sym.name + "'");
		wildcard_ok_ = outer;
		return;
	}
	learn_type(sym.keys[i], t);
	if (t == Type::Stats || t == Type::Void)
		error(k.loc, "an array key must be a long or a string");
	else if (t != Type::Unknown && t != sym.keys[i])
		error(k.loc, "key " + std::to_string(i + 1) + " of '" + sym.name + "' is " +
				     type_name(sym.keys[i]) + ", not " + type_name(t));
}

Type Checker::index(const Expr &e, bool stat_ok)
{
	Symbol *sym = array_ref(e.text, e.loc, &e, &e.args, e.args.size());
	if (!sym)
		return set(e, Type::Unknown);
	sym->read = true;
	if (sym->type == Type::Stats && !stat_ok)
		error(e.loc, "'" + e.text + "' holds statistics; read an element with @count, "
					   "@sum, @min, @max, @avg or @variance");
	return set(e, sym->type);
}

Type Checker::hist_index(const Expr &e)
{
	hist_op(*e.args[0]);
	if (e.args.size() != 2) {
		error(e.loc, "a histogram bucket takes one index", "e.g. @hist_log(s)[3]");
		for (size_t i = 1; i < e.args.size(); i++)
			expr(*e.args[i]);
		return set(e, Type::Long);
	}
	expect_type(*e.args[1], Type::Long, "histogram bucket index");
	return set(e, Type::Long);
}

} // namespace stap_pmu::sema_impl
