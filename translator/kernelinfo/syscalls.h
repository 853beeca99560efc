// syscalls.h - the target kernel's system calls for the syscall.* and
// nd_syscall.* probe aliases: their names and typed arguments from the
// prototypes of the kernel headers' include/linux/syscalls.h
// (`asmlinkage long sys_NAME(type name, ...);`, evaluated under the tree's
// CONFIG_ values), which of them the kernel has (its syscall wrapper symbols
// __x64_sys_NAME / __arm64_sys_NAME in the kernel's symbol table), and the
// tapset text that defines the aliases (docs/tapsets.md, "Probe aliases").
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "translator/support/arch.h"
#include "translator/support/kconfig.h"
#include "translator/support/result.h"

namespace stap_pmu::syscalls {

struct Arg {
	std::string type; // as written, without the name: "const char __user *"
	std::string name; // the prototype's name; "argN" when it has none
};

struct Syscall {
	std::string name; // "read" for sys_read
	std::vector<Arg> args;
};

// The prototypes in the text of a syscalls.h. Code in `#ifdef CONFIG_X`
// (`#ifndef`, `#if defined(CONFIG_X)`, `#elif`, `#else`) follows config
// (CONFIG_X -> value; absent: not set); any other condition counts as true
// and, of two prototypes of one name, the first wins. The block that
// CONFIG_ARCH_HAS_SYSCALL_WRAPPER hides is read: its prototypes are the
// arguments the wrappers unpack.
std::vector<Syscall> parse_prototypes(std::string_view text,
				      const KernelConfig &config);

// include/linux/syscalls.h of a build tree: the tree's own, or that of the
// tree its Makefile includes (Debian's -common tree).
Result<std::string> find_header(const std::string &tree);

// The wrapper symbol prefix of a kernel arch ("__x64_sys_", "__arm64_sys_").
std::string wrapper_prefix(Arch arch);

// The tapset text: for each syscall whose wrapper is in present (names
// without the prefix; nullopt: not known, each probe point is then
// optional), syscall.NAME, syscall.NAME.return and the same for
// nd_syscall, on kprobe.function("PREFIXNAME"). A wrapper without a
// prototype (arch-specific calls such as arch_prctl) gets name, argstr ""
// and retstr only. Common calls get SystemTap's derived variables too
// (`filename` read with user_string_quoted, `flags_str`, ...) and its
// argstr. btf_wrappers: the calls whose wrapper the kernel's BTF describes,
// with the name BTF gives its pt_regs parameter ("regs"); their
// syscall.NAME.return is a kernel.function(...).return that sets the
// arguments as they were at entry (@entry($regs->di), ...), the derived
// variables and argstr too; the others' a kprobe.function(...).return with
// name, retval and retstr only.
std::string generate_tapset(const std::vector<Syscall> &protos,
			    const std::optional<std::set<std::string>> &present,
			    Arch arch,
			    const std::map<std::string, std::string> &btf_wrappers = {});

// The system call numbers of a uapi unistd header (`#define __NR_read 0`;
// asm-generic/unistd.h's `__NR3264_` indirections followed): number ->
// name, the first name of a number.
std::map<long, std::string> parse_numbers(std::string_view text);

// The header with the target's system call numbers: the tree's generated
// arch/ARCH/include/generated/uapi/asm/unistd_64.h, or for an arm64 kernel
// before 6.11 include/uapi/asm-generic/unistd.h of its (common) tree.
Result<std::string> find_numbers_header(const std::string &tree, Arch arch);

// The syscall_any tapset: syscall_any and syscall_any.return on the
// raw_syscalls:sys_enter/sys_exit tracepoints, with syscall_nr, name (from
// numbers, through the generated function __syscall_any_name) and retval.
std::string generate_any_tapset(const std::map<long, std::string> &numbers, Arch arch);

// The directory holding the generated tapset of a target kernel (tree: its
// build tree; arch: its architecture), written into the cache on first
// use; present: the wrappers in the kernel's symbol table, when it can be
// read (else every probe point is optional); the .return aliases carry the
// entry's arguments when the kernel's BTF can be read.
struct GeneratedTapset {
	std::string dir;
	bool generated = false; // written by this call (else from the cache)
	size_t aliases = 0;     // syscalls with aliases (when generated)
	size_t lacking = 0;     // prototypes without a wrapper: skipped (when generated)
	bool checked = true;    // wrappers checked against the symbol table
	bool entry_args = true; // .return aliases carry the entry's arguments (BTF)
	size_t without_btf = 0; // wrappers BTF lacks: .return without them (when generated)
	bool any = true;        // syscall_any.stp written (the tree has the numbers)
};
Result<GeneratedTapset> tapset_dir(const std::string &tree, const std::string &release,
				   Arch arch,
				   const KernelConfig &config);

} // namespace stap_pmu::syscalls
