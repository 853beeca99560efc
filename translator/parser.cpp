// parser.cpp - recursive-descent parser for the SystemTap language.
#include "translator/parser.h"

#include "translator/lexer.h"

namespace stap_pmu {

namespace {

// Deeper nesting than this is refused with an error instead of exhausting
// the C++ stack (hostile input: 10,000 nested parentheses).
constexpr unsigned max_depth = 256;

class Parser {
public:
	Parser(std::vector<Token> toks, Diagnostics &d) : toks_(std::move(toks)), diags_(d) {}

	Script run()
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

private:
	const Token &cur() const { return toks_[pos_]; }
	const Token &peek_tok(size_t n = 1) const
	{
		return toks_[std::min(pos_ + n, toks_.size() - 1)];
	}
	bool at_end() const { return cur().kind == Tok::End; }
	void advance()
	{
		if (!at_end())
			pos_++;
	}

	bool accept(const char *punct)
	{
		if (cur().punct(punct)) {
			advance();
			return true;
		}
		return false;
	}

	bool expect(const char *punct, const char *context)
	{
		if (accept(punct))
			return true;
		error_here(std::string("expected '") + punct + "' " + context + ", found " +
			   describe(cur()));
		return false;
	}

	void error_here(std::string msg) { error_at(cur().loc, std::move(msg)); }

	void error_at(SourceLoc loc, std::string msg)
	{
		// One error per statement: later ones are usually consequences.
		if (suppress_ || aborted_)
			return;
		diags_.error(loc, std::move(msg));
		suppress_ = true;
	}

	// Skips to the next top-level keyword.
	void sync_top()
	{
		while (!at_end() && !cur().keyword("probe") && !cur().keyword("global") &&
		       !cur().keyword("function") && !cur().keyword("private"))
			advance();
		suppress_ = false;
	}

	// Skips the rest of a broken statement: to ';' or a '}' at this level.
	void sync_stmt()
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

	bool global(Script &s, bool is_private)
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

	bool type_name_after_colon(Type &t)
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

	bool function(Script &s, bool is_private)
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
			advance();
		} else if (cur().punct("{")) {
			f.body = block();
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

	ExprPtr literal()
	{
		SourceLoc loc = cur().loc;
		bool neg = false;
		if (cur().punct("-")) {
			neg = true;
			advance();
		}
		if (cur().kind == Tok::Number) {
			auto e = std::make_unique<Expr>(ExprKind::Number, loc);
			e->number = neg ? -cur().number : cur().number;
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

	bool probe(Script &s)
	{
		Probe p;
		p.loc = cur().loc;
		advance(); // 'probe'
		ProbePoint first;
		if (!probe_point(first))
			return false;
		if (cur().punct("=") || cur().punct("+=")) {
			p.is_alias = true;
			p.epilogue = cur().punct("+=");
			if (first.optional || first.sufficient || first.cond) {
				error_at(first.loc, "an alias name cannot have '?', '!' or 'if'");
				return false;
			}
			p.alias_names.push_back(std::move(first));
			advance();
			ProbePoint pp;
			if (!probe_point(pp))
				return false;
			p.points.push_back(std::move(pp));
		} else {
			p.points.push_back(std::move(first));
		}
		while (accept(",")) {
			ProbePoint pp;
			if (!probe_point(pp))
				return false;
			p.points.push_back(std::move(pp));
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

	bool probe_point(ProbePoint &pp)
	{
		pp.loc = cur().loc;
		do {
			ProbeComponent c;
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
					c.num_arg = neg ? -cur().number : cur().number;
				} else {
					error_here("expected a string or number as probe point argument, found " +
						   describe(cur()));
					return false;
				}
				advance();
				if (!expect(")", "after probe point argument"))
					return false;
			}
			pp.components.push_back(std::move(c));
		} while (accept("."));
		if (accept("?"))
			pp.optional = true;
		else if (accept("!"))
			pp.sufficient = pp.optional = true;
		if (cur().keyword("if")) {
			advance();
			if (!expect("(", "after 'if'"))
				return false;
			pp.cond = expression();
			if (!pp.cond || !expect(")", "after the probe point condition"))
				return false;
		}
		return true;
	}

	StmtPtr block()
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

	template <typename T> std::unique_ptr<T> too_deep_t()
	{
		error_here("nesting too deep (more than " + std::to_string(max_depth) + " levels)");
		// Give up on the whole file: recovering inside hostile nesting only
		// produces more noise.
		pos_ = toks_.size() - 1;
		aborted_ = true;
		return nullptr;
	}
	StmtPtr too_deep() { return too_deep_t<Stmt>(); }

	StmtPtr simple(StmtKind k)
	{
		auto s = std::make_unique<Stmt>(k, cur().loc);
		advance();
		accept(";");
		return s;
	}

	StmtPtr statement()
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

	StmtPtr loop_body(StmtPtr s)
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

	StmtPtr for_stmt()
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
	bool foreach_keys(Stmt &s)
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

	bool sort_mark(Stmt &s, int col)
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

	StmtPtr foreach_stmt()
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
		if (cur().kind != Tok::Ident) {
			error_here("expected an array name after 'in', found " + describe(cur()));
			return nullptr;
		}
		s->name = cur().text;
		s->array_loc = cur().loc;
		advance();
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

	StmtPtr try_stmt()
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

	StmtPtr if_stmt()
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

	// expression := assignment
	ExprPtr expression()
	{
		if (++depth_ > max_depth)
			return too_deep_t<Expr>();
		ExprPtr e = assignment();
		depth_--;
		return e;
	}

	static bool is_assign_op(const Token &t)
	{
		static const char *ops[] = {"=",  "+=", "-=", "*=", "/=",  "%=",  ".=",
					    "&=", "|=", "^=", "<<=", ">>=", "<<<"};
		for (const char *op : ops)
			if (t.punct(op))
				return true;
		return false;
	}

	ExprPtr assignment()
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

	ExprPtr ternary()
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
	static int level_of(const Token &t)
	{
		if (t.kind != Tok::Punct)
			return -1;
		static const std::vector<std::vector<std::string>> levels = {
			{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="},
			{"<", ">", "<=", ">="}, {"<<", ">>"}, {"+", "-", "."}, {"*", "/", "%"},
		};
		for (size_t i = 0; i < levels.size(); i++)
			for (const std::string &op : levels[i])
				if (t.text == op)
					return static_cast<int>(i);
		return -1;
	}

	ExprPtr binary(int min_level)
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
			lhs = std::move(e);
		}
		return lhs;
	}

	ExprPtr unary()
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

	ExprPtr postfix()
	{
		ExprPtr e = primary();
		while (e && (cur().punct("++") || cur().punct("--"))) {
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

	ExprPtr in_array(ExprPtr in)
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

	bool call_args(Expr &call)
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

	bool index_args(Expr &e)
	{
		advance(); // '['
		do {
			ExprPtr a = expression();
			if (!a)
				return false;
			e.args.push_back(std::move(a));
		} while (accept(","));
		return expect("]", "after the array index");
	}

	ExprPtr primary()
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
			bool is_index = peek_tok().punct("[");
			auto e = std::make_unique<Expr>(is_call ? ExprKind::Call
							: is_index ? ExprKind::Index : ExprKind::Var,
							t.loc);
			e->text = t.text;
			advance();
			if (is_call && !call_args(*e))
				return nullptr;
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

	std::vector<Token> toks_;
	Diagnostics &diags_;
	size_t pos_ = 0;
	unsigned depth_ = 0;
	bool suppress_ = false;
	bool aborted_ = false;
};

} // namespace

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
	return Parser(std::move(toks), diags).run();
}

Script parse(const SourceFile &file, Diagnostics &diags)
{
	static const PreprocInput host = host_preproc_input();
	return parse(file, diags, host);
}

} // namespace stap_pmu
