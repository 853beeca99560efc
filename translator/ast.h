// ast.h - syntax tree of a parsed script. Nodes only describe the source;
// types and resolved names live in the semantic pass's output (sema.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "translator/source.h"

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
	AtCall,  // @name(args): @pmu("EV"), @count(x), ...
};

struct Expr {
	ExprKind kind;
	SourceLoc loc;
	int64_t number = 0;
	std::string text; // string value, variable or function name, operator
	bool prefix = false;
	std::vector<ExprPtr> args;

	Expr(ExprKind k, SourceLoc l) : kind(k), loc(l) {}
};

enum class StmtKind {
	Block, // body
	Expr,  // expr
	If,    // expr, body[0] then, body[1] else (optional)
	Empty, // ;
	Next,  // next
};

struct Stmt {
	StmtKind kind;
	SourceLoc loc;
	ExprPtr expr;
	std::vector<StmtPtr> body;

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
};

struct Probe {
	SourceLoc loc;
	std::vector<ProbePoint> points; // "probe a, b { }"
	StmtPtr body;
};

struct Global {
	SourceLoc loc;
	std::string name;
	ExprPtr init; // optional literal initializer
};

struct Script {
	std::vector<Global> globals;
	std::vector<Probe> probes;
};

// Spelling of a probe point as SystemTap prints it: kprobe.function("f").return
std::string probe_point_str(const ProbePoint &pp);

} // namespace stap_pmu
