// regex_dfa.cpp - the DFA beside the NFA: match/no-match of the unanchored
// search in one table step per byte. A state is the set of NFA
// instructions the threads wait at (CHAR, EOL, MATCH) after following
// SPLIT, JMP, SAVE and BOL; every step also starts a new thread at the
// program's start (the search is unanchored). Bytes that every CHAR set
// treats alike share a class, so the table is states x classes.
#include "translator/regex/regex_impl.h"

#include <algorithm>
#include <map>

namespace stap_pmu::regex::impl {

namespace {

using StateSet = std::vector<uint16_t>; // sorted instruction indexes

class Builder {
public:
	explicit Builder(Program &p) : p_(p) {}

	bool run()
	{
		classes();
		// state 0: position 0, where '^' holds; no other state is it
		StateSet start = closure({0}, true, false);
		start.insert(start.begin(), initial_mark);
		std::vector<StateSet> states = {start};
		std::map<StateSet, uint16_t> ids = {{start, 0}};
		Dfa &d = p_.dfa;
		for (size_t s = 0; s < states.size(); s++) {
			d.accept.push_back(accept_flags(states[s], s == 0));
			for (unsigned c = 0; c < d.nclasses; c++) {
				StateSet t = step(states[s], rep_[c]);
				auto [it, added] = ids.emplace(t, static_cast<uint16_t>(states.size()));
				if (added) {
					if (states.size() >= max_dfa_states)
						return false;
					states.push_back(t);
				}
				d.next.push_back(it->second);
			}
		}
		return true;
	}

private:
	static constexpr uint16_t initial_mark = 0xffff;
	Program &p_;
	std::vector<unsigned> rep_; // a byte of each class

	void classes()
	{
		std::map<std::vector<bool>, uint8_t> sig_class;
		Dfa &d = p_.dfa;
		for (unsigned b = 0; b < 256; b++) {
			std::vector<bool> sig;
			for (const ByteSet &s : p_.sets)
				sig.push_back(has_byte(s, b));
			auto [it, added] = sig_class.emplace(sig, static_cast<uint8_t>(rep_.size()));
			if (added)
				rep_.push_back(b);
			d.byte_class[b] = it->second;
		}
		d.nclasses = static_cast<unsigned>(rep_.size());
	}

	// The waiting instructions reached from seeds; bol: '^' holds here;
	// at_end: the string ends here ('$' holds and is followed).
	StateSet closure(const StateSet &seeds, bool bol, bool at_end) const
	{
		std::vector<bool> seen(p_.insns.size());
		std::vector<uint16_t> work(seeds.rbegin(), seeds.rend());
		StateSet out;
		while (!work.empty()) {
			uint16_t pc = work.back();
			work.pop_back();
			if (pc == initial_mark || seen[pc])
				continue;
			seen[pc] = true;
			const Insn &i = p_.insns[pc];
			switch (i.op) {
			case Op::Split:
				work.push_back(i.y);
				work.push_back(i.x);
				break;
			case Op::Jmp:
				work.push_back(i.x);
				break;
			case Op::Save:
				work.push_back(static_cast<uint16_t>(pc + 1));
				break;
			case Op::Bol:
				if (bol)
					work.push_back(static_cast<uint16_t>(pc + 1));
				break;
			case Op::Eol:
				if (at_end)
					work.push_back(static_cast<uint16_t>(pc + 1));
				else
					out.push_back(pc);
				break;
			case Op::Char:
			case Op::Match:
				out.push_back(pc);
				break;
			}
		}
		std::sort(out.begin(), out.end());
		return out;
	}

	StateSet step(const StateSet &s, unsigned byte) const
	{
		StateSet seeds;
		for (uint16_t pc : s)
			if (pc != initial_mark && p_.insns[pc].op == Op::Char &&
			    has_byte(p_.sets[p_.insns[pc].x], byte))
				seeds.push_back(static_cast<uint16_t>(pc + 1));
		seeds.push_back(0); // a new start: the search is unanchored
		return closure(seeds, false, false);
	}

	uint8_t accept_flags(const StateSet &s, bool initial) const
	{
		uint8_t f = 0;
		StateSet seeds;
		for (uint16_t pc : s) {
			if (pc == initial_mark)
				continue;
			if (p_.insns[pc].op == Op::Match)
				f |= 1;
			if (p_.insns[pc].op == Op::Eol)
				seeds.push_back(pc);
		}
		if (f)
			return 3;
		for (uint16_t pc : closure(seeds, initial, true))
			if (p_.insns[pc].op == Op::Match)
				return 2;
		return 0;
	}
};

} // namespace

bool build_dfa(Program &prog)
{
	Dfa d;
	prog.dfa = d;
	if (!Builder(prog).run()) {
		prog.dfa = Dfa{};
		return false;
	}
	return true;
}

} // namespace stap_pmu::regex::impl
