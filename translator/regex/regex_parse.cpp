// regex_parse.cpp - POSIX extended regular expression syntax to a tree:
// literals, '.', bracket expressions (ranges, '^' negation, [:class:],
// [.c.] and [=c=] of one character), '*' '+' '?' '{m}' '{m,}' '{m,n}',
// '|', '(...)', '^' and '$', and backslash escapes ("\." a literal, "\n"
// "\t" "\r" "\f" "\v" control characters, "\d" "\s" "\w" and their upper
// case negations as GNU has them). Back-references and word boundaries
// are errors.
#include "translator/regex/regex_impl.h"

#include <cctype>
#include <optional>

namespace stap_pmu::regex::impl {

Error regex_error(size_t pos, const std::string &what)
{
	return fail("regex compilation error (at position " + std::to_string(pos) + "): " + what);
}

namespace {

constexpr int max_depth = 256;

void add_byte(ByteSet &s, unsigned b)
{
	s[b >> 5] |= 1u << (b & 31);
}

ByteSet negate(const ByteSet &s)
{
	ByteSet out;
	for (size_t i = 0; i < out.size(); i++)
		out[i] = ~s[i];
	out[0] &= ~1u; // strings never hold NUL
	return out;
}

// [:name:] as the C locale has it; false for an unknown name.
bool add_class(ByteSet &s, const std::string &name)
{
	int (*pred)(int) = nullptr;
	static const struct {
		const char *name;
		int (*pred)(int);
	} classes[] = {
		{"alnum", isalnum}, {"alpha", isalpha}, {"blank", isblank}, {"cntrl", iscntrl},
		{"digit", isdigit}, {"graph", isgraph}, {"lower", islower}, {"print", isprint},
		{"punct", ispunct}, {"space", isspace}, {"upper", isupper}, {"xdigit", isxdigit},
	};
	for (const auto &c : classes)
		if (name == c.name)
			pred = c.pred;
	if (!pred)
		return false;
	for (unsigned b = 1; b < 128; b++) // the C locale: ASCII only
		if (pred(static_cast<int>(b)))
			add_byte(s, b);
	return true;
}

class Parser {
public:
	explicit Parser(const std::string &re) : re_(re) {}

	Result<Tree> run()
	{
		int root = alt(0);
		if (failed_)
			return *err_;
		if (pos_ < re_.size()) // only an unmatched ')' stops alt() early
			return regex_error(pos_, "unbalanced ')'");
		t_.root = root;
		return std::move(t_);
	}

private:
	const std::string &re_;
	size_t pos_ = 0;
	Tree t_;
	bool failed_ = false;
	std::optional<Error> err_;

	int error(size_t pos, const std::string &what)
	{
		if (!failed_)
			err_ = regex_error(pos, what);
		failed_ = true;
		return -1;
	}
	bool at_end() const { return pos_ >= re_.size(); }
	char cur() const { return re_[pos_]; }

	int node(Node n)
	{
		t_.nodes.push_back(std::move(n));
		return static_cast<int>(t_.nodes.size() - 1);
	}
	int set_node(const ByteSet &s)
	{
		Node n;
		n.kind = Kind::Set;
		n.set = s;
		return node(std::move(n));
	}

	int alt(int depth)
	{
		if (depth > max_depth)
			return error(pos_, "groups nested too deeply");
		Node n;
		n.kind = Kind::Alt;
		n.kids.push_back(cat(depth));
		while (!failed_ && !at_end() && cur() == '|') {
			pos_++;
			n.kids.push_back(cat(depth));
		}
		if (failed_)
			return -1;
		return n.kids.size() == 1 ? n.kids[0] : node(std::move(n));
	}

	int cat(int depth)
	{
		Node n;
		n.kind = Kind::Cat;
		while (!failed_ && !at_end() && cur() != '|' && cur() != ')') {
			int a = repeat(depth);
			if (a >= 0)
				n.kids.push_back(a);
		}
		if (failed_)
			return -1;
		if (n.kids.size() == 1)
			return n.kids[0];
		if (n.kids.empty())
			n.kind = Kind::Empty;
		return node(std::move(n));
	}

	int repeat(int depth)
	{
		int a = atom(depth);
		while (!failed_ && !at_end()) {
			int min, max;
			char c = cur();
			if (c == '*' || c == '+' || c == '?') {
				pos_++;
				min = c == '+' ? 1 : 0;
				max = c == '?' ? 1 : unbounded;
			} else if (c == '{' && pos_ + 1 < re_.size() && isdigit(re_[pos_ + 1])) {
				if (!interval(min, max))
					return -1;
			} else {
				break;
			}
			Node n;
			n.kind = Kind::Repeat;
			n.kids.push_back(a);
			n.min = min;
			n.max = max;
			a = node(std::move(n));
		}
		return a;
	}

	// {m}, {m,} or {m,n} at pos_
	bool interval(int &min, int &max)
	{
		size_t open = pos_++;
		auto number = [&](int &out) {
			if (at_end() || !isdigit(cur()))
				return false;
			long v = 0;
			while (!at_end() && isdigit(cur()) && v <= static_cast<long>(max_repeat))
				v = v * 10 + (re_[pos_++] - '0');
			if (v > static_cast<long>(max_repeat)) {
				error(open, "repetition count greater than " + std::to_string(max_repeat));
				return false;
			}
			out = static_cast<int>(v);
			return true;
		};
		if (!number(min))
			return false;
		max = min;
		if (!at_end() && cur() == ',') {
			pos_++;
			max = unbounded;
			if (!at_end() && isdigit(cur()) && !number(max))
				return false;
		}
		if (failed_)
			return false;
		if (at_end() || cur() != '}') {
			error(open, "unclosed interval '{'");
			return false;
		}
		pos_++;
		if (max != unbounded && max < min) {
			error(open, "invalid interval: the maximum is less than the minimum");
			return false;
		}
		return true;
	}

	int atom(int depth)
	{
		size_t at = pos_;
		char c = re_[pos_++];
		switch (c) {
		case '(': {
			unsigned g = ++t_.groups;
			int inner = alt(depth + 1);
			if (failed_)
				return -1;
			if (at_end() || cur() != ')')
				return error(at, "unbalanced '('");
			pos_++;
			Node n;
			n.kind = Kind::Group;
			n.group = g;
			n.kids.push_back(inner);
			return node(std::move(n));
		}
		case '*': case '+': case '?':
			return error(at, std::string("'") + c + "' has nothing to repeat");
		case '{':
			if (!at_end() && isdigit(cur()))
				return error(at, "'{' has nothing to repeat");
			break; // a literal '{'
		case '.': {
			ByteSet s{};
			return set_node(negate(s));
		}
		case '^': {
			Node n;
			n.kind = Kind::Bol;
			return node(std::move(n));
		}
		case '$': {
			Node n;
			n.kind = Kind::Eol;
			return node(std::move(n));
		}
		case '[':
			return bracket(at);
		case '\\':
			return escape(at);
		default:
			break;
		}
		ByteSet s{};
		add_byte(s, static_cast<unsigned char>(c));
		return set_node(s);
	}

	int escape(size_t at)
	{
		if (at_end())
			return error(at, "trailing backslash");
		char c = re_[pos_++];
		ByteSet s{};
		switch (c) {
		case '1': case '2': case '3': case '4': case '5': case '6': case '7': case '8': case '9':
			return error(at, std::string("back-references ('\\") + c + "') are not supported");
		case 'b': case 'B': case '<': case '>': case '`': case '\'':
			return error(at, std::string("the anchor '\\") + c + "' is not supported");
		case 'n': add_byte(s, '\n'); break;
		case 't': add_byte(s, '\t'); break;
		case 'r': add_byte(s, '\r'); break;
		case 'f': add_byte(s, '\f'); break;
		case 'v': add_byte(s, '\v'); break;
		case 'd': case 'D':
			add_class(s, "digit");
			break;
		case 's': case 'S':
			add_class(s, "space");
			break;
		case 'w': case 'W':
			add_class(s, "alnum");
			add_byte(s, '_');
			break;
		default:
			add_byte(s, static_cast<unsigned char>(c));
			return set_node(s);
		}
		return set_node(c == 'D' || c == 'S' || c == 'W' ? negate(s) : s);
	}

	// one element of a bracket expression at pos_: a byte, or a class
	// (added to s, *byte -1); false on an error
	bool bracket_element(ByteSet &s, int &byte)
	{
		size_t at = pos_;
		byte = -1;
		if (cur() == '[' && pos_ + 1 < re_.size() &&
		    (re_[pos_ + 1] == ':' || re_[pos_ + 1] == '.' || re_[pos_ + 1] == '=')) {
			char kind = re_[pos_ + 1];
			size_t end = re_.find(std::string(1, kind) + "]", pos_ + 2);
			if (end == std::string::npos) {
				error(at, "unclosed bracket expression");
				return false;
			}
			std::string name = re_.substr(pos_ + 2, end - pos_ - 2);
			pos_ = end + 2;
			if (kind == ':') {
				if (!add_class(s, name)) {
					error(at, "unknown character class '[:" + name + ":]'");
					return false;
				}
				return true;
			}
			if (name.size() != 1) {
				error(at, "unsupported collating element '[" + std::string(1, kind) +
						  name + kind + "]'");
				return false;
			}
			byte = static_cast<unsigned char>(name[0]);
			return true;
		}
		byte = static_cast<unsigned char>(re_[pos_++]);
		return true;
	}

	int bracket(size_t at)
	{
		ByteSet s{};
		bool neg = !at_end() && cur() == '^';
		if (neg)
			pos_++;
		bool first = true;
		for (;;) {
			if (at_end())
				return error(at, "unclosed bracket expression");
			if (cur() == ']' && !first)
				break;
			first = false;
			size_t el = pos_;
			int lo;
			if (!bracket_element(s, lo))
				return -1;
			if (lo < 0)
				continue;
			// a range lo-hi, unless '-' is the last character before ']'
			if (pos_ + 1 < re_.size() && cur() == '-' && re_[pos_ + 1] != ']') {
				pos_++;
				int hi;
				if (!bracket_element(s, hi))
					return -1;
				if (hi < 0)
					return error(el, "a character class cannot end a range");
				if (hi < lo)
					return error(el, "invalid range '" + re_.substr(el, pos_ - el) + "'");
				for (int b = lo; b <= hi; b++)
					add_byte(s, static_cast<unsigned>(b));
				continue;
			}
			add_byte(s, static_cast<unsigned>(lo));
		}
		pos_++; // ']'
		s[0] &= ~1u;
		return set_node(neg ? negate(s) : s);
	}
};

} // namespace

Result<Tree> parse(const std::string &re)
{
	return Parser(re).run();
}

} // namespace stap_pmu::regex::impl
