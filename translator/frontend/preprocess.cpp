// preprocess.cpp - conditionals over the target kernel and @define macros,
// evaluated on the token stream before parsing.
#include "translator/frontend/preprocess.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>


namespace stap_pmu {

namespace {

constexpr int max_expansion_depth = 64;

struct Macro {
	std::vector<std::string> params;
	std::vector<Token> body;
	SourceLoc loc;
};

// Compares dotted versions numerically: "5.10" > "5.9".
int compare_versions(const std::string &a, const std::string &b)
{
	size_t i = 0, j = 0;
	while (i < a.size() || j < b.size()) {
		auto part = [](const std::string &s, size_t &k, bool &num) {
			std::string p;
			num = k < s.size() && std::isdigit(static_cast<unsigned char>(s[k]));
			while (k < s.size() && s[k] != '.' && s[k] != '-' &&
			       (std::isdigit(static_cast<unsigned char>(s[k])) == num))
				p += s[k++];
			if (k < s.size() && (s[k] == '.' || s[k] == '-'))
				k++;
			return p;
		};
		bool na, nb;
		std::string pa = part(a, i, na), pb = part(b, j, nb);
		if (na && nb) {
			unsigned long long x = std::stoull(pa.empty() ? "0" : pa.substr(0, 18));
			unsigned long long y = std::stoull(pb.empty() ? "0" : pb.substr(0, 18));
			if (x != y)
				return x < y ? -1 : 1;
		} else if (pa != pb) {
			return pa < pb ? -1 : 1;
		}
		if (pa.empty() && pb.empty())
			break;
	}
	return 0;
}

class Preprocessor {
public:
	Preprocessor(const PreprocInput &in, Diagnostics &d) : in_(in), diags_(d) {}

	std::vector<Token> run(std::vector<Token> toks)
	{
		std::vector<Token> out;
		Token end = toks.back();
		toks.pop_back();
		process(toks, 0, toks.size(), out, 0);
		out.push_back(end);
		return out;
	}

private:
	// finds the %? / %: / %) belonging to the %( at open
	bool find_parts(const std::vector<Token> &t, size_t open, size_t end, size_t &q, size_t &colon,
			size_t &close)
	{
		q = colon = close = 0;
		int depth = 0;
		for (size_t i = open + 1; i < end; i++) {
			if (t[i].punct("%(")) {
				depth++;
			} else if (t[i].punct("%)")) {
				if (depth == 0) {
					close = i;
					return q != 0;
				}
				depth--;
			} else if (depth == 0 && t[i].punct("%?") && !q) {
				q = i;
			} else if (depth == 0 && t[i].punct("%:") && q && !colon) {
				colon = i;
			}
		}
		return false;
	}

	void process(const std::vector<Token> &t, size_t i, size_t end, std::vector<Token> &out,
		     int depth)
	{
		if (depth > max_expansion_depth) {
			if (!deep_reported_)
				diags_.error(t[i < end ? i : end - 1].loc,
					     "macro expansion nested too deep (more than " +
						     std::to_string(max_expansion_depth) + " levels)");
			deep_reported_ = true;
			return;
		}
		while (i < end && !deep_reported_) {
			const Token &tok = t[i];
			if (tok.punct("%(")) {
				size_t q, colon, close;
				if (!find_parts(t, i, end, q, colon, close)) {
					diags_.error(tok.loc, "unterminated conditional: '%(' needs '%?' and '%)'");
					return;
				}
				bool ok = true;
				bool v = condition(t, i + 1, q, ok);
				if (!ok)
					return;
				if (v)
					process(t, q + 1, colon ? colon : close, out, depth);
				else if (colon)
					process(t, colon + 1, close, out, depth);
				i = close + 1;
				continue;
			}
			if (tok.punct("%?") || tok.punct("%:") || tok.punct("%)")) {
				diags_.error(tok.loc, "'" + tok.text + "' outside a '%( ... %)' conditional");
				return;
			}
			if (tok.kind == Tok::AtIdent && tok.text == "define") {
				i = define(t, i, end);
				if (i == 0)
					return;
				continue;
			}
			if (tok.kind == Tok::AtIdent && macros_.count(tok.text)) {
				i = expand(t, i, end, out, depth);
				if (i == 0)
					return;
				continue;
			}
			if (tok.kind == Tok::AtIdent && tok.text == "const") {
				i = at_const(t, i, end, out);
				if (i == 0)
					return;
				continue;
			}
			if (tok.kind == Tok::Embedded && !in_.guru) {
				diags_.error(tok.loc, "embedded C code is only allowed in guru mode",
					     "run stap-pmu with -g to accept %{ ... %}");
				return;
			}
			out.push_back(tok);
			i++;
		}
	}

	// @const("NAME"): the value of the C constant NAME in the module's
	// kernel headers, as embedded C; guru mode only, as in SystemTap.
	// Returns the index after it, 0 on error.
	size_t at_const(const std::vector<Token> &t, size_t i, size_t end, std::vector<Token> &out)
	{
		const Token &at = t[i];
		if (i + 3 >= end || !t[i + 1].punct("(") || t[i + 2].kind != Tok::String ||
		    !t[i + 3].punct(")")) {
			diags_.error(i + 1 < end ? t[i + 1].loc : at.loc,
				     "@const takes one string, the name of a C constant, e.g. "
				     "@const(\"PAGE_SIZE\")");
			return 0;
		}
		const std::string &name = t[i + 2].text;
		bool ident = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
		for (char c : name)
			ident &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
		if (!ident) {
			diags_.error(t[i + 2].loc, "@const(\"" + name + "\"): not a C identifier");
			return 0;
		}
		if (!in_.guru) {
			diags_.error(at.loc, "@const is only allowed in guru mode",
				     "run stap-pmu with -g to read @const(\"" + name + "\")");
			return 0;
		}
		Token e = at;
		e.kind = Tok::Embedded;
		e.text = "((s64)(" + name + "))";
		out.push_back(e);
		return i + 4;
	}

	// @define NAME[(a, b)] %( body %); returns the index after it, 0 on error
	size_t define(const std::vector<Token> &t, size_t i, size_t end)
	{
		SourceLoc at = t[i].loc;
		i++;
		if (i >= end || t[i].kind != Tok::Ident) {
			diags_.error(i < end ? t[i].loc : at, "expected a macro name after '@define'");
			return 0;
		}
		std::string name = t[i].text;
		Macro m;
		m.loc = t[i].loc;
		i++;
		if (i < end && t[i].punct("(")) {
			i++;
			while (i < end && !t[i].punct(")")) {
				if (t[i].kind != Tok::Ident) {
					diags_.error(t[i].loc, "expected a macro parameter name, found " +
								       describe(t[i]));
					return 0;
				}
				m.params.push_back(t[i].text);
				i++;
				if (i < end && t[i].punct(","))
					i++;
			}
			i++;
		}
		if (i >= end || !t[i].punct("%(")) {
			diags_.error(i < end ? t[i].loc : at,
				     "expected '%(' to start the body of macro '" + name + "'");
			return 0;
		}
		int depth = 0;
		size_t j = i + 1;
		for (; j < end; j++) {
			if (t[j].punct("%("))
				depth++;
			else if (t[j].punct("%)")) {
				if (depth == 0)
					break;
				depth--;
			}
		}
		if (j >= end) {
			diags_.error(t[i].loc, "unterminated body of macro '" + name + "'");
			return 0;
		}
		m.body.assign(t.begin() + static_cast<long>(i + 1), t.begin() + static_cast<long>(j));
		// a bad -D value is reported; the script's body stays (no follow-up errors)
		if (auto d = in_.defines.find(name); d != in_.defines.end())
			override(m, name, d->second);
		if (macros_.count(name)) {
			diags_.error(m.loc, "macro '" + name + "' is defined twice");
			return 0;
		}
		macros_[name] = std::move(m);
		return j + 1;
	}

	// -D NAME=VALUE: VALUE's tokens become the body of @define NAME (the
	// script's body is its default); they point at the macro's name
	void override(Macro &m, const std::string &name, const std::string &value)
	{
		if (!m.params.empty()) {
			diags_.error(m.loc, "-D " + name + " cannot replace macro '" + name +
						    "', which takes parameters");
			return;
		}
		SourceFile src("-D " + name, value);
		Diagnostics scratch;
		std::vector<Token> toks = lex(src, scratch);
		if (scratch.has_errors()) {
			diags_.error(m.loc, "-D " + name + "=" + value +
						    " does not give script tokens for macro '" + name +
						    "': " + scratch.all().front().message,
				     "VALUE is script code, as in C: a string needs its quotes, -D '" +
					     name + "=\"text\"'");
			return;
		}
		toks.pop_back(); // Tok::End
		for (Token &tk : toks)
			tk.loc = m.loc;
		m.body = std::move(toks);
	}

	size_t expand(const std::vector<Token> &t, size_t i, size_t end, std::vector<Token> &out,
		      int depth)
	{
		const Macro &m = macros_.at(t[i].text);
		SourceLoc use = t[i].loc;
		// a macro that uses itself twice doubles at every level: bound the
		// total work, not only the depth
		if (++expansions_ > max_expansions || out.size() > max_output_tokens) {
			if (!deep_reported_)
				diags_.error(use, "macro expansion too large (more than " +
							  std::to_string(max_expansions) + " expansions)");
			deep_reported_ = true;
			return 0;
		}
		i++;
		std::vector<std::vector<Token>> args;
		if (!m.params.empty()) {
			if (i >= end || !t[i].punct("(")) {
				diags_.error(use, "macro '@" + t[i - 1].text + "' needs " +
							  std::to_string(m.params.size()) + " argument(s)");
				return 0;
			}
			i++;
			int d = 0;
			args.emplace_back();
			for (; i < end; i++) {
				if (t[i].punct("(") || t[i].punct("[") || t[i].punct("{"))
					d++;
				else if (t[i].punct(")") || t[i].punct("]") || t[i].punct("}")) {
					if (d == 0)
						break;
					d--;
				}
				if (d == 0 && t[i].punct(",")) {
					args.emplace_back();
					continue;
				}
				args.back().push_back(t[i]);
			}
			if (i >= end) {
				diags_.error(use, "unterminated macro arguments");
				return 0;
			}
			i++; // ')'
			if (args.size() != m.params.size()) {
				diags_.error(use, "macro takes " + std::to_string(m.params.size()) +
							  " argument(s), " + std::to_string(args.size()) +
							  " given");
				return 0;
			}
		}
		std::vector<Token> body;
		for (const Token &b : m.body) {
			bool replaced = false;
			if (b.kind == Tok::AtIdent)
				for (size_t k = 0; k < m.params.size(); k++)
					if (b.text == m.params[k]) {
						for (Token a : args[k])
							body.push_back(a);
						replaced = true;
					}
			if (!replaced) {
				Token c = b;
				c.loc = use; // errors inside an expansion point at its use
				body.push_back(c);
			}
		}
		process(body, 0, body.size(), out, depth + 1);
		return i;
	}

	// condition := atom { (&& | ||) atom }, evaluated left to right
	bool condition(const std::vector<Token> &t, size_t i, size_t end, bool &ok)
	{
		bool v = false;
		bool first = true;
		std::string op;
		while (i < end) {
			bool neg = false;
			if (t[i].punct("!")) {
				neg = true;
				i++;
			}
			bool a;
			if (i < end && t[i].punct("(")) {
				int d = 0;
				size_t j = i;
				for (; j < end; j++) {
					if (t[j].punct("("))
						d++;
					else if (t[j].punct(")") && --d == 0)
						break;
				}
				a = condition(t, i + 1, j, ok);
				i = j + 1;
			} else {
				a = atom(t, i, end, ok);
			}
			if (!ok)
				return false;
			a = a != neg;
			v = first ? a : op == "&&" ? (v && a) : (v || a);
			first = false;
			if (i >= end)
				break;
			if (!t[i].punct("&&") && !t[i].punct("||")) {
				diags_.error(t[i].loc, "expected '&&', '||' or '%?' in conditional, found " +
							       describe(t[i]));
				ok = false;
				return false;
			}
			op = t[i].text;
			i++;
		}
		if (first) {
			diags_.error(t[end].loc, "empty condition in '%( %)'");
			ok = false;
		}
		return v;
	}

	// t[i] OP VALUE, the shape of every condition term: OP one of == != <
	// <= > >=, VALUE a number or a string. On success i moves past the term
	// (OP is t[i - 2], VALUE t[i - 1]); else an error (form names the shape)
	// and ok cleared.
	bool comparison(const std::vector<Token> &t, size_t &i, size_t end, const char *form,
			bool &ok)
	{
		if (i + 2 >= end || t[i + 1].kind != Tok::Punct ||
		    (t[i + 2].kind != Tok::Number && t[i + 2].kind != Tok::String)) {
			diags_.error(t[i].loc, std::string("expected '") + form + "' in conditional");
			ok = false;
			return false;
		}
		const Token &op = t[i + 1];
		i += 3;
		for (const char *o : {"==", "!=", "<", "<=", ">", ">="})
			if (op.text == o)
				return true;
		diags_.error(op.loc, "unknown comparison '" + op.text + "' in conditional");
		ok = false;
		return false;
	}

	// LITERAL OP LITERAL: what $#, @#, $N and @N become (%( $# > 1 %?).
	// Numbers compare as numbers, strings bytewise; not one with the other.
	bool literal_atom(const std::vector<Token> &t, size_t &i, size_t end, bool &ok)
	{
		const Token &lhs = t[i];
		if (!comparison(t, i, end, "VALUE OP VALUE", ok))
			return false;
		const std::string &op = t[i - 2].text;
		const Token &rhs = t[i - 1];
		if (lhs.kind != rhs.kind) {
			diags_.error(t[i - 2].loc, "cannot compare " + describe(lhs) + " with " +
							   describe(rhs) + " in conditional",
				     "compare numbers with numbers ($#, $1) and strings with strings (@#, @1)");
			ok = false;
			return false;
		}
		if (lhs.kind == Tok::Number)
			return cmp(lhs.number < rhs.number ? -1 : lhs.number > rhs.number ? 1 : 0, op);
		return cmp(lhs.text.compare(rhs.text), op);
	}

	bool atom(const std::vector<Token> &t, size_t &i, size_t end, bool &ok)
	{
		if (i < end && (t[i].kind == Tok::Number || t[i].kind == Tok::String))
			return literal_atom(t, i, end, ok);
		if (i >= end || (t[i].kind != Tok::Ident && t[i].kind != Tok::Keyword)) {
			diags_.error(t[i < end ? i : end].loc,
				     "expected kernel_v, kernel_vr, arch, CONFIG_... or a literal in conditional, found " +
					     describe(t[i < end ? i : end]));
			ok = false;
			return false;
		}
		const Token &name = t[i];
		if (!comparison(t, i, end, "NAME OP \"value\"", ok))
			return false;
		const Token &op = t[i - 2], &rhs = t[i - 1];
		const std::string &n = name.text;
		if (n == "kernel_v" || n == "kernel_vr" || n == "systemtap_v")
			return version_atom(name, op, rhs, ok);
		if (n == "arch" || n == "runtime" || n == "systemtap_privilege")
			return equality_atom(name, op, rhs, ok);
		if (n.rfind("CONFIG_", 0) == 0)
			return config_atom(name, op, rhs);
		return refuse(name.loc, "unknown name '" + n + "' in conditional", ok,
			      "known: kernel_v, kernel_vr, systemtap_v, systemtap_privilege, arch, "
			      "runtime, CONFIG_...");
	}

	// Reports an error in a condition; the condition is false and ok cleared.
	bool refuse(SourceLoc at, std::string msg, bool &ok, std::string hint = {})
	{
		diags_.error(at, std::move(msg), std::move(hint));
		ok = false;
		return false;
	}

	// NAME OP VALUE where VALUE must be a string literal (as in SystemTap,
	// for every name but CONFIG_...).
	bool string_value(const Token &name, const Token &rhs, const char *example, bool &ok)
	{
		if (rhs.kind == Tok::String)
			return true;
		return refuse(rhs.loc,
			      "'" + name.text + "' is compared with a string literal, found " +
				      describe(rhs),
			      ok, std::string("e.g. ") + name.text + example);
	}

	// kernel_v, kernel_vr, systemtap_v OP "VERSION": compared as versions
	// (numerically per dotted part); == and != with *?[ are globs, an
	// ordering against a glob is an error. systemtap_v is the version
	// stap-pmu is compatible with (--compatible, default compatible_default).
	bool version_atom(const Token &name, const Token &op, const Token &rhs, bool &ok)
	{
		if (!string_value(name, rhs, " >= \"4.8\"", ok))
			return false;
		const std::string &lhs = name.text == "kernel_v"    ? in_.kernel_v
					 : name.text == "kernel_vr" ? in_.kernel_vr
								    : in_.compatible;
		bool equality = op.text == "==" || op.text == "!=";
		if (rhs.text.find_first_of("*?[") == std::string::npos)
			return cmp(compare_versions(lhs, rhs.text), op.text);
		if (!equality)
			return refuse(op.loc,
				      "'" + name.text + "' is compared with a wildcard by == or != only",
				      ok, "'" + op.text + "' orders versions: \"" + rhs.text +
						  "\" is a pattern");
		return (fnmatch(rhs.text.c_str(), lhs.c_str(), 0) == 0) == (op.text == "==");
	}

	// arch (== a glob), runtime (always "kernel") and systemtap_privilege
	// (always "stapdev": stap-pmu builds kernel modules, SystemTap's
	// developer privilege), with == and != only.
	bool equality_atom(const Token &name, const Token &op, const Token &rhs, bool &ok)
	{
		if (op.text != "==" && op.text != "!=")
			return refuse(op.loc, "'" + name.text + "' is compared with == or != only", ok);
		bool privilege = name.text == "systemtap_privilege";
		if (!string_value(name, rhs, privilege ? " == \"stapdev\"" : " == \"x86_64\"", ok))
			return false;
		if (!privilege) {
			const std::string lhs = name.text == "arch" ? arch_name(in_.arch) : "kernel";
			return (fnmatch(rhs.text.c_str(), lhs.c_str(), 0) == 0) == (op.text == "==");
		}
		if (rhs.text != "stapusr" && rhs.text != "stapsys" && rhs.text != "stapdev")
			diags_.warning(rhs.loc,
				       "'" + rhs.text + "' is not a privilege level: systemtap_privilege " +
					       "is \"stapusr\", \"stapsys\" or \"stapdev\"",
				       "stap-pmu always builds with \"stapdev\" privilege");
		return (rhs.text == "stapdev") == (op.text == "==");
	}

	// CONFIG_NAME OP VALUE: the target tree's value; unset is "" (0). A
	// number compares numerically, == and != with a string are globs.
	bool config_atom(const Token &name, const Token &op, const Token &rhs)
	{
		std::string lhs(in_.config.get(name.text).value_or(""));
		if (lhs.size() >= 2 && lhs.front() == '"' && lhs.back() == '"')
			lhs = lhs.substr(1, lhs.size() - 2);
		if (rhs.kind == Tok::Number) {
			long long l = 0;
			try {
				l = lhs.empty() ? 0 : std::stoll(lhs, nullptr, 0);
			} catch (...) {
			}
			return cmp(l < rhs.number ? -1 : l > rhs.number ? 1 : 0, op.text);
		}
		if (op.text == "==" || op.text == "!=")
			return (fnmatch(rhs.text.c_str(), lhs.c_str(), 0) == 0) == (op.text == "==");
		return cmp(lhs.compare(rhs.text), op.text);
	}

	static bool cmp(int c, const std::string &op)
	{
		if (op == "==") return c == 0;
		if (op == "!=") return c != 0;
		if (op == "<") return c < 0;
		if (op == "<=") return c <= 0;
		if (op == ">") return c > 0;
		return c >= 0;
	}

	const PreprocInput &in_;
	Diagnostics &diags_;
	std::map<std::string, Macro> macros_;
	bool deep_reported_ = false;
	unsigned expansions_ = 0;
	static constexpr unsigned max_expansions = 10000;
	static constexpr size_t max_output_tokens = 1000000;
};

} // namespace

namespace {

// The argument $N / @N names (N from 1), or 0 when the text is not one.
size_t arg_index(const std::string &digits)
{
	if (digits.empty() || digits.size() > 9 || digits[0] == '0')
		return 0;
	for (char c : digits)
		if (!std::isdigit(static_cast<unsigned char>(c)))
			return 0;
	return std::stoul(digits);
}

// $N: argument N's tokens, pasted where $N stands (SystemTap's rule: "$1" is
// a number when ARG is one, else whatever ARG lexes to).
bool paste_arg(const Token &at, size_t n, const std::vector<std::string> &args,
	       std::vector<Token> &out, Diagnostics &diags)
{
	SourceFile src("argument " + std::to_string(n), args[n - 1]);
	Diagnostics scratch;
	std::vector<Token> toks = lex(src, scratch);
	toks.pop_back(); // Tok::End
	if (scratch.has_errors() || toks.empty()) {
		diags.error(at.loc, "command line argument " + std::to_string(n) + " ('" + args[n - 1] +
					    "') is not script tokens" +
					    (toks.empty() && !scratch.has_errors()
						     ? ""
						     : ": " + scratch.all().front().message),
			    "use @" + std::to_string(n) + " for the argument as a string");
		return false;
	}
	for (Token &t : toks) {
		t.loc = at.loc;
		out.push_back(std::move(t));
	}
	return true;
}

// Replaces $N, @N, $# and @# with the script's arguments.
std::vector<Token> substitute_args(std::vector<Token> toks, const std::vector<std::string> &args,
				   Diagnostics &diags)
{
	std::vector<Token> out;
	out.reserve(toks.size());
	for (Token &t : toks) {
		bool dollar = t.kind == Tok::Ident && t.text.size() > 1 && t.text[0] == '$';
		std::string rest = dollar ? t.text.substr(1) : t.text;
		if ((dollar || t.kind == Tok::AtIdent) && rest == "0") {
			std::string sigil = dollar ? "$" : "@";
			diags.error(t.loc, "'" + sigil + "0' is not a script argument: they count from " +
						   sigil + "1");
			continue;
		}
		if ((!dollar && t.kind != Tok::AtIdent) || (rest != "#" && !arg_index(rest))) {
			out.push_back(std::move(t));
			continue;
		}
		if (rest == "#") {
			t.kind = dollar ? Tok::Number : Tok::String;
			t.number = static_cast<int64_t>(args.size());
			t.text = std::to_string(args.size());
			out.push_back(std::move(t));
			continue;
		}
		size_t n = arg_index(rest);
		if (n > args.size()) {
			diags.error(t.loc, "command line argument index " + std::to_string(n) +
						   " out of range [1-" + std::to_string(args.size()) + "]",
				    args.empty() ? "give the script's arguments after it: stap-pmu "
						   "SCRIPT ARG... (or -e SCRIPT ARG...)"
						 : "");
			continue;
		}
		if (!dollar) {
			t.kind = Tok::String;
			t.text = args[n - 1];
			out.push_back(std::move(t));
		} else if (!paste_arg(t, n, args, out, diags)) {
			continue;
		}
	}
	return out;
}

} // namespace

std::vector<Token> preprocess(std::vector<Token> toks, const PreprocInput &in, Diagnostics &diags)
{
	return Preprocessor(in, diags).run(substitute_args(std::move(toks), in.args, diags));
}

} // namespace stap_pmu
