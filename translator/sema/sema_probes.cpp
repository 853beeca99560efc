// sema_probes.cpp - Checker: probe point resolution, alias expansion, probe bodies.
#include "translator/sema/sema_impl.h"

#include <algorithm>

#include "translator/frontend/tapsets.h"

namespace stap_pmu::sema_impl {

// The aliases whose name is pp, or whose name pp's wildcards match.
std::vector<const Probe *> Checker::find_aliases(const ProbePoint &pp)
{
	if (!alias_index_built_) {
		for (const Probe &p : script_.probes)
			if (p.is_alias)
				for (const ProbePoint &n : p.alias_names)
					alias_index_.emplace(probe_point_str(n), &p);
		alias_index_built_ = true;
	}
	std::string want = probe_point_str(pp);
	std::vector<const Probe *> out;
	auto add = [&](const Probe *p) {
		if (std::find(out.begin(), out.end(), p) == out.end())
			out.push_back(p);
	};
	auto exact = alias_index_.lower_bound(want); // the first alias of that name
	if (exact != alias_index_.end() && exact->first == want)
		return {exact->second};
	if (has_wildcard(want))
		for (const auto &[name, p] : alias_index_)
			if (probe_name_matches(want, name))
				add(p);
	return out;
}

bool Checker::expand(const ProbePoint &pp, int depth, std::vector<Expansion> &out, bool optional)
{
	if (depth > max_alias_depth) {
		diags_.error(pp.loc, "probe alias expansion is recursive or too deep");
		return false;
	}
	std::vector<const Probe *> aliases = find_aliases(pp);
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
	for (const Probe *alias : aliases)
		for (const ProbePoint &inner : alias->points) {
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
				if (alias->epilogue)
					e.after.insert(e.after.begin(), alias->body.get());
				else
					e.before.push_back(alias->body.get());
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
