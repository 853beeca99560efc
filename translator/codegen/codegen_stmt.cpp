// codegen_stmt.cpp - Emitter: function and probe bodies, statements, error exits.
#include "translator/codegen/codegen_impl.h"

namespace stap_pmu::codegen_impl {

void Emitter::function(size_t i, std::ostringstream &out)
{
	const FunctionInfo &f = sema_.functions[i];
	fn_decls_ += "static __maybe_unused void stp_fn_" + f.fn->name + "(struct stp_context *c);\n";
	if (!f.fn->body) {
		embedded_function(f, out);
		return;
	}
	ctx_ = Ctx();
	ctx_.prefix = "f->";
	ctx_.fn = true;
	fn_ = &f;
	out << "/* function " << f.fn->name << " at " << f.fn->loc.str() << " */\n"
	    << "static __maybe_unused void stp_fn_" << f.fn->name << "(struct stp_context *c)\n{\n"
	    << "\tstruct stp_fr_" << f.fn->name
	    << " *f __maybe_unused = &c->frames[c->nesting - 1].fn_" << f.fn->name << ";\n\n"
	    << cmap::marker(f.fn->loc) << "\n";
	for (auto &l : f.locals) {
		if (l->param)
			continue;
		if (l->type == Type::String)
			out << "\tf->l_" << l->name << "[0] = '\\0';\n";
		else if (is_local_stat(*l))
			out << "\tmemset(&f->l_" << l->name << ", 0, sizeof(f->l_" << l->name << "));\n";
		else
			out << "\tf->l_" << l->name << " = 0;\n";
	}
	out_ = &out;
	block_body(*f.fn->body, 1);
	out << "}\n" << cmap::end_marker() << "\n\n";
	fn_temps_[i] = ctx_.max_temps;
	fn_ = nullptr;
}

// function f:type(a, b) %{ C %}: the text runs with SystemTap's names for
// the arguments (STAP_ARG_a), the value (STAP_RETVALUE, STAP_RETURN(v)) and
// errors (STAP_ERROR(fmt, ...)).
void Emitter::embedded_function(const FunctionInfo &f, std::ostringstream &out)
{
	const std::string &n = f.fn->name;
	bool str = f.ret == Type::String;
	out << "/* function " << n << " at " << f.fn->loc.str() << " (embedded C) */\n"
	    << "static __maybe_unused void stp_fn_" << n << "(struct stp_context *c)\n{\n"
	    << "\tstruct stp_fr_" << n << " *f __maybe_unused = &c->frames[c->nesting - 1].fn_" << n
	    << ";\n\n"
	    << "\tc->loc = " << c_string(f.fn->loc.str()) << ";\n";
	for (auto &l : f.locals)
		if (l->param)
			out << "#define STAP_ARG_" << l->name << " (f->l_" << l->name << ")\n";
	out << "#define STAP_RETVALUE (f->ret)\n"
	    << (str ? "#define STAP_RETURN(v) do { stp_strlcpy(f->ret, (v)); return; } while (0)\n"
		    : "#define STAP_RETURN(v) do { f->ret = (v); return; } while (0)\n")
	    << "#define STAP_ERROR(...) do { if (!c->error) { scnprintf(c->errmsg, "
	       "sizeof(c->errmsg), __VA_ARGS__); stp_error(c, c->errmsg); } return; } while (0)\n"
	    << "\t{\n" << cmap::embedded(f.fn->embedded_loc, f.fn->embedded) << "\n\t}\n"
	    << cmap::end_marker() << "\n";
	for (auto &l : f.locals)
		if (l->param)
			out << "#undef STAP_ARG_" << l->name << "\n";
	out << "#undef STAP_RETVALUE\n#undef STAP_RETURN\n#undef STAP_ERROR\n}\n\n";
}

// @entry(expr) of a .return body: a function that computes each expression
// when the function is entered (the probe's entry_fn: stp_run_entry_fn() in
// runtime/stp_handlers.h), into the call's kretprobe instance data or
// uretprobe entry slot. An expression that raises an error there is marked
// in the mask the function returns and the next one computed: the error is
// the return body's, raised only if it reads that value (a body whose filter
// skips a call never sees its entry's errors).
unsigned Emitter::entry_function(size_t i, std::ostringstream &out)
{
	const ProbeBody &b = sema_.bodies[i];
	ctx_ = Ctx();
	ctx_.prefix = "c->l.p" + std::to_string(i) + ".";
	out << "/* probe " << b.probe->loc.str() << ": @entry(...) at entry */\n"
	    << "static u64 stp_entry_" << i << "(struct stp_context *c, s64 *vals)\n{\n"
	    << "\tu64 failed = 0;\n\n";
	out_ = &out;
	for (size_t k = 0; k < b.entry_exprs.size(); k++) {
		std::string v = expr(*b.entry_exprs[k]);
		line(1) << "vals[" << k << "] = " << v << ";\n";
		line(1) << "if (unlikely(c->error)) {\n";
		line(2) << "failed |= 1ULL << " << std::min<size_t>(k, 63) << ";\n";
		line(2) << "c->error = 0;\n";
		line(1) << "}\n";
	}
	out << "\treturn failed;\n}\n\n";
	return ctx_.max_temps;
}

void Emitter::body(size_t i, std::ostringstream &out)
{
	const ProbeBody &b = sema_.bodies[i];
	unsigned entry_temps = b.entry_exprs.empty() ? 0 : entry_function(i, out);
	body_ = i;
	ctx_ = Ctx();
	ctx_.prefix = "c->l.p" + std::to_string(i) + ".";
	out << "/* probe " << b.probe->loc.str() << " */\n"
	    << "static void stp_probe_" << i << "(struct stp_context *c)\n{\n"
	    << cmap::marker(b.probe->loc) << "\n";
	for (auto &l : b.locals) {
		if (l->type == Type::String)
			out << "\t" << ctx_.prefix << "l_" << l->name << "[0] = '\\0';\n";
		else if (is_local_stat(*l))
			out << "\tmemset(&" << ctx_.prefix << "l_" << l->name << ", 0, sizeof("
			    << ctx_.prefix << "l_" << l->name << "));\n";
		else
			out << "\t" << ctx_.prefix << "l_" << l->name << " = 0;\n";
	}
	if (sema_.regex_submatches) // matched() sees this hit's matches only
		out << "\tc->regex.valid = 0;\n";
	out_ = &out;
	if (b.calls.empty())
		ctx_.actions_bound = straight_actions(*b.body);
	block_body(*b.body, 1);
	out << "}\n" << cmap::end_marker() << "\n\n";
	body_temps_[i] = std::max(ctx_.max_temps, entry_temps);
}

std::ostream &Emitter::line(int ind)
{
	for (int i = 0; i < ind; i++)
		*out_ << '\t';
	return *out_;
}

// What leaves the body after a script error: the enclosing catch, or
// return; foreach iterations that end are released first.
std::string Emitter::error_exit()
{
	size_t depth = ctx_.tries.size();
	std::string out;
	for (auto it = ctx_.foreach.rbegin(); it != ctx_.foreach.rend(); ++it) {
		if (depth && it->second < depth)
			break;
		out += it->first + ".iterating = false; ";
	}
	std::string jump = depth ? "goto stp_catch_" + std::to_string(ctx_.tries.back()) + ";"
				 : "return;";
	return out.empty() ? jump : "{ " + out + jump + " }";
}

std::string Emitter::all_foreach_release()
{
	std::string out;
	for (auto it = ctx_.foreach.rbegin(); it != ctx_.foreach.rend(); ++it)
		out += it->first + ".iterating = false; ";
	return out;
}

unsigned Emitter::count_actions(const Stmt &s)
{
	if (s.kind == StmtKind::Block) {
		unsigned n = 0;
		for (const StmtPtr &b : s.body)
			if (b->kind != StmtKind::Block && b->kind != StmtKind::Empty)
				n++;
		return n;
	}
	return s.kind == StmtKind::Empty ? 0 : 1;
}

// The most actions a body without calls can count: each statement (not a
// block, not empty) runs at most once when there is no loop, and is counted
// by one block_body. -1 with a loop.
long Emitter::straight_actions(const Stmt &s)
{
	if (s.kind == StmtKind::While || s.kind == StmtKind::For || s.kind == StmtKind::Foreach)
		return -1;
	long n = s.kind != StmtKind::Block && s.kind != StmtKind::Empty ? 1 : 0;
	for (const StmtPtr &b : s.body) {
		long k = b ? straight_actions(*b) : 0;
		if (k < 0)
			return -1;
		n += k;
	}
	return n;
}

// The statements of a block, with its MAXACTION accounting first. In a
// body that cannot count more than actions_bound actions the accounting
// is compiled only when MAXACTION is lower (the same errors, at the same
// statements; nothing to do per hit otherwise).
void Emitter::block_body(const Stmt &s, int ind)
{
	unsigned n = count_actions(s);
	if (n && ctx_.actions_bound >= 0) {
		line(ind) << "if (STP_MAXACTION < " << ctx_.actions_bound << ") {\n";
		line(ind + 1) << "c->loc = " << c_string(s.loc.str()) << ";\n";
		line(ind + 1) << "if (unlikely(stp_actions(c, " << n << ")))\n";
		line(ind + 2) << error_exit() << "\n";
		line(ind) << "}\n";
	} else if (n) {
		line(ind) << "c->loc = " << c_string(s.loc.str()) << ";\n";
		line(ind) << "if (unlikely(stp_actions(c, " << n << ")))\n";
		line(ind + 1) << error_exit() << "\n";
	}
	if (s.kind == StmtKind::Block) {
		for (const StmtPtr &b : s.body)
			stmt(*b, ind);
	} else {
		stmt(s, ind);
	}
}

// Emits code for e as a statement prefix check: sets c->loc and checks
// the error after it when it can fail.
void Emitter::checked(const Stmt &s, const std::string &code, bool may_fail, int ind)
{
	if (may_fail)
		line(ind) << "c->loc = " << c_string(s.loc.str()) << ";\n";
	line(ind) << "(void)(" << code << ");\n";
	if (may_fail) {
		line(ind) << "if (unlikely(c->error))\n";
		line(ind + 1) << error_exit() << "\n";
	}
}

std::string Emitter::eval(const Expr &e, bool &may_fail)
{
	may_fail_ = false;
	std::string code = expr(e);
	may_fail = may_fail_;
	return code;
}

void Emitter::stmt(const Stmt &s, int ind)
{
	bool mf;
	if (s.kind != StmtKind::Block && s.kind != StmtKind::Empty)
		line(ind) << cmap::marker(s.loc) << "\n";
	switch (s.kind) {
	case StmtKind::Block:
		line(ind) << "{\n";
		block_body(s, ind + 1);
		line(ind) << "}\n";
		break;
	case StmtKind::Expr: {
		std::string code = eval(*s.expr, mf);
		checked(s, code, mf, ind);
		break;
	}
	case StmtKind::If: {
		if (auto f = sema_.folded.find(s.expr.get()); f != sema_.folded.end()) {
			// known at translation time: only the live side was checked
			size_t live = f->second ? 0 : 1;
			if (live < s.body.size())
				stmt(*s.body[live], ind);
			break;
		}
		std::string cond = eval(*s.expr, mf);
		if (mf)
			line(ind) << "c->loc = " << c_string(s.loc.str()) << ";\n";
		line(ind) << "if (" << cond << ") {\n";
		if (mf) {
			line(ind + 1) << "if (unlikely(c->error))\n";
			line(ind + 2) << error_exit() << "\n";
		}
		block_body(*s.body[0], ind + 1);
		line(ind) << "}";
		if (s.body.size() > 1 || mf) {
			*out_ << " else {\n";
			if (mf) {
				line(ind + 1) << "if (unlikely(c->error))\n";
				line(ind + 2) << error_exit() << "\n";
			}
			if (s.body.size() > 1)
				block_body(*s.body[1], ind + 1);
			line(ind) << "}";
		}
		*out_ << "\n";
		break;
	}
	case StmtKind::Empty:
		break;
	case StmtKind::Next:
		line(ind) << "{ " << all_foreach_release() << "return; }\n";
		break;
	case StmtKind::Return:
		ret(s, ind);
		break;
	case StmtKind::Break:
		line(ind) << "break;\n";
		break;
	case StmtKind::Continue:
		line(ind) << ctx_.continues.back() << "\n";
		break;
	case StmtKind::While:
		loop(s, nullptr, s.expr.get(), nullptr, ind);
		break;
	case StmtKind::For:
		loop(s, s.exprs[0].get(), s.exprs[1].get(), s.exprs[2].get(), ind);
		break;
	case StmtKind::Foreach:
		foreach(s, ind);
		break;
	case StmtKind::Delete: {
		std::string code = del(*s.expr, mf);
		checked(s, code, mf, ind);
		break;
	}
	case StmtKind::Try:
		try_stmt(s, ind);
		break;
	case StmtKind::EmbeddedC: // the text, on lines of its own (cmap.h)
		line(ind) << "{\n" << cmap::embedded(s.loc, s.text) << "\n";
		line(ind) << "}\n";
		break;
	}
}

void Emitter::ret(const Stmt &s, int ind)
{
	if (!ctx_.fn) {
		line(ind) << "return;\n";
		return;
	}
	if (s.expr) {
		bool mf;
		std::string v = eval(*s.expr, mf);
		std::string code = fn_->ret == Type::String ? "stp_strlcpy(f->ret, " + v + ")"
							    : "f->ret = " + v;
		checked(s, code, mf, ind);
	}
	line(ind) << "{ " << all_foreach_release() << "return; }\n";
}

// while (cond) and for (init; cond; step): the condition and step run
// inside the C loop so that errors in them are checked like statements.
void Emitter::loop(const Stmt &s, const Expr *init, const Expr *cond, const Expr *step, int ind)
{
	bool mf;
	int id = label_++;
	line(ind) << "{\n";
	if (init) {
		std::string code = eval(*init, mf);
		checked(s, code, mf, ind + 1);
	}
	line(ind + 1) << "for (;;) {\n";
	line(ind + 2) << "c->loc = " << c_string(s.loc.str()) << ";\n";
	line(ind + 2) << "if (unlikely(stp_actions(c, 1)))\n";
	line(ind + 3) << error_exit() << "\n";
	if (cond) {
		std::string code = eval(*cond, mf);
		line(ind + 2) << "if (!(" << code << "))\n";
		line(ind + 3) << "break;\n";
		if (mf) {
			line(ind + 2) << "if (unlikely(c->error))\n";
			line(ind + 3) << error_exit() << "\n";
		}
	}
	ctx_.continues.push_back(step ? "goto stp_cont_" + std::to_string(id) + ";"
				      : "continue;");
	block_body(*s.body[0], ind + 2);
	ctx_.continues.pop_back();
	if (step) {
		line(ind + 1) << "stp_cont_" << id << ": __maybe_unused;\n";
		std::string code = eval(*step, mf);
		checked(s, code, mf, ind + 2);
	}
	line(ind + 1) << "}\n";
	line(ind) << "}\n";
}

void Emitter::store_var(const Symbol &v, const std::string &val, Type t, int ind)
{
	if (t == Type::String)
		line(ind) << "stp_strlcpy(" << local_ref(v) << ", " << val << ");\n";
	else
		line(ind) << local_ref(v) << " = " << val << ";\n";
}

void Emitter::foreach(const Stmt &s, int ind)
{
	if (s.expr) {
		foreach_hist(s, ind);
		return;
	}
	auto ait = sema_.stmt_array.find(&s);
	if (ait == sema_.stmt_array.end())
		return;
	const Symbol &arr = *ait->second;
	std::string m = "g_" + arr.name;
	int id = label_++;
	std::string n = "fe_n" + std::to_string(id), i = "fe_i" + std::to_string(id),
		    e = "fe_e" + std::to_string(id), lim = "fe_l" + std::to_string(id);
	int col = s.sort_col < 0 ? 0 : s.sort_col;
	line(ind) << "{\n";
	line(ind + 1) << "u32 " << n << ", " << i << ";\n";
	line(ind + 1) << "s64 " << lim << " = S64_MAX;\n\n";
	foreach_limit(s, lim, ind + 1);
	std::string k = "fe_k" + std::to_string(id);
	if (!s.exprs.empty())
		slice_key(s, arr, k, ind + 1);
	line(ind + 1) << "c->loc = " << c_string(s.loc.str()) << ";\n";
	line(ind + 1) << n << " = stp_map_sort(c, &" << m << ", " << col << ", " << s.sort_dir
		      << ");\n";
	line(ind + 1) << "if (unlikely(c->error))\n";
	line(ind + 2) << error_exit() << "\n";
	if (!s.exprs.empty())
		line(ind + 1) << n << " = stp_map_slice(&" << m << ", " << n << ", &" << k << ", "
			      << wildcards(s.exprs) << "U);\n";
	ctx_.foreach.push_back({m, ctx_.tries.size()});
	line(ind + 1) << "for (" << i << " = 0; " << i << " < " << n << " && " << i << " < "
		      << lim << "; " << i << "++) {\n";
	line(ind + 2) << "struct stp_ment *" << e << " = stp_map_ent(&" << m << ", " << m
		      << ".order[" << i << "]);\n\n";
	const auto &vars = sema_.stmt_vars.at(&s);
	for (size_t k = 0; k < vars.size(); k++) {
		Type kt = k < arr.keys.size() ? arr.keys[k] : Type::Long;
		std::string val = kt == Type::String
					  ? "stp_mkey_str(&" + m + ", " + e + ", " + std::to_string(k) + ")"
					  : "stp_mkey_long(&" + m + ", " + e + ", " + std::to_string(k) + ")";
		store_var(*vars[k], val, kt, ind + 2);
	}
	if (auto vit = sema_.stmt_value.find(&s); vit != sema_.stmt_value.end()) {
		std::string val = arr.type == Type::String
					  ? "(const char *)stp_mval(&" + m + ", " + e + ")"
					  : "*(s64 *)stp_mval(&" + m + ", " + e + ")";
		store_var(*vit->second, val, arr.type, ind + 2);
	}
	ctx_.continues.push_back("continue;");
	block_body(*s.body[0], ind + 2);
	ctx_.continues.pop_back();
	ctx_.foreach.pop_back();
	line(ind + 1) << "}\n";
	line(ind + 1) << m << ".iterating = false;\n";
	line(ind) << "}\n";
}

void Emitter::slice_key(const Stmt &s, const Symbol &arr, const std::string &k, int ind)
{
	line(ind) << "struct stp_key " << k << " = { };\n";
	for (size_t i = 0; i < s.exprs.size(); i++) {
		const Expr &x = *s.exprs[i];
		if (x.kind == ExprKind::Wildcard)
			continue;
		bool mf;
		std::string code = eval(x, mf);
		line(ind) << "c->loc = " << c_string(x.loc.str()) << ";\n";
		// a string is copied: the body may change what the key was read from
		if (i < arr.keys.size() && arr.keys[i] == Type::String)
			line(ind) << k << ".s[" << i << "] = stp_strlcpy(" << temp() << ", " << code
				  << ");\n";
		else
			line(ind) << k << ".n[" << i << "] = " << code << ";\n";
		if (mf) {
			line(ind) << "if (unlikely(c->error))\n";
			line(ind + 1) << error_exit() << "\n";
		}
	}
}

// foreach ... limit N: N evaluated once into lim, before the loop.
void Emitter::foreach_limit(const Stmt &s, const std::string &lim, int ind)
{
	if (!s.limit)
		return;
	bool mf;
	std::string code = eval(*s.limit, mf);
	line(ind) << "c->loc = " << c_string(s.loc.str()) << ";\n";
	line(ind) << lim << " = " << code << ";\n";
	if (mf) {
		line(ind) << "if (unlikely(c->error))\n";
		line(ind + 1) << error_exit() << "\n";
	}
}

void Emitter::foreach_hist(const Stmt &s, int ind)
{
	const Expr &h = *s.expr;
	const Symbol *sym = h.args.empty() ? nullptr : sema_.symbol_of(*h.args[0]);
	if (!sym)
		return;
	int id = label_++;
	std::string b = "fe_b" + std::to_string(id), lim = "fe_l" + std::to_string(id);
	line(ind) << "{\n";
	line(ind + 1) << "s64 " << b << ", " << lim << " = S64_MAX;\n\n";
	foreach_limit(s, lim, ind + 1);
	line(ind + 1) << "for (" << b << " = 0; " << b << " < " << hist_index_count(*sym) << " && "
		      << b << " < " << lim << "; " << b << "++) {\n";
	const auto &vars = sema_.stmt_vars.at(&s);
	if (!vars.empty())
		store_var(*vars[0], b, Type::Long, ind + 2);
	if (auto vit = sema_.stmt_value.find(&s); vit != sema_.stmt_value.end()) {
		bool mf;
		may_fail_ = false;
		std::string v = hist_bucket(h, b);
		mf = may_fail_;
		line(ind + 2) << "c->loc = " << c_string(s.loc.str()) << ";\n";
		store_var(*vit->second, v, Type::Long, ind + 2);
		if (mf) {
			line(ind + 2) << "if (unlikely(c->error))\n";
			line(ind + 3) << error_exit() << "\n";
		}
	}
	ctx_.continues.push_back("continue;");
	block_body(*s.body[0], ind + 2);
	ctx_.continues.pop_back();
	line(ind + 1) << "}\n";
	line(ind) << "}\n";
}

void Emitter::try_stmt(const Stmt &s, int ind)
{
	int id = label_++;
	ctx_.tries.push_back(id);
	line(ind) << "{\n";
	block_body(*s.body[0], ind + 1);
	ctx_.tries.pop_back();
	line(ind + 1) << "goto stp_try_end_" << id << ";\n";
	line(ind) << "stp_catch_" << id << ": __maybe_unused;\n";
	line(ind + 1) << "c->error = 0;\n";
	if (auto vit = sema_.stmt_value.find(&s); vit != sema_.stmt_value.end())
		line(ind + 1) << "stp_strlcpy(" << local_ref(*vit->second) << ", c->errmsg);\n";
	block_body(*s.body[1], ind + 1);
	line(ind) << "stp_try_end_" << id << ": __maybe_unused;\n";
	line(ind) << "}\n";
}

std::string Emitter::del(const Expr &t, bool &mf)
{
	mf = false;
	const Symbol *sym = sema_.symbol_of(t);
	if (!sym)
		return "0";
	if (t.kind == ExprKind::Index) {
		may_fail_ = false;
		std::string k = key(t);
		mf = may_fail_;
		if (uint32_t w = wildcards(t.args))
			return "stp_map_delete_slice(&g_" + sym->name + ", " + k + ", " +
			       std::to_string(w) + "U)";
		return "stp_map_delete(&g_" + sym->name + ", " + k + ")";
	}
	if (sym->array)
		return "stp_map_clear(&g_" + sym->name + ")";
	if (is_scalar_stat(*sym))
		return "stp_reset_" + sym->name + "()";
	if (is_local_stat(*sym))
		return "memset(&" + local_ref(*sym) + ", 0, sizeof(" + local_ref(*sym) + "))";
	if (is_percpu_number(*sym)) // begin, end, error only (sema/storage.cpp)
		return "stp_pcpu_set_" + sym->name + "(0)";
	std::string r = var_ref(*sym);
	if (sym->type == Type::String)
		return r + "[0] = '\\0'";
	return r + " = 0";
}

} // namespace stap_pmu::codegen_impl
