// sema_probes.cpp - Checker: probe point resolution, alias expansion, probe bodies.
#include "translator/sema/sema_impl.h"

#include <algorithm>

#include "translator/frontend/tapsets.h"

namespace stap_pmu::sema_impl {

// The aliases whose name is pp, that pp's wildcards match, or that name a
// prefix of pp.
std::vector<Checker::AliasMatch> Checker::find_aliases(const ProbePoint &pp)
{
	if (!alias_index_built_) {
		for (const Probe &p : script_.probes)
			if (p.is_alias)
				for (const ProbePoint &n : p.alias_names)
					alias_index_.emplace(probe_point_str(n), &p);
		for (const auto &[name, p] : alias_index_) {
			alias_names_.push_back({probe_point_components(name), p});
			alias_heads_.insert(alias_names_.back().components.front());
		}
		alias_index_built_ = true;
	}
	std::string want = probe_point_str(pp);
	auto exact = alias_index_.lower_bound(want); // the first alias of that name
	if (exact != alias_index_.end() && exact->first == want)
		return {{exact->second, pp.components.size(), false}};
	std::vector<std::string> comps = probe_point_components(want);
	if (!component_has_wildcard(comps.front()) && !alias_heads_.count(comps.front()))
		return {};
	std::vector<const AliasName *> all;
	for (const AliasName &a : alias_names_)
		all.push_back(&a);
	std::vector<AliasMatch> out;
	walk_aliases(comps, 0, all, false, out);
	return out;
}

// SystemTap's walk down its tree of probe point names, over the alias names
// that matched want[0, pos): a wildcard component follows every name it
// matches; a plain one follows the names that have it and, where none does,
// the aliases whose names end here match with want[pos, end) as a suffix.
// Through a wildcard every alias of a name matches, else the first (the
// script's own aliases come before the tapsets').
void Checker::walk_aliases(const std::vector<std::string> &want, size_t pos,
			   const std::vector<const AliasName *> &names, bool through_wildcard,
			   std::vector<AliasMatch> &out)
{
	std::vector<const AliasName *> ends, deeper;
	for (const AliasName *a : names) {
		if (a->components.size() == pos)
			ends.push_back(a);
		else if (pos < want.size() && probe_component_matches(want[pos], a->components[pos]))
			deeper.push_back(a);
	}
	bool wildcard = pos < want.size() && component_has_wildcard(want[pos]);
	if (wildcard && deeper.empty())
		return; // a wildcard never starts a suffix
	if (pos == want.size() || deeper.empty()) {
		for (const AliasName *a : ends) {
			bool seen = std::any_of(out.begin(), out.end(), [&](const AliasMatch &m) {
				return m.alias == a->alias && m.covered == pos;
			});
			if (!seen)
				out.push_back({a->alias, pos, through_wildcard});
			if (!through_wildcard)
				break;
		}
		return;
	}
	if (!wildcard) {
		walk_aliases(want, pos + 1, deeper, through_wildcard, out);
		return;
	}
	// each component the wildcard matches on its own
	std::map<std::string, std::vector<const AliasName *>> by_component;
	for (const AliasName *a : deeper)
		by_component[a->components[pos]].push_back(a);
	for (const auto &[component, same] : by_component)
		walk_aliases(want, pos + 1, same, true, out);
}

const ProbePoint &Checker::with_suffix(const ProbePoint &inner, const ProbePoint &pp, size_t covered)
{
	ProbePoint &s = suffixed_points_.emplace_back();
	s.loc = inner.loc;
	s.components = inner.components;
	s.components.insert(s.components.end(),
			    pp.components.begin() + static_cast<std::ptrdiff_t>(covered),
			    pp.components.end());
	s.optional = inner.optional;
	s.sufficient = inner.sufficient;
	return s; // inner's condition: the caller adds it
}

bool Checker::expand(const ProbePoint &pp, int depth, std::vector<Expansion> &out, bool optional)
{
	if (depth > max_alias_depth) {
		diags_.error(pp.loc, "probe alias expansion is recursive or too deep");
		return false;
	}
	std::vector<AliasMatch> aliases = find_aliases(pp);
	if (aliases.empty()) {
		Expansion e;
		Diagnostics scratch;
		auto rps = resolve_probe_points(pp, ProbeContext{optional ? scratch : diags_, facts_, process_});
		if (!rps)
			return optional;
		for (ResolvedPoint &rp : *rps)
			e.points.push_back({&pp, std::move(rp)});
		if (pp.cond)
			e.conds.push_back(pp.cond.get());
		out.push_back(std::move(e));
		return true;
	}
	size_t resolved = 0, quiet = 0;
	for (const AliasMatch &m : aliases) {
		// a suffix reached through a wildcard: the aliases whose points
		// do not take it are not matches (syscall.*.return.maxactive(3))
		bool quietly = m.through_wildcard && m.covered < pp.components.size();
		quiet += quietly;
		size_t before = out.size();
		if (!expand_alias(m, pp, depth, out, optional || quietly))
			return false;
		for (size_t i = before; i < out.size(); i++)
			resolved += out[i].points.size();
	}
	if (quiet == aliases.size() && !resolved && !optional) {
		ProbePoint rest;
		rest.components.assign(pp.components.begin() +
					       static_cast<std::ptrdiff_t>(aliases.front().covered),
				       pp.components.end());
		diags_.error(pp.loc, "unknown probe point '" + probe_point_str(pp) + "'",
			     "the points of the aliases it matches do not take '." +
				     probe_point_str(rest) + "'");
		return false;
	}
	return true;
}

bool Checker::expand_alias(const AliasMatch &m, const ProbePoint &pp, int depth,
			   std::vector<Expansion> &out, bool optional)
{
	for (const ProbePoint &given : m.alias->points) {
		// syscall.read.return.maxactive(5): the alias's points with
		// .maxactive(5) appended
		bool suffix = m.covered < pp.components.size();
		const ProbePoint &inner = suffix ? with_suffix(given, pp, m.covered) : given;
		std::vector<Expansion> sub;
		if (!expand(inner, depth + 1, sub, optional || inner.optional))
			return false;
		// '!' in the alias's list: a point that resolved ends it
		// (kernel.function("new_name") !, kernel.function("old_name"))
		bool ends = inner.sufficient &&
			    std::any_of(sub.begin(), sub.end(),
					[](const Expansion &e) { return !e.points.empty(); });
		// An alias on an alias: the inner alias's prologue runs first
		// (signal.syskill's body reads what syscall.kill's set), its
		// epilogue last: "A = B { a }", "B = kprobe { b }" and
		// "probe A { u }" run b; a; u.
		for (Expansion &e : sub) {
			if (suffix && given.cond)
				e.conds.push_back(given.cond.get());
			if (m.alias->epilogue)
				e.after.insert(e.after.begin(), m.alias->body.get());
			else
				e.before.push_back(m.alias->body.get());
			if (pp.cond)
				e.conds.push_back(pp.cond.get());
			out.push_back(std::move(e));
		}
		if (ends)
			break;
	}
	return true;
}

void Checker::build_bodies()
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

size_t Checker::synthesize(const Probe &p, const Expansion &e)
{
	auto blk = std::make_unique<Stmt>(StmtKind::Block, p.body->loc);
	for (const Expr *c : e.conds) {
		// if (!(cond)) next
		auto iff = std::make_unique<Stmt>(StmtKind::If, c->loc);
		auto neg = std::make_unique<Expr>(ExprKind::Unary, c->loc);
		neg->text.assign(1, '!'); // (= "!" trips a GCC 12 -Wrestrict false positive)
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

} // namespace stap_pmu::sema_impl
