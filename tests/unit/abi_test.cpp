// abi_test.cpp - where parameters are at function entry (abi.h): each
// x86-64 and arm64 rule on synthetic parameter lists, then real 6.1
// prototypes from BTF (the amd64 vmlinux and the arm64 Image) with more
// than six arguments and structs passed by value.
#include <gtest/gtest.h>

#include <filesystem>

#include "translator/kernelinfo/abi.h"
#include "translator/kernelinfo/btf_facts.h"
#include "translator/kernelinfo/kernel.h"

using namespace stap_pmu;
using stap_pmu::abi::Class;
using stap_pmu::abi::ParamShape;

namespace {

ParamShape I(uint64_t size = 8)
{
	return {size, Class::Integer, 0};
}

ParamShape S(uint64_t size, unsigned align = 8)
{
	return {size, Class::Aggregate, align};
}

ParamShape F(uint64_t size = 8)
{
	return {size, Class::Float, 0};
}

std::vector<int> x86(const std::vector<ParamShape> &ps)
{
	return stap_pmu::abi::arg_indexes(ps, Arch::X86_64);
}

std::vector<int> arm(const std::vector<ParamShape> &ps)
{
	return stap_pmu::abi::arg_indexes(ps, Arch::Arm64);
}

} // namespace

TEST(Abi, X86IntegersThenStackSlots)
{
	EXPECT_EQ(x86({I(), I(4), I(1), I(2), I(), I(), I(), I(4)}),
		  (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
	EXPECT_EQ(stap_pmu::abi::arg_registers(Arch::X86_64), 6);
}

TEST(Abi, X86SmallStructs)
{
	// 1 or 2 registers when that many remain
	EXPECT_EQ(x86({I(), S(8), I()}), (std::vector<int>{0, -1, 2}));
	EXPECT_EQ(x86({S(16), I(1), I(1)}), (std::vector<int>{-1, 2, 3}));
	EXPECT_EQ(x86({S(12), I()}), (std::vector<int>{-1, 2}));
	// one register left: the struct goes to the stack whole (two slots),
	// the next integer still takes r9, the one after the slot after it
	EXPECT_EQ(x86({I(), I(), I(), I(), I(), S(16), I(), I()}),
		  (std::vector<int>{0, 1, 2, 3, 4, -1, 5, 8}));
	// an empty struct takes nothing
	EXPECT_EQ(x86({S(0), I()}), (std::vector<int>{-1, 0}));
}

TEST(Abi, X86LargeStructsOnTheStack)
{
	EXPECT_EQ(x86({S(24), I()}), (std::vector<int>{-1, 0}));
	EXPECT_EQ(x86({I(), I(), I(), I(), I(), I(), S(20), I()}),
		  (std::vector<int>{0, 1, 2, 3, 4, 5, -1, 9}));
	// a 16-byte aligned struct starts at a 16-byte slot boundary
	EXPECT_EQ(x86({I(), I(), I(), I(), I(), I(), I(), S(32, 16), I()}),
		  (std::vector<int>{0, 1, 2, 3, 4, 5, 6, -1, 12}));
}

TEST(Abi, X86FloatsAndWideIntegers)
{
	EXPECT_EQ(x86({I(), F(), I(), F(4)}), (std::vector<int>{0, -1, 1, -1}));
	EXPECT_EQ(x86({I(), I(16), I()}), (std::vector<int>{0, -1, 3}));
	// __int128 with one register left: the stack, 16-aligned
	EXPECT_EQ(x86({I(), I(), I(), I(), I(), I(16), I(), I()}),
		  (std::vector<int>{0, 1, 2, 3, 4, -1, 5, 8}));
	// unknown placement: nothing after it is trusted
	EXPECT_EQ(x86({I(), ParamShape{16, Class::Other, 0}, I()}), (std::vector<int>{0, -1, -1}));
}

TEST(Abi, X86StructReturnedInMemory)
{
	// the address of the result takes rdi
	EXPECT_EQ(stap_pmu::abi::arg_indexes({I(), I(), I(), I(), I(), I()}, Arch::X86_64, S(24)),
		  (std::vector<int>{1, 2, 3, 4, 5, 6}));
	// returned in rax:rdx: no hidden argument
	EXPECT_EQ(stap_pmu::abi::arg_indexes({I(), I()}, Arch::X86_64, S(16)), (std::vector<int>{0, 1}));
	// a small result of unknown class (packed fields) may be in memory
	EXPECT_EQ(stap_pmu::abi::arg_indexes({I()}, Arch::X86_64, ParamShape{12, Class::Other, 0}),
		  (std::vector<int>{-1}));
	// arm64 passes it in x8
	EXPECT_EQ(stap_pmu::abi::arg_indexes({I(), I()}, Arch::Arm64, S(24)), (std::vector<int>{0, 1}));
}

TEST(Abi, Arm64Registers)
{
	EXPECT_EQ(arm({I(), I(), I(), I(), I(), I(), I(), I(), I(), I()}),
		  (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, -1, -1}));
	EXPECT_EQ(stap_pmu::abi::arg_registers(Arch::Arm64), 8);
	// floats live in v registers
	EXPECT_EQ(arm({F(), I(), F(4), I()}), (std::vector<int>{-1, 0, -1, 1}));
}

TEST(Abi, Arm64Composites)
{
	EXPECT_EQ(arm({S(16), I()}), (std::vector<int>{-1, 2}));
	// larger than 16 bytes: a pointer to a copy, in one register
	EXPECT_EQ(arm({S(24), I()}), (std::vector<int>{-1, 1}));
	// 16-byte alignment: an even register pair
	EXPECT_EQ(arm({I(), S(16, 16), I()}), (std::vector<int>{0, -1, 4}));
	// not enough registers: NGRN becomes 8, everything after is on the stack
	EXPECT_EQ(arm({I(), I(), I(), I(), I(), I(), I(), S(16), I()}),
		  (std::vector<int>{0, 1, 2, 3, 4, 5, 6, -1, -1}));
	EXPECT_EQ(arm({I(), I(16), I()}), (std::vector<int>{0, -1, 4}));
}

namespace {

std::string release61()
{
	std::vector<std::string> rels;
	std::error_code ec;
	for (const auto &e : std::filesystem::directory_iterator("/boot", ec)) {
		std::string n = e.path().filename().string();
		if (n.rfind("vmlinuz-6.1.", 0) == 0)
			rels.push_back(n.substr(8));
	}
	kernel::sort_versions(rels);
	return rels.empty() ? "" : rels.back();
}

// The newest unpacked arm64 6.1 kernel ("6.1.0-57-arm64"; "" : none).
std::string arm64_release61()
{
	std::vector<std::string> rels;
	for (const std::string &root : kernel::foreign_kernel_roots(Arch::Arm64)) {
		std::error_code ec;
		for (const auto &e : std::filesystem::directory_iterator(root, ec)) {
			std::string n = e.path().filename().string();
			if (n.rfind("6.1.", 0) == 0 && std::filesystem::exists(e.path() / ".complete"))
				rels.push_back(n);
		}
	}
	kernel::sort_versions(rels);
	return rels.empty() ? "" : rels.back();
}

// The argument indexes of a 6.1 kernel function's parameters on arch.
std::vector<int> real_args(Arch arch, const std::string &name)
{
	btf::Options o;
	o.arch = arch;
	if (arch == Arch::X86_64) {
		o.release = release61();
	} else {
		auto k = kernel::find_foreign_kernel(Arch::Arm64, arm64_release61());
		EXPECT_TRUE(k);
		if (!k)
			return {};
		o.release = k->release;
	}
	BtfKernelFacts f(o);
	auto fns = f.functions("", name);
	EXPECT_TRUE(fns) << (fns ? "" : fns.error().what);
	std::vector<int> out;
	if (fns && fns->size() == 1)
		for (const KernelParam &p : (*fns)[0].params)
			out.push_back(p.arg);
	return out;
}

} // namespace

TEST(Abi, RealPrototypesX86)
{
	// vma_merge(mm, prev, addr, end, vm_flags, anon_vma, file, pgoff, policy,
	//           struct vm_userfaultfd_ctx (8 bytes, by value), anon_name)
	EXPECT_EQ(real_args(Arch::X86_64, "vma_merge"), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, -1, 10}));
	// __kernfs_create_file(parent, name, mode, kuid_t uid, kgid_t gid, size,
	//                      ops, priv, ns, key): kuid_t and kgid_t are 4-byte structs
	EXPECT_EQ(real_args(Arch::X86_64, "__kernfs_create_file"),
		  (std::vector<int>{0, 1, 2, -1, -1, 5, 6, 7, 8, 9}));
	// tnum_arshift(struct tnum a (16 bytes), u8 min_shift, u8 insn_bitness)
	EXPECT_EQ(real_args(Arch::X86_64, "tnum_arshift"), (std::vector<int>{-1, 2, 3}));
	// ZSTD_createDDict_advanced(dict, dictSize, method, type, ZSTD_customMem (24 bytes))
	EXPECT_EQ(real_args(Arch::X86_64, "ZSTD_createDDict_advanced"), (std::vector<int>{0, 1, 2, 3, -1}));
	// struct open_how build_open_how(int flags, umode_t mode): open_how is
	// 24 bytes, returned through a pointer in rdi
	EXPECT_EQ(real_args(Arch::X86_64, "build_open_how"), (std::vector<int>{1, 2}));
}

TEST(Abi, RealPrototypesArm64)
{
	EXPECT_EQ(real_args(Arch::Arm64, "vma_merge"),
		  (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, -1, -1, -1}));
	EXPECT_EQ(real_args(Arch::Arm64, "__kernfs_create_file"),
		  (std::vector<int>{0, 1, 2, -1, -1, 5, 6, 7, -1, -1}));
	EXPECT_EQ(real_args(Arch::Arm64, "tnum_arshift"), (std::vector<int>{-1, 2, 3}));
	// ZSTD_customCalloc(size, ZSTD_customMem customMem): by reference in x1
	EXPECT_EQ(real_args(Arch::Arm64, "ZSTD_customCalloc"), (std::vector<int>{0, -1}));
	EXPECT_EQ(real_args(Arch::Arm64, "build_open_how"), (std::vector<int>{0, 1}));
}
