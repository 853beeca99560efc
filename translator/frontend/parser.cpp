// parser.cpp - recursive-descent parser for the SystemTap language.
#include "translator/frontend/parser_impl.h"

namespace stap_pmu {

namespace parser_impl {

Script Parser::run()
{
	Script s;
	while (!at_end()) {
		bool is_private = false;
		if (cur().keyword("private")) {
			is_private = true;
			advance();
			if (!cur().keyword("global") && !cur().keyword("function")) {
				error_here("expected 'global' or 'function' after 'private', found " +
					   describe(cur()));
				sync_top();
				continue;
			}
		}
		if (cur().keyword("global")) {
			if (!global(s, is_private))
				sync_top();
		} else if (cur().keyword("probe")) {
			if (!probe(s))
				sync_top();
		} else if (cur().keyword("function")) {
			if (!function(s, is_private))
				sync_top();
		} else if (cur().kind == Tok::Embedded) {
			s.order.push_back({'e', s.embedded.size()});
			s.embedded.push_back(cur().text);
			s.embedded_locs.push_back(cur().loc);
			advance();
		} else {
			error_here("expected 'probe', 'global' or 'function' at top level, found " +
				   describe(cur()));
			advance();
			sync_top();
		}
	}
	return s;
}

const Token &Parser::peek_tok(size_t n) const
{
	return toks_[std::min(pos_ + n, toks_.size() - 1)];
}

void Parser::advance()
{
	if (!at_end())
		pos_++;
}

bool Parser::accept(const char *punct)
{
	if (cur().punct(punct)) {
		advance();
		return true;
	}
	return false;
}

bool Parser::expect(const char *punct, const char *context)
{
	if (accept(punct))
		return true;
	error_here(std::string("expected '") + punct + "' " + context + ", found " +
		   describe(cur()));
	return false;
}

void Parser::error_at(SourceLoc loc, std::string msg, std::string hint)
{
	// One error per statement: later ones are usually consequences.
	if (suppress_ || aborted_)
		return;
	diags_.error(loc, std::move(msg), std::move(hint));
	suppress_ = true;
}

// Skips to the next top-level keyword.
void Parser::sync_top()
{
	while (!at_end() && !cur().keyword("probe") && !cur().keyword("global") &&
	       !cur().keyword("function") && !cur().keyword("private"))
		advance();
	suppress_ = false;
}

// Skips the rest of a broken statement: to ';' or a '}' at this level.
void Parser::sync_stmt()
{
	int depth = 0;
	while (!at_end()) {
		if (cur().punct("{"))
			depth++;
		else if (cur().punct("}")) {
			if (depth == 0)
				break;
			depth--;
		} else if (cur().punct(";") && depth == 0) {
			advance();
			break;
		} else if (depth == 0 && (cur().keyword("probe") || cur().keyword("global") ||
					  cur().keyword("function")))
			break;
		advance();
	}
	suppress_ = false;
}

bool Parser::global(Script &s, bool is_private)
{
	advance(); // 'global'
	do {
		if (cur().kind != Tok::Ident) {
			error_here("expected a variable name after 'global', found " +
				   describe(cur()));
			return false;
		}
		Global g;
		g.loc = cur().loc;
		g.name = cur().text;
		g.is_private = is_private;
		advance();
		if (cur().punct("%") && !peek_tok().punct("[")) {
			advance(); // global a%: wrapping, default size
			g.array = g.wrap = true;
		} else if (cur().punct("%") || cur().punct("[")) {
			if (accept("%"))
				g.wrap = true;
			advance(); // '['
			g.array = true;
			if (cur().kind != Tok::Number || cur().number <= 0) {
				error_here("expected a positive array size, found " + describe(cur()));
				return false;
			}
			g.size = cur().number;
			advance();
			if (!expect("]", "after the array size"))
				return false;
		}
		if (accept("=")) {
			if (g.array) {
				error_here("an array cannot have an initializer");
				return false;
			}
			ExprPtr e = literal();
			if (!e)
				return false;
			g.init = std::move(e);
		}
		s.order.push_back({'g', s.globals.size()});
		s.globals.push_back(std::move(g));
	} while (accept(","));
	accept(";");
	return true;
}

bool Parser::type_name_after_colon(Type &t)
{
	if (cur().kind == Tok::Ident && cur().text == "long") {
		t = Type::Long;
	} else if (cur().kind == Tok::Ident && cur().text == "string") {
		t = Type::String;
	} else {
		error_here("expected a type ('long' or 'string'), found " + describe(cur()));
		return false;
	}
	advance();
	return true;
}

bool Parser::function(Script &s, bool is_private)
{
	Function f;
	f.loc = cur().loc;
	f.is_private = is_private;
	advance(); // 'function'
	if (cur().kind != Tok::Ident) {
		error_here("expected a function name, found " + describe(cur()));
		return false;
	}
	f.name = cur().text;
	advance();
	if (accept(":") && !type_name_after_colon(f.ret))
		return false;
	if (!expect("(", "after the function name"))
		return false;
	if (!accept(")")) {
		do {
			if (cur().kind != Tok::Ident) {
				error_here("expected a parameter name, found " + describe(cur()));
				return false;
			}
			for (const Param &q : f.params)
				if (q.name == cur().text)
					diags_.error(cur().loc, "parameter '" + q.name + "' is declared twice");
			Param p;
			p.name = cur().text;
			p.loc = cur().loc;
			advance();
			if (accept(":") && !type_name_after_colon(p.type))
				return false;
			f.params.push_back(std::move(p));
		} while (accept(","));
		if (!expect(")", "after the function parameters"))
			return false;
	}
	if (cur().kind == Tok::Embedded) {
		f.embedded = cur().text;
		f.embedded_loc = cur().loc;
		advance();
	} else if (cur().punct("{")) {
		in_function_ = true;
		f.body = block();
		in_function_ = false;
		if (!f.body)
			return false;
	} else {
		error_here("expected '{' to start the function body, found " + describe(cur()));
		return false;
	}
	s.order.push_back({'f', s.functions.size()});
	s.functions.push_back(std::move(f));
	return true;
}

ExprPtr Parser::literal()
{
	SourceLoc loc = cur().loc;
	bool neg = false;
	if (cur().punct("-")) {
		neg = true;
		advance();
	}
	if (cur().kind == Tok::Number) {
		auto e = std::make_unique<Expr>(ExprKind::Number, loc);
		e->number = neg ? negate(cur().number) : cur().number;
		advance();
		return e;
	}
	if (cur().kind == Tok::String && !neg) {
		auto e = std::make_unique<Expr>(ExprKind::String, loc);
		e->text = cur().text;
		advance();
		return e;
	}
	error_here("expected a number or string literal, found " + describe(cur()));
	return nullptr;
}

bool Parser::probe(Script &s)
{
	Probe p;
	p.loc = cur().loc;
	advance(); // 'probe'
	// "probe a, b { }", or the names of an alias: "probe a, b = c, d { }"
	std::vector<ProbePoint> first;
	if (!probe_points(first))
		return false;
	while (accept(","))
		if (!probe_points(first))
			return false;
	if (cur().punct("=") || cur().punct("+=")) {
		p.is_alias = true;
		p.epilogue = cur().punct("+=");
		for (ProbePoint &name : first) {
			if (name.optional || name.sufficient || name.cond) {
				error_at(name.loc, "an alias name cannot have '?', '!' or 'if'");
				return false;
			}
			p.alias_names.push_back(std::move(name));
		}
		advance();
		if (!probe_points(p.points))
			return false;
		while (accept(","))
			if (!probe_points(p.points))
				return false;
	} else {
		p.points = std::move(first);
	}
	if (!cur().punct("{")) {
		error_here("expected '{' to start the probe body, found " + describe(cur()));
		return false;
	}
	p.body = block();
	if (!p.body)
		return false;
	s.order.push_back({'p', s.probes.size()});
	s.probes.push_back(std::move(p));
	return true;
}

// One probe point as written, appended to out: with braces ("{a,b}.c",
// "syscall.{open,close}"), one point per choice, in product order, each
// with the '?', '!' and 'if (cond)' written after the whole.
bool Parser::probe_points(std::vector<ProbePoint> &out)
{
	SourceLoc loc = cur().loc;
	std::vector<std::vector<ProbeComponent>> seqs;
	if (!pp_sequence(seqs, 0))
		return false;
	if (cur().punct("}")) {
		error_here("'}' without a matching '{' in the probe point");
		return false;
	}
	ProbePoint tail;
	if (accept("?"))
		tail.optional = true;
	else if (accept("!"))
		tail.sufficient = tail.optional = true;
	if (cur().keyword("if")) {
		advance();
		if (!expect("(", "after 'if'"))
			return false;
		tail.cond = expression();
		if (!tail.cond || !expect(")", "after the probe point condition"))
			return false;
	}
	for (auto &cs : seqs) {
		ProbePoint pp;
		pp.loc = loc;
		pp.components = std::move(cs);
		pp.optional = tail.optional;
		pp.sufficient = tail.sufficient;
		if (tail.cond)
			pp.cond = clone_expr(*tail.cond);
		out.push_back(std::move(pp));
	}
	return true;
}

// a.b.{c,d}.e: every choice of each brace group, in order
bool Parser::pp_sequence(std::vector<std::vector<ProbeComponent>> &out, unsigned depth)
{
	std::vector<std::vector<ProbeComponent>> acc(1);
	do {
		SourceLoc at = cur().loc;
		std::vector<std::vector<ProbeComponent>> part;
		if (cur().punct("{")) {
			if (!pp_braces(part, depth + 1))
				return false;
		} else {
			ProbeComponent c;
			if (!pp_component(c))
				return false;
			part.push_back({std::move(c)});
		}
		if (acc.size() * part.size() > max_brace_points) {
			error_at(at, "brace expansion gives more than " +
					     std::to_string(max_brace_points) + " probe points");
			return false;
		}
		std::vector<std::vector<ProbeComponent>> next;
		for (const auto &a : acc)
			for (const auto &b : part) {
				next.push_back(a);
				next.back().insert(next.back().end(), b.begin(), b.end());
			}
		acc = std::move(next);
	} while (accept("."));
	for (auto &a : acc)
		out.push_back(std::move(a));
	return true;
}

// {a.b, c, {d,e}.f}: each alternative a dotted sequence of its own
bool Parser::pp_braces(std::vector<std::vector<ProbeComponent>> &out, unsigned depth)
{
	SourceLoc open = cur().loc;
	if (depth > max_brace_depth) {
		error_here("braces in a probe point nested more than " +
			   std::to_string(max_brace_depth) + " deep");
		return false;
	}
	advance(); // '{'
	if (cur().punct("}")) {
		error_at(open, "empty '{}' in a probe point",
			 "list the choices: {a,b}.c is a.c and b.c");
		return false;
	}
	for (;;) {
		if (!pp_sequence(out, depth))
			return false;
		if (out.size() > max_brace_points) {
			error_at(open, "brace expansion gives more than " +
					       std::to_string(max_brace_points) + " probe points");
			return false;
		}
		if (accept("}"))
			return true;
		if (!accept(",")) {
			error_at(open, "unbalanced '{' in the probe point: expected ',' or '}', found " +
					       describe(cur()));
			return false;
		}
	}
}

bool Parser::pp_component(ProbeComponent &c)
{
	c.loc = cur().loc;
	// a component is an identifier, a keyword (return) or a glob
	// written with '*' ("sys_*", "*"), all without spaces
	unsigned end_col = 0, line = cur().loc.line;
	while ((cur().kind == Tok::Ident || cur().kind == Tok::Keyword ||
		cur().kind == Tok::Number || cur().punct("*")) &&
	       (c.name.empty() || (cur().loc.line == line && cur().loc.col == end_col))) {
		if (c.name.empty() && cur().kind == Tok::Number)
			break;
		c.name += cur().text;
		end_col = cur().loc.col + static_cast<unsigned>(cur().text.size());
		advance();
	}
	if (c.name.empty()) {
		error_here("expected a probe point, found " + describe(cur()));
		return false;
	}
	if (accept("(")) {
		c.has_arg = true;
		c.arg_loc = cur().loc;
		bool neg = accept("-");
		if (cur().kind == Tok::String && !neg) {
			c.arg_is_string = true;
			c.str_arg = cur().text;
		} else if (cur().kind == Tok::Number) {
			c.num_arg = neg ? negate(cur().number) : cur().number;
		} else {
			error_here("expected a string or number as probe point argument, found " +
				   describe(cur()));
			return false;
		}
		advance();
		if (!expect(")", "after probe point argument"))
			return false;
	}
	return true;
}

} // namespace parser_impl

Script parse(const SourceFile &file, Diagnostics &diags, const PreprocInput &pp)
{
	unsigned before = diags.error_count();
	std::vector<Token> toks = lex(file, diags);
	// A lexical error cuts the token stream short; parsing the rest would
	// only add "expected '}'" noise after the real error.
	if (diags.error_count() != before)
		return {};
	toks = preprocess(std::move(toks), pp, diags);
	if (diags.error_count() != before)
		return {};
	return parser_impl::Parser(std::move(toks), diags).run();
}

Script parse(const SourceFile &file, Diagnostics &diags)
{
	return parse(file, diags, PreprocInput{});
}

} // namespace stap_pmu
