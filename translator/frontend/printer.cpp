// printer.cpp - source form of the syntax tree, fully parenthesized so that
// -p1 output shows how the parser grouped every operator.
#include "translator/frontend/printer.h"

namespace stap_pmu {

static std::string list(const std::vector<ExprPtr> &args)
{
	std::string out;
	for (size_t i = 0; i < args.size(); i++)
		out += (i ? ", " : "") + expr_str(*args[i], true);
	return out;
}

// A target variable's or @cast's steps ("$p->a[]->b", "->a[2]") with each
// "[...]" written as its index expression.
static std::string with_subscripts(const std::string &steps, const Expr &e)
{
	std::string out;
	size_t k = 0;
	for (size_t i = 0; i < steps.size(); i++) {
		if (steps[i] != '[' || k >= e.subscripts.size()) {
			out += steps[i];
			continue;
		}
		out += "[" + expr_str(*e.subscripts[k++], true) + "]";
		i = steps.find(']', i);
		if (i == std::string::npos)
			break;
	}
	return out;
}

std::string expr_str(const Expr &e, bool top)
{
	switch (e.kind) {
	case ExprKind::Number:
		// a negative literal can only come from wrapping (2^64-1): print
		// the unsigned spelling, which lexes back to the same value
		return e.number < 0 ? std::to_string(static_cast<uint64_t>(e.number))
				    : std::to_string(e.number);
	case ExprKind::String:
		return quote_string(e.text);
	case ExprKind::Var:
		return with_subscripts(e.text, e);
	case ExprKind::Unary: {
		const Expr &a = *e.args[0];
		// A space, not parentheses, keeps "- -x" from lexing as "--x":
		// parentheses would double the nesting depth of the printed form.
		if (a.kind == ExprKind::Unary || (a.kind == ExprKind::IncDec && a.prefix))
			return e.text + " " + expr_str(a, false);
		return e.text + expr_str(a, false);
	}
	case ExprKind::Binary:
		return "(" + expr_str(*e.args[0], false) + " " + e.text + " " +
		       expr_str(*e.args[1], false) + ")";
	case ExprKind::Ternary:
		return "(" + expr_str(*e.args[0], false) + " ? " + expr_str(*e.args[1], false) +
		       " : " + expr_str(*e.args[2], false) + ")";
	case ExprKind::Assign: {
		std::string s = expr_str(*e.args[0], false) + " " + e.text + " " +
				expr_str(*e.args[1], true);
		return top ? s : "(" + s + ")";
	}
	case ExprKind::IncDec:
		return e.prefix ? e.text + expr_str(*e.args[0], false)
				: expr_str(*e.args[0], false) + e.text;
	case ExprKind::Call:
	case ExprKind::AtCall: {
		std::string s = (e.kind == ExprKind::AtCall ? "@" : "") + e.text + "(" + list(e.args) + ")";
		std::string steps;
		for (const std::string &m : e.members) // @cast(...)->m[i]
			steps += m[0] == '[' ? m : "->" + m;
		return s + with_subscripts(steps, e);
	}
	case ExprKind::Index:
		return e.text + "[" + list(e.args) + "]";
	case ExprKind::In:
		return "([" + list(e.args) + "] in " + e.text + ")";
	case ExprKind::EmbeddedC:
		return "%{" + e.text + "%}";
	case ExprKind::Wildcard:
		return "*";
	case ExprKind::HistIndex: {
		std::string s = expr_str(*e.args[0], false) + "[";
		for (size_t i = 1; i < e.args.size(); i++)
			s += (i > 1 ? ", " : "") + expr_str(*e.args[i], true);
		return s + "]";
	}
	}
	return "?";
}

static void print_stmt(const Stmt &s, std::ostream &os, int indent);

static void print_sub(const Stmt &s, std::ostream &os, int indent)
{
	print_stmt(s, os, s.kind == StmtKind::Block ? indent : indent + 1);
}

static std::string sort_mark(const Stmt &s, int col)
{
	if (s.sort_col != col)
		return "";
	return s.sort_dir > 0 ? "+" : "-";
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
		// A statement starting with %{ is an embedded-C statement: keep an
		// embedded-C expression an expression by parenthesizing it.
		if (s.expr->kind == ExprKind::EmbeddedC)
			os << pad << "(" << expr_str(*s.expr) << ");\n";
		else
			os << pad << expr_str(*s.expr) << ";\n";
		break;
	case StmtKind::If:
		os << pad << "if (" << expr_str(*s.expr) << ")\n";
		print_sub(*s.body[0], os, indent);
		if (s.body.size() > 1) {
			os << pad << "else\n";
			print_sub(*s.body[1], os, indent);
		}
		break;
	case StmtKind::Empty:
		os << pad << ";\n";
		break;
	case StmtKind::Next:
		os << pad << "next;\n";
		break;
	case StmtKind::Break:
		os << pad << "break;\n";
		break;
	case StmtKind::Continue:
		os << pad << "continue;\n";
		break;
	case StmtKind::Return:
		os << pad << "return";
		if (s.expr)
			os << " " << expr_str(*s.expr);
		os << ";\n";
		break;
	case StmtKind::Delete:
		os << pad << "delete " << expr_str(*s.expr) << ";\n";
		break;
	case StmtKind::While:
		os << pad << "while (" << expr_str(*s.expr) << ")\n";
		print_sub(*s.body[0], os, indent);
		break;
	case StmtKind::For:
		os << pad << "for (";
		for (size_t i = 0; i < 3; i++) {
			if (i)
				os << (s.exprs[i] ? "; " : ";");
			if (s.exprs[i])
				os << expr_str(*s.exprs[i]);
		}
		os << ")\n";
		print_sub(*s.body[0], os, indent);
		break;
	case StmtKind::Foreach: {
		os << pad << "foreach (";
		if (!s.value.empty())
			os << s.value << " = ";
		os << "[";
		for (size_t i = 0; i < s.names.size(); i++)
			os << (i ? ", " : "") << s.names[i] << sort_mark(s, static_cast<int>(i) + 1);
		os << "] in " << (s.expr ? expr_str(*s.expr, false) : s.name);
		if (!s.exprs.empty())
			os << "[" << list(s.exprs) << "]";
		os << sort_mark(s, 0);
		if (s.limit)
			os << " limit " << expr_str(*s.limit, false);
		os << ")\n";
		print_sub(*s.body[0], os, indent);
		break;
	}
	case StmtKind::Try:
		os << pad << "try\n";
		print_stmt(*s.body[0], os, indent);
		os << pad << "catch";
		if (!s.name.empty())
			os << " (" << s.name << ")";
		os << "\n";
		print_stmt(*s.body[1], os, indent);
		break;
	case StmtKind::EmbeddedC:
		os << pad << "%{" << s.text << "%}\n";
		break;
	}
}

static std::string point_str(const ProbePoint &pp)
{
	std::string out = probe_point_str(pp);
	if (pp.sufficient)
		out += "!";
	else if (pp.optional)
		out += "?";
	if (pp.cond)
		out += " if (" + expr_str(*pp.cond) + ")";
	return out;
}

static void print_global(const Global &g, std::ostream &os)
{
	os << (g.is_private ? "private " : "") << "global " << g.name;
	if (g.array && g.wrap)
		os << "%";
	if (g.array && g.size)
		os << "[" << g.size << "]";
	if (g.init) {
		os << " = ";
		if (g.init->kind == ExprKind::Number)
			os << g.init->number;
		else
			os << expr_str(*g.init);
	}
	os << "\n";
}

static void print_function(const Function &f, std::ostream &os)
{
	os << (f.is_private ? "private " : "") << "function " << f.name;
	if (f.ret != Type::Unknown)
		os << ":" << type_name(f.ret);
	os << " (";
	for (size_t i = 0; i < f.params.size(); i++) {
		os << (i ? ", " : "") << f.params[i].name;
		if (f.params[i].type != Type::Unknown)
			os << ":" << type_name(f.params[i].type);
	}
	os << ")\n";
	if (f.body)
		print_stmt(*f.body, os, 0);
	else
		os << "%{" << f.embedded << "%}\n";
}

static void print_probe(const Probe &p, std::ostream &os)
{
	os << "probe ";
	if (p.is_alias) {
		for (size_t i = 0; i < p.alias_names.size(); i++)
			os << (i ? ", " : "") << point_str(p.alias_names[i]);
		os << (p.epilogue ? " += " : " = ");
	}
	for (size_t i = 0; i < p.points.size(); i++)
		os << (i ? ", " : "") << point_str(p.points[i]);
	os << "\n";
	print_stmt(*p.body, os, 0);
}

void print_script(const Script &s, std::ostream &os)
{
	if (s.order.empty()) {
		for (const Global &g : s.globals)
			print_global(g, os);
		for (const Function &f : s.functions)
			print_function(f, os);
		for (const Probe &p : s.probes)
			print_probe(p, os);
		return;
	}
	for (auto [kind, i] : s.order) {
		switch (kind) {
		case 'g': print_global(s.globals[i], os); break;
		case 'f': print_function(s.functions[i], os); break;
		case 'p': print_probe(s.probes[i], os); break;
		case 'e': os << "%{" << s.embedded[i] << "%}\n"; break;
		}
	}
}

} // namespace stap_pmu
