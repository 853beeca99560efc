// regex_impl.h - private to regex/*.cpp: the parsed expression tree and the
// three steps (parse, emit the NFA, build the DFA).
#pragma once

#include "translator/regex/regex.h"

namespace stap_pmu::regex::impl {

enum class Kind { Empty, Set, Bol, Eol, Cat, Alt, Repeat, Group };

constexpr int unbounded = -1;

struct Node {
	Kind kind = Kind::Empty;
	ByteSet set{};          // Set
	std::vector<int> kids;  // Cat, Alt: all; Repeat, Group: one
	int min = 0, max = 0;   // Repeat (max unbounded: no limit)
	unsigned group = 0;     // Group: its number (1..)
};

struct Tree {
	std::vector<Node> nodes;
	int root = -1;
	unsigned groups = 0; // parenthesized subexpressions
};

// "regex compilation error (at position N): what"
Error regex_error(size_t pos, const std::string &what);

Result<Tree> parse(const std::string &re);
Result<Program> emit(const Tree &t);
// The DFA of prog when it has at most max_dfa_states states.
bool build_dfa(Program &prog);

} // namespace stap_pmu::regex::impl
