// printer.cpp - source form of the syntax tree, fully parenthesized so that
// -p1 output shows how the parser grouped every operator.
#include "translator/printer.h"

namespace stap_pmu {

std::string expr_str(const Expr &e)
{
	switch (e.kind) {
	case ExprKind::Number:
		return std::to_string(e.number);
	case ExprKind::String:
		return quote_string(e.text);
	case ExprKind::Var:
		return e.text;
	case ExprKind::Unary:
		return e.text + expr_str(*e.args[0]);
	case ExprKind::Binary:
		return "(" + expr_str(*e.args[0]) + " " + e.text + " " + expr_str(*e.args[1]) + ")";
	case ExprKind::Ternary:
		return "(" + expr_str(*e.args[0]) + " ? " + expr_str(*e.args[1]) + " : " +
		       expr_str(*e.args[2]) + ")";
	case ExprKind::Assign:
		return expr_str(*e.args[0]) + " " + e.text + " " + expr_str(*e.args[1]);
	case ExprKind::IncDec:
		return e.prefix ? e.text + expr_str(*e.args[0]) : expr_str(*e.args[0]) + e.text;
	case ExprKind::Call:
	case ExprKind::AtCall: {
		std::string out = (e.kind == ExprKind::AtCall ? "@" : "") + e.text + "(";
		for (size_t i = 0; i < e.args.size(); i++)
			out += (i ? ", " : "") + expr_str(*e.args[i]);
		return out + ")";
	}
	}
	return "?";
}

static void print_stmt(const Stmt &s, std::ostream &os, int indent)
{
	std::string pad(indent * 2, ' ');
	switch (s.kind) {
	case StmtKind::Block:
		os << pad << "{\n";
		for (const StmtPtr &b : s.body)
			print_stmt(*b, os, indent + 1);
		os << pad << "}\n";
		break;
	case StmtKind::Expr:
		os << pad << expr_str(*s.expr) << "\n";
		break;
	case StmtKind::If:
		os << pad << "if (" << expr_str(*s.expr) << ")\n";
		print_stmt(*s.body[0], os, s.body[0]->kind == StmtKind::Block ? indent : indent + 1);
		if (s.body.size() > 1) {
			os << pad << "else\n";
			print_stmt(*s.body[1], os,
				   s.body[1]->kind == StmtKind::Block ? indent : indent + 1);
		}
		break;
	case StmtKind::Empty:
		os << pad << ";\n";
		break;
	case StmtKind::Next:
		os << pad << "next\n";
		break;
	}
}

void print_script(const Script &s, std::ostream &os)
{
	for (const Global &g : s.globals) {
		os << "global " << g.name;
		if (g.init)
			os << " = " << expr_str(*g.init);
		os << "\n";
	}
	for (const Probe &p : s.probes) {
		os << "probe ";
		for (size_t i = 0; i < p.points.size(); i++)
			os << (i ? ", " : "") << probe_point_str(p.points[i]);
		os << "\n";
		print_stmt(*p.body, os, 0);
	}
}

} // namespace stap_pmu
