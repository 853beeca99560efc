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
			if (cur().keyword("global")) {
				if (!global(s))
					sync_top();
			} else if (cur().keyword("probe")) {
				if (!probe(s))
					sync_top();
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
		       !cur().keyword("function"))
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
			} else if (depth == 0 && (cur().keyword("probe") || cur().keyword("global")))
				break;
			advance();
		}
		suppress_ = false;
	}

	bool global(Script &s)
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
			advance();
			if (accept("=")) {
				ExprPtr e = literal();
				if (!e)
					return false;
				g.init = std::move(e);
			}
			s.globals.push_back(std::move(g));
		} while (accept(","));
		accept(";");
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
		do {
			ProbePoint pp;
			if (!probe_point(pp))
				return false;
			p.points.push_back(std::move(pp));
		} while (accept(","));
		if (!cur().punct("{")) {
			error_here("expected '{' to start the probe body, found " + describe(cur()));
			return false;
		}
		p.body = block();
		s.probes.push_back(std::move(p));
		return true;
	}

	bool probe_point(ProbePoint &pp)
	{
		pp.loc = cur().loc;
		do {
			if (cur().kind != Tok::Ident && cur().kind != Tok::Keyword) {
				error_here("expected a probe point, found " + describe(cur()));
				return false;
			}
			ProbeComponent c;
			c.name = cur().text;
			c.loc = cur().loc;
			advance();
			if (accept("(")) {
				c.has_arg = true;
				c.arg_loc = cur().loc;
				if (cur().kind == Tok::String) {
					c.arg_is_string = true;
					c.str_arg = cur().text;
				} else if (cur().kind == Tok::Number) {
					c.num_arg = cur().number;
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
			StmtPtr st = statement();
			if (st)
				b->body.push_back(std::move(st));
			else
				sync_stmt();
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
		if (t.keyword("if"))
			return if_stmt();
		if (t.keyword("next")) {
			auto s = std::make_unique<Stmt>(StmtKind::Next, t.loc);
			advance();
			accept(";");
			return s;
		}
		if (t.kind == Tok::Keyword && !t.keyword("delete")) {
			error_here("'" + t.text + "' is not supported here yet");
			return nullptr;
		}
		auto s = std::make_unique<Stmt>(StmtKind::Expr, t.loc);
		s->expr = expression();
		if (!s->expr)
			return nullptr;
		accept(";");
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
		return e;
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
			auto e = std::make_unique<Expr>(is_call ? ExprKind::Call : ExprKind::Var, t.loc);
			e->text = t.text;
			advance();
			if (is_call && !call_args(*e))
				return nullptr;
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

Script parse(const SourceFile &file, Diagnostics &diags)
{
	unsigned before = diags.error_count();
	std::vector<Token> toks = lex(file, diags);
	// A lexical error cuts the token stream short; parsing the rest would
	// only add "expected '}'" noise after the real error.
	if (diags.error_count() != before)
		return {};
	return Parser(std::move(toks), diags).run();
}

} // namespace stap_pmu
