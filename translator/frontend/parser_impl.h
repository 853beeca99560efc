// parser_impl.h - private to parser*.cpp: the Parser class (recursive descent over the token stream).
#pragma once

#include "translator/frontend/parser.h"

#include "translator/frontend/lexer.h"

namespace stap_pmu::parser_impl {

// Deeper nesting than this is refused with an error instead of exhausting
// the C++ stack (hostile input: 10,000 nested parentheses).
constexpr unsigned max_depth = 256;

// SystemTap's limit on the arguments of one print or printf call.
constexpr size_t max_print_args = 32;

// Brace expansion in probe points: how deep braces nest and how many
// points one spelling may expand to.
constexpr unsigned max_brace_depth = 16;
constexpr size_t max_brace_points = 10000;

// A literal's '-' as SystemTap's 64-bit arithmetic computes it: the lexer
// wraps 9223372036854775808 to -2^63, whose negation wraps back (no
// signed overflow: the fuzzer found `probe begin(-9223372036854775808)`).
inline int64_t negate(int64_t n)
{
	return static_cast<int64_t>(0 - static_cast<uint64_t>(n));
}

class Parser {
public:
	Parser(std::vector<Token> toks, Diagnostics &d) : toks_(std::move(toks)), diags_(d) {}

	Script run();

private:
	const Token &cur() const { return toks_[pos_]; }
	const Token &peek_tok(size_t n = 1) const;
	bool at_end() const { return cur().kind == Tok::End; }
	void advance();

	bool accept(const char *punct);

	bool expect(const char *punct, const char *context);

	void error_here(std::string msg, std::string hint = {})
	{
		error_at(cur().loc, std::move(msg), std::move(hint));
	}

	void error_at(SourceLoc loc, std::string msg, std::string hint = {});

	void sync_top();

	void sync_stmt();

	bool global(Script &s, bool is_private);

	bool type_name_after_colon(Type &t);

	bool function(Script &s, bool is_private);

	ExprPtr literal();

	bool probe(Script &s);

	// one probe point as written; brace expansion makes it several
	bool probe_points(std::vector<ProbePoint> &out);
	bool pp_sequence(std::vector<std::vector<ProbeComponent>> &out, unsigned depth);
	bool pp_braces(std::vector<std::vector<ProbeComponent>> &out, unsigned depth);
	bool pp_component(ProbeComponent &c);

	StmtPtr block();

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

	StmtPtr simple(StmtKind k);

	StmtPtr statement();

	StmtPtr loop_body(StmtPtr s);

	StmtPtr for_stmt();

	bool foreach_keys(Stmt &s);
	bool foreach_source(Stmt &s);

	bool sort_mark(Stmt &s, int col);

	StmtPtr foreach_stmt();

	StmtPtr try_stmt();

	StmtPtr if_stmt();

	ExprPtr expression();

	static bool is_assign_op(const Token &t);

	ExprPtr assignment();

	ExprPtr ternary();

	static int level_of(const Token &t);

	ExprPtr binary(int min_level);

	ExprPtr unary();

	ExprPtr postfix();
	ExprPtr address_of();

	bool member_chain(Expr &e);
	static bool is_target_chain(const Expr &e);

	ExprPtr in_array(ExprPtr in);

	bool call_args(Expr &call);

	bool index_args(Expr &e);

	ExprPtr primary();

	ExprPtr at_operator();

	void check_print_call(const Expr &call);

	void check_regex(const Expr &match);

	std::vector<Token> toks_;
	Diagnostics &diags_;
	size_t pos_ = 0;
	unsigned depth_ = 0;
	bool suppress_ = false;
	bool aborted_ = false;
	bool in_function_ = false; // 'return' is allowed
};

} // namespace stap_pmu::parser_impl
