// lexer.h - tokens of the SystemTap language.
#pragma once

#include <cctype>

#include <cstdint>
#include <string>
#include <vector>

#include "translator/frontend/diagnostics.h"
#include "translator/frontend/source.h"

namespace stap_pmu {

enum class Tok {
	End,
	Ident,   // foo, kernel_v
	AtIdent, // @pmu, @count (text without '@')
	Number,
	String,  // text holds the decoded value
	Keyword, // global probe function if else ... (text holds the word)
	Punct,   // operators and punctuation (text holds the spelling)
	Embedded, // %{ ... %}: text holds the C between the markers
};

struct Token {
	Tok kind = Tok::End;
	std::string text;
	int64_t number = 0;
	SourceLoc loc;

	bool is(Tok k, const char *t) const { return kind == k && text == t; }
	bool punct(const char *t) const { return is(Tok::Punct, t); }
	bool keyword(const char *t) const { return is(Tok::Keyword, t); }
};

// Splits a whole file into tokens. Lexical errors are reported to diags;
// the token list then ends at the error (always with a Tok::End token).
std::vector<Token> lex(const SourceFile &file, Diagnostics &diags);

// The characters of a name ($ included: $var, $1).
inline bool is_ident_start(char c)
{
	return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

inline bool is_ident_char(char c)
{
	return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

const char *tok_kind_name(Tok k);
std::string describe(const Token &t); // "'foo'", "end of file", "string \"x\""

} // namespace stap_pmu
