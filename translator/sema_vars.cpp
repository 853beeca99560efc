// sema_vars.cpp - Checker: variable binding, target variables, array references and keys.
#include "translator/sema_impl.h"

namespace stap_pmu::sema_impl {

Symbol *Checker::lookup(const std::string &name)
{
	if (Symbol *l = find_in(*scope_.locals, name))
		return l;
	if (Symbol *g = find_global(name))
		return g;
	return nullptr;
}

// A global touched by a body: it takes the global lock unless the
// global is a scalar statistic (per-CPU, merged on read).
void Checker::touch(const Symbol &sym)
{
	if (!sym.global || !report_)
		return;
	if (sym.type == Type::Stats && !sym.array)
		return;
	*scope_.uses_globals = true;
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

Symbol *Checker::resolve_var(const Expr &e)
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
bool Checker::target_var(const Expr &e, const std::string &spelling, bool entry, bool quiet)
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

Type Checker::var(const Expr &e)
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

void Checker::key(Symbol &sym, size_t i, const Expr &k)
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

} // namespace stap_pmu::sema_impl
