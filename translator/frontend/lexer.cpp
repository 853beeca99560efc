// lexer.cpp - hand-written scanner for the SystemTap language.
#include "translator/frontend/lexer.h"

#include <array>
#include <cctype>
#include <string_view>

namespace stap_pmu {

namespace {

constexpr std::array keywords = {
	"global", "probe",  "function", "if",     "else",  "for",   "foreach",
	"while",  "in",     "next",     "return", "break", "continue", "delete",
	"private", "try",   "catch",    "limit",
};

// Keywords that may also be probe point components or identifiers in
// some positions are handled by the parser (e.g. "return" in a.return).

// Longest first, so that "<<<" wins over "<<" and "<".
constexpr std::array puncts = {
	"<<<", ">>=", "%(", "%?", "%:", "%)", "<<=", "++", "--", "+=", "-=", "->", "*=", "/=", "%=", ".=", "&=", "|=",
	"^=",  "==",  "!=",  "=~", "!~",  "<=", ">=", "&&", "||", "<<", ">>", "+",  "-",  "*",  "/",
	"%",   ".",   "=",   "<",  ">",  "!",  "~",  "&",  "|",  "^",  "(",  ")",  "{",
	"}",   "[",   "]",   ",",  ";",  "?",  ":",
};

class Lexer {
public:
	Lexer(const SourceFile &f, Diagnostics &d) : file_(f), src_(f.text()), diags_(d) {}

	std::vector<Token> run()
	{
		std::vector<Token> out;
		while (true) {
			if (!skip_space_and_comments())
				break;
			if (pos_ >= src_.size())
				break;
			Token t;
			if (!next(t))
				break;
			out.push_back(std::move(t));
		}
		Token end;
		end.kind = Tok::End;
		end.loc = loc();
		out.push_back(end);
		return out;
	}

private:
	SourceLoc loc() const { return {&file_, line_, col_}; }

	char peek(size_t ahead = 0) const
	{
		return pos_ + ahead < src_.size() ? src_[pos_ + ahead] : '\0';
	}

	void advance(size_t n = 1)
	{
		while (n-- && pos_ < src_.size()) {
			if (src_[pos_] == '\n') {
				line_++;
				col_ = 1;
			} else {
				col_++;
			}
			pos_++;
		}
	}

	bool skip_space_and_comments()
	{
		while (pos_ < src_.size()) {
			char c = peek();
			if (std::isspace(static_cast<unsigned char>(c))) {
				advance();
			} else if (c == '#' || (c == '/' && peek(1) == '/')) {
				while (pos_ < src_.size() && peek() != '\n')
					advance();
			} else if (c == '/' && peek(1) == '*') {
				SourceLoc start = loc();
				advance(2);
				while (pos_ < src_.size() && !(peek() == '*' && peek(1) == '/'))
					advance();
				if (pos_ >= src_.size()) {
					diags_.error(start, "unterminated comment");
					return false;
				}
				advance(2);
			} else {
				return true;
			}
		}
		return true;
	}

	bool next(Token &t)
	{
		t.loc = loc();
		char c = peek();
		// script arguments: $1 lexes as a name, $# here; @1 and @# as
		// @-names (the preprocessor substitutes all four)
		if (c == '$' && peek(1) == '#') {
			t.kind = Tok::Ident;
			t.text = "$#";
			advance(2);
			return true;
		}
		if (c == '@' && (peek(1) == '#' || std::isdigit(static_cast<unsigned char>(peek(1))))) {
			advance();
			size_t start = pos_;
			do
				advance();
			while (src_[start] != '#' && std::isdigit(static_cast<unsigned char>(peek())));
			t.kind = Tok::AtIdent;
			t.text = src_.substr(start, pos_ - start);
			return true;
		}
		if (is_ident_start(c))
			return ident(t);
		if (c == '@' && is_ident_start(peek(1))) {
			advance();
			ident(t);
			t.kind = Tok::AtIdent;
			return true;
		}
		if (std::isdigit(static_cast<unsigned char>(c)))
			return number(t);
		if (c == '"')
			return string(t);
		if (c == '%' && peek(1) == '{')
			return embedded(t);
		for (std::string_view p : puncts) {
			if (src_.compare(pos_, p.size(), p) == 0) {
				t.kind = Tok::Punct;
				t.text = p;
				advance(p.size());
				return true;
			}
		}
		std::string what = std::isprint(static_cast<unsigned char>(c))
					   ? std::string("'") + c + "'"
					   : "byte 0x" + hex(static_cast<unsigned char>(c));
		diags_.error(t.loc, "unexpected character " + what);
		return false;
	}

	static std::string hex(unsigned v)
	{
		const char *d = "0123456789abcdef";
		return std::string{d[(v >> 4) & 15], d[v & 15]};
	}

	bool embedded(Token &t)
	{
		advance(2);
		size_t start = pos_;
		while (pos_ < src_.size() && !(peek() == '%' && peek(1) == '}'))
			advance();
		if (pos_ >= src_.size()) {
			diags_.error(t.loc, "unterminated embedded C: '%{' has no matching '%}'");
			return false;
		}
		t.kind = Tok::Embedded;
		t.text = src_.substr(start, pos_ - start);
		advance(2);
		return true;
	}

	bool ident(Token &t)
	{
		size_t start = pos_;
		while (is_ident_char(peek()))
			advance();
		// target variable member chains lex as one name: $p->field->field
		if (src_[start] == '$')
			while (peek() == '-' && peek(1) == '>' && is_ident_start(peek(2)) &&
			       peek(2) != '$') {
				advance(2);
				while (is_ident_char(peek()))
					advance();
			}
		t.text = src_.substr(start, pos_ - start);
		t.kind = Tok::Ident;
		for (std::string_view k : keywords)
			if (t.text == k)
				t.kind = Tok::Keyword;
		return true;
	}

	bool number(Token &t)
	{
		size_t start = pos_;
		unsigned base = 10;
		if (peek() == '0' && (peek(1) == 'x' || peek(1) == 'X')) {
			base = 16;
			advance(2);
		} else if (peek() == '0' && std::isdigit(static_cast<unsigned char>(peek(1)))) {
			base = 8;
			advance();
		}
		uint64_t v = 0;
		bool overflow = false, any = base != 16;
		while (std::isalnum(static_cast<unsigned char>(peek()))) {
			char c = static_cast<char>(std::tolower(static_cast<unsigned char>(peek())));
			unsigned d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
				     : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : 99;
			if (d >= base) {
				diags_.error(loc(), std::string("invalid digit '") + peek() +
							    "' in number");
				return false;
			}
			if (v > (UINT64_MAX - d) / base)
				overflow = true;
			v = v * base + d;
			any = true;
			advance();
		}
		if (!any) {
			diags_.error(t.loc, "hexadecimal number has no digits");
			return false;
		}
		// SystemTap accepts up to 2^64-1 and wraps to a signed 64-bit value.
		if (overflow) {
			diags_.error(t.loc, "number '" + src_.substr(start, pos_ - start) +
						    "' does not fit in 64 bits");
			return false;
		}
		t.kind = Tok::Number;
		t.text = src_.substr(start, pos_ - start);
		t.number = static_cast<int64_t>(v);
		return true;
	}

	bool string(Token &t)
	{
		advance(); // opening quote
		std::string v;
		while (true) {
			if (pos_ >= src_.size() || peek() == '\n') {
				diags_.error(t.loc, "unterminated string literal");
				return false;
			}
			char c = peek();
			if (c == '"') {
				advance();
				break;
			}
			if (c == '\\') {
				char e = peek(1);
				switch (e) {
				case 'n': v += '\n'; break;
				case 't': v += '\t'; break;
				case 'r': v += '\r'; break;
				case '\\': v += '\\'; break;
				case '"': v += '"'; break;
				case '\'': v += '\''; break;
				case 'a': v += '\a'; break;
				case 'b': v += '\b'; break;
				case 'f': v += '\f'; break;
				case 'v': v += '\v'; break;
				case 'x': {
					unsigned val = 0, n = 0;
					while (n < 2 && std::isxdigit(static_cast<unsigned char>(peek(2 + n)))) {
						char h = static_cast<char>(std::tolower(static_cast<unsigned char>(peek(2 + n))));
						val = val * 16 + (std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : h - 'a' + 10);
						n++;
					}
					if (!n) {
						diags_.error(loc(), "\\x escape has no hexadecimal digits");
						return false;
					}
					v += static_cast<char>(val);
					advance(2 + n);
					continue;
				}
				case '0': case '1': case '2': case '3':
				case '4': case '5': case '6': case '7': {
					unsigned val = 0, n = 0;
					while (n < 3 && peek(1 + n) >= '0' && peek(1 + n) <= '7') {
						val = val * 8 + (peek(1 + n) - '0');
						n++;
					}
					v += static_cast<char>(val & 0xff);
					advance(1 + n);
					continue;
				}
				case '\n': break; // line continuation
				default:
					diags_.error(loc(), std::string("unknown escape sequence '\\") + e + "'");
					return false;
				}
				advance(2);
				continue;
			}
			v += c;
			advance();
		}
		t.kind = Tok::String;
		t.text = std::move(v);
		return true;
	}

	const SourceFile &file_;
	const std::string &src_;
	Diagnostics &diags_;
	size_t pos_ = 0;
	unsigned line_ = 1, col_ = 1;
};

} // namespace

std::vector<Token> lex(const SourceFile &file, Diagnostics &diags)
{
	return Lexer(file, diags).run();
}

const char *tok_kind_name(Tok k)
{
	switch (k) {
	case Tok::End: return "end of file";
	case Tok::Ident: return "identifier";
	case Tok::AtIdent: return "@-operator";
	case Tok::Number: return "number";
	case Tok::String: return "string";
	case Tok::Keyword: return "keyword";
	case Tok::Punct: return "punctuation";
	case Tok::Embedded: return "embedded C";
	}
	return "token";
}

std::string describe(const Token &t)
{
	switch (t.kind) {
	case Tok::End:
		return "end of file";
	case Tok::String:
		return "string \"" + t.text + "\"";
	case Tok::AtIdent:
		return "'@" + t.text + "'";
	case Tok::Embedded:
		return "embedded C '%{'";
	default:
		return "'" + t.text + "'";
	}
}

} // namespace stap_pmu
