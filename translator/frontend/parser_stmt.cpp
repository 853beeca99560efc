// parser_stmt.cpp - Parser: statements and blocks.
#include "translator/frontend/parser_impl.h"

namespace stap_pmu::parser_impl {

StmtPtr Parser::block()
{
	auto b = std::make_unique<Stmt>(StmtKind::Block, cur().loc);
	advance(); // '{'
	if (++depth_ > max_depth)
		return too_deep();
	while (!cur().punct("}")) {
		if (at_end()) {
			error_at(b->loc, "unterminated block: '{' has no matching '}'");
			depth_--;
			return b;
		}
		size_t before = pos_;
		StmtPtr st = statement();
		if (st) {
			b->body.push_back(std::move(st));
		} else {
			sync_stmt();
			if (pos_ == before) {
				// 'probe', 'global', ... inside a block: the block
				// was never closed; let the top level resume here
				if (cur().keyword("probe") || cur().keyword("global") ||
				    cur().keyword("function") || cur().keyword("private")) {
					depth_--;
					return b;
				}
				advance();
			}
		}
	}
	advance(); // '}'
	depth_--;
	return b;
}

StmtPtr Parser::simple(StmtKind k)
{
	auto s = std::make_unique<Stmt>(k, cur().loc);
	advance();
	accept(";");
	return s;
}

StmtPtr Parser::statement()
{
	const Token &t = cur();
	if (t.punct("{"))
		return block();
	if (t.punct(";")) {
		auto s = std::make_unique<Stmt>(StmtKind::Empty, t.loc);
		advance();
		return s;
	}
	if (t.kind == Tok::Embedded) {
		auto s = std::make_unique<Stmt>(StmtKind::EmbeddedC, t.loc);
		s->text = t.text;
		advance();
		return s;
	}
	if (t.keyword("if"))
		return if_stmt();
	if (t.keyword("next"))
		return simple(StmtKind::Next);
	if (t.keyword("break"))
		return simple(StmtKind::Break);
	if (t.keyword("continue"))
		return simple(StmtKind::Continue);
	if (t.keyword("return")) {
		if (!in_function_) {
			error_here("'return' outside a function", "use 'next' to leave a probe");
			return nullptr;
		}
		auto s = std::make_unique<Stmt>(StmtKind::Return, t.loc);
		advance();
		if (!cur().punct(";") && !cur().punct("}")) {
			s->expr = expression();
			if (!s->expr)
				return nullptr;
		}
		accept(";");
		return s;
	}
	if (t.keyword("delete")) {
		auto s = std::make_unique<Stmt>(StmtKind::Delete, t.loc);
		advance();
		s->expr = expression();
		if (!s->expr)
			return nullptr;
		accept(";");
		return s;
	}
	if (t.keyword("while")) {
		auto s = std::make_unique<Stmt>(StmtKind::While, t.loc);
		advance();
		if (!expect("(", "after 'while'"))
			return nullptr;
		s->expr = expression();
		if (!s->expr || !expect(")", "after the 'while' condition"))
			return nullptr;
		return loop_body(std::move(s));
	}
	if (t.keyword("for"))
		return for_stmt();
	if (t.keyword("foreach"))
		return foreach_stmt();
	if (t.keyword("try"))
		return try_stmt();
	if (t.kind == Tok::Keyword) {
		error_here("'" + t.text + "' cannot start a statement");
		return nullptr;
	}
	auto s = std::make_unique<Stmt>(StmtKind::Expr, t.loc);
	s->expr = expression();
	if (!s->expr)
		return nullptr;
	accept(";");
	return s;
}

StmtPtr Parser::loop_body(StmtPtr s)
{
	if (++depth_ > max_depth)
		return too_deep();
	StmtPtr b = statement();
	depth_--;
	if (!b)
		return nullptr;
	s->body.push_back(std::move(b));
	return s;
}

StmtPtr Parser::for_stmt()
{
	auto s = std::make_unique<Stmt>(StmtKind::For, cur().loc);
	advance();
	if (!expect("(", "after 'for'"))
		return nullptr;
	const char *after[] = {";", ";", ")"};
	const char *what[] = {"after the 'for' initializer", "after the 'for' condition",
			      "after the 'for' step"};
	for (int i = 0; i < 3; i++) {
		ExprPtr e;
		if (!cur().punct(after[i])) {
			e = expression();
			if (!e)
				return nullptr;
		}
		s->exprs.push_back(std::move(e));
		if (!expect(after[i], what[i]))
			return nullptr;
	}
	return loop_body(std::move(s));
}

// [k1, k2-] or k1 : key variables with an optional sort mark
bool Parser::foreach_keys(Stmt &s)
{
	bool bracket = accept("[");
	do {
		if (cur().kind != Tok::Ident) {
			error_here("expected a key variable, found " + describe(cur()));
			return false;
		}
		s.names.push_back(cur().text);
		s.name_locs.push_back(cur().loc);
		advance();
		if ((cur().punct("+") || cur().punct("-")) && !sort_mark(s, s.names.size()))
			return false;
	} while (bracket && accept(","));
	return !bracket || expect("]", "after the foreach keys");
}

bool Parser::sort_mark(Stmt &s, int col)
{
	if (s.sort_col >= 0) {
		error_here("only one sort mark ('+' or '-') is allowed in foreach");
		return false;
	}
	s.sort_col = col;
	s.sort_dir = cur().punct("+") ? 1 : -1;
	advance();
	return true;
}

// what a foreach iterates: an array, a slice a[*, k] or a histogram
// @hist_log(s) (its buckets)
bool Parser::foreach_source(Stmt &s)
{
	s.array_loc = cur().loc;
	if (cur().kind == Tok::AtIdent) {
		s.expr = at_operator();
		return s.expr != nullptr;
	}
	if (cur().kind != Tok::Ident) {
		error_here("expected an array name after 'in', found " + describe(cur()));
		return false;
	}
	s.name = cur().text;
	advance();
	if (!cur().punct("["))
		return true;
	Expr slice(ExprKind::Index, s.array_loc);
	if (!index_args(slice))
		return false;
	s.exprs = std::move(slice.args);
	return true;
}

StmtPtr Parser::foreach_stmt()
{
	auto s = std::make_unique<Stmt>(StmtKind::Foreach, cur().loc);
	advance();
	if (!expect("(", "after 'foreach'"))
		return nullptr;
	if (cur().kind == Tok::Ident &&
	    (peek_tok().punct("=") ||
	     ((peek_tok().punct("+") || peek_tok().punct("-")) && peek_tok(2).punct("=")))) {
		s->value = cur().text;
		s->value_loc = cur().loc;
		advance();
		if ((cur().punct("+") || cur().punct("-")) && !sort_mark(*s, 0))
			return nullptr;
		advance(); // '='
	}
	if (!foreach_keys(*s))
		return nullptr;
	if (!cur().keyword("in")) {
		error_here("expected 'in' in foreach, found " + describe(cur()));
		return nullptr;
	}
	advance();
	if (!foreach_source(*s))
		return nullptr;
	if ((cur().punct("+") || cur().punct("-")) && !sort_mark(*s, 0))
		return nullptr;
	if (cur().keyword("limit")) {
		advance();
		s->limit = expression();
		if (!s->limit)
			return nullptr;
	}
	if (!expect(")", "to close 'foreach ('"))
		return nullptr;
	return loop_body(std::move(s));
}

StmtPtr Parser::try_stmt()
{
	auto s = std::make_unique<Stmt>(StmtKind::Try, cur().loc);
	advance();
	if (!cur().punct("{")) {
		error_here("expected '{' after 'try', found " + describe(cur()));
		return nullptr;
	}
	StmtPtr b = block();
	if (!b)
		return nullptr;
	s->body.push_back(std::move(b));
	if (!cur().keyword("catch")) {
		error_here("expected 'catch' after the 'try' block, found " + describe(cur()));
		return nullptr;
	}
	advance();
	if (accept("(")) {
		if (cur().kind != Tok::Ident) {
			error_here("expected a variable name in 'catch (...)', found " +
				   describe(cur()));
			return nullptr;
		}
		s->name = cur().text;
		s->value_loc = cur().loc;
		advance();
		if (!expect(")", "after the catch variable"))
			return nullptr;
	}
	if (!cur().punct("{")) {
		error_here("expected '{' after 'catch', found " + describe(cur()));
		return nullptr;
	}
	StmtPtr c = block();
	if (!c)
		return nullptr;
	s->body.push_back(std::move(c));
	return s;
}

StmtPtr Parser::if_stmt()
{
	auto s = std::make_unique<Stmt>(StmtKind::If, cur().loc);
	advance(); // 'if'
	if (!expect("(", "after 'if'"))
		return nullptr;
	s->expr = expression();
	if (!s->expr || !expect(")", "after the 'if' condition"))
		return nullptr;
	if (++depth_ > max_depth)
		return too_deep();
	StmtPtr then = statement();
	if (!then)
		return nullptr;
	s->body.push_back(std::move(then));
	if (cur().keyword("else")) {
		advance();
		StmtPtr els = statement();
		if (!els)
			return nullptr;
		s->body.push_back(std::move(els));
	}
	depth_--;
	return s;
}

} // namespace stap_pmu::parser_impl
