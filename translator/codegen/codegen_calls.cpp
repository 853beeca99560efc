// codegen_calls.cpp - Emitter: print/printf, statistics and @ operators, builtin and script function calls.
#include "translator/codegen/codegen_impl.h"

namespace stap_pmu::codegen_impl {

// value of a print argument as a printf format piece and argument
std::pair<std::string, std::string> Emitter::print_piece(const Expr &a, const std::string &v)
{
	if (sema_.type_of(a) == Type::String)
		return {"%s", v};
	return {"%lld", "(long long)(" + v + ")"};
}

std::string Emitter::escape_percent(const std::string &s)
{
	std::string out;
	for (char ch : s) {
		out += ch;
		if (ch == '%')
			out += '%';
	}
	return out;
}

std::string Emitter::print_call(const Expr &e, const PrintFunction &p)
{
	if (!e.args.empty() && e.args[0]->kind == ExprKind::AtCall &&
	    (e.args[0]->text == "hist_log" || e.args[0]->text == "hist_linear"))
		return hist_print(*e.args[0]);
	bool delim = p.form == PrintForm::Delimited;
	bool nl = p.newline;
	std::string fmt, args;
	size_t first = delim ? 1 : 0;
	std::string dfmt, darg;
	if (delim) {
		if (e.args[0]->kind == ExprKind::String)
			dfmt = escape_percent(e.args[0]->text);
		else
			dfmt = "%s", darg = expr(*e.args[0]);
	}
	// the values are evaluated left to right (through temporaries when
	// one has a side effect: println(indent(1), indent(1)))
	std::vector<const Expr *> vals;
	for (size_t i = first; i < e.args.size(); i++)
		vals.push_back(e.args[i].get());
	std::string pre;
	std::vector<std::string> v = operands(vals, pre);
	for (size_t i = 0; i < v.size(); i++) {
		if (delim && i > 0) {
			fmt += dfmt;
			if (!darg.empty())
				args += ", " + darg;
		}
		auto [f, a] = print_piece(*vals[i], v[i]);
		fmt += f;
		args += ", " + a;
	}
	if (nl)
		fmt += "\n";
	std::string out;
	if (p.to_string)
		out = "((const char *)stp_sprintf(" + temp() + ", " + c_string(fmt) + args + "))";
	else if (fmt.empty())
		out = "0";
	else
		out = "stp_printf(c, " + c_string(fmt) + args + ")";
	return pre.empty() ? out : "({ " + pre + out + "; })";
}

std::string Emitter::hist_print(const Expr &h)
{
	const Expr &v = *h.args[0];
	const Symbol *sym = sema_.symbol_of(v);
	if (!sym)
		return "0";
	if (v.kind == ExprKind::Index) {
		std::string s = uniq("s_");
		return "({ const struct stp_stat *" + s + " = stp_map_get_stat(&g_" + sym->name +
		       ", " + key(v) + "); stp_hist_print(c, " + s + ", (const s64 *)(" + s +
		       " + 1), g_" + sym->name + ".hist); })";
	}
	if (is_local_stat(*sym)) {
		std::string l = local_ref(*sym);
		return "stp_hist_print(c, (struct stp_stat *)" + l + ".s, " + l + ".h, " + local_hdesc(*sym) + ")";
	}
	return "({ const struct stp_stat *s_ = stp_agg_" + sym->name +
	       "(c); stp_hist_print(c, s_, c->agg_hist, &stp_hd_" + sym->name + "); })";
}

std::string Emitter::hist_bucket(const Expr &h, const std::string &idx)
{
	const Expr &v = *h.args[0];
	const Symbol *sym = sema_.symbol_of(v);
	if (!sym)
		return "0";
	may_fail_ = true; // an index out of range
	std::string i = uniq("i_"), s = uniq("s_");
	if (v.kind == ExprKind::Index)
		return "({ const struct stp_stat *" + s + " = stp_map_get_stat(&g_" + sym->name +
		       ", " + key(v) + "); s64 " + i + " = " + idx + "; stp_hist_get(c, " + s +
		       ", (const s64 *)(" + s + " + 1), g_" + sym->name + ".hist, " + i + "); })";
	if (is_local_stat(*sym)) {
		std::string l = local_ref(*sym);
		return "({ s64 " + i + " = " + idx + "; stp_hist_get(c, (struct stp_stat *)" + l + ".s, " + l +
		       ".h, " + local_hdesc(*sym) + ", " + i + "); })";
	}
	// the index first: it may read another aggregate into c->agg
	return "({ s64 " + i + " = " + idx + "; const struct stp_stat *" + s + " = stp_agg_" +
	       sym->name + "(c); stp_hist_get(c, " + s + ", c->agg_hist, &stp_hd_" + sym->name +
	       ", " + i + "); })";
}

std::string Emitter::local_hdesc(const Symbol &s)
{
	std::string d = "{ .kind = STP_HIST_NONE, .nb = 0 }";
	if (s.hist == HistKind::Log)
		d = "{ .kind = STP_HIST_LOG, .nb = " + std::to_string(hist_buckets(s)) + " }";
	else if (s.hist == HistKind::Linear)
		d = "{ .kind = STP_HIST_LINEAR, .lo = " + c_int64(s.hist_lo) + ", .hi = " +
		    c_int64(s.hist_hi) + ", .step = " + c_int64(s.hist_step) +
		    ", .nb = " + std::to_string(hist_buckets(s)) + " }";
	return "({ static const struct stp_hdesc hd_ = " + d + "; &hd_; })";
}

std::string Emitter::call(const Expr &e)
{
	const std::string &n = e.text;
	if (const PrintFunction *p = find_print_function(n))
		return p->form == PrintForm::Format ? printf_call(e, *p) : print_call(e, *p);
	if (auto it = sema_.call_of.find(&e); it != sema_.call_of.end())
		return user_call(e, sema_.functions[it->second]);
	const Builtin *b = find_builtin(n, e.args.size());
	if (!b || b->unsupported)
		return "0";
	if (b->may_fail)
		may_fail_ = true;
	std::vector<const Expr *> args;
	for_each_child(e, [&](const Expr &a) { args.push_back(&a); });
	std::string pre;
	std::vector<std::string> v = operands(args, pre);
	std::string out;
	for (const char *p = b->c_template; *p; p++) {
		if (*p == '$' && p[1] >= '1' && p[1] <= '9') {
			size_t i = static_cast<size_t>(p[1] - '1');
			out += i < v.size() ? v[i] : "0";
			p++;
		} else if (*p == '$' && p[1] == 't') {
			out += temp();
			p++;
		} else {
			out += *p;
		}
	}
	return pre.empty() ? out : "({ " + pre + out + "; })";
}

std::string Emitter::user_call(const Expr &e, const FunctionInfo &f)
{
	may_fail_ = true;
	const std::string &fn = f.fn->name;
	std::string pre, set;
	std::string nf = uniq("nf_");
	for (size_t i = 0; i < e.args.size() && i < f.locals.size(); i++) {
		const Symbol &p = *f.locals[i];
		std::string a = uniq("a_");
		if (p.type == Type::String) {
			pre += "const char *" + a + " = " + expr(*e.args[i]) + "; ";
			set += "stp_strlcpy(" + nf + "->l_" + p.name + ", " + a + "); ";
		} else {
			pre += "s64 " + a + " = " + expr(*e.args[i]) + "; ";
			set += nf + "->l_" + p.name + " = " + a + "; ";
		}
	}
	std::string r = uniq("r_");
	std::string decl, get;
	if (f.ret == Type::String) {
		decl = "const char *" + r + " = \"\"; ";
		get = r + " = stp_strlcpy(" + temp() + ", " + nf + "->ret); ";
	} else {
		decl = "s64 " + r + " = 0; ";
		get = f.ret == Type::Long ? r + " = " + nf + "->ret; " : "";
	}
	std::string init_ret = f.ret == Type::String ? nf + "->ret[0] = '\\0'; " : nf + "->ret = 0; ";
	return "({ " + pre + decl + "if (likely(stp_nest_enter(c))) { struct stp_fr_" + fn +
	       " *" + nf + " = &c->frames[c->nesting - 1].fn_" + fn + "; " + set + init_ret +
	       "stp_fn_" + fn + "(c); " + get + "stp_nest_leave(c); } " + r + "; })";
}

std::string Emitter::printf_call(const Expr &e, const PrintFunction &p)
{
	auto it = sema_.formats.find(&e);
	if (it == sema_.formats.end())
		return "0";
	const Format &f = it->second;
	bool s = p.to_string;
	std::string out = s ? "((const char *)stp_sprintf(" + temp() + ", " + c_string(f.kernel_fmt)
			    : "stp_printf(c, " + c_string(f.kernel_fmt);
	std::vector<const Expr *> args;
	for (size_t i = 0; i < f.args.size() && i + 1 < e.args.size(); i++)
		args.push_back(e.args[i + 1].get());
	std::string pre;
	std::vector<std::string> v = operands(args, pre);
	for (size_t i = 0; i < v.size(); i++) {
		const std::string &a = v[i];
		if (!f.args[i].passed) {
			pre += "(void)(" + a + "); ";
			continue;
		}
		switch (f.args[i].conv) {
		case 's': out += ", " + a; break;
		case 'c':
		case '*': out += ", (int)(" + a + ")"; break;
		case 'p': out += ", (long long)stp_ptr_out(" + a + ")"; break;
		default: out += ", (long long)(" + a + ")"; break;
		}
	}
	out += s ? "))" : ")";
	return pre.empty() ? out : "({ " + pre + out + "; })";
}

std::string Emitter::stat_of(const Expr &v)
{
	const Symbol *sym = sema_.symbol_of(v);
	if (!sym)
		return "(&stp_empty_stat)";
	if (v.kind == ExprKind::Index)
		return "stp_map_get_stat(&g_" + sym->name + ", " + key(v) + ")";
	if (is_local_stat(*sym))
		return "((struct stp_stat *)" + local_ref(*sym) + ".s)";
	return "stp_agg_" + sym->name + "(c)";
}

// $x, $x->f, $x->a[i], @entry($x): read through the probe point's stp_tvar
std::string Emitter::tvar_ref(const Expr &e)
{
	auto it = sema_.tvar_of.find(&e);
	if (it == sema_.tvar_of.end())
		return "0";
	may_fail_ = true;
	const Expr &v = e.kind == ExprKind::AtCall && !e.args.empty() ? *e.args[0] : e;
	std::string idx = index_values(split_target_spelling(v.text), v);
	if (idx == "NULL")
		return "stp_tvar_get(c, " + std::to_string(it->second) + ")";
	return "stp_tvar_get_idx(c, " + std::to_string(it->second) + ", " + idx + ")";
}

// The run-time indexes ("[]" steps) of a target variable or @cast chain
// `owner` as a C array, in order; "NULL" when it has none.
std::string Emitter::index_values(const std::vector<std::string> &steps, const Expr &owner)
{
	std::string vals;
	size_t k = 0;
	for (const std::string &st : steps) {
		if (!is_index_step(st))
			continue;
		if (st == "[]" && k < owner.subscripts.size())
			vals += (vals.empty() ? "" : ", ") + expr(*owner.subscripts[k]);
		k++;
	}
	return vals.empty() ? "NULL" : "((const s64 []){ " + vals + " })";
}

std::string Emitter::at_call(const Expr &e)
{
	if (e.text == "entry") {
		// @entry(expr): the value its entry function saved for this call
		auto it = sema_.entry_expr_of.find(&e);
		if (it == sema_.entry_expr_of.end())
			return tvar_ref(e);
		may_fail_ = true; // not saved (outside a .return probe's call)
		return "stp_entry_value(c, " + std::to_string(it->second) + ")";
	}
	if (e.text == "defined") {
		auto it = sema_.const_of.find(&e);
		return "((s64)" + std::to_string(it == sema_.const_of.end() ? 0 : it->second) + ")";
	}
	if (e.text == "pmu") {
		auto it = sema_.event_of.find(&e);
		size_t idx = it == sema_.event_of.end() ? 0 : it->second;
		return "stp_pmu_read(c, " + std::to_string(idx) + ")";
	}
	if (e.text == "pmu_thread") {
		auto it = sema_.event_of.find(&e);
		size_t idx = it == sema_.event_of.end() ? 0 : it->second;
		may_fail_ = true; // read outside the target's threads
		return "stp_pmu_thread_read(c, " + std::to_string(idx) + ")";
	}
	if (e.text == "hist_log" || e.text == "hist_linear")
		return hist_print(e);
	if (e.args.empty())
		return "0";
	if (e.text != "count" && e.text != "sum")
		may_fail_ = true; // min/max/avg/variance of an empty aggregate
	return "stp_stat_" + e.text + "(c, " + stat_of(*e.args[0]) + ")";
}

} // namespace stap_pmu::codegen_impl
