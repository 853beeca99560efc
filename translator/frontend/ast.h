// ast.h - syntax tree of a parsed script. Nodes only describe the source;
// types and resolved names live in the semantic pass's output (sema.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "translator/frontend/source.h"
#include "translator/frontend/types.h"

namespace stap_pmu {

struct Expr;
struct Stmt;
using ExprPtr = std::unique_ptr<Expr>;
using StmtPtr = std::unique_ptr<Stmt>;

enum class ExprKind {
	Number,  // number
	String,  // text
	Var,     // name
	Unary,   // op operand(args[0]): - ! ~
	Binary,  // args[0] op args[1]: arithmetic, comparison, logical, '.'
	Ternary, // args[0] ? args[1] : args[2]
	Assign,  // args[0] op args[1]: = += -= *= /= %= .= <<<
	IncDec,  // op "++"/"--", prefix flag, args[0]
	Call,    // name(args): builtins and functions
	AtCall,  // @name(args): @pmu("EV"), @count(x), @hist_log(x), @cast(p, "T")->m ...
	Index,   // text[args...]: array element
	In,      // [args...] in text  (a single key may be written without [ ])
	EmbeddedC, // %{ text %} used as an expression (guru mode)
	Wildcard,  // '*' for a key: a[*, k] in foreach, delete and 'in'
	HistIndex, // args[0][args[1]]: @hist_log(s)[i], a histogram bucket's count
};

struct Expr {
	ExprKind kind;
	SourceLoc loc;
	int64_t number = 0;
	std::string text; // string value, variable or function name, operator
	bool prefix = false;
	std::vector<ExprPtr> args;
	// AtCall "cast": @cast(p, "type"[, "module"])->members[0]->members[1]...
	std::vector<std::string> members;
	std::vector<SourceLoc> member_locs; // each member name's location
	// Target variable ($p->a[i], text "$p->a[]") or @cast chain (member
	// "[]"): the expressions of its "[...]" steps, in order; a constant
	// index is spelled "[N]" in the text or member and is here too.
	std::vector<ExprPtr> subscripts;

	Expr(ExprKind k, SourceLoc l) : kind(k), loc(l) {}
};

enum class StmtKind {
	Block,    // body
	Expr,     // expr
	If,       // expr, body[0] then, body[1] else (optional)
	Empty,    // ;
	Next,     // next
	Return,   // return [expr]
	Break,    // break
	Continue, // continue
	While,    // while (expr) body[0]
	For,      // for (exprs[0]; exprs[1]; exprs[2]) body[0]; each may be null
	Foreach,  // foreach (value = [names...] in array sort limit) body[0];
	          // array[exprs...] a slice (Wildcard for '*'), or expr a
	          // histogram (@hist_log(s)) and name empty
	Delete,   // delete expr (Var or Index)
	Try,      // try body[0] catch (name) body[1]
	EmbeddedC, // %{ text %} inside a body
};

struct Stmt {
	StmtKind kind;
	SourceLoc loc;
	ExprPtr expr;
	std::vector<StmtPtr> body;
	std::vector<ExprPtr> exprs;     // For: init, cond, step (null when absent); Foreach: slice
	std::vector<std::string> names; // Foreach: key variables
	std::vector<SourceLoc> name_locs;
	std::string name;               // Foreach: array; Try: catch variable
	std::string value;              // Foreach: value variable ("" if none)
	SourceLoc value_loc, array_loc;
	int sort_col = -1;              // Foreach: -1 none, 0 value, k+1 key k
	int sort_dir = 0;               // +1 ascending, -1 descending
	ExprPtr limit;                  // Foreach: optional
	std::string text;               // EmbeddedC

	Stmt(StmtKind k, SourceLoc l) : kind(k), loc(l) {}
};

// One dotted component of a probe point: function("sym"), ms(10), return.
struct ProbeComponent {
	std::string name;
	SourceLoc loc;
	bool has_arg = false;
	bool arg_is_string = false;
	std::string str_arg;
	int64_t num_arg = 0;
	SourceLoc arg_loc;
};

struct ProbePoint {
	SourceLoc loc;
	std::vector<ProbeComponent> components;
	bool optional = false;   // '?'
	bool sufficient = false; // '!'
	ExprPtr cond;            // if (cond)
};

struct Probe {
	SourceLoc loc;
	std::vector<ProbePoint> points; // "probe a, b { }"
	StmtPtr body;
	// probe NAME = points { } (alias, prologue) or NAME += points (epilogue)
	bool is_alias = false;
	bool epilogue = false;
	std::vector<ProbePoint> alias_names;
	bool from_tapset = false;
};

struct Global {
	SourceLoc loc;
	std::string name;
	ExprPtr init;        // optional literal initializer
	bool array = false;  // global a[N]
	int64_t size = 0;    // N (0: default MAXMAPENTRIES)
	bool wrap = false;   // global a%[N] / a%
	bool is_private = false;
	bool from_tapset = false;
};

struct Param {
	std::string name;
	Type type = Type::Unknown; // declared with :long / :string
	SourceLoc loc;
};

struct Function {
	SourceLoc loc;
	std::string name;
	Type ret = Type::Unknown; // declared with name:type
	std::vector<Param> params;
	StmtPtr body;             // null for embedded-C functions
	std::string embedded;     // %{ %} body (guru mode)
	SourceLoc embedded_loc;   // its '%{'
	bool is_private = false;
	bool from_tapset = false;
};

struct Script {
	std::vector<Global> globals;
	std::vector<Probe> probes;
	std::vector<Function> functions;
	std::vector<std::string> embedded; // top-level %{ %} blocks
	std::vector<SourceLoc> embedded_locs; // their '%{', same order
	// order of top-level items as written, for printing: 'g', 'p', 'f', 'e'
	std::vector<std::pair<char, size_t>> order;
};

// Spelling of a probe point as SystemTap prints it: kprobe.function("f").return
std::string probe_point_str(const ProbePoint &pp);

// ---- children ----
// The fields of a node that hold its children, in source order: the one
// place that says where a node's sub-nodes are and in which order they are
// written. Generic walks (for_each_child below) and the clone (ast.cpp) go
// through these two, so a new child field is added here; the per-kind
// passes (typing, printing, emitting C) handle each kind's children as its
// meaning demands.
//   Expr: args, for every kind (the operands, the arguments, the keys),
//     then subscripts (the "[i]" steps of a target variable or @cast).
//   Stmt: its expressions, then its statements: expr (the condition of
//     if/while, the value of return, the target of delete, an expression
//     statement, foreach's histogram), exprs (for's init, cond, step,
//     foreach's slice), limit (foreach), then body
//     (block items, then/else, the loop body, try/catch). For every kind
//     this is the order in which the source writes them.
// f is called once per field with that field of each node given (one node
// to look at it, two to copy one into the other): an ExprPtr or StmtPtr
// (null when absent) or a vector of them.
template <class F, class... E> void expr_child_fields(F &&f, E &...e)
{
	f(e.args...);
	f(e.subscripts...);
}

template <class F, class... S> void stmt_child_fields(F &&f, S &...s)
{
	f(s.expr...);
	f(s.exprs...);
	f(s.limit...);
	f(s.body...);
}

namespace ast_detail {

template <class T, class F> void visit_field(const std::unique_ptr<T> &p, F &f)
{
	if (p)
		f(static_cast<const T &>(*p));
}

template <class T, class F> void visit_field(const std::vector<std::unique_ptr<T>> &v, F &f)
{
	for (const std::unique_ptr<T> &p : v)
		visit_field(p, f);
}

} // namespace ast_detail

// f(child) for each direct child of a node that is present, in source order
// (see above). An Expr's children are expressions: f takes a const Expr &.
// A Stmt's are expressions, then statements: f takes both a const Expr &
// and a const Stmt & (a generic lambda or an overload set). A walk over a
// whole tree does its work for a node and then calls itself through this:
//   void count(const Expr &e) { n++; for_each_child(e, [&](const auto &c) { count(c); }); }
// Top-level items hold their expressions and bodies directly: Global::init,
// ProbePoint::cond, Probe::body, Function::body (null for embedded C).
template <class F> void for_each_child(const Expr &e, F &&f)
{
	expr_child_fields([&](const auto &field) { ast_detail::visit_field(field, f); }, e);
}

template <class F> void for_each_child(const Stmt &s, F &&f)
{
	stmt_child_fields([&](const auto &field) { ast_detail::visit_field(field, f); }, s);
}

// Deep copies (a probe alias's body is copied into each probe using it).
ExprPtr clone_expr(const Expr &e);
StmtPtr clone_stmt(const Stmt &s);

} // namespace stap_pmu
