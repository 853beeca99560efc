// sema.cpp - name binding, type inference and checking.
//
// Types flow from assignments, calls and returns: the pass walks every probe
// and function body repeatedly, learning variable, array, parameter and
// return types, until nothing changes; a final walk reports every error.
#include "translator/sema.h"

#include <fnmatch.h>

#include <functional>

#include "translator/builtins.h"
#include "translator/suggest.h"

namespace stap_pmu {

namespace {

const std::set<std::string> stat_ops = {"count", "sum", "min", "max", "avg", "variance"};
constexpr int max_keys = 8;
constexpr int64_t max_linear_buckets = 1000;
constexpr int max_alias_depth = 16;

// What a walk is inside of: a probe body or a function.
struct Scope {
	std::vector<std::unique_ptr<Symbol>> *locals = nullptr;
	bool *uses_globals = nullptr;
	std::set<size_t> *calls = nullptr;
	FunctionInfo *fn = nullptr;
};

class Checker {
public:
	Checker(const Script &s, Diagnostics &d) : script_(s), diags_(d) {}

	SemaResult run()
	{
		declare_globals();
		declare_functions();
		build_bodies();
		for (size_t i = 0; i < r_.bodies.size(); i++)
			collect_assigned(*r_.bodies[i].body, r_.bodies[i].locals);
		for (FunctionInfo &f : r_.functions)
			if (f.fn->body)
				collect_assigned(*f.fn->body, f.locals);
		// Learn types until stable; every round can only fill Unknowns.
		for (int round = 0; round < 32; round++) {
			changed_ = false;
			walk_all(false);
			if (!changed_)
				break;
		}
		// a function that never returned a value has none
		for (FunctionInfo &f : r_.functions)
			if (f.ret == Type::Unknown)
				f.ret = Type::Void;
		unsigned before = diags_.error_count();
		walk_all(true);
		finish(diags_.error_count() == before);
		sampling_events();
		return std::move(r_);
	}

private:
	// Each perf sampling probe point gets an event of its own, after the
	// @pmu events (their indexes stay as the walk assigned them).
	void sampling_events()
	{
		for (ProbeInstance &pi : r_.instances) {
			ResolvedPoint &p = pi.point;
			if (p.kind != ProbeKind::Perf)
				continue;
			p.event_index = r_.events.size();
			r_.events.push_back({p.event, p.event_loc, true, p.sample_period,
					     p.sample_freq});
		}
	}

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
			sym->array = g.array;
			sym->size = g.size;
			sym->wrap = g.wrap;
			sym->implicit = g.from_tapset;
			if (g.init)
				sym->type = g.init->kind == ExprKind::String ? Type::String : Type::Long;
			r_.globals.push_back(std::move(sym));
		}
	}

	void declare_functions()
	{
		for (const Function &f : script_.functions) {
			if (find_function(f.name) >= 0) {
				diags_.error(f.loc, "function '" + f.name + "' is defined twice");
				continue;
			}
			if (find_builtin(f.name) || is_special_builtin(f.name))
				diags_.error(f.loc, "function '" + f.name + "' has the name of a builtin");
			if (!f.body) {
				diags_.error(f.loc, "functions written in embedded C are not supported yet");
			}
			FunctionInfo fi;
			fi.fn = &f;
			fi.ret = f.ret;
			fi.used = f.from_tapset ? false : true;
			for (const Param &p : f.params) {
				for (auto &q : fi.locals)
					if (q->name == p.name)
						diags_.error(p.loc, "parameter '" + p.name + "' is declared twice");
				auto sym = std::make_unique<Symbol>();
				sym->name = p.name;
				sym->type = p.type;
				sym->decl = p.loc;
				sym->param = true;
				fi.locals.push_back(std::move(sym));
			}
			r_.functions.push_back(std::move(fi));
		}
	}

	int find_function(const std::string &name) const
	{
		for (size_t i = 0; i < r_.functions.size(); i++)
			if (r_.functions[i].fn->name == name)
				return static_cast<int>(i);
		return -1;
	}

	static bool is_special_builtin(const std::string &n)
	{
		static const std::set<std::string> s = {"printf", "sprintf", "print", "println",
							"sprint", "sprintln", "printd", "printdln"};
		return s.count(n) != 0;
	}

	// An alias whose name matches pp (exactly, or pp's glob matching it).
	const Probe *find_alias(const ProbePoint &pp)
	{
		std::string want = probe_point_str(pp);
		for (const Probe &p : script_.probes)
			if (p.is_alias)
				for (const ProbePoint &n : p.alias_names)
					if (probe_point_str(n) == want)
						return &p;
		return nullptr;
	}

	// One expansion of a point: resolved points and the bodies around the
	// user's body (alias prologues before, epilogues after).
	struct Expansion {
		std::vector<std::pair<const ProbePoint *, std::optional<ResolvedPoint>>> points;
		std::vector<const Stmt *> before, after;
		std::vector<const Expr *> conds;
	};

	bool expand(const ProbePoint &pp, int depth, std::vector<Expansion> &out, bool optional)
	{
		if (depth > max_alias_depth) {
			diags_.error(pp.loc, "probe alias expansion is recursive or too deep");
			return false;
		}
		const Probe *alias = find_alias(pp);
		if (!alias) {
			Expansion e;
			Diagnostics scratch;
			auto rps = resolve_probe_points(pp, optional ? scratch : diags_);
			if (!rps)
				return optional;
			for (ResolvedPoint &rp : *rps)
				e.points.push_back({&pp, std::move(rp)});
			if (pp.cond)
				e.conds.push_back(pp.cond.get());
			out.push_back(std::move(e));
			return true;
		}
		bool any = false;
		for (const ProbePoint &inner : alias->points) {
			std::vector<Expansion> sub;
			if (!expand(inner, depth + 1, sub, optional || inner.optional))
				return false;
			for (Expansion &e : sub) {
				if (alias->epilogue)
					e.after.push_back(alias->body.get());
				else
					e.before.insert(e.before.begin(), alias->body.get());
				if (pp.cond)
					e.conds.push_back(pp.cond.get());
				out.push_back(std::move(e));
				any = true;
			}
		}
		(void)any;
		return true;
	}

	void build_bodies()
	{
		for (const Probe &p : script_.probes) {
			if (p.is_alias)
				continue;
			size_t plain = SIZE_MAX;
			// expansions with the same wrapping share one body
			std::vector<std::pair<std::vector<const void *>, size_t>> shared;
			for (const ProbePoint &pp : p.points) {
				std::vector<Expansion> exps;
				size_t before_instances = r_.instances.size();
				if (!expand(pp, 0, exps, pp.optional))
					continue;
				for (Expansion &e : exps) {
					size_t body;
					if (e.before.empty() && e.after.empty() && e.conds.empty()) {
						if (plain == SIZE_MAX) {
							ProbeBody b;
							b.probe = &p;
							b.body = p.body.get();
							r_.bodies.push_back(std::move(b));
							plain = r_.bodies.size() - 1;
						}
						body = plain;
					} else {
						std::vector<const void *> key;
						for (const Stmt *b : e.before)
							key.push_back(b);
						key.push_back(nullptr);
						for (const Stmt *a : e.after)
							key.push_back(a);
						key.push_back(nullptr);
						for (const Expr *c : e.conds)
							key.push_back(c);
						body = SIZE_MAX;
						for (auto &[k, b] : shared)
							if (k == key)
								body = b;
						if (body == SIZE_MAX) {
							body = synthesize(p, e);
							shared.push_back({key, body});
						}
					}
					for (auto &[ppp, rp] : e.points)
						r_.instances.push_back({std::move(*rp), body, ppp->optional});
				}
				// '!': a point that resolved ends the list
				if (pp.sufficient && r_.instances.size() > before_instances)
					break;
			}
		}
	}

	size_t synthesize(const Probe &p, const Expansion &e)
	{
		auto blk = std::make_unique<Stmt>(StmtKind::Block, p.body->loc);
		for (const Expr *c : e.conds) {
			// if (!(cond)) next
			auto iff = std::make_unique<Stmt>(StmtKind::If, c->loc);
			auto neg = std::make_unique<Expr>(ExprKind::Unary, c->loc);
			neg->text = "!";
			neg->args.push_back(clone_expr(*c));
			iff->expr = std::move(neg);
			iff->body.push_back(std::make_unique<Stmt>(StmtKind::Next, c->loc));
			blk->body.push_back(std::move(iff));
		}
		for (const Stmt *s : e.before)
			blk->body.push_back(clone_stmt(*s));
		blk->body.push_back(clone_stmt(*p.body));
		for (const Stmt *s : e.after)
			blk->body.push_back(clone_stmt(*s));
		ProbeBody b;
		b.probe = &p;
		b.owned = std::move(blk);
		b.body = b.owned.get();
		r_.bodies.push_back(std::move(b));
		return r_.bodies.size() - 1;
	}

	Symbol *find_global(const std::string &name)
	{
		for (auto &g : r_.globals)
			if (g->name == name)
				return g.get();
		return nullptr;
	}

	static Symbol *find_in(std::vector<std::unique_ptr<Symbol>> &v, const std::string &name)
	{
		for (auto &l : v)
			if (l->name == name)
				return l.get();
		return nullptr;
	}

	void add_local(std::vector<std::unique_ptr<Symbol>> &locals, const std::string &name,
		       SourceLoc loc, bool implicit)
	{
		if (find_global(name) || find_in(locals, name))
			return;
		auto sym = std::make_unique<Symbol>();
		sym->name = name;
		sym->decl = loc;
		sym->implicit = implicit;
		locals.push_back(std::move(sym));
	}

	// Locals are the non-global variables a body assigns to, iterates with
	// or catches into.
	void collect_assigned(const Stmt &s, std::vector<std::unique_ptr<Symbol>> &locals)
	{
		if (s.kind == StmtKind::Foreach) {
			if (!s.value.empty())
				add_local(locals, s.value, s.value_loc, true);
			for (size_t i = 0; i < s.names.size(); i++)
				add_local(locals, s.names[i], s.name_locs[i], true);
		}
		if (s.kind == StmtKind::Try && !s.name.empty())
			add_local(locals, s.name, s.value_loc, true);
		if (s.expr)
			collect_assigned(*s.expr, locals);
		for (const ExprPtr &e : s.exprs)
			if (e)
				collect_assigned(*e, locals);
		if (s.limit)
			collect_assigned(*s.limit, locals);
		for (const StmtPtr &b : s.body)
			collect_assigned(*b, locals);
	}

	void collect_assigned(const Expr &e, std::vector<std::unique_ptr<Symbol>> &locals)
	{
		if ((e.kind == ExprKind::Assign || e.kind == ExprKind::IncDec) &&
		    e.args[0]->kind == ExprKind::Var && e.args[0]->text[0] != '$')
			add_local(locals, e.args[0]->text, e.args[0]->loc, false);
		for (const ExprPtr &a : e.args)
			collect_assigned(*a, locals);
	}

	// ---- walking ----

	void walk_all(bool report)
	{
		report_ = report;
		for (ProbeBody &b : r_.bodies) {
			scope_ = {&b.locals, &b.uses_globals, &b.calls, nullptr};
			cur_body_ = &b - r_.bodies.data();
			loops_ = 0;
			stmt(*b.body);
		}
		cur_body_ = SIZE_MAX;
		for (FunctionInfo &f : r_.functions) {
			if (!f.fn->body)
				continue;
			scope_ = {&f.locals, &f.uses_globals, &f.calls, &f};
			loops_ = 0;
			stmt(*f.fn->body);
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

	void learn_type(Type &slot, Type t)
	{
		if (slot == Type::Unknown && t != Type::Unknown && t != Type::Void) {
			slot = t;
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
		case StmtKind::EmbeddedC:
			error(s.loc, "embedded C in a probe or function body is not supported yet");
			break;
		}
	}

	void loop(const Stmt &body)
	{
		loops_++;
		stmt(body);
		loops_--;
	}

	void ret(const Stmt &s)
	{
		FunctionInfo *f = scope_.fn;
		if (!f) {
			error(s.loc, "'return' outside a function", "use 'next' to leave a probe");
			if (s.expr)
				expr(*s.expr);
			return;
		}
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

	// Checks that e has type want (learning a variable's type from the use).
	void expect_type(const Expr &e, Type want, const std::string &what)
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

	Symbol *lookup(const std::string &name)
	{
		if (Symbol *l = find_in(*scope_.locals, name))
			return l;
		if (Symbol *g = find_global(name))
			return g;
		return nullptr;
	}

	// A global touched by a body: it takes the global lock unless the
	// global is a scalar statistic (per-CPU, merged on read).
	void touch(const Symbol &sym)
	{
		if (!sym.global || !report_)
			return;
		if (sym.type == Type::Stats && !sym.array)
			return;
		*scope_.uses_globals = true;
	}

	std::vector<std::string> visible_names()
	{
		std::vector<std::string> names;
		for (auto &g : r_.globals)
			names.push_back(g->name);
		for (auto &l : *scope_.locals)
			names.push_back(l->name);
		return names;
	}

	Symbol *resolve_var(const Expr &e)
	{
		if (!e.text.empty() && e.text[0] == '$') {
			error(e.loc, "target variable '" + e.text + "' cannot be assigned or modified");
			return nullptr;
		}
		Symbol *sym = lookup(e.text);
		if (!sym) {
			std::string near = closest_name(e.text, visible_names());
			error(e.loc, "undefined variable '" + e.text + "'",
			      near.empty() ? "assign it first, or declare it with 'global " + e.text + "'"
					   : "did you mean '" + near + "'?");
			return nullptr;
		}
		r_.symbols[&e] = sym;
		touch(*sym);
		return sym;
	}

	// A target variable read ($x, $x->f, @entry($x)): resolved with DWARF for
	// every probe point of the body. Returns false when it cannot be read.
	bool target_var(const Expr &e, const std::string &spelling, bool entry, bool quiet)
	{
		if (cur_body_ == SIZE_MAX) {
			if (!quiet)
				error(e.loc, "target variable '" + spelling +
						     "' used in a function; only probe bodies have them",
				      "pass it to the function as an argument");
			return false;
		}
		ProbeBody &b = r_.bodies[cur_body_];
		std::string key = (entry ? "@entry:" : "") + spelling;
		size_t k = std::find(b.tvars.begin(), b.tvars.end(), key) - b.tvars.begin();
		if (k == b.tvars.size()) {
			if (quiet) {
				// @defined: resolve without recording
				for (ProbeInstance &pi : r_.instances) {
					std::string err;
					if (pi.body == cur_body_ &&
					    (!pi.point.func ||
					     !dwarf::target_access(*pi.point.func, spelling,
								   pi.point.kind == ProbeKind::Kretprobe, err)))
						return false;
				}
				return true;
			}
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
			if (p.tvars.size() > k)
				continue; // resolved in an earlier round
			if (!p.func) {
				error(e.loc, "target variable '" + spelling + "' in '" + p.name +
						     "', which has no DWARF",
				      "target variables need kernel.function(\"f\") or "
				      "module(\"m\").function(\"f\")");
				ok = false;
				continue;
			}
			bool ret = p.kind == ProbeKind::Kretprobe;
			if (entry && !ret) {
				error(e.loc, "@entry() is only meaningful in .return probes");
				ok = false;
				continue;
			}
			std::string err;
			auto acc = dwarf::target_access(*p.func, spelling, ret, err);
			if (!acc) {
				error(e.loc, err);
				ok = false;
				continue;
			}
			if (acc->offsets.size() > 8) {
				error(e.loc, "'" + spelling + "' has more than 8 member steps");
				ok = false;
				continue;
			}
			acc->at_entry = entry;
			p.tvars.resize(k);
			p.tvars.push_back(*acc);
		}
		return ok;
	}

	Type var(const Expr &e)
	{
		if (!e.text.empty() && e.text[0] == '$') {
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

	// Resolves an array reference (a[k...], [k...] in a, foreach); checks keys.
	Symbol *array_ref(const std::string &name, SourceLoc loc, const Expr *owner,
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
					expr(*k);
			return sym;
		}
		if (keys)
			for (size_t i = 0; i < keys->size(); i++)
				key(*sym, i, *(*keys)[i]);
		return sym;
	}

	void key(Symbol &sym, size_t i, const Expr &k)
	{
		Type t = expr(k);
		if (t == Type::Unknown && sym.keys[i] != Type::Unknown) {
			expect_type(k, sym.keys[i], "key " + std::to_string(i + 1) + " of '" + sym.name + "'");
			return;
		}
		learn_type(sym.keys[i], t);
		if (t == Type::Stats || t == Type::Void)
			error(k.loc, "an array key must be a long or a string");
		else if (t != Type::Unknown && t != sym.keys[i])
			error(k.loc, "key " + std::to_string(i + 1) + " of '" + sym.name + "' is " +
					     type_name(sym.keys[i]) + ", not " + type_name(t));
	}

	Type index(const Expr &e, bool stat_ok)
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

	Type expr(const Expr &e)
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
			array_ref(e.text, e.loc, &e, &e.args, e.args.size());
			return set(e, Type::Long);
		}
		case ExprKind::Unary:
			expect_type(*e.args[0], Type::Long, "operand of '" + e.text + "'");
			return set(e, Type::Long);
		case ExprKind::Binary:
			return binary(e);
		case ExprKind::Ternary: {
			expect_type(*e.args[0], Type::Long, "condition of '?:'");
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
		case ExprKind::EmbeddedC:
			error(e.loc, "embedded C expressions are not supported yet");
			return set(e, Type::Long);
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

	void check_not_iterated(const Symbol &sym, SourceLoc loc)
	{
		for (const Symbol *s : iterating_)
			if (s == &sym)
				error(loc, "array '" + sym.name + "' cannot be modified inside a foreach over it");
	}

	// Resolves the target of an assignment, ++/-- or <<<.
	Symbol *lvalue(const Expr &target, const std::string &op)
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

	// x = y where neither is known yet: nothing to learn this round
	void expect_back(const Expr &, Symbol &) {}

	Type incdec(const Expr &e)
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

	void del(const Stmt &s)
	{
		const Expr &t = *s.expr;
		if (t.kind == ExprKind::Index) {
			Symbol *sym = array_ref(t.text, t.loc, &t, &t.args, t.args.size());
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

	void foreach(const Stmt &s)
	{
		Symbol *arr = array_ref(s.name, s.array_loc, nullptr, nullptr, s.names.size());
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

	Type call(const Expr &e)
	{
		const std::string &n = e.text;
		if (n == "printf" || n == "sprintf")
			return printf_call(e);
		if (n == "print" || n == "println" || n == "sprint" || n == "sprintln")
			return print_call(e);
		if (n == "printd" || n == "printdln") {
			if (e.args.size() < 2)
				error(e.loc, "'" + n + "' takes a delimiter and at least one value");
			for (size_t i = 0; i < e.args.size(); i++) {
				Type t = expr(*e.args[i]);
				if (i == 0 && t != Type::String && t != Type::Unknown)
					error(e.args[i]->loc, "the delimiter of '" + n + "' must be a string");
				if (t == Type::Stats || t == Type::Void)
					error(e.args[i]->loc, "'" + n + "' prints longs and strings");
			}
			return set(e, Type::Void);
		}
		int fi = find_function(n);
		if (fi >= 0)
			return user_call(e, static_cast<size_t>(fi));
		const Builtin *b = find_builtin(n);
		if (!b) {
			std::vector<std::string> names = {"printf", "sprintf", "print", "println", "sprint",
							  "sprintln"};
			for (const Builtin &x : all_builtins())
				names.push_back(x.name);
			for (const FunctionInfo &f : r_.functions)
				names.push_back(f.fn->name);
			std::string near = closest_name(n, names);
			error(e.loc, "unknown function '" + n + "'",
			      near.empty() ? "" : "did you mean '" + near + "'?");
			for (const ExprPtr &a : e.args)
				expr(*a);
			return set(e, Type::Unknown);
		}
		if (e.args.size() < b->params.size() - b->optional || e.args.size() > b->params.size()) {
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

	Type user_call(const Expr &e, size_t fi)
	{
		FunctionInfo &f = r_.functions[fi];
		r_.call_of[&e] = fi;
		scope_.calls->insert(fi);
		f.used = true;
		if (e.args.size() != f.fn->params.size()) {
			error(e.loc, "function '" + f.fn->name + "' takes " +
					     std::to_string(f.fn->params.size()) + " argument(s), " +
					     std::to_string(e.args.size()) + " given");
			for (const ExprPtr &a : e.args)
				expr(*a);
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

	Type print_call(const Expr &e)
	{
		bool s = e.text[0] == 's';
		if (e.args.empty() && e.text != "println") {
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

	Type printf_call(const Expr &e)
	{
		bool s = e.text == "sprintf";
		Type rt = s ? Type::String : Type::Void;
		if (e.args.empty() || e.args[0]->kind != ExprKind::String) {
			error(e.loc, e.text + " needs a string literal as its first argument");
			for (const ExprPtr &a : e.args)
				expr(*a);
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
	Symbol *stat_operand(const Expr &e, const std::string &what)
	{
		if (e.args.empty() ||
		    (e.args[0]->kind != ExprKind::Var && e.args[0]->kind != ExprKind::Index)) {
			error(e.loc, what + " takes a statistics aggregate");
			for (const ExprPtr &a : e.args)
				expr(*a);
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

	bool const_long(const Expr &e, int64_t &out)
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

	Type at_call(const Expr &e)
	{
		if (e.text == "pmu")
			return pmu_call(e);
		if (stat_ops.count(e.text)) {
			Symbol *sym = stat_operand(e, "@" + e.text);
			if (e.args.size() != 1)
				error(e.loc, "@" + e.text + " takes one argument");
			if (sym && e.text == "variance")
				sym->variance = true;
			return set(e, Type::Long);
		}
		if (e.text == "hist_log" || e.text == "hist_linear") {
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
		if ((e.text == "entry" || e.text == "defined") && e.args.size() == 1 &&
		    e.args[0]->kind == ExprKind::Var && e.args[0]->text[0] == '$') {
			if (e.text == "entry") {
				target_var(e, e.args[0]->text, true, false);
			} else {
				bool ok = target_var(e, e.args[0]->text, false, true);
				r_.const_of[&e] = ok ? 1 : 0;
			}
			return set(e, Type::Long);
		}
		if (e.text == "entry" || e.text == "defined") {
			error(e.loc, "@" + e.text + "() takes one target variable, e.g. @" + e.text + "($x)");
			return set(e, Type::Long);
		}
		if (e.text == "cast" || e.text == "var" || e.text == "perf") {
			error(e.loc, "'@" + e.text + "' is not supported yet");
			for (const ExprPtr &a : e.args)
				if (a->kind != ExprKind::Var || a->text[0] != '$')
					expr(*a);
			return set(e, Type::Long);
		}
		std::vector<std::string> names = {"pmu", "hist_log", "hist_linear"};
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
			if (r_.events[i].name == name.text && !r_.events[i].sampling)
				idx = i;
		if (idx == r_.events.size())
			r_.events.push_back({name.text, name.loc});
		r_.event_of[&e] = idx;
		return set(e, Type::Long);
	}

	void finish(bool report_unknown_locals)
	{
		for (auto &g : r_.globals) {
			if (g->array) {
				for (size_t i = 0; i < g->keys.size(); i++)
					if (g->keys[i] == Type::Unknown && report_unknown_locals)
						diags_.error(g->decl, "cannot infer the type of key " +
									      std::to_string(i + 1) + " of array '" +
									      g->name + "'");
				if (g->arity < 0 && !g->implicit)
					diags_.warning(g->decl, "array '" + g->name + "' is never used");
				else if (g->type == Type::Unknown && g->arity >= 0 && report_unknown_locals)
					diags_.error(g->decl, "cannot infer the element type of array '" +
								      g->name + "'");
				if (g->type == Type::Stats && g->hist == HistKind::None && false)
					(void)0;
				continue;
			}
			if (g->type == Type::Unknown && !g->implicit)
				diags_.warning(g->decl, "global '" + g->name + "' is never used");
		}
		auto locals = [&](std::vector<std::unique_ptr<Symbol>> &ls) {
			for (auto &l : ls) {
				if (l->param && l->type == Type::Unknown) {
					l->type = Type::Long; // a function never called
					continue;
				}
				if (l->type == Type::Unknown && report_unknown_locals) {
					diags_.error(l->decl, "cannot infer the type of '" + l->name + "'");
					continue;
				}
				if (!l->read && !l->implicit && !l->param)
					diags_.warning(l->decl, "variable '" + l->name + "' is assigned but never read");
			}
		};
		for (ProbeBody &b : r_.bodies)
			locals(b.locals);
		for (FunctionInfo &f : r_.functions) {
			if (!f.used)
				continue;
			locals(f.locals);
			if (f.ret == Type::Unknown)
				f.ret = Type::Void;
		}
		// the global lock: a body needs it when any function it calls does
		bool again = true;
		while (again) {
			again = false;
			for (FunctionInfo &f : r_.functions)
				for (size_t c : f.calls)
					if (r_.functions[c].uses_globals && !f.uses_globals)
						f.uses_globals = again = true;
		}
		for (ProbeBody &b : r_.bodies)
			for (size_t c : b.calls)
				if (r_.functions[c].uses_globals)
					b.uses_globals = true;
	}

	const Script &script_;
	Diagnostics &diags_;
	SemaResult r_;
	Scope scope_;
	int loops_ = 0;
	std::vector<const Symbol *> iterating_;
	bool report_ = false;
	size_t cur_body_ = SIZE_MAX;
	bool changed_ = false;
};

} // namespace

SemaResult analyze(const Script &script, Diagnostics &diags)
{
	return Checker(script, diags).run();
}

} // namespace stap_pmu
