// regex_compile.cpp - the parsed tree to the NFA program (regex.h), then
// the DFA beside it when it is small enough.
#include "translator/regex/regex_impl.h"

#include <map>

namespace stap_pmu::regex {

namespace impl {
namespace {

class Emitter {
public:
	explicit Emitter(const Tree &t) : t_(t) {}

	Result<Program> run()
	{
		p_.nsub = t_.groups + 1;
		add({Op::Save, 0, 0});
		node(t_.root);
		add({Op::Save, 1, 0});
		add({Op::Match, 0, 0});
		if (too_big())
			return regex_error(0, "the expression is too large (" + size_text() + ")");
		return std::move(p_);
	}

private:
	const Tree &t_;
	Program p_;
	std::map<ByteSet, uint16_t> set_index_;

	bool too_big() const
	{
		return p_.insns.size() > max_insns ||
		       p_.insns.size() * 2 * (t_.groups + 1) > max_slot_insns;
	}
	std::string size_text() const
	{
		return std::to_string(p_.insns.size()) + " instructions with " +
		       std::to_string(t_.groups) + " subexpressions; at most " +
		       std::to_string(max_insns) + " instructions and " +
		       std::to_string(max_slot_insns) + " instruction-slots";
	}
	uint16_t here() const { return static_cast<uint16_t>(p_.insns.size()); }
	size_t add(Insn i)
	{
		p_.insns.push_back(i);
		return p_.insns.size() - 1;
	}
	uint16_t set_of(const ByteSet &s)
	{
		auto [it, added] = set_index_.emplace(s, static_cast<uint16_t>(p_.sets.size()));
		if (added)
			p_.sets.push_back(s);
		return it->second;
	}

	void node(int i)
	{
		if (i < 0 || too_big()) // stop emitting: the size is reported
			return;
		const Node &n = t_.nodes[static_cast<size_t>(i)];
		switch (n.kind) {
		case Kind::Empty:
			return;
		case Kind::Set:
			add({Op::Char, set_of(n.set), 0});
			return;
		case Kind::Bol:
			add({Op::Bol, 0, 0});
			return;
		case Kind::Eol:
			add({Op::Eol, 0, 0});
			return;
		case Kind::Cat:
			for (int k : n.kids)
				node(k);
			return;
		case Kind::Alt:
			alt(n);
			return;
		case Kind::Group:
			add({Op::Save, static_cast<uint16_t>(2 * n.group), 0});
			node(n.kids[0]);
			add({Op::Save, static_cast<uint16_t>(2 * n.group + 1), 0});
			return;
		case Kind::Repeat:
			repeat(n);
			return;
		}
	}

	// SPLIT next, B; A; JMP end; B: ... (the first alternative preferred)
	void alt(const Node &n)
	{
		std::vector<size_t> jumps;
		for (size_t k = 0; k + 1 < n.kids.size(); k++) {
			size_t split = add({Op::Split, static_cast<uint16_t>(here() + 1), 0});
			node(n.kids[k]);
			jumps.push_back(add({Op::Jmp, 0, 0}));
			p_.insns[split].y = here();
		}
		node(n.kids.back());
		for (size_t j : jumps)
			p_.insns[j].x = here();
	}

	// The groups inside node i (i's own included).
	void groups_in(int i, std::vector<unsigned> &out) const
	{
		const Node &n = t_.nodes[static_cast<size_t>(i)];
		if (n.kind == Kind::Group)
			out.push_back(n.group);
		for (int k : n.kids)
			groups_in(k, out);
	}

	// one iteration of a repetition: its groups start unset (a group that
	// takes no part in the last iteration reports no match)
	void iteration(int e)
	{
		std::vector<unsigned> groups;
		groups_in(e, groups);
		for (unsigned g : groups) {
			add({Op::Save, static_cast<uint16_t>(2 * g), 1});
			add({Op::Save, static_cast<uint16_t>(2 * g + 1), 1});
		}
		node(e);
	}

	// e{min,max}: min copies, then a loop (unbounded) or max-min optional
	// copies; greedy: each SPLIT prefers one more e
	void repeat(const Node &n)
	{
		int e = n.kids[0];
		if (n.max == unbounded) {
			if (n.min == 0) {
				size_t loop = add({Op::Split, static_cast<uint16_t>(here() + 1), 0});
				iteration(e);
				add({Op::Jmp, static_cast<uint16_t>(loop), 0});
				p_.insns[loop].y = here();
				return;
			}
			for (int k = 0; k + 1 < n.min; k++)
				iteration(e);
			uint16_t last = here();
			iteration(e);
			add({Op::Split, last, static_cast<uint16_t>(here() + 1)});
			return;
		}
		for (int k = 0; k < n.min; k++)
			iteration(e);
		std::vector<size_t> splits;
		for (int k = n.min; k < n.max && !too_big(); k++) {
			splits.push_back(add({Op::Split, static_cast<uint16_t>(here() + 1), 0}));
			iteration(e);
		}
		for (size_t s : splits)
			p_.insns[s].y = here();
	}
};

} // namespace

Result<Program> emit(const Tree &t)
{
	return Emitter(t).run();
}

} // namespace impl

Result<Program> compile(const std::string &re)
{
	auto tree = impl::parse(re);
	if (!tree)
		return tree.error();
	auto prog = impl::emit(*tree);
	if (!prog)
		return prog.error();
	prog->has_dfa = impl::build_dfa(*prog);
	return prog;
}

} // namespace stap_pmu::regex
