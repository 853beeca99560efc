// lexer_test.cpp - tokens, literals, comments and lexical errors.
#include <gtest/gtest.h>

#include "translator/frontend/lexer.h"

using namespace stap_pmu;

static std::vector<Token> lex_ok(const std::string &text)
{
	SourceFile f("t.stp", text);
	Diagnostics d;
	auto toks = lex(f, d);
	EXPECT_FALSE(d.has_errors());
	return toks;
}

static std::string lex_err(const std::string &text)
{
	SourceFile f("t.stp", text);
	Diagnostics d;
	lex(f, d);
	EXPECT_EQ(d.all().size(), 1u);
	return d.all().empty() ? "" : d.all()[0].loc.str() + ": " + d.all()[0].message;
}

TEST(Lexer, TokensAndPositions)
{
	auto t = lex_ok("probe kprobe.function(\"f\") {\n  n <<< @pmu(\"cycles\")\n}");
	ASSERT_EQ(t.size(), 16u);
	EXPECT_TRUE(t[0].keyword("probe"));
	EXPECT_EQ(t[1].kind, Tok::Ident);
	EXPECT_TRUE(t[2].punct("."));
	EXPECT_EQ(t[3].text, "function");
	EXPECT_EQ(t[5].kind, Tok::String);
	EXPECT_EQ(t[5].text, "f");
	EXPECT_TRUE(t[9].punct("<<<"));
	EXPECT_EQ(t[9].loc.line, 2u);
	EXPECT_EQ(t[9].loc.col, 5u);
	EXPECT_EQ(t[10].kind, Tok::AtIdent);
	EXPECT_EQ(t[10].text, "pmu");
	EXPECT_EQ(t.back().kind, Tok::End);
}

TEST(Lexer, Numbers)
{
	auto t = lex_ok("10 0x1F 017 9223372036854775807 18446744073709551615");
	EXPECT_EQ(t[0].number, 10);
	EXPECT_EQ(t[1].number, 31);
	EXPECT_EQ(t[2].number, 15);
	EXPECT_EQ(t[3].number, INT64_MAX);
	EXPECT_EQ(t[4].number, -1); // wraps like SystemTap
}

TEST(Lexer, StringEscapesAndComments)
{
	auto t = lex_ok("# hash\n// slash\n/* block\n comment */ \"a\\tb\\n\\\"q\\\"\"");
	ASSERT_EQ(t.size(), 2u);
	EXPECT_EQ(t[0].text, "a\tb\n\"q\"");
	EXPECT_EQ(t[0].loc.line, 4u);
	EXPECT_EQ(t[0].loc.col, 13u);
}

TEST(Lexer, Errors)
{
	EXPECT_EQ(lex_err("x = \"abc\n"), "t.stp:1:5: unterminated string literal");
	EXPECT_EQ(lex_err("x\n/* open"), "t.stp:2:1: unterminated comment");
	EXPECT_EQ(lex_err("x = `y`"), "t.stp:1:5: unexpected character '`'");
	EXPECT_EQ(lex_err("x = 0x"), "t.stp:1:5: hexadecimal number has no digits");
	EXPECT_EQ(lex_err("x = 99999999999999999999"),
		  "t.stp:1:5: number '99999999999999999999' does not fit in 64 bits");
	EXPECT_EQ(lex_err("x = 09"), "t.stp:1:6: invalid digit '9' in number");
	EXPECT_EQ(lex_err("\"a\\q\""), "t.stp:1:3: unknown escape sequence '\\q'");
}
