// codegen_expr.cpp - Emitter: expressions, variable references, assignments.
#include "translator/codegen/codegen_impl.h"

namespace stap_pmu::codegen_impl {

// ---- expressions ----
std::string Emitter::temp()
{
	std::string t = ctx_.prefix + "t" + std::to_string(ctx_.temps++);
	ctx_.max_temps = std::max(ctx_.max_temps, ctx_.temps);
	return t;
}

std::string Emitter::var_ref(const Symbol &s)
{
	if (&s == sema_.nf_verdict.get()) // $verdict of a netfilter probe
		return "(*stp_nf_verdict(c))";
	if (s.global)
		return "g_" + s.name;
	return local_ref(s);
}

std::string Emitter::ref_of(const Expr &v)
{
	const Symbol *s = sema_.symbol_of(v);
	if (s && is_percpu_number(*s))
		return "stp_pcpu_get_" + s->name + "()";
	return s ? var_ref(*s) : "/*?*/0";
}

// n++, n += e, ... of a per-CPU number whose value is not used (sema's
// accumulates): an add to this CPU's copy, no lock (handlers run with
// interrupts off)
std::string Emitter::percpu_add(const Symbol &s, bool sub, const std::string &v)
{
	return std::string("({ ") + (sub ? "__this_cpu_sub" : "__this_cpu_add") + "(g_" + s.name +
	       ", (u64)(" + v + ")); (s64)0; })";
}

// (&(struct stp_key){ .n = { [0] = a }, .s = { [1] = b } })
std::string Emitter::key(const Expr &e)
{
	const Symbol *sym = sema_.symbol_of(e);
	std::string n, s;
	for (size_t i = 0; i < e.args.size(); i++) {
		if (e.args[i]->kind == ExprKind::Wildcard)
			continue;
		Type t = sym && i < sym->keys.size() ? sym->keys[i] : Type::Long;
		std::string v = "[" + std::to_string(i) + "] = " + expr(*e.args[i]);
		std::string &dst = t == Type::String ? s : n;
		dst += (dst.empty() ? "" : ", ") + v;
	}
	return "(&(struct stp_key){ .n = { " + n + " }, .s = { " + s + " } })";
}

std::string Emitter::expr(const Expr &e)
{
	switch (e.kind) {
	case ExprKind::Number:
		return "((s64)" + c_int64(e.number) + ")";
	case ExprKind::String:
		return c_string(e.text);
	case ExprKind::Var:
		if (e.text == "$$parms" || e.text == "$$vars" || e.text == "$$locals") {
			may_fail_ = true;
			return "stp_parms(c, " + temp() + ")";
		}
		if (e.text == "$$return") {
			may_fail_ = true;
			return "stp_return_str(c, " + temp() + ")";
		}
		if (sema_.symbol_of(e) == sema_.procfs_value.get())
			return "stp_procfs_value(c)";
		if (sema_.symbol_of(e) == sema_.nf_verdict.get())
			return var_ref(*sema_.nf_verdict);
		if (sema_.pretty_of.count(&e))
			return pretty_ref(e);
		if (!e.text.empty() && e.text[0] == '$')
			return tvar_ref(e);
		return ref_of(e);
	case ExprKind::Index: {
		const Symbol *sym = sema_.symbol_of(e);
		if (!sym)
			return "0";
		std::string fn = sym->type == Type::String ? "stp_map_get_str" : "stp_map_get_long";
		return fn + "(&g_" + sym->name + ", " + key(e) + ")";
	}
	case ExprKind::In: {
		const Symbol *sym = sema_.symbol_of(e);
		if (!sym)
			return "0";
		if (uint32_t w = wildcards(e.args))
			return "stp_map_exists_slice(&g_" + sym->name + ", " + key(e) + ", " +
			       std::to_string(w) + "U)";
		return "stp_map_exists(&g_" + sym->name + ", " + key(e) + ")";
	}
	case ExprKind::Wildcard: // sema refused it here
		return "0";
	case ExprKind::HistIndex:
		if (e.args.size() != 2)
			return "0";
		return hist_bucket(*e.args[0], expr(*e.args[1]));
	case ExprKind::Unary:
		if (e.text == "-")
			return "((s64)(0 - (u64)" + expr(*e.args[0]) + "))";
		if (e.text == "!")
			return "((s64)!" + expr(*e.args[0]) + ")";
		if (e.text == "&") // sema made the operand's last step an address
			return expr(*e.args[0]);
		return "(" + e.text + expr(*e.args[0]) + ")";
	case ExprKind::Binary:
		return binary(e);
	case ExprKind::Ternary:
		if (auto f = sema_.folded.find(e.args[0].get()); f != sema_.folded.end())
			return expr(*e.args[f->second ? 1 : 2]); // the other was not checked
		return "(" + expr(*e.args[0]) + " ? " + expr(*e.args[1]) + " : " +
		       expr(*e.args[2]) + ")";
	case ExprKind::Assign:
		return assign(e);
	case ExprKind::IncDec:
		return incdec(e);
	case ExprKind::Call:
		return call(e);
	case ExprKind::AtCall:
		if (e.text == "cast")
			return cast_ref(e);
		return at_call(e);
	case ExprKind::EmbeddedC: // the text, on lines of its own (cmap.h)
		return std::string(sema_.type_of(e) == Type::String ? "((const char *)(" : "((s64)(") +
		       cmap::embedded(e.loc, e.text) + "\n))";
	}
	return "0";
}

// The read of @cast descriptor d from address p, with run-time indexes idx
// ("NULL": none)
static std::string cast_get(const std::string &p, const std::string &d, const std::string &idx)
{
	if (idx == "NULL")
		return "stp_cast_get(c, " + p + ", &" + d + ")";
	return "stp_cast_get_idx(c, " + p + ", &" + d + ", " + idx + ")";
}

// @cast(p, "type")->m->m: the member steps resolved by sema, as a static
// descriptor next to the read (runtime/stp_tvar.h)
std::string Emitter::cast_ref(const Expr &e)
{
	auto it = sema_.cast_of.find(&e);
	if (it == sema_.cast_of.end() || e.args.empty())
		return "0";
	const TargetAccess &a = it->second;
	may_fail_ = true;
	std::string d = uniq("stp_cast_");
	return "({ static const struct stp_tvar " + d + " = { .size = " + std::to_string(a.size) +
	       ", .is_signed = " + std::to_string(a.is_signed) + ", .nderef = " +
	       std::to_string(a.offsets.size()) + ", .deref_last = " + std::to_string(a.deref_last) +
	       tvar_steps(a) + " }; " + cast_get(expr(*e.args[0]), d, index_values(e.members, e)) +
	       "; })";
}

// ", .off = { ... }" and the run-time indexes of a struct stp_tvar initializer
std::string tvar_steps(const TargetAccess &a)
{
	std::string s = ", .off = {";
	for (size_t j = 0; j < a.offsets.size(); j++)
		s += (j ? ", " : " ") + std::to_string(a.offsets[j]);
	s += " }";
	if (a.user)
		s += ", .user = 1"; // user-space memory (process probes)
	if (a.indices.empty())
		return s;
	std::string step, stride;
	for (size_t k = 0; k < a.indices.size(); k++) {
		step += (k ? ", " : " ") + std::to_string(a.indices[k].step);
		stride += (k ? ", " : " ") + std::to_string(a.indices[k].stride);
	}
	return s + ", .nidx = " + std::to_string(a.indices.size()) + ", .idx_step = {" + step +
	       " }, .idx_stride = {" + stride + " }";
}

// Whether evaluating e can change a variable (or anything else).
static bool has_side_effect(const Expr &e)
{
	switch (e.kind) {
	case ExprKind::Assign:
	case ExprKind::IncDec:
	case ExprKind::Call:
	case ExprKind::EmbeddedC:
		return true;
	default:
		break;
	}
	bool any = false;
	for_each_child(e, [&](const Expr &a) { any = any || has_side_effect(a); });
	return any;
}

std::vector<std::string> Emitter::operands(const std::vector<const Expr *> &args, std::string &pre)
{
	std::vector<std::string> out;
	bool seq = false;
	for (const Expr *a : args)
		seq |= has_side_effect(*a);
	for (const Expr *a : args) {
		std::string v = expr(*a);
		if (seq) {
			std::string t = uniq("q_");
			pre += (sema_.type_of(*a) == Type::String ? "const char *" : "s64 ") + t + " = " +
			       v + "; ";
			v = t;
		}
		out.push_back(v);
	}
	return out;
}

std::string Emitter::binary(const Expr &e)
{
	const std::string &op = e.text;
	if (op == "&&" || op == "||") {
		if (auto f = sema_.folded.find(e.args[0].get());
		    f != sema_.folded.end() && f->second == (op == "||"))
			return op == "||" ? "((s64)1)" : "((s64)0)"; // the right side is dead
		// short circuit: a failing right side is checked by the caller
		return "((s64)(" + expr(*e.args[0]) + " " + op + " " + expr(*e.args[1]) + "))";
	}
	if (op == "=~" || op == "!~") // s =~ "re": runtime/stp_regex.h
		return std::string("((s64)") + (op == "!~" ? "!" : "") + "stp_regex_match(&c->regex, " +
		       "&stp_re" + std::to_string(sema_.regex_of.at(&e)) + ", " +
		       expr(*e.args[0]) + ", " + (sema_.regex_submatches ? "1" : "0") + "))";
	std::string pre;
	std::vector<std::string> v = operands({e.args[0].get(), e.args[1].get()}, pre);
	std::string r;
	if (op == ".")
		r = "stp_concat(" + temp() + ", " + v[0] + ", " + v[1] + ")";
	else if (sema_.type_of(*e.args[0]) == Type::String)
		r = "((s64)(stp_strcmp(" + v[0] + ", " + v[1] + ") " + op + " 0))";
	else
		r = arith(op, v[0], v[1]);
	return pre.empty() ? r : "({ " + pre + r + "; })";
}

std::string Emitter::arith(const std::string &op, const std::string &a, const std::string &b)
{
	if (op == "/" || op == "%") {
		may_fail_ = true;
		return std::string(op == "/" ? "stp_div" : "stp_mod") + "(c, " + a + ", " + b + ")";
	}
	if (op == "<<")
		return "((s64)((u64)" + a + " << (" + b + " & 63)))";
	if (op == ">>")
		return "((s64)(" + a + " >> (" + b + " & 63)))";
	if (op == "==" || op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=")
		return "((s64)(" + a + " " + op + " " + b + "))";
	if (op == "+" || op == "-" || op == "*")
		// Wrap like SystemTap (two's complement), no signed-overflow UB.
		return "((s64)((u64)" + a + " " + op + " (u64)" + b + "))";
	return "((s64)(" + a + " " + op + " " + b + "))";
}

std::string Emitter::assign(const Expr &e)
{
	const std::string &op = e.text;
	const Expr &lhs = *e.args[0];
	const Symbol *sym = sema_.symbol_of(lhs);
	if (!sym)
		return "0";
	if (op == "<<<") {
		std::string v = expr(*e.args[1]);
		if (lhs.kind == ExprKind::Index) {
			may_fail_ = true;
			return "stp_map_stat_add(c, &g_" + sym->name + ", " + key(lhs) + ", " + v + ")";
		}
		if (is_local_stat(*sym)) {
			std::string l = local_ref(*sym);
			return "stp_stat_addh_kept((struct stp_stat *)" + l + ".s, " + l + ".h, " +
			       local_hdesc(*sym) + ", " + v + ", " + (sym->minmax ? "1" : "0") + ", " +
			       (sym->variance ? "1" : "0") + ")";
		}
		return "stp_add_" + sym->name + "(" + v + ")";
	}
	Type t = sym->type;
	std::string rhs = expr(*e.args[1]);
	if (sym == sema_.procfs_value.get()) // $value of a procfs probe
		return std::string(op == ".=" ? "stp_procfs_append" : "stp_procfs_set") + "(c, " +
		       rhs + ")";
	if (is_percpu_number(*sym)) {
		if (sema_.accumulates.count(&e))
			return percpu_add(*sym, op == "-=", rhs);
		// begin, end, error: nothing else runs (sema/storage.cpp)
		std::string v = uniq("v_");
		std::string val = op == "=" ? v : arith(op.substr(0, op.size() - 1),
							"stp_pcpu_get_" + sym->name + "()", v);
		return "({ s64 " + v + " = " + rhs + "; stp_pcpu_set_" + sym->name + "(" + val + "); })";
	}
	if (lhs.kind == ExprKind::Index) {
		may_fail_ = true;
		std::string v = uniq("v_");
		if (t == Type::String) {
			const char *fn = op == ".=" ? "stp_strlcat" : "stp_strlcpy";
			return "({ const char *" + v + " = " + rhs + "; (const char *)" + fn +
			       "(stp_map_sref(c, &g_" + sym->name + ", " + key(lhs) + "), " + v + "); })";
		}
		std::string p = uniq("p_");
		std::string val = op == "=" ? v : arith(op.substr(0, op.size() - 1), "*" + p, v);
		return "({ s64 " + v + " = " + rhs + "; s64 *" + p + " = " + lref(lhs) + "; *" +
		       p + " = " + val + "; })";
	}
	std::string l = var_ref(*sym);
	if (t == Type::String) {
		const char *fn = op == ".=" ? "stp_strlcat" : "stp_strlcpy";
		return std::string("({ ") + fn + "(" + l + ", " + rhs + "); (const char *)" + l +
		       "; })";
	}
	if (has_side_effect(*e.args[1])) {
		// x = --x: the right side's change is done before the store
		std::string v = uniq("v_");
		std::string val = op == "=" ? v : arith(op.substr(0, op.size() - 1), l, v);
		return "({ s64 " + v + " = " + rhs + "; " + l + " = " + val + "; })";
	}
	if (op == "=")
		return "(" + l + " = " + rhs + ")";
	return "(" + l + " = " + arith(op.substr(0, op.size() - 1), l, rhs) + ")";
}

// The element of a[...] to store into: an array with one long key (the
// common a[pid()]++) looks it up without a struct stp_key
// (runtime/stp_map.h stp_map_lref_n1)
std::string Emitter::lref(const Expr &t)
{
	const Symbol *sym = sema_.symbol_of(t);
	if (sym->keys.size() == 1 && sym->keys[0] == Type::Long && t.args.size() == 1 &&
	    t.args[0]->kind != ExprKind::Wildcard)
		return "stp_map_lref_n1(c, &g_" + sym->name + ", " + expr(*t.args[0]) + ")";
	return "stp_map_lref(c, &g_" + sym->name + ", " + key(t) + ")";
}

std::string Emitter::incdec(const Expr &e)
{
	const Expr &t = *e.args[0];
	const Symbol *sym = sema_.symbol_of(t);
	if (!sym)
		return "0";
	std::string op = e.text == "++" ? "+" : "-";
	if (t.kind == ExprKind::Index) {
		may_fail_ = true;
		std::string p = uniq("p_");
		std::string upd = "*" + p + " = (s64)((u64)*" + p + " " + op + " 1)";
		return "({ s64 *" + p + " = " + lref(t) + "; " +
		       (e.prefix ? upd + "; *" + p + ";"
					 : "s64 o_ = *" + p + "; " + upd + "; o_;") +
		       " })";
	}
	if (is_percpu_number(*sym)) {
		if (sema_.accumulates.count(&e))
			return percpu_add(*sym, op == "-", "1");
		std::string o = uniq("o_");
		std::string upd = "stp_pcpu_set_" + sym->name + "((s64)((u64)" + o + " " + op + " 1))";
		return "({ s64 " + o + " = stp_pcpu_get_" + sym->name + "(); " +
		       (e.prefix ? upd + ";" : upd + "; " + o + ";") + " })";
	}
	std::string v = var_ref(*sym);
	std::string upd = v + " = (s64)((u64)" + v + " " + op + " 1)";
	if (e.prefix)
		return "(" + upd + ")";
	std::string o = uniq("o_");
	return "({ s64 " + o + " = " + v + "; " + upd + "; " + o + "; })";
}

} // namespace stap_pmu::codegen_impl
