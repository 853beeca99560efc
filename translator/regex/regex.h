// regex.h - POSIX extended regular expressions compiled at translation time
// (`s =~ "re"`, `s !~ "re"`) into the program runtime/stp_regex.h runs.
//
// The program is a Thompson NFA of at most max_insns instructions: CHAR
// (a byte set), SPLIT (two ways on, the first preferred), JMP, SAVE (a
// submatch boundary, or unset: each iteration of a repetition starts with
// the subexpressions inside it unset, as POSIX says), BOL/EOL (^ and $:
// the string's start and end) and MATCH; it starts with SAVE 0 and ends with SAVE 1, MATCH. The kernel runs
// it as a Pike VM with one thread list slot per instruction, so memory is
// instructions x submatch slots, fixed when the module is built, and time is
// O(string length x instructions), without recursion. Beside it, a DFA (at
// most max_dfa_states states over byte classes) answers match/no-match in
// one table step per byte; a regex whose DFA would be larger has none and
// the NFA decides alone.
//
// Semantics: unanchored search; the whole match (subexpression 0) is the
// leftmost-longest one, as POSIX says. Subexpressions are those of the
// preferred path to that match (alternatives in order, repetitions greedy),
// which is where this differs from POSIX's subexpression rules (docs/language.md).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "translator/support/result.h"

namespace stap_pmu::regex {

enum class Op : uint8_t { Char, Split, Jmp, Save, Bol, Eol, Match };

struct Insn {
	Op op = Op::Match;
	uint16_t x = 0; // Char: set index; Split, Jmp: target; Save: slot
	uint16_t y = 0; // Split: the other target; Save: 1 unsets the slot
};

using ByteSet = std::array<uint32_t, 8>; // bit b: byte b

inline bool has_byte(const ByteSet &s, unsigned b)
{
	return (s[b >> 5] >> (b & 31)) & 1;
}

constexpr size_t max_insns = 2000;
constexpr size_t max_slot_insns = 16384; // instructions x submatch slots
constexpr size_t max_dfa_states = 512;
constexpr unsigned max_repeat = 255; // RE_DUP_MAX

struct Dfa {
	std::array<uint8_t, 256> byte_class{};
	unsigned nclasses = 0;
	std::vector<uint16_t> next; // state * nclasses + class; state 0 starts
	// bit 0: a match ends here (the search is over); bit 1: a match ends at
	// the string's end when the string ends here
	std::vector<uint8_t> accept;
	size_t states() const { return accept.size(); }
};

struct Program {
	std::vector<Insn> insns;
	std::vector<ByteSet> sets;
	unsigned nsub = 1;       // subexpressions, the whole match (0) included
	bool has_dfa = false;
	Dfa dfa;
	size_t slots() const { return 2 * nsub; }
};

// The program of an ERE, or an error in stap's words:
// "regex compilation error (at position N): WHAT".
Result<Program> compile(const std::string &re);

} // namespace stap_pmu::regex
