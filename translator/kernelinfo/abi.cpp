// abi.cpp - argument placement at function entry: x86-64 System V
// (section 3.2.3 of the psABI) and AAPCS64 (section 6.8.2, "parameter
// passing rules"), for the kinds of parameters kernel functions have.
#include "translator/kernelinfo/abi.h"

namespace stap_pmu::abi {

namespace {

uint64_t round_up(uint64_t v, uint64_t to)
{
	return (v + to - 1) / to * to;
}

// x86-64: six integer registers (rdi rsi rdx rcx r8 r9), eight SSE ones;
// the rest in 8-byte aligned stack slots, in order.
std::vector<int> x86_64(const std::vector<ParamShape> &params, const ParamShape &ret)
{
	std::vector<int> out;
	// a struct or union returned in memory: the caller passes its address in rdi
	bool hidden = (ret.cls == Class::Aggregate || ret.cls == Class::Other) && ret.size > 16;
	unsigned gpr = hidden ? 1 : 0, sse = 0;
	uint64_t stack = 0; // bytes of stack arguments so far
	// a parameter's placement is unknown: so are the later ones'; a small
	// result of unknown class may be returned in memory (packed fields)
	bool lost = ret.cls == Class::Other && ret.size > 0 && ret.size <= 16;
	auto on_stack = [&](const ParamShape &p) {
		stack = round_up(stack, p.align > 8 ? p.align : 8);
		uint64_t at = stack;
		stack += round_up(p.size, 8);
		return static_cast<int>(6 + at / 8);
	};
	for (const ParamShape &p : params) {
		int arg = -1;
		if (lost) {
		} else if (p.cls == Class::Integer && p.size <= 8) {
			arg = gpr < 6 ? static_cast<int>(gpr++) : on_stack(p);
		} else if (p.cls == Class::Integer && p.size == 16) {
			// __int128: two registers if two remain, else the stack (16-aligned)
			if (gpr + 2 <= 6)
				gpr += 2;
			else
				on_stack(ParamShape{16, Class::Integer, 16});
		} else if (p.cls == Class::Aggregate && p.size == 0) {
			// an empty struct takes nothing
		} else if (p.cls == Class::Aggregate && p.size <= 16) {
			// one or two registers if that many remain, else the stack
			// whole; later integers may still take registers
			unsigned n = static_cast<unsigned>(round_up(p.size, 8) / 8);
			if (gpr + n <= 6)
				gpr += n;
			else
				on_stack(p);
		} else if (p.cls == Class::Aggregate) {
			on_stack(p); // class MEMORY: a copy on the stack
		} else if (p.cls == Class::Float && p.size <= 8) {
			if (sse < 8)
				sse++;
			else
				on_stack(p);
		} else {
			lost = true; // long double, structs holding floats, unknown sizes
		}
		out.push_back(arg);
	}
	return out;
}

// arm64: eight integer registers x0-x7 (NGRN counts the used ones); floats
// in v0-v7 never change NGRN. What does not fit sets NGRN to 8, so every
// later integer goes to the stack too, which regs_get_kernel_argument()
// does not read.
std::vector<int> arm64(const std::vector<ParamShape> &params)
{
	std::vector<int> out;
	unsigned ngrn = 0;
	bool lost = false;
	for (const ParamShape &p : params) {
		int arg = -1;
		if (lost) {
		} else if (p.cls == Class::Integer && p.size <= 8) {
			if (ngrn < 8)
				arg = static_cast<int>(ngrn++);
		} else if (p.cls == Class::Integer && p.size == 16) {
			ngrn = static_cast<unsigned>(round_up(ngrn, 2)); // an even register pair
			ngrn = ngrn + 2 <= 8 ? ngrn + 2 : 8;
		} else if (p.cls == Class::Aggregate && p.size == 0) {
			// an empty struct takes nothing (C)
		} else if (p.cls == Class::Aggregate && p.size > 16) {
			// passed by reference: a pointer to a copy, in one register
			if (ngrn < 8)
				ngrn++;
		} else if (p.cls == Class::Aggregate) {
			unsigned n = static_cast<unsigned>(round_up(p.size, 8) / 8);
			if (p.align >= 16)
				ngrn = static_cast<unsigned>(round_up(ngrn, 2));
			ngrn = ngrn + n <= 8 ? ngrn + n : 8;
		} else if (p.cls == Class::Float) {
			// v registers or the stack: NGRN unchanged
		} else {
			lost = true; // homogeneous float aggregates and the like
		}
		out.push_back(arg);
	}
	return out;
}

} // namespace

int arg_registers(Arch arch)
{
	return arch == Arch::X86_64 ? 6 : 8;
}

std::vector<int> arg_indexes(const std::vector<ParamShape> &params, Arch arch, const ParamShape &ret)
{
	return arch == Arch::X86_64 ? x86_64(params, ret) : arm64(params);
}

} // namespace stap_pmu::abi
