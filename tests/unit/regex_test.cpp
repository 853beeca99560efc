// regex_test.cpp - regexes compiled by translator/regex/ and run by the
// kernel's own matcher (runtime/stp_regex.h, compiled here as it is, with
// stand-ins for the kernel's types), checked against std::regex's POSIX
// extended grammar: match/no-match and the leftmost-longest whole match on
// known and generated cases, for the DFA and the NFA; submatches on known
// cases; and the errors of regexes stap-pmu refuses.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "translator/regex/regex.h"

namespace kernel {
using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;
using s64 = int64_t;
using std::memcpy;
using std::memset;
using ::strnlen;
#define __maybe_unused __attribute__((unused))
#define STP_MAXSTRINGLEN 512
#define STP_REGEX_MAXINSNS 2000
#define STP_REGEX_MAXSLOTS 64
#define STP_REGEX_MAXCAPS 16384
#include "runtime/stp_regex.h"
} // namespace kernel

using namespace stap_pmu;

namespace {

// A compiled regex laid out as the generated C lays it out.
struct Tables {
	regex::Program prog;
	std::vector<kernel::stp_regex_insn> insns;
	kernel::stp_regex re{};

	explicit Tables(regex::Program p) : prog(std::move(p))
	{
		for (const regex::Insn &i : prog.insns)
			insns.push_back({static_cast<uint8_t>(i.op), i.x, i.y});
		re.prog = insns.data();
		re.sets = reinterpret_cast<const uint32_t(*)[8]>(prog.sets.data());
		re.ninsns = static_cast<uint16_t>(insns.size());
		re.nsub = static_cast<uint16_t>(prog.nsub);
		if (prog.has_dfa) {
			re.cls = prog.dfa.byte_class.data();
			re.dfa = prog.dfa.next.data();
			re.accept = prog.dfa.accept.data();
			re.nclasses = static_cast<uint16_t>(prog.dfa.nclasses);
		}
	}
};

struct Outcome {
	bool matched = false;
	std::vector<int> groups; // start, end per subexpression; -1 unset
};

auto state = std::make_unique<kernel::stp_regex_state>();

// The kernel's NFA with submatches (after its DFA said yes, as at run time).
Outcome run_kernel(const Tables &t, const std::string &s)
{
	Outcome o;
	o.matched = kernel::stp_regex_match(state.get(), &t.re, s.c_str(), 1);
	if (o.matched)
		for (unsigned i = 0; i < 2 * t.re.nsub; i++)
			o.groups.push_back(state->caps[i] == STP_RE_UNSET ? -1 : state->caps[i]);
	return o;
}

// match/no-match alone: the DFA when there is one, the NFA otherwise
bool run_kernel_decision(const Tables &t, const std::string &s)
{
	return kernel::stp_regex_match(state.get(), &t.re, s.c_str(), 0);
}

bool run_kernel_nfa_only(const Tables &t, const std::string &s)
{
	kernel::stp_regex re = t.re;
	re.dfa = nullptr;
	return kernel::stp_regex_match(state.get(), &re, s.c_str(), 0);
}

// The leftmost-longest whole match by std::regex_match on every substring,
// leftmost first, longest first (libstdc++'s regex_search in POSIX mode does
// not always find the longest: "([[:alpha:]][^a]{1,2})+" on "bbbc" gives 3
// bytes, where "bb" "bc" make 4).
std::pair<int, int> leftmost_longest_std(const std::string &re, const std::string &s)
{
	std::regex r(re, std::regex::extended);
	for (size_t i = 0; i <= s.size(); i++)
		for (size_t j = s.size() + 1; j-- > i;) {
			// ^ and $ hold only at the string's ends: keep the context
			auto flags = std::regex_constants::match_default;
			if (i > 0)
				flags |= std::regex_constants::match_prev_avail;
			if (j < s.size())
				flags |= std::regex_constants::match_not_eol;
			if (std::regex_match(s.begin() + static_cast<long>(i),
					     s.begin() + static_cast<long>(j), r, flags))
				return {static_cast<int>(i), static_cast<int>(j)};
		}
	return {-1, -1};
}

Outcome run_std(const std::string &re, const std::string &s)
{
	Outcome o;
	std::regex r(re, std::regex::extended);
	std::smatch m;
	o.matched = std::regex_search(s, m, r);
	if (o.matched)
		for (size_t i = 0; i < m.size(); i++) {
			o.groups.push_back(m[i].matched ? static_cast<int>(m.position(i)) : -1);
			o.groups.push_back(m[i].matched ? static_cast<int>(m.position(i) + m.length(i))
							: -1);
		}
	return o;
}

Tables compiled(const std::string &re)
{
	auto p = regex::compile(re);
	EXPECT_TRUE(p.ok()) << re << ": " << (p.ok() ? "" : p.error().what);
	return Tables(p.ok() ? std::move(*p) : regex::Program{});
}

std::string error_of(const std::string &re)
{
	auto p = regex::compile(re);
	return p.ok() ? "" : p.error().what;
}

// match/no-match and the whole match agree with std::regex; the DFA, the
// NFA alone and the NFA with submatches agree with each other
void expect_whole_match_like_std(const std::string &re, const std::string &s)
{
	Tables t = compiled(re);
	Outcome want = run_std(re, s);
	Outcome got = run_kernel(t, s);
	SCOPED_TRACE("regex \"" + re + "\" on \"" + s + "\"");
	ASSERT_EQ(got.matched, want.matched);
	EXPECT_EQ(run_kernel_decision(t, s), want.matched);
	EXPECT_EQ(run_kernel_nfa_only(t, s), want.matched);
	if (want.matched) {
		auto [start, end] = leftmost_longest_std(re, s);
		EXPECT_EQ(got.groups[0], start);
		EXPECT_EQ(got.groups[1], end);
	}
}

struct Known {
	const char *re, *s;
};

const Known known[] = {
	{"abc", "xabcx"},       {"abc", "ab"},          {"^abc", "abcabc"},   {"^abc", "xabc"},
	{"abc$", "abcabc"},     {"abc$", "abcx"},       {"^$", ""},           {"^$", "a"},
	{"a*", ""},             {"a*", "baaa"},         {"a+", "baaa"},       {"a?b", "aab"},
	{"a.c", "abc"},         {"a.c", "ac"},          {"a|b", "cb"},        {"ab|cd", "xcdab"},
	{"(a|ab)(c|bcd)", "abcd"}, {"(a*)*", "aab"},    {"(a|b)*c", "ababc"}, {"x(a|b)+y", "xababy"},
	{"[abc]+", "xxbcay"},   {"[^abc]+", "abxyzc"},  {"[a-c]+", "zzabcd"}, {"[]a]+", "x]a]"},
	{"[^]a]+", "]]xy"},     {"[a-]+", "-a-b"},      {"[[:digit:]]+", "ab123c"},
	{"[[:alpha:][:digit:]]+", "--a1b2--"},          {"[[:space:]]", "a b"},
	{"[[:upper:]][[:lower:]]*", "xHello"},          {"a{2}", "aaa"},      {"a{2,}", "aaaaa"},
	{"a{1,3}", "aaaaa"},    {"(ab){2}", "abababab"}, {"a{0,2}b", "aaab"}, {"\\.", "a.b"},
	{"\\(x\\)", "(x)"},     {"a\\*", "a*"},         {"x*", "yyy"},        {"(x|xy)z", "xyz"},
	{"(a|ab|abc)*d", "abcabd"}, {"pmu-w(ork)load", "pmu-workload"},
	{"^pmu-w(ork)load$", "pmu-workload"},           {"^pmu-w(ork)load$", "xpmu-workload"},
	{"o", "hello world"},   {"l+", "hello"},        {"(a)|b", "b"},       {"((a)|b)+", "ab"},
	{"a$|b", "ab"},         {"$", "abc"},           {"^", "abc"},         {"(^a|b)", "ba"},
	{"[.]", "a.b"},         {"[*+?]+", "a*+?b"},    {"[a\\]+", "\\a"},    {"colou?r", "colour"},
};

} // namespace

TEST(Regex, KnownCasesMatchLikePosix)
{
	for (const Known &k : known)
		expect_whole_match_like_std(k.re, k.s);
}

// Submatches: the kernel's against std::regex where POSIX's rules and the
// preferred-path rule agree, and the documented difference where they do not.
TEST(Regex, Submatches)
{
	struct Case {
		const char *re, *s;
		std::vector<int> groups;
	};
	const Case cases[] = {
		{"^pmu-w(ork)load$", "pmu-workload", {0, 12, 5, 8}},
		{"(a+)(b+)", "xaabbby", {1, 6, 1, 3, 3, 6}},
		{"(a|b)*c", "abac", {0, 4, 2, 3}},          // the last iteration
		{"(a)|b", "b", {0, 1, -1, -1}},             // a group that took no part
		{"x(y)?z", "xz", {0, 2, -1, -1}},
		{"(a*)(a*)", "aaa", {0, 3, 0, 3, 3, 3}},    // the first greedy
		{"((a)|b)+", "ab", {0, 2, 1, 2, -1, -1}},   // the last iteration's groups only
		{"(x|xy)z", "xyz", {0, 3, 0, 2}},           // longest overall decides the path
		{"([0-9]+)-([0-9]+)", "port 80-443", {5, 11, 5, 7, 8, 11}},
		// the documented difference: POSIX takes "ab", "c", "d" (each
		// subexpression as long as it can be, leftmost first); once the
		// whole match is fixed, the first alternative is preferred here
		{"(a|ab)(c|bcd)(d*)", "abcd", {0, 4, 0, 1, 1, 4, 4, 4}},
		// an iteration that matches only the empty string is not taken
		{"(a*)*", "b", {0, 0, -1, -1}},
	};
	for (const Case &c : cases) {
		SCOPED_TRACE(std::string("regex \"") + c.re + "\" on \"" + c.s + "\"");
		Tables t = compiled(c.re);
		Outcome got = run_kernel(t, c.s);
		ASSERT_TRUE(got.matched);
		EXPECT_EQ(got.groups, c.groups);
	}
	// where the rules agree, std::regex says the same
	const Known agree[] = {
		{"^pmu-w(ork)load$", "pmu-workload"}, {"(a+)(b+)", "xaabbby"}, {"(a)|b", "b"},
		{"x(y)?z", "xz"}, {"(a*)(a*)", "aaa"}, {"([0-9]+)-([0-9]+)", "port 80-443"},
		{"(a|b)*c", "abac"}, {"(x|xy)z", "xyz"},
	};
	for (const Known &k : agree) {
		SCOPED_TRACE(std::string("regex \"") + k.re + "\" on \"" + k.s + "\"");
		EXPECT_EQ(run_kernel(compiled(k.re), k.s).groups, run_std(k.re, k.s).groups);
	}
}

namespace {

// A random ERE over a, b, c: literals, '.', brackets, groups, alternation,
// the four repetitions and anchors.
std::string random_regex(std::mt19937 &rng, int depth)
{
	auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
	std::string out;
	int items = 1 + pick(3);
	for (int i = 0; i < items; i++) {
		std::string atom;
		switch (pick(depth > 2 ? 6 : 8)) {
		case 0: case 1: case 2: atom = std::string(1, static_cast<char>('a' + pick(3))); break;
		case 3: atom = "."; break;
		case 4: atom = pick(2) ? "[ab]" : "[^a]"; break;
		case 5: atom = pick(2) ? "[a-b]" : "[[:alpha:]]"; break;
		default:
			atom = "(" + random_regex(rng, depth + 1) +
			       (pick(3) == 0 ? "|" + random_regex(rng, depth + 1) : "") + ")";
		}
		switch (pick(8)) {
		case 0: atom += "*"; break;
		case 1: atom += "+"; break;
		case 2: atom += "?"; break;
		case 3: atom += "{1,2}"; break;
		default: break;
		}
		out += atom;
	}
	if (depth == 0 && pick(5) == 0)
		out = "^" + out;
	if (depth == 0 && pick(5) == 0)
		out += "$";
	return out;
}

} // namespace

TEST(Regex, GeneratedCasesMatchLikePosix)
{
	std::mt19937 rng(14); // fixed: the same few hundred cases every run
	const char *subjects[] = {"", "a", "b", "c", "ab", "ba", "abc", "cab", "aab", "abab",
				  "bbbc", "acacbb", "cccaaab", "abcabcab"};
	int cases = 0;
	for (int i = 0; i < 60; i++) {
		std::string re = random_regex(rng, 0);
		for (const char *s : subjects) {
			expect_whole_match_like_std(re, s);
			cases++;
		}
	}
	EXPECT_GE(cases, 800);
}

TEST(Regex, DfaWhenSmallNfaAlways)
{
	auto p = regex::compile("^pmu-w(ork)load$");
	ASSERT_TRUE(p.ok());
	EXPECT_TRUE(p->has_dfa);
	EXPECT_EQ(p->nsub, 2u);
	EXPECT_EQ(p->insns.front().op, regex::Op::Save);
	EXPECT_EQ(p->insns.back().op, regex::Op::Match);
	// (a|b)*a(a|b){9}$: the tenth byte from the end is 'a', 2^10 states
	auto big = regex::compile("(a|b)*a(a|b){9}$");
	ASSERT_TRUE(big.ok());
	EXPECT_FALSE(big->has_dfa);
	Tables t(std::move(*big));
	EXPECT_TRUE(run_kernel_decision(t, "bbbabbbbbbbbb"));
	EXPECT_FALSE(run_kernel_decision(t, "bbbbabbbbbbbbbb"));
	expect_whole_match_like_std("(a|b)*a(a|b){9}$", "bbbabbbbbbbbb");
	expect_whole_match_like_std("(a|b)*a(a|b){9}$", "bbbbabbbbbbbbbb");
}

TEST(Regex, Errors)
{
	EXPECT_EQ(error_of("(ab"), "regex compilation error (at position 0): unbalanced '('");
	EXPECT_EQ(error_of("ab)"), "regex compilation error (at position 2): unbalanced ')'");
	EXPECT_EQ(error_of("(a)\\1"),
		  "regex compilation error (at position 3): back-references ('\\1') are not "
		  "supported");
	EXPECT_EQ(error_of("x\\b"),
		  "regex compilation error (at position 1): the anchor '\\b' is not supported");
	EXPECT_EQ(error_of("*a"), "regex compilation error (at position 0): '*' has nothing to "
				  "repeat");
	EXPECT_EQ(error_of("a|+"), "regex compilation error (at position 2): '+' has nothing to "
				   "repeat");
	EXPECT_EQ(error_of("[abc"),
		  "regex compilation error (at position 0): unclosed bracket expression");
	EXPECT_EQ(error_of("[z-a]"), "regex compilation error (at position 1): invalid range 'z-a'");
	EXPECT_EQ(error_of("[[:foo:]]"),
		  "regex compilation error (at position 1): unknown character class '[:foo:]'");
	EXPECT_EQ(error_of("a{3,1}"), "regex compilation error (at position 1): invalid interval: "
				      "the maximum is less than the minimum");
	EXPECT_EQ(error_of("a{2"), "regex compilation error (at position 1): unclosed interval '{'");
	EXPECT_EQ(error_of("a{256}"), "regex compilation error (at position 1): repetition count "
				      "greater than 255");
	EXPECT_EQ(error_of("a\\"), "regex compilation error (at position 1): trailing backslash");
	EXPECT_EQ(error_of("a|{2}"), "regex compilation error (at position 2): '{' has nothing to "
				     "repeat");
	EXPECT_EQ(error_of("[[.ab.]]"), "regex compilation error (at position 1): unsupported "
					"collating element '[.ab.]'");
	EXPECT_EQ(error_of("[a-[:digit:]]"), "regex compilation error (at position 1): a character "
					     "class cannot end a range");
	EXPECT_EQ(error_of("[[.-.]a]"), ""); // one character: a literal '-'
	EXPECT_EQ(error_of("a{,2}"), "");    // '{' not before a digit: a literal
	EXPECT_EQ(error_of("(a{255}){255}").substr(0, 65),
		  "regex compilation error (at position 0): the expression is too la");
	EXPECT_EQ(error_of(std::string(300, '(') + std::string(300, ')')),
		  "regex compilation error (at position 257): groups nested too deeply");
}
