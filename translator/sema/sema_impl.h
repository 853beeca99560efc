// sema_impl.h - private to sema*.cpp: the Checker class (binding, type inference, checks).
#pragma once

#include "translator/sema/sema.h"

#include <fnmatch.h>

#include <deque>
#include <functional>
#include <map>
#include <set>

#include "translator/frontend/print_family.h"
#include "translator/sema/builtins.h"
#include "translator/support/suggest.h"

namespace stap_pmu::sema_impl {

const std::set<std::string> stat_ops = {"count", "sum", "min", "max", "avg", "variance"};
constexpr int max_keys = 9; // SystemTap's limit
constexpr int64_t max_linear_buckets = 1000;
constexpr int max_alias_depth = 16;

// What a walk is inside of: a probe body or a function.
struct Scope {
	std::vector<std::unique_ptr<Symbol>> *locals = nullptr;
	std::set<const Symbol *> *globals = nullptr; // globals touched
	std::set<size_t> *calls = nullptr;
	FunctionInfo *fn = nullptr;
	bool *stats = nullptr; // set when a scalar statistic is touched
};

class Checker {
public:
	Checker(const Script &s, const KernelFacts &f, const ProcessFacts *pf, Diagnostics &d,
		bool guru = false)
		: script_(s), facts_(f), process_(pf), diags_(d), guru_(guru)
	{
	}

	SemaResult run();

private:
	void sampling_events();

	void declare_globals();

	void declare_functions();

	int find_function(const std::string &name) const;

	static bool is_special_builtin(const std::string &n);

	// An alias a probe point names: its first `covered` components are the
	// alias's name, the rest a suffix appended to each of its points.
	struct AliasMatch {
		const Probe *alias;
		size_t covered;
		bool through_wildcard; // matched by a wildcard component
	};
	struct AliasName {
		std::vector<std::string> components;
		const Probe *alias;
	};
	// The aliases whose name is pp, that pp's wildcards match, or that
	// name a prefix of pp (SystemTap's alias suffixes), each alias once,
	// in the order of their names.
	std::vector<AliasMatch> find_aliases(const ProbePoint &pp);
	void walk_aliases(const std::vector<std::string> &want, size_t pos,
			  const std::vector<const AliasName *> &names, bool through_wildcard,
			  std::vector<AliasMatch> &out);
	// inner with the suffix of pp past `covered` appended (kept here: the
	// expansions point at it)
	const ProbePoint &with_suffix(const ProbePoint &inner, const ProbePoint &pp, size_t covered);
	// alias name -> its alias, built on the first lookup; the names in
	// components, sorted; the first components
	std::multimap<std::string, const Probe *> alias_index_;
	std::vector<AliasName> alias_names_;
	std::set<std::string> alias_heads_;
	bool alias_index_built_ = false;
	std::deque<ProbePoint> suffixed_points_;

	// One expansion of a point: resolved points and the bodies around the
	// user's body (alias prologues before, epilogues after).
	struct Expansion {
		std::vector<std::pair<const ProbePoint *, std::optional<ResolvedPoint>>> points;
		std::vector<const Stmt *> before, after;
		std::vector<const Expr *> conds;
	};

	bool expand(const ProbePoint &pp, int depth, std::vector<Expansion> &out, bool optional);
	// The expansions of one alias pp names (its points, with pp's suffix).
	bool expand_alias(const AliasMatch &m, const ProbePoint &pp, int depth,
			  std::vector<Expansion> &out, bool optional);

	void build_bodies();

	size_t synthesize(const Probe &p, const Expansion &e);

	Symbol *find_global(const std::string &name);

	static Symbol *find_in(std::vector<std::unique_ptr<Symbol>> &v, const std::string &name);

	void add_local(std::vector<std::unique_ptr<Symbol>> &locals, const std::string &name,
		       SourceLoc loc, bool implicit);

	void collect_assigned(const Stmt &s, std::vector<std::unique_ptr<Symbol>> &locals);

	void collect_assigned(const Expr &e, std::vector<std::unique_ptr<Symbol>> &locals);

	void walk_all(bool report);

	void error(SourceLoc loc, std::string msg, std::string hint = {});

	void learn(Symbol &sym, Type t);

	void learn_type(Type &slot, Type t);

	Type set(const Expr &e, Type t);

	void stmt(const Stmt &s);

	void loop(const Stmt &body);

	void ret(const Stmt &s);

	void expect_type(const Expr &e, Type want, const std::string &what);

	Symbol *lookup(const std::string &name);

	void touch(const Symbol &sym);

	std::vector<std::string> visible_names();

	Symbol *resolve_var(const Expr &e);
	Symbol *body_special(const Expr &e, const std::string &name, bool (*is_kind)(ProbeKind),
			     const std::string &family, Symbol *sym);
	Symbol *procfs_value(const Expr &e);
	Symbol *nf_verdict(const Expr &e, bool write);
	Result<TargetAccess> netfilter_access(const ResolvedPoint &p,
					      const std::string &spelling) const;

	void pretty_var(const Expr &e);
	Type pretty_all(const Expr &e);
	static constexpr int pretty_depth = 4; // $x$$: levels of nested structs
	bool target_var(const Expr &e, const std::string &spelling, bool entry, bool quiet,
			bool address = false);
	Type address_of(const Expr &e);
	// How point p reads spelling: process probes ask the process facts
	// (markers: their $argN), the others the kernel's; the error for a
	// point without target variables.
	Result<TargetAccess> point_access(const ResolvedPoint &p, const std::string &spelling,
					  bool ret) const;
	Result<TargetAccess> mark_access(const ResolvedPoint &p, const std::string &spelling) const;
	// $$parms of a process probe: each parameter (markers: arg1..argN)
	bool parm_lists(const Expr &e);
	std::vector<std::pair<std::string, bool>> parm_names(const std::string &which,
							     const ResolvedPoint &p) const;
	bool point_parms(const Expr &e, ResolvedPoint &p);
	void subscripts(const Expr &e);

	Type var(const Expr &e);

	bool cast_op(const Expr &e, bool quiet);

	Symbol *array_ref(const std::string &name, SourceLoc loc, const Expr *owner,
			  const std::vector<ExprPtr> *keys, size_t nkeys);

	void key(Symbol &sym, size_t i, const Expr &k);

	Type index(const Expr &e, bool stat_ok);

	// @hist_log(s)[i], @hist_linear(s, lo, hi, step)[i]: a bucket's count
	Type hist_index(const Expr &e);

	Type expr(const Expr &e);

	// Types each child of e on its own, for the errors inside them, when
	// e itself is already in error (expects no type of them).
	void check_children(const Expr &e);

	Type binary(const Expr &e);
	int folded_cond(const Expr &c);
	void regex_use(const Expr &e);

	void check_not_iterated(const Symbol &sym, SourceLoc loc);

	Symbol *lvalue(const Expr &target, const std::string &op);

	Type assign(const Expr &e);

	// x = y where neither is known yet: nothing to learn this round
	void expect_back(const Expr &, Symbol &) {}

	Type incdec(const Expr &e);

	void del(const Stmt &s);

	void foreach(const Stmt &s);

	// foreach (b in @hist_log(s)): the buckets, in order
	void foreach_hist(const Stmt &s);

	Type call(const Expr &e);

	Type user_call(const Expr &e, size_t fi);
	void function_probe_only(const Expr &e);

	Type print_family_call(const Expr &e, const PrintFunction &p);
	Type print_call(const Expr &e, const PrintFunction &p);

	Type printf_call(const Expr &e, const PrintFunction &p);

	Symbol *stat_operand(const Expr &e, const std::string &what);

	bool const_long(const Expr &e, int64_t &out);

	Type at_call(const Expr &e);

	// @hist_log(s), @hist_linear(s, lo, hi, step): checks the operands and
	// records the aggregate's histogram
	Type hist_op(const Expr &e);
	Type entry_expr(const Expr &e);
	bool return_body() const;

	Type pmu_call(const Expr &e);

	void finish(bool report_unknown_locals);

	void finish_locals(std::vector<std::unique_ptr<Symbol>> &ls, bool report_unknown_locals);
	bool tapset_file(const SourceFile *f) const; // a probe of f comes from a tapset

	void global_lock();

	void no_probes_left();

	const Script &script_;
	const KernelFacts &facts_; // the target kernel
	const ProcessFacts *process_; // user-space binaries (nullptr: none)
	Diagnostics &diags_;
	bool guru_; // -g: $verdict of netfilter probes may be set
	SemaResult r_;
	Scope scope_;
	int loops_ = 0;
	std::vector<const Symbol *> iterating_;
	bool report_ = false;
	// a '*' key is allowed here (the keys of delete, 'in', a foreach slice)
	bool wildcard_ok_ = false;
	// target variables (point, body index) not resolved yet (target_var)
	std::set<std::pair<const ResolvedPoint *, size_t>> tvar_failed_;
	size_t cur_body_ = SIZE_MAX;
	bool changed_ = false;
	// process probes' $$parms lists: true when built for $$vars (with locals)
	std::map<const ResolvedPoint *, std::string> parms_vars_; // the first of $$parms/$$vars/$$locals
	// @cast expressions resolved (each once): the error, or none
	std::unordered_map<const Expr *, std::optional<CastError>> casts_;
};

} // namespace stap_pmu::sema_impl
