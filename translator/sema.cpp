// sema.cpp - name binding, type inference and checking.
//
// Types flow from assignments: the pass walks every probe body repeatedly,
// learning variable types, until nothing changes; a final walk reports.
#include "translator/sema.h"

#include <set>

#include "translator/builtins.h"
#include "translator/suggest.h"

namespace stap_pmu {

namespace {

const std::set<std::string> stat_ops = {"count", "sum", "min", "max", "avg"};

class Checker {
public:
	Checker(const Script &s, Diagnostics &d) : script_(s), diags_(d) {}

	SemaResult run()
	{
		declare_globals();
		resolve_probes();
		for (size_t i = 0; i < script_.probes.size(); i++)
			declare_locals(i);
		// Learn types until stable; every round can only fill Unknowns.
		for (int round = 0; round < 8; round++) {
			changed_ = false;
			walk_all(false);
			if (!changed_)
				break;
		}
		unsigned before = diags_.error_count();
		walk_all(true);
		// An unresolved type after other errors is usually their echo.
		check_unresolved(diags_.error_count() == before);
		return std::move(r_);
	}

private:
	// ---- declarations ----

	void declare_globals()
	{
		for (const Global &g : script_.globals) {
			if (find_global(g.name)) {
				diags_.error(g.loc, "global '" + g.name + "' is declared twice");
				continue;
			}
			auto sym = std::make_unique<Symbol>();
			sym->name = g.name;
			sym->global = true;
			sym->decl = g.loc;
			sym->init = g.init.get();
			if (g.init)
				sym->type = g.init->kind == ExprKind::String ? Type::String : Type::Long;
			r_.globals.push_back(std::move(sym));
		}
	}

	void resolve_probes()
	{
		for (size_t i = 0; i < script_.probes.size(); i++) {
			const Probe &p = script_.probes[i];
			ProbeBody body;
			body.probe = &p;
			r_.bodies.push_back(std::move(body));
			for (const ProbePoint &pp : p.points) {
				auto rp = resolve_probe_point(pp, diags_);
				if (rp)
					r_.instances.push_back({std::move(*rp), i});
			}
		}
	}

	Symbol *find_global(const std::string &name)
	{
		for (auto &g : r_.globals)
			if (g->name == name)
				return g.get();
		return nullptr;
	}

	Symbol *find_local(size_t body, const std::string &name)
	{
		for (auto &l : r_.bodies[body].locals)
			if (l->name == name)
				return l.get();
		return nullptr;
	}

	// Locals are the non-global variables a probe body assigns to.
	void declare_locals(size_t body)
	{
		collect_assigned(*script_.probes[body].body, body);
	}

	void collect_assigned(const Stmt &s, size_t body)
	{
		if (s.expr)
			collect_assigned(*s.expr, body);
		for (const StmtPtr &b : s.body)
			collect_assigned(*b, body);
	}

	void collect_assigned(const Expr &e, size_t body)
	{
		if ((e.kind == ExprKind::Assign || e.kind == ExprKind::IncDec) &&
		    e.args[0]->kind == ExprKind::Var) {
			const Expr &v = *e.args[0];
			if (!find_global(v.text) && !find_local(body, v.text)) {
				auto sym = std::make_unique<Symbol>();
				sym->name = v.text;
				sym->decl = v.loc;
				r_.bodies[body].locals.push_back(std::move(sym));
			}
		}
		for (const ExprPtr &a : e.args)
			collect_assigned(*a, body);
	}

	// ---- walking ----

	void walk_all(bool report)
	{
		report_ = report;
		for (size_t i = 0; i < script_.probes.size(); i++) {
			body_ = i;
			stmt(*script_.probes[i].body);
		}
	}

	void error(SourceLoc loc, std::string msg, std::string hint = {})
	{
		if (report_)
			diags_.error(loc, std::move(msg), std::move(hint));
	}

	void learn(Symbol &sym, Type t)
	{
		if (sym.type == Type::Unknown && t != Type::Unknown && t != Type::Void) {
			sym.type = t;
			changed_ = true;
		}
	}

	Type set(const Expr &e, Type t)
	{
		r_.types[&e] = t;
		return t;
	}

	void stmt(const Stmt &s)
	{
		switch (s.kind) {
		case StmtKind::Block:
			for (const StmtPtr &b : s.body)
				stmt(*b);
			break;
		case StmtKind::Expr:
			expr(*s.expr);
			break;
		case StmtKind::If:
			expect_type(*s.expr, Type::Long, "condition of 'if'");
			for (const StmtPtr &b : s.body)
				stmt(*b);
			break;
		case StmtKind::Empty:
		case StmtKind::Next:
			break;
		}
	}

	// Checks that e has type want (learning a variable's type from the use).
	void expect_type(const Expr &e, Type want, const std::string &what)
	{
		Type t = expr(e);
		if (t == Type::Unknown && e.kind == ExprKind::Var) {
			if (auto it = r_.symbols.find(&e); it != r_.symbols.end())
				learn(const_cast<Symbol &>(*it->second), want);
			t = expr(e);
		}
		if (t != want && t != Type::Unknown)
			error(e.loc, what + " must be " + type_name(want) + ", not " + type_name(t));
	}

	Symbol *lookup(const Expr &v)
	{
		if (Symbol *l = find_local(body_, v.text))
			return l;
		if (Symbol *g = find_global(v.text)) {
			r_.bodies[body_].uses_globals = true;
			return g;
		}
		return nullptr;
	}

	std::vector<std::string> visible_names()
	{
		std::vector<std::string> names;
		for (auto &g : r_.globals)
			names.push_back(g->name);
		for (auto &l : r_.bodies[body_].locals)
			names.push_back(l->name);
		return names;
	}

	Type var(const Expr &e)
	{
		Symbol *sym = lookup(e);
		if (!sym) {
			std::string near = closest_name(e.text, visible_names());
			error(e.loc, "undefined variable '" + e.text + "'",
			      near.empty() ? "assign it first, or declare it with 'global " + e.text + "'"
					   : "did you mean '" + near + "'?");
			return set(e, Type::Unknown);
		}
		r_.symbols[&e] = sym;
		return set(e, sym->type);
	}

	Type expr(const Expr &e)
	{
		switch (e.kind) {
		case ExprKind::Number:
			return set(e, Type::Long);
		case ExprKind::String:
			return set(e, Type::String);
		case ExprKind::Var: {
			Type t = var(e);
			if (t == Type::Stats)
				error(e.loc, "'" + e.text + "' is a statistics aggregate; read it with "
							      "@count, @sum, @min, @max or @avg");
			return t;
		}
		case ExprKind::Unary:
			expect_type(*e.args[0], Type::Long, "operand of '" + e.text + "'");
			return set(e, Type::Long);
		case ExprKind::Binary:
			return binary(e);
		case ExprKind::Ternary: {
			expect_type(*e.args[0], Type::Long, "condition of '?:'");
			Type a = expr(*e.args[1]), b = expr(*e.args[2]);
			if (a != Type::Unknown && b != Type::Unknown && a != b)
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
		}
		return Type::Unknown;
	}

	Type binary(const Expr &e)
	{
		const std::string &op = e.text;
		if (op == ".") {
			expect_type(*e.args[0], Type::String, "left operand of '.'");
			expect_type(*e.args[1], Type::String, "right operand of '.'");
			return set(e, Type::String);
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
		expect_type(*e.args[1], Type::Long, "right operand of '" + op + "'");
		return set(e, Type::Long);
	}

	Symbol *lvalue(const Expr &target, const std::string &op)
	{
		if (target.kind != ExprKind::Var) {
			error(target.loc, "left side of '" + op + "' must be a variable");
			return nullptr;
		}
		Symbol *sym = lookup(target);
		if (!sym) {
			var(target); // reports
			return nullptr;
		}
		r_.symbols[&target] = sym;
		return sym;
	}

	Type assign(const Expr &e)
	{
		const std::string &op = e.text;
		const Expr &lhs = *e.args[0];
		Symbol *sym = lvalue(lhs, op);
		if (op == "<<<") {
			expect_type(*e.args[1], Type::Long, "value added with '<<<'");
			if (!sym)
				return set(e, Type::Void);
			if (!sym->global)
				error(lhs.loc, "statistics aggregate '" + sym->name + "' must be a global",
				      "declare it with 'global " + sym->name + "'");
			learn(*sym, Type::Stats);
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
		if (!sym)
			return set(e, want);
		learn(*sym, want);
		set(lhs, sym->type);
		if (sym->type == Type::Stats)
			error(lhs.loc, "'" + sym->name + "' is a statistics aggregate; add values with '<<<'");
		else if (want != Type::Unknown && sym->type != want)
			error(e.loc, "type mismatch: '" + sym->name + "' is " + type_name(sym->type) +
					     ", assigned " + type_name(want));
		return set(e, sym->type);
	}

	Type incdec(const Expr &e)
	{
		Symbol *sym = lvalue(*e.args[0], e.text);
		if (sym) {
			learn(*sym, Type::Long);
			set(*e.args[0], sym->type);
			if (sym->type != Type::Long)
				error(e.loc, "'" + e.text + "' needs a long, but '" + sym->name + "' is " +
						     type_name(sym->type));
		}
		return set(e, Type::Long);
	}

	Type call(const Expr &e)
	{
		if (e.text == "printf")
			return printf_call(e);
		const Builtin *b = find_builtin(e.text);
		if (!b) {
			std::vector<std::string> names = {"printf"};
			for (const Builtin &x : all_builtins())
				names.push_back(x.name);
			std::string near = closest_name(e.text, names);
			error(e.loc, "unknown function '" + e.text + "'",
			      near.empty() ? "" : "did you mean '" + near + "'?");
			for (const ExprPtr &a : e.args)
				expr(*a);
			return set(e, Type::Unknown);
		}
		if (e.args.size() != b->params.size()) {
			error(e.loc, std::string("'") + b->name + "' takes " +
					     std::to_string(b->params.size()) + " argument(s), " +
					     std::to_string(e.args.size()) + " given");
			return set(e, b->ret);
		}
		for (size_t i = 0; i < e.args.size(); i++)
			expect_type(*e.args[i], b->params[i],
				    "argument " + std::to_string(i + 1) + " of '" + b->name + "'");
		return set(e, b->ret);
	}

	Type printf_call(const Expr &e)
	{
		if (e.args.empty() || e.args[0]->kind != ExprKind::String) {
			error(e.loc, "printf needs a string literal as its first argument");
			for (const ExprPtr &a : e.args)
				expr(*a);
			return set(e, Type::Void);
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
			return set(e, Type::Void);
		}
		size_t nargs = e.args.size() - 1;
		if (nargs != fmt->convs.size()) {
			error(e.loc, "printf format has " + std::to_string(fmt->convs.size()) +
					     " conversion(s) but " + std::to_string(nargs) +
					     " argument(s) follow it");
		}
		for (size_t i = 0; i < nargs; i++) {
			if (i < fmt->convs.size())
				expect_type(*e.args[i + 1], fmt->convs[i].type,
					    std::string("argument for '%") + fmt->convs[i].conv + "'");
			else
				expr(*e.args[i + 1]);
		}
		r_.formats[&e] = std::move(*fmt);
		return set(e, Type::Void);
	}

	Type at_call(const Expr &e)
	{
		if (e.text == "pmu")
			return pmu_call(e);
		if (stat_ops.count(e.text)) {
			if (e.args.size() != 1 || e.args[0]->kind != ExprKind::Var) {
				error(e.loc, "@" + e.text + " takes one statistics aggregate variable");
				return set(e, Type::Long);
			}
			const Expr &v = *e.args[0];
			Symbol *sym = lookup(v);
			if (!sym) {
				var(v);
				return set(e, Type::Long);
			}
			r_.symbols[&v] = sym;
			learn(*sym, Type::Stats);
			set(v, sym->type);
			if (sym->type != Type::Stats)
				error(v.loc, "@" + e.text + " needs a statistics aggregate, but '" +
						     sym->name + "' is " + type_name(sym->type));
			return set(e, Type::Long);
		}
		std::vector<std::string> names = {"pmu"};
		names.insert(names.end(), stat_ops.begin(), stat_ops.end());
		std::string near = closest_name(e.text, names);
		error(e.loc, "unknown operator '@" + e.text + "'",
		      near.empty() ? "" : "did you mean '@" + near + "'?");
		return set(e, Type::Unknown);
	}

	Type pmu_call(const Expr &e)
	{
		if (e.args.size() != 1 || e.args[0]->kind != ExprKind::String) {
			error(e.loc, "@pmu takes one event name in quotes, e.g. @pmu(\"cycles\")");
			return set(e, Type::Long);
		}
		const Expr &name = *e.args[0];
		set(name, Type::String);
		if (name.text.empty()) {
			error(name.loc, "@pmu event name is empty");
			return set(e, Type::Long);
		}
		size_t idx = r_.events.size();
		for (size_t i = 0; i < r_.events.size(); i++)
			if (r_.events[i].name == name.text)
				idx = i;
		if (idx == r_.events.size())
			r_.events.push_back({name.text, name.loc});
		r_.event_of[&e] = idx;
		return set(e, Type::Long);
	}

	void check_unresolved(bool report_unknown_locals)
	{
		for (auto &g : r_.globals)
			if (g->type == Type::Unknown)
				diags_.warning(g->decl, "global '" + g->name + "' is never used");
		for (ProbeBody &b : r_.bodies)
			for (auto &l : b.locals)
				if (l->type == Type::Unknown && report_unknown_locals)
					diags_.error(l->decl, "cannot infer the type of '" + l->name + "'");
	}

	const Script &script_;
	Diagnostics &diags_;
	SemaResult r_;
	size_t body_ = 0;
	bool report_ = false;
	bool changed_ = false;
};

} // namespace

SemaResult analyze(const Script &script, Diagnostics &diags)
{
	return Checker(script, diags).run();
}

} // namespace stap_pmu
