// arch_test.cpp - Arch (translator/support/arch.h): every accepted spelling
// of an architecture, the names each consumer gets back, and the error.
#include <gtest/gtest.h>

#include <elf.h>

#include "translator/support/arch.h"

using stap_pmu::Arch;

TEST(Arch, ParsesEverySpelling)
{
	using stap_pmu::parse_arch;
	EXPECT_EQ(parse_arch("x86_64"), Arch::X86_64);  // -a, uname -m
	EXPECT_EQ(parse_arch("x86"), Arch::X86_64);     // kbuild ARCH
	EXPECT_EQ(parse_arch("amd64"), Arch::X86_64);   // Debian
	EXPECT_EQ(parse_arch("arm64"), Arch::Arm64);    // kbuild ARCH, Debian
	EXPECT_EQ(parse_arch("aarch64"), Arch::Arm64);  // uname -m
}

TEST(Arch, RejectsUnknownSpellings)
{
	using stap_pmu::parse_arch;
	for (const char *bad : {"", "i386", "686", "riscv64", "X86_64", "arm", "x86-64", " x86"})
		EXPECT_FALSE(parse_arch(bad)) << bad;
	EXPECT_STREQ(stap_pmu::arch_choices(), "x86_64, arm64");
}

TEST(Arch, HostIsTheCompiledFor)
{
#if defined(__aarch64__)
	EXPECT_EQ(stap_pmu::host_arch(), Arch::Arm64);
#else
	EXPECT_EQ(stap_pmu::host_arch(), Arch::X86_64);
#endif
}

TEST(Arch, ElfMachines)
{
	EXPECT_EQ(stap_pmu::arch_of_elf_machine(EM_X86_64), Arch::X86_64);
	EXPECT_EQ(stap_pmu::arch_of_elf_machine(EM_AARCH64), Arch::Arm64);
	EXPECT_FALSE(stap_pmu::arch_of_elf_machine(EM_386));
	EXPECT_FALSE(stap_pmu::arch_of_elf_machine(EM_ARM));
}

TEST(Arch, NamesPerConsumer)
{
	using namespace stap_pmu;
	EXPECT_STREQ(kbuild_arch(Arch::X86_64), "x86");
	EXPECT_STREQ(kbuild_arch(Arch::Arm64), "arm64");
	EXPECT_STREQ(debian_arch(Arch::X86_64), "amd64");
	EXPECT_STREQ(debian_arch(Arch::Arm64), "arm64");
	EXPECT_STREQ(arch_name(Arch::X86_64), "x86_64");
	EXPECT_STREQ(arch_name(Arch::Arm64), "arm64");
	EXPECT_STREQ(qemu_arch(Arch::X86_64), "x86_64");
	EXPECT_STREQ(qemu_arch(Arch::Arm64), "aarch64");
	// every name a consumer gets parses back to the same architecture
	for (Arch a : {Arch::X86_64, Arch::Arm64})
		for (const char *n : {kbuild_arch(a), debian_arch(a), arch_name(a), qemu_arch(a)})
			EXPECT_EQ(parse_arch(n), a) << n;
}
