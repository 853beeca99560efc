// tapset_names.cpp - the names a tapset file may define, from its raw text.
// The scanner follows lexer.cpp's token boundaries for everything that can
// hide or show a brace or a name: comments (#, //, /* */), strings, embedded
// C (%{ %}), numbers, $# and @N, and the preprocessor's %( %? %: %).
#include "translator/frontend/tapset_names.h"

#include <algorithm>
#include <cctype>
#include <vector>

#include "translator/frontend/lexer.h"

namespace stap_pmu {

namespace {

class Scanner {
public:
	explicit Scanner(std::string_view s) : s_(s) {}

	TapsetNames run()
	{
		while (i_ < s_.size() && !out_.any)
			step();
		if (depth_ != 0 || !frames_.empty())
			out_.any = true;
		end_header(false);
		if (out_.any)
			out_.idents.clear();
		return std::move(out_);
	}

private:
	struct Frame {
		int depth;  // brace depth where %( opened: each branch returns to it
		bool macro; // the body of @define
	};

	char at(size_t k) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }

	void step()
	{
		char c = at(0);
		// space and comments leave after_dot_ as it is
		if (std::isspace(static_cast<unsigned char>(c))) {
			i_++;
			return;
		}
		if (c == '#' || (c == '/' && at(1) == '/')) {
			i_ = std::min(s_.find('\n', i_), s_.size());
			return;
		}
		if (c == '/' && at(1) == '*') {
			size_t e = s_.find("*/", i_ + 2);
			out_.any |= e == std::string_view::npos;
			i_ = e == std::string_view::npos ? s_.size() : e + 2;
			return;
		}
		if (c == '$' && at(1) == '#') {
			i_ += 2;
			header_unsure_ = true;
		} else if (c == '@' && (at(1) == '#' || std::isdigit(static_cast<unsigned char>(at(1))))) {
			i_ += 2;
			if (s_[i_ - 1] != '#')
				while (std::isdigit(static_cast<unsigned char>(at(0))))
					i_++;
			header_unsure_ = true;
		} else if (is_ident_start(c) || (c == '@' && is_ident_start(at(1)))) {
			word();
		} else if (std::isdigit(static_cast<unsigned char>(c))) {
			while (std::isalnum(static_cast<unsigned char>(at(0))))
				i_++;
		} else if (c == '"') {
			string();
		} else if (c == '%' && at(1) == '{') {
			size_t e = s_.find("%}", i_ + 2);
			out_.any |= e == std::string_view::npos;
			i_ = e == std::string_view::npos ? s_.size() : e + 2;
			header_unsure_ = true;
		} else if (c == '%' && (at(1) == '(' || at(1) == '?' || at(1) == ':' || at(1) == ')')) {
			preproc(at(1));
			i_ += 2;
		} else {
			punct(c);
			i_++;
		}
		after_dot_ = c == '.' && at(0) != '=';
	}

	void word()
	{
		bool at_ident = s_[i_] == '@';
		size_t start = at_ident ? ++i_ : i_;
		while (is_ident_char(at(0)))
			i_++;
		if (s_[start] == '$') // $p->field->field lexes as one name
			while (at(0) == '-' && at(1) == '>' && is_ident_start(at(2)) && at(2) != '$') {
				i_ += 2;
				while (is_ident_char(at(0)))
					i_++;
			}
		std::string_view w = s_.substr(start, i_ - start);
		if (at_ident || w[0] == '$') {
			// a macro use or a script argument may paste anything
			header_unsure_ = true;
			macro_next_ |= at_ident && w == "define";
			return;
		}
		if (depth_ == 0 && !macros_ && !after_dot_) { // (x.function("f") is a component)
			if (w == "probe" || w == "function" || w == "global" || w == "private") {
				end_header(false); // (these keywords name nothing)
				header_ = w == "probe";
				return;
			}
		}
		name(w);
	}

	void string()
	{
		for (i_++;; i_++) {
			if (i_ >= s_.size() || s_[i_] == '\n') { // the lexer stops here
				out_.any = true;
				return;
			}
			if (s_[i_] == '\\')
				i_++;
			else if (s_[i_] == '"')
				break;
		}
		i_++;
	}

	void preproc(char what)
	{
		header_unsure_ = true;
		if (what == '(') {
			frames_.push_back({depth_, macro_next_});
			macros_ += macro_next_;
			macro_next_ = false;
			return;
		}
		if (frames_.empty() || frames_.back().depth != depth_) {
			out_.any = true; // a branch that does not close what it opens
			return;
		}
		if (what == ')') {
			macros_ -= frames_.back().macro;
			frames_.pop_back();
		}
	}

	void punct(char c)
	{
		if (c == '=' && !parens_)
			header_alias_ = true; // = or += of an alias (or a ==)
		if (c == '(' && header_) {
			parens_++; // a point's arguments or an if's condition
		} else if (c == ')' && header_) {
			parens_ -= parens_ > 0;
		} else if (c == '{') {
			if (depth_ == 0)
				end_header(true);
			depth_++;
		} else if (c == '}') {
			out_.any |= --depth_ < 0;
		} else if (c == ';' && depth_ == 0) {
			end_header(false);
		}
	}

	// A probe header's identifiers count only for an alias, those before
	// its '=' (all of them where a macro, an argument or a conditional
	// may change what the header says, or where sure is false).
	void end_header(bool sure)
	{
		if (header_)
			for (const auto &[w, rhs] : pending_)
				if (!sure || header_unsure_ || (header_alias_ && !rhs))
					out_.idents.emplace(w);
		pending_.clear();
		header_ = header_alias_ = header_unsure_ = false;
		parens_ = 0;
	}

	void name(std::string_view w)
	{
		if (macros_)
			out_.idents.emplace(w);
		else if (depth_ != 0)
			return;
		else if (header_ && !after_dot_) // not a first component: a.w
			pending_.emplace_back(w, header_alias_);
		else if (header_)
			return;
		else
			out_.idents.emplace(w);
	}

	std::string_view s_;
	size_t i_ = 0;
	TapsetNames out_;
	int depth_ = 0;
	std::vector<Frame> frames_;
	int macros_ = 0;
	bool macro_next_ = false;
	bool header_ = false;
	bool header_alias_ = false;  // an '=' outside parentheses: an alias
	bool header_unsure_ = false; // a macro, argument or %( in the header
	int parens_ = 0; // open '(' in a probe header
	bool after_dot_ = false; // the last token was '.'
	std::vector<std::pair<std::string_view, bool>> pending_; // word, after '='?
};

} // namespace

TapsetNames scan_tapset_names(std::string_view text)
{
	return Scanner(text).run();
}

void add_identifiers(std::string_view text, std::unordered_set<std::string> &out)
{
	for (size_t i = 0; i < text.size();) {
		if (!is_ident_start(text[i])) {
			i++;
			continue;
		}
		size_t start = i;
		while (i < text.size() && is_ident_char(text[i]))
			i++;
		out.emplace(text.substr(start, i - start));
	}
}

std::string first_component_name(const std::string &name)
{
	return name.substr(0, name.find_first_of(".("));
}

} // namespace stap_pmu
