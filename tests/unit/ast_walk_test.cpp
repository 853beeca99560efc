// ast_walk_test.cpp - for_each_child visits every child of every node kind,
// in source order, and the clone copies every child.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "frontend_helpers.h"
#include "translator/frontend/ast.h"

using namespace stap_pmu;
using stap_pmu::test::Front;

namespace {

// Every expression and statement kind, and the optional children both
// present and absent (else, for's three parts, foreach's limit, return's value).
const char *const kEveryKind =
	"global a\n"
	"function f(v) { return v }\n"
	"function every() {\n"
	"\tx = -1 + 2 * (x ? \"s\" : 4)\n"
	"\tx++;\n"
	"\t--x\n"
	"\tx = @cast(x, \"struct s\")->m->n\n"
	"\tf(x)\n"
	"\ta[1, 2] <<< 3\n"
	"\tprint(@count(a[1, 2]))\n"
	"\tif ([1, 2] in a) next else return;\n"
	"\tif (x) ;\n"
	"\twhile (x) { break; continue }\n"
	"\tfor (i = 0; i < 3; i++) x += i\n"
	"\tfor (;;) break\n"
	"\tforeach ([k, l-] in a limit 5) delete a[k, l]\n"
	"\tforeach (v = [k, l] in a) delete a\n"
	"\ttry { x = %{ 1 %} } catch (e) { %{ x %} }\n"
	"\treturn x\n"
	"}\n";

const char *expr_kind(ExprKind k)
{
	switch (k) {
	case ExprKind::Number: return "Number";
	case ExprKind::String: return "String";
	case ExprKind::Var: return "Var";
	case ExprKind::Unary: return "Unary";
	case ExprKind::Binary: return "Binary";
	case ExprKind::Ternary: return "Ternary";
	case ExprKind::Assign: return "Assign";
	case ExprKind::IncDec: return "IncDec";
	case ExprKind::Call: return "Call";
	case ExprKind::AtCall: return "AtCall";
	case ExprKind::Index: return "Index";
	case ExprKind::In: return "In";
	case ExprKind::EmbeddedC: return "EmbeddedC";
	case ExprKind::Wildcard: return "Wildcard";
	case ExprKind::HistIndex: return "HistIndex";
	}
	return "?";
}

const char *stmt_kind(StmtKind k)
{
	switch (k) {
	case StmtKind::Block: return "Block";
	case StmtKind::Expr: return "Expr";
	case StmtKind::If: return "If";
	case StmtKind::Empty: return "Empty";
	case StmtKind::Next: return "Next";
	case StmtKind::Return: return "Return";
	case StmtKind::Break: return "Break";
	case StmtKind::Continue: return "Continue";
	case StmtKind::While: return "While";
	case StmtKind::For: return "For";
	case StmtKind::Foreach: return "Foreach";
	case StmtKind::Delete: return "Delete";
	case StmtKind::Try: return "Try";
	case StmtKind::EmbeddedC: return "EmbeddedC";
	}
	return "?";
}

// The tree as the walker sees it: "Kind" (with the text of a leaf or an
// operator) and its children in parentheses, in visit order.
struct Shape {
	std::ostringstream out;
	std::set<std::string> exprs, stmts; // kinds seen
	bool in_order = true;               // every node's children in source order
	std::string disorder;
	bool with_locs = false;             // each node's location after its kind

	template <class Node> void children(const Node &n)
	{
		SourceLoc last{};
		bool any = false;
		for_each_child(n, [&](const auto &c) {
			if (any && !(last.line < c.loc.line ||
				     (last.line == c.loc.line && last.col < c.loc.col))) {
				in_order = false;
				disorder += c.loc.str() + " after " + last.str() + "\n";
			}
			out << (any ? " " : "(");
			last = c.loc;
			any = true;
			visit(c);
		});
		if (any)
			out << ")";
	}
	void visit(const Expr &e)
	{
		exprs.insert(expr_kind(e.kind));
		out << expr_kind(e.kind);
		if (with_locs)
			out << "@" << e.loc.str();
		if (!e.text.empty())
			out << "'" << e.text << "'";
		if (e.kind == ExprKind::Number)
			out << e.number;
		children(e);
	}
	void visit(const Stmt &s)
	{
		stmts.insert(stmt_kind(s.kind));
		out << stmt_kind(s.kind);
		if (with_locs)
			out << "@" << s.loc.str();
		children(s);
	}
};

// A script parsed in guru mode (for its embedded C).
struct Guru {
	explicit Guru(std::string text) : file("t.stp", std::move(text))
	{
		PreprocInput pp;
		pp.guru = true;
		script = parse(file, diags, pp);
	}
	std::string rendered() const
	{
		std::ostringstream os;
		diags.render(os);
		return os.str();
	}
	SourceFile file;
	Diagnostics diags;
	Script script;
};

template <class Parsed> const Stmt &probe_body(const Parsed &f)
{
	return *f.script.probes.at(0).body;
}

// kEveryKind's body: a function's ('return' is refused in a probe)
template <class Parsed> const Stmt &every_body(const Parsed &f)
{
	return *f.script.functions.at(1).body;
}

} // namespace

TEST(AstWalk, EveryChildOfEveryKindInSourceOrder)
{
	Guru f(kEveryKind);
	ASSERT_FALSE(f.diags.has_errors()) << f.rendered();
	Shape w;
	w.visit(every_body(f));
	EXPECT_EQ(w.out.str(),
		  "Block("
		  "Expr(Assign'='(Var'x' Binary'+'(Unary'-'(Number1) Binary'*'(Number2 "
		  "Ternary(Var'x' String's' Number4))))) "
		  "Expr(IncDec'++'(Var'x')) "
		  "Expr(IncDec'--'(Var'x')) "
		  "Expr(Assign'='(Var'x' AtCall'cast'(Var'x' String'struct s'))) "
		  "Expr(Call'f'(Var'x')) "
		  "Expr(Assign'<<<'(Index'a'(Number1 Number2) Number3)) "
		  "Expr(Call'print'(AtCall'count'(Index'a'(Number1 Number2)))) "
		  "If(In'a'(Number1 Number2) Next Return) "
		  "If(Var'x' Empty) "
		  "While(Var'x' Block(Break Continue)) "
		  "For(Assign'='(Var'i' Number0) Binary'<'(Var'i' Number3) IncDec'++'(Var'i') "
		  "Expr(Assign'+='(Var'x' Var'i'))) "
		  "For(Break) "
		  "Foreach(Number5 Delete(Index'a'(Var'k' Var'l'))) "
		  "Foreach(Delete(Var'a')) "
		  "Try(Block(Expr(Assign'='(Var'x' EmbeddedC' 1 '))) Block(EmbeddedC)) "
		  "Return(Var'x'))");
	EXPECT_TRUE(w.in_order) << w.disorder;
	EXPECT_EQ(w.exprs, (std::set<std::string>{"Number", "String", "Var", "Unary", "Binary",
						   "Ternary", "Assign", "IncDec", "Call", "AtCall",
						   "Index", "In", "EmbeddedC"}));
	EXPECT_EQ(w.stmts, (std::set<std::string>{"Block", "Expr", "If", "Empty", "Next", "Return",
						   "Break", "Continue", "While", "For", "Foreach",
						   "Delete", "Try", "EmbeddedC"}));
}

// The walker's order is the printer's: the leaves it reaches, in visit
// order, are the leaves of the -p1 form, left to right.
TEST(AstWalk, LeavesInThePrintersOrder)
{
	Front f("probe begin { x = a[1, y] ? f(\"p\", 2 - z) : @sum(s[w]) }");
	ASSERT_FALSE(f.diags.has_errors()) << f.rendered();
	struct Leaves {
		std::string text;
		void operator()(const Expr &e)
		{
			if (e.kind == ExprKind::Number)
				text += std::to_string(e.number) + " ";
			if (e.kind == ExprKind::String || e.kind == ExprKind::Var)
				text += e.text + " ";
			for_each_child(e, *this);
		}
		void operator()(const Stmt &s) { for_each_child(s, *this); }
	} leaves;
	leaves(probe_body(f));
	EXPECT_EQ(leaves.text, "x 1 y p 2 z w ");
	EXPECT_EQ(f.printed(), "probe begin\n{\n  x = (a[1, y] ? f(\"p\", (2 - z)) : @sum(s[w]));\n}\n");
}

// A statement's children: its expressions before its statements, absent
// ones skipped.
TEST(AstWalk, StatementChildrenSkipAbsentOnes)
{
	Front f("probe begin { for (; i < 3;) { i++ } }");
	ASSERT_FALSE(f.diags.has_errors()) << f.rendered();
	const Stmt &loop = *probe_body(f).body.at(0);
	ASSERT_EQ(loop.kind, StmtKind::For);
	std::vector<std::string> seen;
	for_each_child(loop, [&](const auto &c) {
		if constexpr (std::is_same_v<std::decay_t<decltype(c)>, Expr>)
			seen.push_back(std::string("expr ") + expr_kind(c.kind));
		else
			seen.push_back(std::string("stmt ") + stmt_kind(c.kind));
	});
	EXPECT_EQ(seen, (std::vector<std::string>{"expr Binary", "stmt Block"}));
}

// The clone has every child, field and location of the original.
TEST(AstWalk, CloneCopiesEveryChild)
{
	Guru f(kEveryKind);
	ASSERT_FALSE(f.diags.has_errors()) << f.rendered();
	StmtPtr copy = clone_stmt(every_body(f));
	Shape a, b;
	a.with_locs = b.with_locs = true;
	a.visit(every_body(f));
	b.visit(*copy);
	EXPECT_EQ(a.out.str(), b.out.str());
	// and the same source form (names, sort marks, members)
	Script s;
	Probe p;
	p.points.push_back({});
	p.body = std::move(copy);
	s.probes.push_back(std::move(p));
	std::ostringstream orig, copied;
	print_script(f.script, orig);
	print_script(s, copied);
	std::string o = orig.str();
	EXPECT_EQ(copied.str(), "probe \n" + o.substr(o.find("function every ()\n") + 18));
}
