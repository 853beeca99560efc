// storage.cpp - per global, shared (locked) or per CPU (no lock).
//
// A numeric scalar global is per CPU when every access that can run while
// other probes run is an accumulation whose value is not used (n++, n--,
// ++n, --n, n += e, n -= e as a statement or a for loop's init or step),
// and it is read only where a merged value is what the script means:
//   - begin, end, error (and never) probes run alone: begin before any
//     other probe runs, end and error after every probe is unregistered and
//     no handler is left; any access is allowed there (assignments too);
//   - timer probes may read it (the sum of the CPUs' copies at one moment,
//     which is the exact total once the adding probes are quiet, and a total
//     between the one at the start and the one at the end of the read while
//     they add), but not assign it;
//   - every other probe (kprobes, tracepoints, perf, user-space, procfs, ...)
//     may only accumulate.
// A function's accesses count in every probe that calls it (directly or
// through other functions). Embedded C anywhere in the script keeps every
// number shared: it may name the C variable. Strings and arrays stay shared.
#include "translator/sema/storage.h"

#include <map>
#include <type_traits>

namespace stap_pmu {

namespace {

// Where code runs, from most to least exclusive.
enum Ctx { Alone = 0, Reader = 1, Hot = 2 };

const char *ctx_word(Ctx c)
{
	return c == Alone ? "begin/end/error" : c == Reader ? "a timer probe" : "a probe";
}

const char *kind_word(ProbeKind k)
{
	switch (k) {
	case ProbeKind::Begin: return "begin";
	case ProbeKind::End: return "end";
	case ProbeKind::Error: return "error";
	case ProbeKind::Never: return "never";
	case ProbeKind::Timer: return "timer";
	default: return "probe";
	}
}

Ctx point_ctx(ProbeKind k)
{
	switch (k) {
	case ProbeKind::Begin:
	case ProbeKind::End:
	case ProbeKind::Error:
	case ProbeKind::Never:
		return Alone;
	case ProbeKind::Timer:
		return Reader;
	default:
		return Hot;
	}
}

// What is known of one numeric scalar global.
struct Facts {
	std::set<std::string> adds;    // "n++", "n += e" seen outside begin/end/error
	std::set<std::string> readers; // "end", "timer", "function f", ... where it is read
	std::string blocker;           // why it must stay shared (first reason)
};

class Analysis {
public:
	Analysis(const Script &s, SemaResult &r) : script_(s), r_(r) {}

	void run();

private:
	void contexts();
	void walk(const Stmt &s, Ctx ctx, const std::string &where);
	void walk(const Expr &e, Ctx ctx, const std::string &where, bool used);
	Symbol *number(const Expr &e) const;
	void block(const Symbol &g, const std::string &why, SourceLoc loc);
	void decide(Symbol &g);

	const Script &script_;
	SemaResult &r_;
	std::vector<Ctx> body_ctx_;
	std::vector<std::string> body_kinds_; // "end", "begin/end", "timer", ...
	std::string reader_;                  // the reading body's kinds during a walk
	std::vector<int> fn_ctx_; // -1: never called from a probe
	std::map<const Symbol *, Facts> facts_;
	bool embedded_ = false;
};

// A numeric scalar global named by a Var expression (nullptr otherwise).
Symbol *Analysis::number(const Expr &e) const
{
	if (e.kind != ExprKind::Var)
		return nullptr;
	const Symbol *s = r_.symbol_of(e);
	if (!s || !s->global || s->array || s->type != Type::Long)
		return nullptr;
	return const_cast<Symbol *>(s);
}

void Analysis::block(const Symbol &g, const std::string &why, SourceLoc loc)
{
	Facts &f = facts_[&g];
	if (f.blocker.empty())
		f.blocker = why + (loc.valid() ? " at " + loc.str() : "");
}

// Each body's context from its probe points; each function's from the
// bodies that reach it.
void Analysis::contexts()
{
	body_ctx_.assign(r_.bodies.size(), Alone);
	body_kinds_.assign(r_.bodies.size(), "");
	std::vector<bool> seen(r_.bodies.size(), false);
	for (const ProbeInstance &pi : r_.instances) {
		Ctx c = point_ctx(pi.point.kind);
		if (c > body_ctx_[pi.body])
			body_ctx_[pi.body] = c;
		seen[pi.body] = true;
		std::string k = kind_word(pi.point.kind);
		std::string &ks = body_kinds_[pi.body];
		if (("/" + ks + "/").find("/" + k + "/") == std::string::npos)
			ks += (ks.empty() ? "" : "/") + k;
	}
	for (size_t i = 0; i < seen.size(); i++)
		if (!seen[i])
			body_ctx_[i] = Hot;
	fn_ctx_.assign(r_.functions.size(), -1);
	auto raise = [&](size_t f, int c, bool &again) {
		if (f < fn_ctx_.size() && fn_ctx_[f] < c) {
			fn_ctx_[f] = c;
			again = true;
		}
	};
	bool again = true;
	for (size_t i = 0; i < r_.bodies.size(); i++)
		for (size_t f : r_.bodies[i].calls)
			raise(f, body_ctx_[i], again);
	while (again) {
		again = false;
		for (size_t f = 0; f < r_.functions.size(); f++)
			if (fn_ctx_[f] >= 0)
				for (size_t g : r_.functions[f].calls)
					raise(g, fn_ctx_[f], again);
	}
}

void Analysis::walk(const Stmt &s, Ctx ctx, const std::string &where)
{
	switch (s.kind) {
	case StmtKind::EmbeddedC:
		embedded_ = true;
		return;
	case StmtKind::Expr:
		if (s.expr)
			walk(*s.expr, ctx, where, false);
		return;
	case StmtKind::For:
		for (size_t i = 0; i < s.exprs.size(); i++)
			if (s.exprs[i])
				walk(*s.exprs[i], ctx, where, i == 1); // init, step: unused
		for (const StmtPtr &b : s.body)
			walk(*b, ctx, where);
		return;
	case StmtKind::Delete:
		if (s.expr)
			if (Symbol *g = number(*s.expr)) {
				if (ctx != Alone)
					block(*g, "deleted in " + where, s.loc);
				return;
			}
		break;
	default:
		break;
	}
	for_each_child(s, [&](const auto &c) {
		using T = std::decay_t<decltype(c)>;
		if constexpr (std::is_same_v<T, Expr>)
			walk(c, ctx, where, true);
		else
			walk(c, ctx, where);
	});
}

// used: whether the value of e is used (false for a statement's expression)
void Analysis::walk(const Expr &e, Ctx ctx, const std::string &where, bool used)
{
	if (e.kind == ExprKind::EmbeddedC)
		embedded_ = true;
	Symbol *g = nullptr;
	if ((e.kind == ExprKind::IncDec || e.kind == ExprKind::Assign) && !e.args.empty())
		g = number(*e.args[0]);
	if (g) {
		bool add = e.kind == ExprKind::IncDec || e.text == "+=" || e.text == "-=";
		std::string op = e.kind == ExprKind::IncDec
					 ? (e.prefix ? e.text + g->name : g->name + e.text)
					 : g->name + " " + e.text + " e";
		if (add && !used) {
			r_.accumulates.insert(&e);
			if (ctx != Alone)
				facts_[g].adds.insert(op);
		} else if (ctx != Alone) {
			block(*g, std::string(add ? "the value of " : "") + op + " in " + where,
			      e.args[0]->loc);
		} else if (used || e.text != "=") {
			facts_[g].readers.insert(reader_); // x = n++, n *= 2 read it
		}
		for (size_t i = 1; i < e.args.size(); i++)
			walk(*e.args[i], ctx, where, true);
		return;
	}
	if (Symbol *v = number(e)) {
		if (ctx == Hot)
			block(*v, "read in " + where, e.loc);
		else
			facts_[v].readers.insert(reader_);
		return;
	}
	for_each_child(e, [&](const Expr &c) { walk(c, ctx, where, true); });
}

void Analysis::decide(Symbol &g)
{
	if (g.type == Type::Stats && !g.array) {
		g.storage = Storage::PerCpu;
		g.storage_why = "a statistic: <<< adds to this CPU's copy, reads merge them";
		return;
	}
	g.storage = Storage::Shared;
	if (g.array) {
		g.storage_why = "an array: arrays keep the lock";
		return;
	}
	if (g.type != Type::Long) {
		g.storage_why = g.type == Type::String ? "a string" : "not a number";
		return;
	}
	Facts &f = facts_[&g];
	if (embedded_) {
		g.storage_why = "the script has embedded C, which may use it";
		return;
	}
	if (!f.blocker.empty()) {
		g.storage_why = f.blocker;
		return;
	}
	if (f.adds.empty()) {
		g.storage_why = "no probe adds to it outside begin/end/error";
		return;
	}
	std::string ops, reads;
	for (const std::string &o : f.adds)
		ops += (ops.empty() ? "" : ", ") + o;
	for (const std::string &w : f.readers)
		reads += (reads.empty() ? "" : ", ") + w;
	g.storage = Storage::PerCpu;
	g.storage_why = "only " + ops + " in probes; " +
			(reads.empty() ? std::string("never read") : "read in " + reads);
}

void Analysis::run()
{
	embedded_ = !script_.embedded.empty();
	for (const FunctionInfo &f : r_.functions)
		embedded_ = embedded_ || (f.used && f.fn && !f.fn->body);
	contexts();
	for (size_t i = 0; i < r_.bodies.size(); i++) {
		const ProbeBody &b = r_.bodies[i];
		std::string where = ctx_word(body_ctx_[i]);
		if (body_ctx_[i] == Hot && b.probe)
			for (const ProbeInstance &pi : r_.instances)
				if (pi.body == i) {
					where = "probe " + pi.point.name;
					break;
				}
		reader_ = body_kinds_[i];
		if (b.body)
			walk(*b.body, body_ctx_[i], where);
	}
	for (size_t f = 0; f < r_.functions.size(); f++) {
		const FunctionInfo &fi = r_.functions[f];
		if (fn_ctx_[f] < 0 || !fi.fn || !fi.fn->body)
			continue;
		reader_ = std::string("function ") + fi.fn->name;
		walk(*fi.fn->body, Ctx(fn_ctx_[f]),
		     "function " + fi.fn->name + " (called from " + ctx_word(Ctx(fn_ctx_[f])) + ")");
	}
	for (auto &g : r_.globals)
		decide(*g);
	// an accumulation of a shared global is an ordinary update
	for (auto it = r_.accumulates.begin(); it != r_.accumulates.end();) {
		const Symbol *s = r_.symbol_of(*(*it)->args[0]);
		it = s && s->storage == Storage::PerCpu ? std::next(it) : r_.accumulates.erase(it);
	}
}

} // namespace

void assign_storage(const Script &script, SemaResult &r)
{
	Analysis(script, r).run();
}

std::vector<std::string> storage_summary(const SemaResult &r)
{
	std::vector<std::string> lines;
	for (const auto &g : r.globals)
		lines.push_back("global " + g->name +
				(g->storage == Storage::PerCpu ? ": per-CPU (" : ": shared, locked (") +
				g->storage_why + ")");
	// the locks each probe body takes (its own, in declaration order)
	for (const ProbeBody &b : r.bodies) {
		if (b.locks.empty() || !b.probe)
			continue;
		std::string names;
		for (const auto &g : r.globals)
			if (b.locks.count(g.get()))
				names += (names.empty() ? "" : ", ") + g->name;
		lines.push_back("probe at " + b.probe->loc.str() + " locks " + names);
	}
	return lines;
}

} // namespace stap_pmu
