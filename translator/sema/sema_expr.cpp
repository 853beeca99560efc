// sema_expr.cpp - Checker: expression typing, operators, assignments and lvalues.
#include <functional>
#include "translator/sema/sema_impl.h"

namespace stap_pmu::sema_impl {

// Checks that e has type want (learning a variable's type from the use).
void Checker::expect_type(const Expr &e, Type want, const std::string &what)
{
	Type t = expr(e);
	if (t == Type::Unknown) {
		// learn from the use; the node's type is what was learned
		if (e.kind == ExprKind::Var || e.kind == ExprKind::Index) {
			if (auto it = r_.symbols.find(&e); it != r_.symbols.end()) {
				Symbol &sym = const_cast<Symbol &>(*it->second);
				if (!(e.kind == ExprKind::Var && (sym.array || sym.type == Type::Stats))) {
					learn(sym, want);
					t = set(e, sym.type);
				}
			}
		} else if (e.kind == ExprKind::Call) {
			if (auto it = r_.call_of.find(&e); it != r_.call_of.end()) {
				learn_type(r_.functions[it->second].ret, want);
				t = set(e, r_.functions[it->second].ret);
			}
		}
	}
	if (t != want && t != Type::Unknown)
		error(e.loc, what + " must be " + type_name(want) + ", not " + type_name(t));
}

Type Checker::expr(const Expr &e)
{
	switch (e.kind) {
	case ExprKind::Number:
		return set(e, Type::Long);
	case ExprKind::String:
		return set(e, Type::String);
	case ExprKind::Var: {
		Type t = var(e);
		if (t == Type::Stats) {
			error(e.loc, "'" + e.text + "' is a statistics aggregate; read it with "
						      "@count, @sum, @min, @max, @avg or @variance");
			return set(e, Type::Unknown); // reported once
		}
		return t;
	}
	case ExprKind::Index:
		return index(e, false);
	case ExprKind::In: {
		wildcard_ok_ = true; // [*, k] in a
		array_ref(e.text, e.loc, &e, &e.args, e.args.size());
		wildcard_ok_ = false;
		return set(e, Type::Long);
	}
	case ExprKind::Wildcard:
		error(e.loc, "'*' (any key) only stands in an array slice",
		      "foreach ([a, b] in arr[*, k]), delete arr[*, k] or [*, k] in arr");
		return set(e, Type::Unknown);
	case ExprKind::HistIndex:
		return hist_index(e);
	case ExprKind::Unary:
		if (e.text == "&")
			return address_of(e);
		expect_type(*e.args[0], Type::Long, "operand of '" + e.text + "'");
		return set(e, Type::Long);
	case ExprKind::Binary:
		return binary(e);
	case ExprKind::Ternary: {
		expect_type(*e.args[0], Type::Long, "condition of '?:'");
		if (int f = folded_cond(*e.args[0]); f >= 0) // @defined($x) ? $x : 0
			return set(e, expr(*e.args[f ? 1 : 2]));
		Type a = expr(*e.args[1]), b = expr(*e.args[2]);
		if (a == Type::Unknown && b != Type::Unknown)
			expect_type(*e.args[1], b, "first branch of '?:'");
		else if (b == Type::Unknown && a != Type::Unknown)
			expect_type(*e.args[2], a, "second branch of '?:'");
		else if (a != Type::Unknown && b != Type::Unknown && a != b)
			error(e.loc, std::string("the two branches of '?:' have different types (") +
					     type_name(a) + " and " + type_name(b) + ")");
		return set(e, a != Type::Unknown ? a : b);
	}
	case ExprKind::Assign:
		return assign(e);
	case ExprKind::IncDec:
		return incdec(e);
	case ExprKind::Call:
		return call(e);
	case ExprKind::AtCall:
		return at_call(e);
	case ExprKind::EmbeddedC: // a C expression: long, or string with /* string */
		return set(e, e.text.find("/* string */") != std::string::npos ? Type::String
									      : Type::Long);
	}
	return Type::Unknown;
}

void Checker::check_children(const Expr &e)
{
	for_each_child(e, [&](const Expr &a) { expr(a); });
}

Type Checker::binary(const Expr &e)
{
	const std::string &op = e.text;
	if (op == ".") {
		expect_type(*e.args[0], Type::String, "left operand of '.'");
		expect_type(*e.args[1], Type::String, "right operand of '.'");
		return set(e, Type::String);
	}
	if (op == "=~" || op == "!~") {
		expect_type(*e.args[0], Type::String, "left operand of '" + op + "'");
		expr(*e.args[1]); // a string literal (the parser checked)
		regex_use(e);
		return set(e, Type::Long);
	}
	if (op == "==" || op == "!=" || op == "<" || op == ">" || op == "<=" || op == ">=") {
		Type a = expr(*e.args[0]), b = expr(*e.args[1]);
		if (a == Type::Unknown && b != Type::Unknown)
			expect_type(*e.args[0], b, "left operand of '" + op + "'");
		else if (b == Type::Unknown && a != Type::Unknown)
			expect_type(*e.args[1], a, "right operand of '" + op + "'");
		else if (a != b)
			error(e.loc, "cannot compare " + std::string(type_name(a)) + " with " +
					     type_name(b) + " using '" + op + "'");
		return set(e, Type::Long);
	}
	expect_type(*e.args[0], Type::Long, "left operand of '" + op + "'");
	if (op == "&&" || op == "||") { // @defined($x) && $x > 0: the right side may be dead
		int f = folded_cond(*e.args[0]);
		if (f == (op == "&&" ? 0 : 1))
			return set(e, Type::Long);
	}
	expect_type(*e.args[1], Type::Long, "right operand of '" + op + "'");
	return set(e, Type::Long);
}

// s =~ "re": the regex compiled now (an error at the literal when it is not
// one stap-pmu can run), once per distinct literal.
void Checker::regex_use(const Expr &e)
{
	const Expr &lit = *e.args[1];
	if (lit.kind != ExprKind::String) // the parser reported it
		return;
	for (size_t i = 0; i < r_.regex_sources.size(); i++)
		if (r_.regex_sources[i] == lit.text) {
			r_.regex_of[&e] = i;
			return;
		}
	auto prog = regex::compile(lit.text);
	if (!prog) {
		error(lit.loc, prog.error().what);
		return;
	}
	r_.regex_of[&e] = r_.regexes.size();
	r_.regexes.push_back(std::move(*prog));
	r_.regex_sources.push_back(lit.text);
}

void Checker::check_not_iterated(const Symbol &sym, SourceLoc loc)
{
	for (const Symbol *s : iterating_)
		if (s == &sym)
			error(loc, "array '" + sym.name + "' cannot be modified inside a foreach over it");
}

// Resolves the target of an assignment, ++/-- or <<<.
Symbol *Checker::lvalue(const Expr &target, const std::string &op)
{
	if (target.kind == ExprKind::Index) {
		Symbol *sym = array_ref(target.text, target.loc, &target, &target.args,
					target.args.size());
		if (sym) {
			sym->written = true;
			check_not_iterated(*sym, target.loc);
		}
		return sym;
	}
	if (target.kind != ExprKind::Var) {
		error(target.loc, "left side of '" + op + "' must be a variable or array element");
		expr(target);
		return nullptr;
	}
	Symbol *sym = resolve_var(target);
	if (!sym)
		return nullptr;
	sym->written = true;
	if (sym->array) {
		error(target.loc, "'" + sym->name + "' is an array; assign to an element " +
					  sym->name + "[...]");
		return nullptr;
	}
	if (sym->param && report_ && false)
		(void)0;
	return sym;
}

Type Checker::assign(const Expr &e)
{
	const std::string &op = e.text;
	const Expr &lhs = *e.args[0];
	Symbol *sym = lvalue(lhs, op);
	if (op == "<<<") {
		expect_type(*e.args[1], Type::Long, "value added with '<<<'");
		if (!sym)
			return set(e, Type::Void);
		learn(*sym, Type::Stats); // a global, or a local of the probe or function
		touch(*sym);
		if (sym->type != Type::Stats)
			error(lhs.loc, "'<<<' needs a statistics aggregate, but '" + sym->name +
					       "' is " + type_name(sym->type));
		set(lhs, Type::Stats);
		return set(e, Type::Void);
	}
	Type want = op == "=" ? Type::Unknown : op == ".=" ? Type::String : Type::Long;
	Type rt = want == Type::Unknown ? expr(*e.args[1]) : Type::Unknown;
	if (want != Type::Unknown)
		expect_type(*e.args[1], want, "right side of '" + op + "'");
	else
		want = rt;
	if (want == Type::Void) {
		error(e.args[1]->loc, "right side of '=' has no value");
		return set(e, Type::Unknown);
	}
	if (want == Type::Stats) {
		error(e.args[1]->loc, "statistics aggregates cannot be assigned");
		return set(e, Type::Unknown);
	}
	if (!sym)
		return set(e, want);
	if (sym->type == Type::Unknown && want == Type::Unknown && op == "=")
		expect_back(*e.args[1], *sym);
	learn(*sym, want);
	touch(*sym);
	set(lhs, sym->type);
	if (sym->type == Type::Stats)
		error(lhs.loc, "'" + sym->name + "' is a statistics aggregate; add values with '<<<'");
	else if (want != Type::Unknown && sym->type != want)
		error(e.loc, "type mismatch: '" + sym->name + "' is " + type_name(sym->type) +
				     ", assigned " + type_name(want));
	return set(e, sym->type);
}

Type Checker::incdec(const Expr &e)
{
	Symbol *sym = lvalue(*e.args[0], e.text);
	if (sym) {
		learn(*sym, Type::Long);
		sym->read = true;
		touch(*sym);
		set(*e.args[0], sym->type);
		if (sym->type != Type::Long)
			error(e.loc, "'" + e.text + "' needs a long, but '" + sym->name + "' is " +
					     type_name(sym->type));
	}
	return set(e, Type::Long);
}

// A condition made of @defined(...) with number literals, !, &&, || and
// comparisons of those, known after it was checked: 0 or 1 (recorded for
// codegen), or -1 when it depends on run time. SystemTap drops the branch
// such a condition rules out before it resolves target variables, which is
// what lets tapsets write @defined($new) ? $new : $old->field.
int Checker::folded_cond(const Expr &c)
{
	std::function<bool(const Expr &, int64_t &)> fold = [&](const Expr &x, int64_t &v) {
		if (x.kind == ExprKind::Number)
			return const_long(x, v);
		if (x.kind == ExprKind::AtCall && x.text == "defined") {
			auto it = r_.const_of.find(&x);
			if (it == r_.const_of.end())
				return false;
			v = it->second;
			return true;
		}
		if (x.kind == ExprKind::Unary && x.text == "!") {
			if (!fold(*x.args[0], v))
				return false;
			v = !v;
			return true;
		}
		if (x.kind != ExprKind::Binary)
			return false;
		int64_t a = 0, b = 0;
		if (!fold(*x.args[0], a))
			return false;
		if (x.text == "&&" && !a)
			return v = 0, true;
		if (x.text == "||" && a)
			return v = 1, true;
		if (!fold(*x.args[1], b))
			return false;
		if (x.text == "&&" || x.text == "||")
			v = b != 0;
		else if (x.text == "==")
			v = a == b;
		else if (x.text == "!=")
			v = a != b;
		else
			return false;
		return true;
	};
	bool any_defined = false; // literals alone are left to run time
	std::function<void(const Expr &)> seek = [&](const Expr &x) {
		any_defined = any_defined || (x.kind == ExprKind::AtCall && x.text == "defined");
		if (x.kind == ExprKind::Unary || x.kind == ExprKind::Binary)
			for_each_child(x, seek);
	};
	seek(c);
	int64_t v = 0;
	if (!any_defined || !fold(c, v))
		return -1;
	r_.folded[&c] = v != 0;
	return v != 0;
}

} // namespace stap_pmu::sema_impl
