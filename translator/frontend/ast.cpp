// ast.cpp - small helpers over the syntax tree.
#include "translator/frontend/ast.h"

#include "translator/frontend/printer.h"

namespace stap_pmu {

std::string probe_point_str(const ProbePoint &pp)
{
	std::string out;
	for (const ProbeComponent &c : pp.components) {
		if (!out.empty())
			out += '.';
		out += c.name;
		if (c.has_arg) {
			out += '(';
			out += c.arg_is_string ? quote_string(c.str_arg) : std::to_string(c.num_arg);
			out += ')';
		}
	}
	return out;
}

std::string quote_string(const std::string &s)
{
	std::string out = "\"";
	for (char c : s) {
		switch (c) {
		case '\n': out += "\\n"; break;
		case '\t': out += "\\t"; break;
		case '\r': out += "\\r"; break;
		case '"': out += "\\\""; break;
		case '\\': out += "\\\\"; break;
		default: out += c;
		}
	}
	return out + "\"";
}

namespace {

// Copies one child field of a node (expr_child_fields, stmt_child_fields)
// into the same field of its copy.
struct CloneField {
	void operator()(const ExprPtr &from, ExprPtr &to) const
	{
		to = from ? clone_expr(*from) : nullptr;
	}
	void operator()(const StmtPtr &from, StmtPtr &to) const
	{
		to = from ? clone_stmt(*from) : nullptr;
	}
	template <class P> void operator()(const std::vector<P> &from, std::vector<P> &to) const
	{
		for (const P &p : from)
			(*this)(p, to.emplace_back());
	}
};

} // namespace

ExprPtr clone_expr(const Expr &e)
{
	auto c = std::make_unique<Expr>(e.kind, e.loc);
	c->number = e.number;
	c->text = e.text;
	c->prefix = e.prefix;
	c->members = e.members;
	c->member_locs = e.member_locs;
	expr_child_fields(CloneField{}, e, *c);
	return c;
}

StmtPtr clone_stmt(const Stmt &s)
{
	auto c = std::make_unique<Stmt>(s.kind, s.loc);
	c->names = s.names;
	c->name_locs = s.name_locs;
	c->name = s.name;
	c->value = s.value;
	c->value_loc = s.value_loc;
	c->array_loc = s.array_loc;
	c->sort_col = s.sort_col;
	c->sort_dir = s.sort_dir;
	c->text = s.text;
	stmt_child_fields(CloneField{}, s, *c);
	return c;
}

} // namespace stap_pmu
