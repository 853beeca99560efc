// sema_calls.cpp - Checker: calls to builtins and script functions, print/printf, statistics, @ operators.
#include "translator/sema/sema_impl.h"

namespace stap_pmu::sema_impl {

Type Checker::call(const Expr &e)
{
	const std::string &n = e.text;
	if (const PrintFunction *p = find_print_function(n))
		return print_family_call(e, *p);
	int fi = find_function(n);
	if (fi >= 0)
		return user_call(e, static_cast<size_t>(fi));
	const Builtin *b = find_builtin(n);
	if (!b) {
		std::vector<std::string> names;
		for (const PrintFunction &p : print_functions())
			names.push_back(p.name);
		for (const Builtin &x : all_builtins())
			names.push_back(x.name);
		for (const FunctionInfo &f : r_.functions)
			names.push_back(f.fn->name);
		std::string near = closest_name(n, names);
		error(e.loc, "unknown function '" + n + "'",
		      near.empty() ? "" : "did you mean '" + near + "'?");
		check_children(e);
		return set(e, Type::Unknown);
	}
	if (b->unsupported) {
		error(e.loc, "'" + n + "' is not available: " + b->unsupported);
		check_children(e);
		return set(e, b->ret);
	}
	b = find_builtin(n, e.args.size());
	if (!b) {
		error(e.loc, "'" + n + "' takes " + builtin_arities(n) + " argument(s), " +
				     std::to_string(e.args.size()) + " given");
		return set(e, find_builtin(n)->ret);
	}
	for (size_t i = 0; i < e.args.size(); i++)
		expect_type(*e.args[i], b->params[i],
			    "argument " + std::to_string(i + 1) + " of '" + b->name + "'");
	if (n == "matched" || n == "matched_str" || n == "ngroups")
		r_.regex_submatches = true; // every =~ keeps its submatches
	if (std::string_view(b->c_template).starts_with("stp_ubt_") ||
	    n == "print_ustack" || n == "sprint_ustack" || n == "print_usyms" ||
	    n == "sprint_usyms")
		r_.user_symbols = true; // the module gets the user binaries' tables
	if (std::string_view(b->c_template).starts_with("stp_regs_arg("))
		function_probe_only(e);
	return set(e, b->ret);
}

// int_arg(n) and the other readers of the probed function's arguments,
// called in a probe body: every point of the body must be on a function
// (a call in a script function is checked when it runs).
void Checker::function_probe_only(const Expr &e)
{
	if (cur_body_ == SIZE_MAX)
		return;
	for (const ProbeInstance &pi : r_.instances) {
		ProbeKind k = pi.point.kind;
		if (pi.body != cur_body_ || k == ProbeKind::Kprobe || k == ProbeKind::Kretprobe ||
		    k == ProbeKind::Uprobe || k == ProbeKind::Uretprobe)
			continue;
		error(e.loc, "'" + e.text + "' reads the probed function's arguments, which '" +
				     pi.point.name + "' does not have",
		      "call it in a function probe: kernel.function(\"f\"), kprobe.function(\"f\"), "
		      "process(\"p\").function(\"f\")");
		return;
	}
}

Type Checker::user_call(const Expr &e, size_t fi)
{
	FunctionInfo &f = r_.functions[fi];
	r_.call_of[&e] = fi;
	scope_.calls->insert(fi);
	f.used = true;
	if (e.args.size() != f.fn->params.size()) {
		error(e.loc, "function '" + f.fn->name + "' takes " +
				     std::to_string(f.fn->params.size()) + " argument(s), " +
				     std::to_string(e.args.size()) + " given");
		check_children(e);
		return set(e, f.ret == Type::Unknown ? Type::Unknown : f.ret);
	}
	for (size_t i = 0; i < e.args.size(); i++) {
		Symbol &p = *f.locals[i];
		Type t = expr(*e.args[i]);
		if (t == Type::Stats || t == Type::Void) {
			error(e.args[i]->loc, "argument " + std::to_string(i + 1) + " of '" +
						      f.fn->name + "' must be a long or a string");
			continue;
		}
		if (p.type == Type::Unknown)
			learn(p, t);
		else
			expect_type(*e.args[i], p.type,
				    "argument " + std::to_string(i + 1) + " ('" + p.name + "') of '" +
					    f.fn->name + "'");
	}
	return set(e, f.ret);
}

Type Checker::print_family_call(const Expr &e, const PrintFunction &p)
{
	if (p.form == PrintForm::Format)
		return printf_call(e, p);
	if (p.form == PrintForm::Values)
		return print_call(e, p);
	// the parser checked the delimiter (a string literal) and the count
	for (const ExprPtr &a : e.args) {
		Type t = expr(*a);
		if (t == Type::Stats || t == Type::Void)
			error(a->loc, "'" + e.text + "' prints longs and strings");
	}
	return set(e, Type::Void);
}

Type Checker::print_call(const Expr &e, const PrintFunction &p)
{
	bool s = p.to_string;
	if (e.args.empty() && !(p.newline && !p.to_string)) {
		error(e.loc, "'" + e.text + "' needs at least one value");
		return set(e, s ? Type::String : Type::Void);
	}
	for (const ExprPtr &a : e.args) {
		if (a->kind == ExprKind::AtCall &&
		    (a->text == "hist_log" || a->text == "hist_linear")) {
			if (s || e.args.size() != 1)
				error(a->loc, "a histogram can only be printed alone with print() or println()");
			at_call(*a);
			continue;
		}
		Type t = expr(*a);
		if (t == Type::Void)
			error(a->loc, "'" + e.text + "' argument has no value");
	}
	return set(e, s ? Type::String : Type::Void);
}

Type Checker::printf_call(const Expr &e, const PrintFunction &p)
{
	bool s = p.to_string;
	Type rt = s ? Type::String : Type::Void;
	if (e.args.empty() || e.args[0]->kind != ExprKind::String) {
		error(e.loc, e.text + " needs a string literal as its first argument");
		check_children(e);
		return set(e, rt);
	}
	const Expr &f = *e.args[0];
	set(f, Type::String);
	std::optional<Format> fmt;
	if (report_) {
		fmt = parse_format(f.text, f.loc, diags_);
	} else {
		Diagnostics scratch;
		fmt = parse_format(f.text, f.loc, scratch);
	}
	if (!fmt) {
		for (size_t i = 1; i < e.args.size(); i++)
			expr(*e.args[i]);
		return set(e, rt);
	}
	size_t nargs = e.args.size() - 1;
	if (nargs != fmt->args.size()) {
		error(e.loc, e.text + " format has " + std::to_string(fmt->args.size()) +
				     " conversion(s) but " + std::to_string(nargs) +
				     " argument(s) follow it");
	}
	for (size_t i = 0; i < nargs; i++) {
		if (i < fmt->args.size())
			expect_type(*e.args[i + 1], fmt->args[i].type,
				    "argument for '" + fmt->args[i].spec + "'");
		else
			expr(*e.args[i + 1]);
	}
	r_.formats[&e] = std::move(*fmt);
	return set(e, rt);
}

// The aggregate an @op reads: a global stat or a stat array element.
Symbol *Checker::stat_operand(const Expr &e, const std::string &what)
{
	if (e.args.empty() ||
	    (e.args[0]->kind != ExprKind::Var && e.args[0]->kind != ExprKind::Index)) {
		error(e.loc, what + " takes a statistics aggregate");
		check_children(e);
		return nullptr;
	}
	const Expr &v = *e.args[0];
	Symbol *sym;
	if (v.kind == ExprKind::Index) {
		sym = array_ref(v.text, v.loc, &v, &v.args, v.args.size());
	} else {
		sym = resolve_var(v);
		if (sym && sym->array) {
			error(v.loc, "'" + sym->name + "' is an array; name an element " + sym->name + "[...]");
			return nullptr;
		}
	}
	if (!sym)
		return nullptr;
	sym->read = true;
	learn(*sym, Type::Stats);
	set(v, sym->type);
	if (sym->type != Type::Stats) {
		error(v.loc, what + " needs a statistics aggregate, but '" + sym->name + "' is " +
				     type_name(sym->type));
		return nullptr;
	}
	return sym;
}

bool Checker::const_long(const Expr &e, int64_t &out)
{
	if (e.kind == ExprKind::Number) {
		out = e.number;
		return true;
	}
	if (e.kind == ExprKind::Unary && e.text == "-" && const_long(*e.args[0], out)) {
		out = static_cast<int64_t>(0 - static_cast<uint64_t>(out));
		return true;
	}
	return false;
}

Type Checker::at_call(const Expr &e)
{
	if (e.text == "pmu" || e.text == "pmu_thread")
		return pmu_call(e);
	if (stat_ops.count(e.text)) {
		Symbol *sym = stat_operand(e, "@" + e.text);
		if (e.args.size() != 1)
			error(e.loc, "@" + e.text + " takes one argument");
		if (sym && e.text == "variance")
			sym->variance = true;
		if (sym && (e.text == "min" || e.text == "max"))
			sym->minmax = true;
		return set(e, Type::Long);
	}
	if (e.text == "hist_log" || e.text == "hist_linear")
		return hist_op(e);
	if (e.text == "cast") {
		cast_op(e, false);
		return set(e, Type::Long);
	}
	if (e.text == "defined" && e.args.size() == 1 && e.args[0]->kind == ExprKind::AtCall &&
	    e.args[0]->text == "cast") {
		r_.const_of[&e] = cast_op(*e.args[0], true) ? 1 : 0;
		set(*e.args[0], Type::Long);
		return set(e, Type::Long);
	}
	if ((e.text == "entry" || e.text == "defined") && e.args.size() == 1 &&
	    e.args[0]->kind == ExprKind::Var && e.args[0]->text[0] == '$') {
		if (e.text == "entry") {
			subscripts(*e.args[0]);
			target_var(e, e.args[0]->text, true, false);
		} else {
			bool ok = target_var(e, e.args[0]->text, false, true);
			r_.const_of[&e] = ok ? 1 : 0;
		}
		return set(e, Type::Long);
	}
	if (e.text == "entry" && e.args.size() == 1 && return_body())
		return entry_expr(e);
	if (e.text == "entry" || e.text == "defined") {
		error(e.loc, "@" + e.text + "() takes one target variable, e.g. @" + e.text + "($x)");
		return set(e, Type::Long);
	}
	// the parser refused names SystemTap does not have: the rest are
	// SystemTap's, not built here yet
	error(e.loc, "'@" + e.text + "' is not supported yet");
	for (const ExprPtr &a : e.args)
		if (a->kind != ExprKind::Var || a->text[0] != '$')
			expr(*a);
	return set(e, Type::Long);
}

// Whether the body being checked is one of .return probes only (kretprobes
// and uretprobes: @entry takes any expression there).
bool Checker::return_body() const
{
	bool any = false;
	if (cur_body_ == SIZE_MAX)
		return false;
	for (const ProbeInstance &pi : r_.instances) {
		if (pi.body != cur_body_)
			continue;
		if (pi.point.kind != ProbeKind::Uretprobe && pi.point.kind != ProbeKind::Kretprobe)
			return false;
		any = true;
	}
	return any;
}

// @entry(expr) of other than a target variable: expr is evaluated when the
// probed function is entered (the kretprobe's instance data, the
// uretprobe's entry table) and its value read at the return.
Type Checker::entry_expr(const Expr &e)
{
	Type t = expr(*e.args[0]);
	if (t != Type::Long && t != Type::Unknown) {
		error(e.loc, "@entry(expression) takes a number");
		return set(e, Type::Long);
	}
	ProbeBody &b = r_.bodies[cur_body_];
	if (!r_.entry_expr_of.count(&e)) {
		r_.entry_expr_of[&e] = b.entry_exprs.size();
		b.entry_exprs.push_back(e.args[0].get());
	}
	return set(e, Type::Long);
}

Type Checker::hist_op(const Expr &e)
{
	Symbol *sym = stat_operand(e, "@" + e.text);
	bool lin = e.text == "hist_linear";
	if (e.args.size() != (lin ? 4u : 1u)) {
		error(e.loc, lin ? "@hist_linear takes an aggregate, low, high and step"
				 : "@hist_log takes one aggregate");
		return set(e, Type::Void);
	}
	int64_t lo = 0, hi = 0, step = 0;
	if (lin) {
		for (size_t i = 1; i < 4; i++)
			expr(*e.args[i]);
		if (!const_long(*e.args[1], lo) || !const_long(*e.args[2], hi) ||
		    !const_long(*e.args[3], step)) {
			error(e.loc, "@hist_linear bounds and step must be number literals");
			return set(e, Type::Void);
		}
		if (step <= 0 || hi <= lo) {
			error(e.loc, "@hist_linear needs low < high and a positive step");
			return set(e, Type::Void);
		}
		if ((hi - lo) / step + 1 > max_linear_buckets) {
			error(e.loc, "@hist_linear has more than " +
					     std::to_string(max_linear_buckets) + " buckets");
			return set(e, Type::Void);
		}
	}
	if (!sym)
		return set(e, Type::Void);
	HistKind k = lin ? HistKind::Linear : HistKind::Log;
	if (sym->hist == HistKind::None) {
		sym->hist = k;
		sym->hist_lo = lo;
		sym->hist_hi = hi;
		sym->hist_step = step;
		sym->hist_loc = e.loc;
	} else if (sym->hist != k || sym->hist_lo != lo || sym->hist_hi != hi ||
		   sym->hist_step != step) {
		error(e.loc, "'" + sym->name + "' already has a different histogram (at " +
				     sym->hist_loc.str() + ")",
		      "an aggregate collects one histogram");
	}
	return set(e, Type::Void);
}

// @pmu("E") (per-CPU counter) and @pmu_thread("E") (per-task counter of the
// target's threads): one event per distinct name and kind
Type Checker::pmu_call(const Expr &e)
{
	const bool thread = e.text == "pmu_thread";
	const std::string op = "@" + e.text;
	if (e.args.size() != 1 || e.args[0]->kind != ExprKind::String) {
		error(e.loc, op + " takes one event name in quotes, e.g. " + op + "(\"cycles\")");
		return set(e, Type::Long);
	}
	const Expr &name = *e.args[0];
	set(name, Type::String);
	if (name.text.empty()) {
		error(name.loc, op + " event name is empty");
		return set(e, Type::Long);
	}
	size_t idx = r_.events.size();
	for (size_t i = 0; i < r_.events.size(); i++)
		if (r_.events[i].name == name.text && !r_.events[i].sampling &&
		    r_.events[i].per_thread == thread)
			idx = i;
	if (idx == r_.events.size()) {
		EventUse u{name.text, name.loc};
		u.per_thread = thread;
		r_.events.push_back(u);
	}
	r_.event_of[&e] = idx;
	return set(e, Type::Long);
}

} // namespace stap_pmu::sema_impl
