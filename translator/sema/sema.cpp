// sema.cpp - name binding, type inference and checking.
//
// Types flow from assignments, calls and returns: the pass walks every probe
// and function body repeatedly, learning variable, array, parameter and
// return types, until nothing changes; a final walk reports every error.
#include "translator/sema/sema_impl.h"
#include "translator/sema/storage.h"

namespace stap_pmu {

namespace sema_impl {

SemaResult Checker::run()
{
	declare_globals();
	declare_functions();
	unsigned errors = diags_.error_count();
	build_bodies();
	if (diags_.error_count() == errors)
		no_probes_left();
	std::vector<const ResolvedPoint *> points;
	for (const ProbeInstance &pi : r_.instances)
		points.push_back(&pi.point);
	procfs_files(points, &diags_);
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

// Each perf sampling probe point gets an event of its own, after the
// @pmu events (their indexes stay as the walk assigned them).
void Checker::sampling_events()
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

// Every point optional and none resolved: SystemTap refuses the script
// ("no probes left") rather than load a module that does nothing.
void Checker::no_probes_left()
{
	if (!r_.instances.empty())
		return;
	bool own_optional = false; // a '?' of the script's, not of a tapset alias
	for (const Probe &p : script_.probes)
		for (const ProbePoint &pp : p.points)
			own_optional |= !p.from_tapset && pp.optional;
	for (const Probe &p : script_.probes)
		if (!p.is_alias && !p.from_tapset) {
			diags_.error(p.loc, "no probes left: every probe point is optional and "
					    "none exists on this kernel",
				     own_optional ? "drop the '?' to see why a point does not resolve"
						  : "the tapset aliases it names are built on optional "
						    "points ('?') this kernel does not have");
			return;
		}
}

// ---- declarations ----
void Checker::declare_globals()
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

void Checker::declare_functions()
{
	for (const Function &f : script_.functions) {
		if (find_function(f.name) >= 0) {
			diags_.error(f.loc, "function '" + f.name + "' is defined twice");
			continue;
		}
		if (find_builtin(f.name) || is_special_builtin(f.name))
			diags_.error(f.loc, "function '" + f.name + "' has the name of a builtin");
		FunctionInfo fi;
		fi.fn = &f;
		fi.ret = f.ret;
		// embedded C is used when called (never-called C is not emitted)
		fi.used = !f.from_tapset && f.body;
		for (const Param &p : f.params) {
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

int Checker::find_function(const std::string &name) const
{
	for (size_t i = 0; i < r_.functions.size(); i++)
		if (r_.functions[i].fn->name == name)
			return static_cast<int>(i);
	return -1;
}

bool Checker::is_special_builtin(const std::string &n)
{
	return find_print_function(n) != nullptr;
}

Symbol *Checker::find_global(const std::string &name)
{
	for (auto &g : r_.globals)
		if (g->name == name)
			return g.get();
	return nullptr;
}

Symbol *Checker::find_in(std::vector<std::unique_ptr<Symbol>> &v, const std::string &name)
{
	for (auto &l : v)
		if (l->name == name)
			return l.get();
	return nullptr;
}

void Checker::add_local(std::vector<std::unique_ptr<Symbol>> &locals, const std::string &name,
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
void Checker::collect_assigned(const Stmt &s, std::vector<std::unique_ptr<Symbol>> &locals)
{
	if (s.kind == StmtKind::Foreach) {
		if (!s.value.empty())
			add_local(locals, s.value, s.value_loc, true);
		for (size_t i = 0; i < s.names.size(); i++)
			add_local(locals, s.names[i], s.name_locs[i], true);
	}
	if (s.kind == StmtKind::Try && !s.name.empty())
		add_local(locals, s.name, s.value_loc, true);
	for_each_child(s, [&](const auto &c) { collect_assigned(c, locals); });
}

void Checker::collect_assigned(const Expr &e, std::vector<std::unique_ptr<Symbol>> &locals)
{
	if ((e.kind == ExprKind::Assign || e.kind == ExprKind::IncDec) &&
	    e.args[0]->kind == ExprKind::Var && e.args[0]->text[0] != '$')
		add_local(locals, e.args[0]->text, e.args[0]->loc, false);
	for_each_child(e, [&](const Expr &a) { collect_assigned(a, locals); });
}

// ---- walking ----
void Checker::walk_all(bool report)
{
	report_ = report;
	for (ProbeBody &b : r_.bodies) {
		scope_ = {&b.locals, &b.globals, &b.calls, nullptr, &b.touches_stat};
		cur_body_ = &b - r_.bodies.data();
		loops_ = 0;
		stmt(*b.body);
	}
	cur_body_ = SIZE_MAX;
	for (FunctionInfo &f : r_.functions) {
		if (!f.fn->body)
			continue;
		scope_ = {&f.locals, &f.globals, &f.calls, &f, &f.touches_stat};
		loops_ = 0;
		stmt(*f.fn->body);
	}
}

void Checker::error(SourceLoc loc, std::string msg, std::string hint)
{
	if (report_)
		diags_.error(loc, std::move(msg), std::move(hint));
}

void Checker::learn(Symbol &sym, Type t)
{
	if (sym.type == Type::Unknown && t != Type::Unknown && t != Type::Void) {
		sym.type = t;
		changed_ = true;
	}
}

void Checker::learn_type(Type &slot, Type t)
{
	if (slot == Type::Unknown && t != Type::Unknown && t != Type::Void) {
		slot = t;
		changed_ = true;
	}
}

Type Checker::set(const Expr &e, Type t)
{
	r_.types[&e] = t;
	return t;
}

void Checker::finish(bool report_unknown_locals)
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
		if (g->type != Type::Unknown || g->implicit)
			continue;
		if (!g->read && !g->written)
			diags_.warning(g->decl, "global '" + g->name + "' is never used");
		else if (report_unknown_locals)
			diags_.error(g->decl, "cannot infer the type of global '" + g->name + "'",
				     "assign it a number or a string somewhere");
	}
	for (ProbeBody &b : r_.bodies)
		finish_locals(b.locals, report_unknown_locals);
	for (FunctionInfo &f : r_.functions) {
		if (!f.used)
			continue;
		finish_locals(f.locals, report_unknown_locals);
		if (f.ret == Type::Unknown)
			f.ret = Type::Void;
	}
	global_lock();
}

void Checker::finish_locals(std::vector<std::unique_ptr<Symbol>> &ls, bool report_unknown_locals)
{
	for (auto &l : ls) {
		std::string hint = l->near.empty() ? "assign it first, or declare it with "
						     "'global " + l->name + "'"
						   : "did you mean '" + l->near + "'?";
		// reported even after other errors: it is no consequence of them
		// a statistics operand nothing adds to: a misspelled global,
		// most likely (a local statistic is one the body adds to)
		if (l->never_assigned && l->type == Type::Stats) {
			diags_.error(l->decl, "undefined statistics aggregate '" + l->name + "'",
				     l->near.empty() ? "declare it with 'global " + l->name + "'" : hint);
			continue;
		}
		if (l->never_assigned && l->type == Type::Unknown) {
			diags_.error(l->decl, "cannot infer the type of '" + l->name +
						      "', which is never assigned",
				     hint);
			continue;
		}
		if (l->never_assigned)
			diags_.warning(l->decl, "local variable '" + l->name +
							"' is read but never assigned: it is " +
							(l->type == Type::String ? "\"\"" : "0"),
				       hint);
		if (l->param && l->type == Type::Unknown) {
			l->type = Type::Long; // a function never called
			continue;
		}
		if (l->type == Type::Unknown && report_unknown_locals) {
			diags_.error(l->decl, "cannot infer the type of '" + l->name + "'");
			continue;
		}
		// a tapset alias sets variables for scripts that may not read them
		if (!l->read && !l->implicit && !l->param && !tapset_file(l->decl.file))
			diags_.warning(l->decl, "variable '" + l->name + "' is assigned but never read");
	}
}

bool Checker::tapset_file(const SourceFile *f) const
{
	for (const Probe &p : script_.probes)
		if (p.from_tapset && p.loc.file == f)
			return true;
	return false;
}

void Checker::global_lock()
{
	assign_storage(script_, r_);
	// a global's lock: a body takes it when it touches the global and the
	// global is not per CPU, or a function it calls does
	auto shared = [](const std::set<const Symbol *> &gs) {
		std::set<const Symbol *> out;
		for (const Symbol *g : gs)
			if (g->storage == Storage::Shared)
				out.insert(g);
		return out;
	};
	// per-CPU storage (a scalar statistic or a per-CPU number): such a body
	// is not run in NMI over a body of its CPU (runtime/stp_handlers.h)
	auto percpu = [](const std::set<const Symbol *> &gs, bool stat) {
		for (const Symbol *g : gs)
			if (g->storage == Storage::PerCpu)
				return true;
		return stat;
	};
	for (FunctionInfo &f : r_.functions) {
		f.locks = shared(f.globals);
		f.uses_percpu = percpu(f.globals, f.touches_stat);
	}
	for (ProbeBody &b : r_.bodies) {
		b.locks = shared(b.globals);
		b.uses_percpu = percpu(b.globals, b.touches_stat);
	}
	bool again = true;
	while (again) {
		again = false;
		for (FunctionInfo &f : r_.functions)
			for (size_t c : f.calls) {
				const FunctionInfo &g = r_.functions[c];
				size_t before = f.locks.size();
				f.locks.insert(g.locks.begin(), g.locks.end());
				if (f.locks.size() != before || (g.uses_percpu && !f.uses_percpu)) {
					f.uses_percpu |= g.uses_percpu;
					again = true;
				}
			}
	}
	for (ProbeBody &b : r_.bodies)
		for (size_t c : b.calls) {
			b.locks.insert(r_.functions[c].locks.begin(), r_.functions[c].locks.end());
			b.uses_percpu |= r_.functions[c].uses_percpu;
		}
	for (FunctionInfo &f : r_.functions)
		f.uses_globals = !f.locks.empty();
	for (ProbeBody &b : r_.bodies)
		b.uses_globals = !b.locks.empty();
}

} // namespace sema_impl

SemaResult analyze(const Script &script, const KernelFacts *facts, Diagnostics &diags)
{
	return analyze(script, facts, nullptr, diags);
}

SemaResult analyze(const Script &script, const KernelFacts *facts, const ProcessFacts *process,
		   Diagnostics &diags, bool guru)
{
	return sema_impl::Checker(script, facts_or_none(facts), process, diags, guru).run();
}

} // namespace stap_pmu
