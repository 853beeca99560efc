// abi.h - where a kernel function's parameters are at its entry, by the
// calling convention of the target architecture: x86-64 (System V) or
// arm64 (AAPCS64 as Linux uses it: no floating point, no HFAs). The
// answer is what runtime/stp_tvar.h passes to regs_get_kernel_argument():
// an argument register index, or on x86-64 6 + j for the j-th 8-byte stack
// slot above the return address. Pure rules on sizes and classes: the
// caller (btf_facts.cpp) classifies the types.
#pragma once

#include "translator/support/arch.h"

#include <cstdint>
#include <string>
#include <vector>

namespace stap_pmu::abi {

enum class Class {
	Integer,   // integers, bool, enums, pointers (incl. 16-byte __int128)
	Aggregate, // a struct or union whose members are all integers or pointers
	Float,     // float, double, long double
	Other,     // anything else (a struct holding floats): unknown placement
};

struct ParamShape {
	uint64_t size = 8;  // bytes
	Class cls = Class::Integer;
	unsigned align = 0; // bytes (0 : natural, min(size, 8))
};

// The regs_get_kernel_argument() index of each parameter at entry; -1 when
// it cannot be read as one 8-byte value: structs and unions by value,
// floats, 16-byte integers, arguments on the arm64 stack (the kernel's
// arm64 regs_get_kernel_argument() reads only x0-x7), and every parameter
// after one whose placement is unknown. ret: the return type (size 0: void or
// a scalar); a struct or union returned in memory (larger than 16 bytes)
// takes rdi for its address on x86-64 (x8, not an argument register, on
// arm64).
std::vector<int> arg_indexes(const std::vector<ParamShape> &params, Arch arch,
			     const ParamShape &ret = {0, Class::Integer, 0});

// The registers regs_get_kernel_argument() reads for arch (6 or 8).
int arg_registers(Arch arch);

} // namespace stap_pmu::abi
