// arch.cpp - the spellings of an architecture, in one table.
#include "translator/support/arch.h"

#include <array>

namespace stap_pmu {

namespace {

struct Spelling {
	std::string_view name;
	Arch arch;
};

// Every accepted spelling; the names below are chosen per consumer.
constexpr std::array<Spelling, 5> kSpellings{{
	{"x86_64", Arch::X86_64}, // uname -m, -a, libpfm4, QEMU
	{"x86", Arch::X86_64},    // kbuild ARCH
	{"amd64", Arch::X86_64},  // Debian
	{"arm64", Arch::Arm64},   // kbuild ARCH, Debian, -a, libpfm4
	{"aarch64", Arch::Arm64}, // uname -m, QEMU
}};

constexpr uint16_t kEmX86_64 = 62;  // EM_X86_64 of <elf.h>
constexpr uint16_t kEmAarch64 = 183; // EM_AARCH64 of <elf.h>

} // namespace

std::optional<Arch> parse_arch(std::string_view name)
{
	for (const Spelling &s : kSpellings)
		if (s.name == name)
			return s.arch;
	return std::nullopt;
}

Arch host_arch()
{
#if defined(__aarch64__)
	return Arch::Arm64;
#else
	return Arch::X86_64;
#endif
}

std::optional<Arch> arch_of_elf_machine(uint16_t e_machine)
{
	if (e_machine == kEmX86_64)
		return Arch::X86_64;
	if (e_machine == kEmAarch64)
		return Arch::Arm64;
	return std::nullopt;
}

const char *kbuild_arch(Arch a)
{
	return a == Arch::Arm64 ? "arm64" : "x86";
}

const char *debian_arch(Arch a)
{
	return a == Arch::Arm64 ? "arm64" : "amd64";
}

const char *arch_name(Arch a)
{
	return a == Arch::Arm64 ? "arm64" : "x86_64";
}

const char *qemu_arch(Arch a)
{
	return a == Arch::Arm64 ? "aarch64" : "x86_64";
}

const char *arch_choices()
{
	return "x86_64, arm64";
}

} // namespace stap_pmu
