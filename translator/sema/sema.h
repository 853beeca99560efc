// sema.h - semantic pass: probe points resolved, names bound, types
// inferred and checked. Input: the parsed Script; output: SemaResult, side
// tables keyed by syntax nodes (the tree itself is not modified).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "translator/frontend/ast.h"
#include "translator/frontend/diagnostics.h"
#include "translator/sema/format.h"
#include "translator/probes/probe_kind.h"
#include "translator/frontend/types.h"
#include "translator/regex/regex.h"

namespace stap_pmu {

// Histogram kinds a statistics aggregate collects (one per aggregate).
enum class HistKind { None, Log, Linear };

// Where a global lives (sema/storage.cpp): Shared, one copy that the
// probes touching it lock; PerCpu, one copy per CPU added to without a
// lock and merged when read (scalar statistics always; numbers that the
// probes only accumulate into).
enum class Storage { Shared, PerCpu };

struct Symbol {
	std::string name;
	Type type = Type::Unknown; // arrays: the element type
	bool global = false;
	bool array = false;
	int arity = -1;            // arrays: number of keys (-1 unknown)
	std::vector<Type> keys;    // arrays: key types
	int64_t size = 0;          // global a[N] (0: MAXMAPENTRIES)
	bool wrap = false;         // a%[N]
	SourceLoc decl;
	const Expr *init = nullptr; // globals: literal initializer
	bool read = false;
	bool written = false;
	bool param = false;
	bool implicit = false; // foreach keys, catch variables: no unused warning
	bool never_assigned = false; // a local only read: 0 or "" (warned)
	std::string near;            // never_assigned: a visible name it may be a typo of
	HistKind hist = HistKind::None;
	int64_t hist_lo = 0, hist_hi = 0, hist_step = 0;
	SourceLoc hist_loc;
	bool variance = false; // a statistic read by @variance (keeps the sum of squares)
	bool minmax = false;   // a statistic read by @min or @max (keeps both)
	Storage storage = Storage::Shared; // globals (sema/storage.cpp)
	std::string storage_why;           // why, in the words of -p2 -v
};

struct EventUse {
	std::string name;
	SourceLoc loc; // first use
	// a perf sampling probe's event: a counter of its own (never shared
	// with @pmu reads of the same name), created with a period or frequency
	bool sampling = false;
	uint64_t sample_period = 0;
	uint64_t sample_freq = 0;
	// @pmu_thread("E"): a per-task counter of the target's threads (and the
	// tasks they create), never shared with @pmu reads of the same name
	bool per_thread = false;
};

struct ProbeBody {
	const Probe *probe = nullptr;   // the user's probe (for its location)
	const Stmt *body = nullptr;     // what runs (may combine alias bodies)
	std::unique_ptr<Stmt> owned;    // synthesized body (aliases, conditions)
	std::vector<std::unique_ptr<Symbol>> locals;
	bool uses_globals = false;      // takes a global's lock (locks not empty)
	bool touches_stat = false;      // touches a scalar statistic itself
	bool uses_percpu = false;       // it or a function it calls touches per-CPU storage
	std::set<const Symbol *> globals; // globals it touches itself (not scalar statistics)
	// the shared globals it and the functions it calls touch: the locks it
	// holds while it runs (taken in the globals' declaration order)
	std::set<const Symbol *> locks;
	std::set<size_t> calls;         // functions called directly
	// target variables the body reads ("$a->b", "@entry($a)"); each probe
	// point of the body has their access in ResolvedPoint::tvars, same order
	std::vector<std::string> tvars;
	// @entry(expr) of other than a target variable (process .return
	// probes): the expressions, evaluated at the function's entry
	std::vector<const Expr *> entry_exprs;
};

struct FunctionInfo {
	const Function *fn = nullptr;
	Type ret = Type::Unknown;
	std::vector<std::unique_ptr<Symbol>> locals; // parameters first
	bool uses_globals = false;
	bool touches_stat = false;
	bool uses_percpu = false;
	std::set<const Symbol *> globals;
	std::set<const Symbol *> locks; // as ProbeBody::locks
	std::set<size_t> calls;
	bool used = false;
};

struct ProbeInstance {
	ResolvedPoint point;
	size_t body = 0; // index into SemaResult::bodies
	bool optional = false;
};

constexpr size_t pretty_parms = SIZE_MAX, pretty_return = SIZE_MAX - 1;

struct SemaResult {
	std::vector<std::unique_ptr<Symbol>> globals;
	std::vector<ProbeBody> bodies;        // one per `probe` (more with aliases)
	std::vector<FunctionInfo> functions;  // one per script function
	std::vector<ProbeInstance> instances; // one per probe point
	std::vector<EventUse> events;         // distinct @pmu events, first use first
	std::unordered_map<const Expr *, Type> types;
	std::unordered_map<const Expr *, const Symbol *> symbols; // Var/Index/In -> symbol
	std::unordered_map<const Expr *, size_t> event_of;       // @pmu, @pmu_thread -> event index
	std::unordered_map<const Expr *, size_t> tvar_of;        // $x, @entry($x) -> body tvar index
	std::unordered_map<const Expr *, size_t> entry_expr_of;  // @entry(expr) -> body entry_exprs index
	// $x$, $x$$ -> (body tvar index, depth); $$parms$, $$return$ ->
	// (pretty_parms or pretty_return, depth); the layouts are the points'
	std::unordered_map<const Expr *, std::pair<size_t, int>> pretty_of;
	std::unordered_map<const Expr *, int64_t> const_of;      // @defined($x) -> 0 or 1
	// n++, n--, n += e, n -= e of a PerCpu global whose value is not used:
	// an add to this CPU's copy (sema/storage.cpp)
	std::set<const Expr *> accumulates;
	// the condition of an if, ?:, && or || known at translation time
	// (@defined, literals): 0 or 1. The branch it rules out was not
	// checked (its target variables need not exist) and is not emitted.
	std::unordered_map<const Expr *, int64_t> folded;
	std::unordered_map<const Expr *, TargetAccess> cast_of;  // @cast(...)->m -> member steps
	std::unordered_map<const Expr *, Format> formats;        // printf/sprintf -> format
	std::unordered_map<const Expr *, size_t> call_of;        // Call -> function index
	// =~ and !~: the compiled regexes (one per distinct literal) and which
	// each operator uses; submatches: matched(), matched_str() or ngroups()
	// is called, so every match keeps its submatches for them
	std::vector<regex::Program> regexes;
	std::vector<std::string> regex_sources;
	std::unordered_map<const Expr *, size_t> regex_of;
	bool regex_submatches = false;
	// a user-stack or user-symbol function is called (ubacktrace(),
	// usymname(), ...): the module holds the known user binaries' tables
	bool user_symbols = false;
	// foreach: array, keys, value; try: catch variable
	std::unordered_map<const Stmt *, const Symbol *> stmt_array;
	std::unordered_map<const Stmt *, std::vector<const Symbol *>> stmt_vars;
	std::unordered_map<const Stmt *, const Symbol *> stmt_value;
	// $value of procfs probe bodies: a string the runtime keeps per file
	// access (runtime/stp_procfs.h), not a variable of the script
	// $verdict of netfilter probe bodies: the hook's verdict, in the
	// probe's argument array (runtime/stp_netfilter.h)
	std::unique_ptr<Symbol> nf_verdict = [] {
		auto s = std::make_unique<Symbol>();
		s->name = "$verdict";
		s->type = Type::Long;
		return s;
	}();
	std::unique_ptr<Symbol> procfs_value = [] {
		auto s = std::make_unique<Symbol>();
		s->name = "$value";
		s->type = Type::String;
		return s;
	}();

	Type type_of(const Expr &e) const
	{
		auto it = types.find(&e);
		return it == types.end() ? Type::Unknown : it->second;
	}
	const Symbol *symbol_of(const Expr &e) const
	{
		auto it = symbols.find(&e);
		return it == symbols.end() ? nullptr : it->second;
	}
};

// facts: the target kernel, which kernel.function, kernel.trace, target
// variables and @cast ask (nullptr: none, they fail as for a kernel without
// debugging information, NoKernelFacts).
SemaResult analyze(const Script &script, const KernelFacts *facts, Diagnostics &diags);
// process: the user-space binaries, which process("PATH") probe points and
// their target variables ask (nullptr: process probes are reported as not
// available).
// guru: -g (a netfilter probe may set $verdict).
SemaResult analyze(const Script &script, const KernelFacts *facts, const ProcessFacts *process,
		   Diagnostics &diags, bool guru = false);
inline SemaResult analyze(const Script &script, Diagnostics &diags)
{
	return analyze(script, nullptr, diags);
}

} // namespace stap_pmu
