// codegen_impl.h - private to codegen*.cpp: the Emitter class that writes the module's C.
#pragma once

#include "translator/codegen/codegen.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <set>
#include <sstream>
#include <tuple>

#include "translator/frontend/print_family.h"
#include "translator/sema/builtins.h"
#include "translator/codegen/cmap.h"

namespace stap_pmu::codegen_impl {

constexpr uint32_t log_buckets = 129;

inline uint32_t hist_buckets(const Symbol &s)
{
	switch (s.hist) {
	case HistKind::Log:
		return log_buckets;
	case HistKind::Linear:
		return static_cast<uint32_t>((s.hist_hi - s.hist_lo) / s.hist_step + 3);
	default:
		return 0;
	}
}

inline const char *ctype_enum(Type t)
{
	switch (t) {
	case Type::String: return "STP_TSTR";
	case Type::Stats: return "STP_TSTAT";
	default: return "STP_TLONG";
	}
}

// ", .off = { ... }" and the run-time indexes of a struct stp_tvar
// initializer (codegen_expr.cpp)
std::string tvar_steps(const TargetAccess &a);

// a number kept per CPU: reads merge, accumulations add to this CPU's copy
inline bool is_percpu_number(const Symbol &s)
{
	return s.global && !s.array && s.type == Type::Long && s.storage == Storage::PerCpu;
}

inline bool is_scalar_stat(const Symbol &s)
{
	return s.global && !s.array && s.type == Type::Stats;
}

// a statistic local to a probe or function: struct { s64 s[5]; s64 h[]; },
// s being a struct stp_stat
inline bool is_local_stat(const Symbol &s)
{
	return !s.global && s.type == Type::Stats;
}

// Buckets a script may index: log 0..127 (SystemTap's numbering), linear all.
inline uint32_t hist_index_count(const Symbol &s)
{
	return s.hist == HistKind::Log ? log_buckets - 1 : hist_buckets(s);
}

// bit i set: key i of an array reference is '*' (a slice)
inline uint32_t wildcards(const std::vector<ExprPtr> &keys)
{
	uint32_t m = 0;
	for (size_t i = 0; i < keys.size(); i++)
		if (keys[i]->kind == ExprKind::Wildcard)
			m |= 1u << i;
	return m;
}

class Emitter {
public:
	explicit Emitter(const CodegenInput &in) : in_(in), sema_(*in.sema) {}

	std::string run();

private:
	void header();

	void guru_prelude();

	void regex_limits();

	void regex_tables();

	bool has_maps() const;
	static bool code_reads_regs(const std::string &code);

	static std::string local_decl(const Symbol &s);

	void locals_union();

	static bool emitted(const FunctionInfo &f);

	void frames_union();

	void globals();
	void global_locks();
	void lock_tables();

	void hdesc(const Symbol &g);

	void scalar_stat(const Symbol &g);

	void percpu_number(const Symbol &g);

	void maps_table();

	static const char *kind_enum(ProbeKind k);

	void tvar_tables();

	void tracepoint_functions();

	void probe_table();
	// scripts with more entry probes call their bodies through p->body
	static constexpr size_t kEntryDispatchMax = 8;
	std::vector<size_t> dispatched_entry_probes() const;
	void entry_dispatch();
	void procfs_table();
	void user_point(const ResolvedPoint &p, size_t body);
	unsigned entry_function(size_t i, std::ostringstream &out);

	// ---- bodies ----

	// Where the body being generated keeps its locals and temporaries.
	struct Ctx {
		std::string prefix;   // "c->l.p3." or "f->"
		bool fn = false;
		unsigned temps = 0, max_temps = 0;
		// enclosing foreach arrays, with the try depth they started at
		std::vector<std::pair<std::string, size_t>> foreach;
		std::vector<int> tries;             // catch label numbers
		std::vector<std::string> continues; // what 'continue' does per loop
		// a probe body without loops or calls: the most actions it can
		// count (its statements), else -1 (see block_body)
		long actions_bound = -1;
	};

	void function(size_t i, std::ostringstream &out);

	void embedded_function(const FunctionInfo &f, std::ostringstream &out);

	void body(size_t i, std::ostringstream &out);

	std::ostream &line(int ind);

	std::string error_exit();

	std::string all_foreach_release();

	static unsigned count_actions(const Stmt &s);

	static long straight_actions(const Stmt &s);

	void block_body(const Stmt &s, int ind);

	void checked(const Stmt &s, const std::string &code, bool may_fail, int ind);

	std::string eval(const Expr &e, bool &may_fail);

	void stmt(const Stmt &s, int ind);

	void ret(const Stmt &s, int ind);

	void loop(const Stmt &s, const Expr *init, const Expr *cond, const Expr *step, int ind);

	std::string local_ref(const Symbol &s) { return ctx_.prefix + "l_" + s.name; }

	void store_var(const Symbol &v, const std::string &val, Type t, int ind);

	void foreach(const Stmt &s, int ind);

	// foreach (b in @hist_log(s)): every bucket index, in order
	void foreach_limit(const Stmt &s, const std::string &lim, int ind);
	void foreach_hist(const Stmt &s, int ind);

	// the key of a foreach slice, evaluated once into a stp_key named k
	void slice_key(const Stmt &s, const Symbol &arr, const std::string &k, int ind);

	void try_stmt(const Stmt &s, int ind);

	std::string del(const Expr &t, bool &mf);

	std::string temp();

	std::string uniq(const char *base) { return base + std::to_string(label_++); }

	std::string var_ref(const Symbol &s);

	std::string ref_of(const Expr &v);

	std::string percpu_add(const Symbol &s, bool sub, const std::string &v);

	std::string key(const Expr &e); // '*' keys are left out (wildcards())

	std::string expr(const Expr &e);

	std::string binary(const Expr &e);

	// The C of args, in order. When one of them has a side effect (an
	// assignment, ++/--, a call, embedded C), each is first stored in a
	// temporary so that C sees them sequenced left to right, as the script
	// does (x++ + x++ and f(x, x++) are undefined in C otherwise): pre gets
	// the declarations to put before the use, the result names the
	// temporaries.
	std::vector<std::string> operands(const std::vector<const Expr *> &args, std::string &pre);

	std::string arith(const std::string &op, const std::string &a, const std::string &b);

	std::string assign(const Expr &e);

	std::string incdec(const Expr &e);

	std::string lref(const Expr &t);

	std::pair<std::string, std::string> print_piece(const Expr &a, const std::string &v);

	static std::string escape_percent(const std::string &s);

	std::string print_call(const Expr &e, const PrintFunction &p);

	std::string hist_print(const Expr &h);

	// the count of bucket idx (C, evaluated after the aggregate's key) of
	// the histogram h (@hist_log(s))
	std::string hist_bucket(const Expr &h, const std::string &idx);

	// a local statistic's histogram description (a static next to the use)
	static std::string local_hdesc(const Symbol &s);

	std::string call(const Expr &e);

	std::string user_call(const Expr &e, const FunctionInfo &f);

	std::string printf_call(const Expr &e, const PrintFunction &p);

	std::string stat_of(const Expr &v);

	std::string tvar_ref(const Expr &e);

	std::string cast_ref(const Expr &e);
	std::string index_values(const std::vector<std::string> &steps, const Expr &owner);

	std::string at_call(const Expr &e);

	// $x$, $x$$ (codegen_pretty.cpp): the call in a body, and after the
	// target-variable tables one printing function per probe point and a
	// function per (body, variable, depth) that picks the point's
	std::string pretty_ref(const Expr &e);
	void pretty_functions();
	void pretty_decls();
	std::string pretty_point_all(size_t i, size_t k, int depth);

	const CodegenInput &in_;
	const SemaResult &sema_;
	std::ostringstream os_;
	std::ostringstream *out_ = nullptr;
	std::vector<unsigned> body_temps_, fn_temps_;
	std::string fn_decls_;
	const FunctionInfo *fn_ = nullptr;
	Ctx ctx_;
	int label_ = 0;
	bool may_fail_ = false;
	size_t body_ = SIZE_MAX;                    // the body being emitted
	std::set<std::tuple<size_t, size_t, int>> pretty_; // (body, tvar, depth) used
};

} // namespace stap_pmu::codegen_impl
