// sema_stmt.cpp - Checker: statements (loops, return, delete, foreach).
#include "translator/sema/sema_impl.h"

namespace stap_pmu::sema_impl {

void Checker::stmt(const Stmt &s)
{
	switch (s.kind) {
	case StmtKind::Block:
		for (const StmtPtr &b : s.body)
			stmt(*b);
		break;
	case StmtKind::Expr:
		expr(*s.expr);
		break;
	case StmtKind::If: {
		expect_type(*s.expr, Type::Long, "condition of 'if'");
		int f = folded_cond(*s.expr); // if (@defined($x)) ...: one side is dead
		for (size_t i = 0; i < s.body.size(); i++)
			if (f < 0 || (f == 1) == (i == 0))
				stmt(*s.body[i]);
		break;
	}
	case StmtKind::Empty:
		break;
	case StmtKind::Next:
		if (scope_.fn)
			error(s.loc, "'next' is only allowed in a probe, not in a function");
		break;
	case StmtKind::Break:
	case StmtKind::Continue:
		if (!loops_)
			error(s.loc, std::string("'") + (s.kind == StmtKind::Break ? "break" : "continue") +
					     "' outside a loop");
		break;
	case StmtKind::Return:
		ret(s);
		break;
	case StmtKind::While:
		expect_type(*s.expr, Type::Long, "condition of 'while'");
		loop(*s.body[0]);
		break;
	case StmtKind::For:
		if (s.exprs[0])
			expr(*s.exprs[0]);
		if (s.exprs[1])
			expect_type(*s.exprs[1], Type::Long, "condition of 'for'");
		if (s.exprs[2])
			expr(*s.exprs[2]);
		loop(*s.body[0]);
		break;
	case StmtKind::Foreach:
		foreach(s);
		break;
	case StmtKind::Delete:
		del(s);
		break;
	case StmtKind::Try: {
		stmt(*s.body[0]);
		if (!s.name.empty()) {
			Symbol *v = find_in(*scope_.locals, s.name);
			if (v) {
				learn(*v, Type::String);
				v->written = true;
				if (v->type != Type::String)
					error(s.value_loc, "catch variable '" + s.name + "' must be a string, but it is " +
								   type_name(v->type));
				r_.stmt_value[&s] = v;
			} else {
				error(s.value_loc, "catch variable '" + s.name + "' must not be a global");
			}
		}
		stmt(*s.body[1]);
		break;
	}
	case StmtKind::EmbeddedC: // guru mode: copied into the C as is
		break;
	}
}

void Checker::loop(const Stmt &body)
{
	loops_++;
	stmt(body);
	loops_--;
}

void Checker::ret(const Stmt &s)
{
	FunctionInfo *f = scope_.fn;
	if (!f) // the parser refuses 'return' in a probe
		return;
	if (!s.expr) {
		if (f->ret != Type::Unknown && f->ret != Type::Void)
			error(s.loc, "function '" + f->fn->name + "' must return a " +
					     type_name(f->ret));
		return;
	}
	Type t = expr(*s.expr);
	if (t == Type::Unknown && f->ret != Type::Unknown)
		expect_type(*s.expr, f->ret, "return value");
	learn_type(f->ret, t);
	if (t == Type::Stats)
		error(s.expr->loc, "a function cannot return a statistics aggregate");
	else if (t == Type::Void)
		error(s.expr->loc, "return value has no value");
	else if (t != Type::Unknown && f->ret != t)
		error(s.expr->loc, "function '" + f->fn->name + "' returns " + type_name(f->ret) +
					   ", not " + type_name(t));
}

void Checker::del(const Stmt &s)
{
	const Expr &t = *s.expr;
	if (t.kind == ExprKind::Index) {
		wildcard_ok_ = true; // delete a[*, k]
		Symbol *sym = array_ref(t.text, t.loc, &t, &t.args, t.args.size());
		wildcard_ok_ = false;
		if (sym)
			check_not_iterated(*sym, t.loc);
		return;
	}
	if (t.kind == ExprKind::Var) {
		Symbol *sym = resolve_var(t);
		if (!sym)
			return;
		if (sym->array)
			check_not_iterated(*sym, t.loc);
		set(t, sym->type);
		return;
	}
	error(t.loc, "'delete' needs a variable, an array or an array element");
}

void Checker::foreach(const Stmt &s)
{
	if (s.expr) {
		foreach_hist(s);
		return;
	}
	const std::vector<ExprPtr> *slice = s.exprs.empty() ? nullptr : &s.exprs;
	if (slice && s.exprs.size() != s.names.size()) {
		error(s.array_loc, "the slice of '" + s.name + "' has " +
					   std::to_string(s.exprs.size()) + " key(s), the foreach " +
					   std::to_string(s.names.size()) + " key variable(s)",
		      "write one key or '*' per key variable, e.g. foreach ([a, b] in " + s.name +
			      "[*, k])");
		slice = nullptr;
	}
	wildcard_ok_ = true; // foreach (... in a[*, k])
	Symbol *arr = array_ref(s.name, s.array_loc, nullptr, slice, s.names.size());
	wildcard_ok_ = false;
	std::vector<const Symbol *> vars;
	for (size_t i = 0; i < s.names.size(); i++) {
		Symbol *v = find_in(*scope_.locals, s.names[i]);
		if (!v) {
			error(s.name_locs[i], "foreach key variable '" + s.names[i] +
						      "' must not be a global");
			continue;
		}
		vars.push_back(v);
		v->written = true;
		if (arr && static_cast<int>(i) < arr->arity) {
			learn(*v, arr->keys[i]);
			learn_type(arr->keys[i], v->type);
			if (v->type != Type::Unknown && arr->keys[i] != Type::Unknown &&
			    v->type != arr->keys[i])
				error(s.name_locs[i], "key variable '" + v->name + "' is " +
							      type_name(v->type) + ", but key " +
							      std::to_string(i + 1) + " of '" + arr->name +
							      "' is " + type_name(arr->keys[i]));
		}
	}
	if (arr) {
		r_.stmt_array[&s] = arr;
		arr->read = true;
	}
	r_.stmt_vars[&s] = vars;
	if (!s.value.empty()) {
		Symbol *v = find_in(*scope_.locals, s.value);
		if (!v) {
			error(s.value_loc, "foreach value variable '" + s.value + "' must not be a global");
		} else if (arr) {
			v->written = true;
			if (arr->type == Type::Stats) {
				error(s.value_loc, "value binding over a statistics array is not supported yet",
				      "read the element with @count(" + arr->name + "[...]) etc.");
			} else {
				learn(*v, arr->type);
				learn(*arr, v->type);
				if (v->type != arr->type && v->type != Type::Unknown &&
				    arr->type != Type::Unknown)
					error(s.value_loc, "value variable '" + v->name + "' is " +
								   type_name(v->type) + ", but '" + arr->name +
								   "' holds " + type_name(arr->type));
			}
			r_.stmt_value[&s] = v;
		}
	}
	if (s.sort_col > static_cast<int>(s.names.size()))
		error(s.loc, "sort mark on a key that does not exist");
	if (s.limit)
		expect_type(*s.limit, Type::Long, "foreach limit");
	if (arr)
		iterating_.push_back(arr);
	loop(*s.body[0]);
	if (arr)
		iterating_.pop_back();
}

void Checker::foreach_hist(const Stmt &s)
{
	const Expr &h = *s.expr;
	if (h.kind != ExprKind::AtCall || (h.text != "hist_log" && h.text != "hist_linear")) {
		error(h.loc, "foreach iterates an array or a histogram, not @" + h.text + "(...)",
		      "e.g. foreach (b in @hist_log(s))");
		expr(h);
	} else {
		hist_op(h);
	}
	if (s.names.size() != 1)
		error(s.name_locs[s.names.size() > 1 ? 1 : 0],
		      "foreach over a histogram takes one key variable, the bucket index");
	std::vector<const Symbol *> vars;
	for (size_t i = 0; i < s.names.size() && i < 1; i++) {
		Symbol *v = find_in(*scope_.locals, s.names[i]);
		if (!v) {
			error(s.name_locs[i], "foreach key variable '" + s.names[i] +
						      "' must not be a global");
			continue;
		}
		v->written = true;
		learn(*v, Type::Long);
		if (v->type != Type::Long)
			error(s.name_locs[i], "key variable '" + v->name + "' is " +
						      type_name(v->type) + ", but a histogram bucket index is long");
		vars.push_back(v);
	}
	r_.stmt_vars[&s] = vars;
	if (!s.value.empty()) {
		Symbol *v = find_in(*scope_.locals, s.value);
		if (!v) {
			error(s.value_loc, "foreach value variable '" + s.value + "' must not be a global");
		} else {
			v->written = true;
			learn(*v, Type::Long);
			if (v->type != Type::Long)
				error(s.value_loc, "value variable '" + v->name + "' is " +
							   type_name(v->type) + ", but a bucket count is long");
			r_.stmt_value[&s] = v;
		}
	}
	if (s.sort_col >= 0)
		error(s.loc, "histogram buckets cannot be sorted: foreach visits them in bucket order");
	if (s.limit)
		expect_type(*s.limit, Type::Long, "foreach limit");
	loop(*s.body[0]);
}

} // namespace stap_pmu::sema_impl
