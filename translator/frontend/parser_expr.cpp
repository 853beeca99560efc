// parser_expr.cpp - Parser: expressions, by precedence level.
#include "translator/frontend/parser_impl.h"
#include "translator/frontend/print_family.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "translator/support/suggest.h"

namespace stap_pmu::parser_impl {

// expression := assignment
ExprPtr Parser::expression()
{
	if (++depth_ > max_depth)
		return too_deep_t<Expr>();
	ExprPtr e = assignment();
	depth_--;
	return e;
}

bool Parser::is_assign_op(const Token &t)
{
	static const char *ops[] = {"=",  "+=", "-=", "*=", "/=",  "%=",  ".=",
				    "&=", "|=", "^=", "<<=", ">>=", "<<<"};
	for (const char *op : ops)
		if (t.punct(op))
			return true;
	return false;
}

ExprPtr Parser::assignment()
{
	ExprPtr lhs = ternary();
	if (!lhs || !is_assign_op(cur()))
		return lhs;
	auto e = std::make_unique<Expr>(ExprKind::Assign, cur().loc);
	e->text = cur().text;
	advance();
	ExprPtr rhs = expression(); // right associative
	if (!rhs)
		return nullptr;
	e->args.push_back(std::move(lhs));
	e->args.push_back(std::move(rhs));
	return e;
}

ExprPtr Parser::ternary()
{
	ExprPtr cond = binary(0);
	if (!cond || !cur().punct("?"))
		return cond;
	auto e = std::make_unique<Expr>(ExprKind::Ternary, cur().loc);
	advance();
	ExprPtr a = expression();
	if (!a || !expect(":", "in conditional expression"))
		return nullptr;
	ExprPtr b = expression();
	if (!b)
		return nullptr;
	e->args.push_back(std::move(cond));
	e->args.push_back(std::move(a));
	e->args.push_back(std::move(b));
	return e;
}

// Binary operator levels, loosest first (SystemTap follows C, with '.'
// next to '+' and '-').
int Parser::level_of(const Token &t)
{
	if (t.kind != Tok::Punct)
		return -1;
	static const std::vector<std::vector<std::string>> levels = {
		{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!=", "=~", "!~"},
		{"<", ">", "<=", ">="}, {"<<", ">>"}, {"+", "-", "."}, {"*", "/", "%"},
	};
	for (size_t i = 0; i < levels.size(); i++)
		for (const std::string &op : levels[i])
			if (t.text == op)
				return static_cast<int>(i);
	return -1;
}

ExprPtr Parser::binary(int min_level)
{
	ExprPtr lhs = unary();
	while (lhs) {
		int lvl = level_of(cur());
		if (lvl < min_level)
			break;
		auto e = std::make_unique<Expr>(ExprKind::Binary, cur().loc);
		e->text = cur().text;
		advance();
		ExprPtr rhs = binary(lvl + 1);
		if (!rhs)
			return nullptr;
		e->args.push_back(std::move(lhs));
		e->args.push_back(std::move(rhs));
		if (e->text == "=~" || e->text == "!~")
			check_regex(*e);
		lhs = std::move(e);
	}
	return lhs;
}

// s =~ "re": SystemTap compiles the expression when it translates the
// script, so the right side is a string literal.
void Parser::check_regex(const Expr &match)
{
	const Expr &re = *match.args[1];
	if (re.kind != ExprKind::String)
		diags_.error(re.loc, "the right side of '" + match.text +
					     "' must be a string literal (a regular expression)");
}

// print(...), printf(...), printd(...) and their s- and -ln forms: the
// argument checks SystemTap makes when it parses.
void Parser::check_print_call(const Expr &call)
{
	const PrintFunction *p = find_print_function(call.text);
	if (!p)
		return;
	const std::string &n = call.text;
	bool delim = p->form == PrintForm::Delimited;
	size_t values = printed_values(*p, call.args.size());
	if (values > max_print_args)
		diags_.error(call.loc, "too many values for '" + n + "' (" + std::to_string(values) +
					       ", at most " + std::to_string(max_print_args) + ")");
	if (!delim)
		return;
	if (call.args.size() < 3 && (call.args.empty() || call.args[0]->kind == ExprKind::String))
		diags_.error(call.loc, "'" + n + "' takes a delimiter and at least two values");
	if (!call.args.empty() && call.args[0]->kind != ExprKind::String)
		diags_.error(call.args[0]->loc, "the delimiter of '" + n +
							"' must be a string literal");
}

ExprPtr Parser::unary()
{
	const Token &t = cur();
	if (t.punct("-") || t.punct("!") || t.punct("~") || t.punct("+")) {
		auto e = std::make_unique<Expr>(ExprKind::Unary, t.loc);
		e->text = t.text;
		advance();
		if (++depth_ > max_depth)
			return too_deep_t<Expr>();
		ExprPtr operand = unary();
		depth_--;
		if (!operand)
			return nullptr;
		if (e->text == "+")
			return operand;
		e->args.push_back(std::move(operand));
		return e;
	}
	if (t.punct("&"))
		return address_of();
	if (t.punct("++") || t.punct("--")) {
		auto e = std::make_unique<Expr>(ExprKind::IncDec, t.loc);
		e->text = t.text;
		e->prefix = true;
		advance();
		ExprPtr operand = unary();
		if (!operand)
			return nullptr;
		e->args.push_back(std::move(operand));
		return e;
	}
	return postfix();
}

// "&$p->m" or "&@cast(p, "type")->m": the member's address
ExprPtr Parser::address_of()
{
	auto e = std::make_unique<Expr>(ExprKind::Unary, cur().loc);
	e->text = "&";
	advance();
	ExprPtr operand = postfix();
	if (!operand)
		return nullptr;
	bool tvar = operand->kind == ExprKind::Var && operand->text.size() > 1 &&
		    operand->text[0] == '$' && operand->text[1] != '$';
	bool cast = operand->kind == ExprKind::AtCall && operand->text == "cast";
	if (!tvar && !cast) {
		error_at(e->loc, "'&' takes the address of a target variable's member or of "
				 "@cast(...)->member, e.g. &$file->f_path");
		return nullptr;
	}
	e->args.push_back(std::move(operand));
	return e;
}

ExprPtr Parser::postfix()
{
	ExprPtr e = primary();
	if (e && (cur().punct("->") || (cur().punct("[") && is_target_chain(*e))) &&
	    !member_chain(*e))
		return nullptr;
	// SystemTap indexes only target variables and @cast(...): "(p)[i]" and
	// "f()[i]" are refused at the '[' (one on a later line starts the next
	// statement, "[k] in a")
	if (e && cur().punct("[") && cur().loc.line == e->loc.line) {
		error_here("only a target variable or @cast(...) can be indexed with '[...]'",
			   "read element i at address p with @cast(p, \"TYPE\")[i]");
		return nullptr;
	}
	// one postfix ++/-- at most: "x++" ending a line before "++y" is two
	// statements, not (x++)++
	if (e && (cur().punct("++") || cur().punct("--"))) {
		auto p = std::make_unique<Expr>(ExprKind::IncDec, cur().loc);
		p->text = cur().text;
		advance();
		p->args.push_back(std::move(e));
		e = std::move(p);
	}
	if (e && cur().keyword("in")) {
		auto in = std::make_unique<Expr>(ExprKind::In, e->loc);
		in->args.push_back(std::move(e));
		return in_array(std::move(in));
	}
	return e;
}

// A target variable ($p, $p->f; not $$parms, $var$ or a script argument) or
// @cast(...): what "->member" and "[index]" steps may follow.
bool Parser::is_target_chain(const Expr &e)
{
	if (e.kind == ExprKind::AtCall)
		return e.text == "cast";
	return e.kind == ExprKind::Var && e.text.size() > 1 && e.text[0] == '$' && e.text[1] != '$' &&
	       !std::isdigit(static_cast<unsigned char>(e.text[1])) && e.text.back() != '$';
}

// "->member" and "[index]" steps after @cast(...), or after a target
// variable ("$p->f" lexes as one name; spaces around '->' and indexes
// come here)
bool Parser::member_chain(Expr &e)
{
	bool cast = e.kind == ExprKind::AtCall;
	if (!is_target_chain(e)) {
		error_here("'->' can only follow a target variable or @cast(...)");
		return false;
	}
	while (cur().punct("->") || cur().punct("[")) {
		if (cur().punct("[")) {
			SourceLoc at = cur().loc;
			advance();
			ExprPtr i = expression();
			if (!i || !expect("]", "after the index"))
				return false;
			std::string step = i->kind == ExprKind::Number && i->number >= 0
						   ? "[" + std::to_string(i->number) + "]" : "[]";
			if (cast) {
				e.members.push_back(step);
				e.member_locs.push_back(at);
			} else {
				e.text += step;
			}
			e.subscripts.push_back(std::move(i));
			continue;
		}
		advance();
		const Token &m = cur();
		if ((m.kind != Tok::Ident && m.kind != Tok::Keyword) || m.text[0] == '$') {
			error_here("expected a member name after '->', found " + describe(m));
			return false;
		}
		if (cast) {
			e.members.push_back(m.text);
			e.member_locs.push_back(m.loc);
		} else {
			e.text += "->" + m.text;
		}
		advance();
	}
	return true;
}

ExprPtr Parser::in_array(ExprPtr in)
{
	advance(); // 'in'
	if (cur().kind != Tok::Ident) {
		error_here("expected an array name after 'in', found " + describe(cur()));
		return nullptr;
	}
	in->text = cur().text;
	advance();
	return in;
}

bool Parser::call_args(Expr &call)
{
	advance(); // '('
	if (accept(")"))
		return true;
	do {
		ExprPtr a = expression();
		if (!a)
			return false;
		call.args.push_back(std::move(a));
	} while (accept(","));
	return expect(")", "after function arguments");
}

bool Parser::index_args(Expr &e)
{
	advance(); // '['
	do {
		if (cur().punct("*") && (peek_tok().punct(",") || peek_tok().punct("]"))) {
			// any key (a slice): sema says where it may stand
			e.args.push_back(std::make_unique<Expr>(ExprKind::Wildcard, cur().loc));
			advance();
			continue;
		}
		ExprPtr a = expression();
		if (!a)
			return false;
		e.args.push_back(std::move(a));
	} while (accept(","));
	return expect("]", "after the array index");
}

ExprPtr Parser::primary()
{
	const Token &t = cur();
	switch (t.kind) {
	case Tok::Number: {
		auto e = std::make_unique<Expr>(ExprKind::Number, t.loc);
		e->number = t.number;
		advance();
		return e;
	}
	case Tok::String: {
		auto e = std::make_unique<Expr>(ExprKind::String, t.loc);
		e->text = t.text;
		advance();
		// Adjacent literals concatenate, as in C.
		while (cur().kind == Tok::String) {
			e->text += cur().text;
			advance();
		}
		return e;
	}
	case Tok::Ident: {
		bool is_call = peek_tok().punct("(");
		// "$p[i]" indexes a target variable (postfix), not an array
		bool is_index = peek_tok().punct("[") && !(t.text.size() > 1 && t.text[0] == '$');
		auto e = std::make_unique<Expr>(is_call ? ExprKind::Call
						: is_index ? ExprKind::Index : ExprKind::Var,
						t.loc);
		e->text = t.text;
		advance();
		if (is_call && !call_args(*e))
			return nullptr;
		if (is_call)
			check_print_call(*e);
		if (is_index && !index_args(*e))
			return nullptr;
		return e;
	}
	case Tok::Embedded: {
		auto e = std::make_unique<Expr>(ExprKind::EmbeddedC, t.loc);
		e->text = t.text;
		advance();
		return e;
	}
	case Tok::AtIdent: {
		ExprPtr e = at_operator();
		if (!e || !cur().punct("[") || (e->text != "hist_log" && e->text != "hist_linear"))
			return e;
		// @hist_log(s)[i]: the count of bucket i
		auto h = std::make_unique<Expr>(ExprKind::HistIndex, cur().loc);
		h->args.push_back(std::move(e));
		if (!index_args(*h))
			return nullptr;
		return h;
	}
	case Tok::Punct:
		if (t.punct("[")) {
			auto in = std::make_unique<Expr>(ExprKind::In, t.loc);
			if (!index_args(*in))
				return nullptr;
			if (!cur().keyword("in")) {
				error_here("expected 'in' after '[...]', found " + describe(cur()));
				return nullptr;
			}
			return in_array(std::move(in));
		}
		if (t.punct("(")) {
			advance();
			ExprPtr e = expression();
			if (!e || !expect(")", "to close '('"))
				return nullptr;
			return e;
		}
		break;
	default:
		break;
	}
	error_here("expected an expression, found " + describe(t));
	return nullptr;
}

// @name(args): one of SystemTap's @-operators (a macro of @define was
// expanded before parsing)
ExprPtr Parser::at_operator()
{
	static const std::vector<std::string> known = {
		"count",  "cast",    "defined",  "entry",       "var",       "perf",
		"sum",    "min",     "max",      "avg",         "variance",  "const",
		"hist_log", "hist_linear", "pmu", "pmu_thread", "kregister", "uregister",
		"probewrite"};
	const Token &t = cur();
	if (std::find(known.begin(), known.end(), t.text) == known.end()) {
		std::string near = closest_name(t.text, known);
		error_here("unknown operator '@" + t.text + "'",
			   near.empty() ? "" : "did you mean '@" + near + "'?");
		return nullptr;
	}
	auto e = std::make_unique<Expr>(ExprKind::AtCall, t.loc);
	e->text = t.text;
	advance();
	if (!cur().punct("(")) {
		error_here("expected '(' after '@" + e->text + "', found " + describe(cur()));
		return nullptr;
	}
	if (!call_args(*e))
		return nullptr;
	return e;
}

} // namespace stap_pmu::parser_impl
