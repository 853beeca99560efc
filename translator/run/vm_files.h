// vm_files.h - the user-space files of a --vm run (VmOptions::user_files, the
// ELF files process("PATH") probes name) placed in the guest initramfs at the
// same absolute paths as on the host, with what they need to run: a dynamic
// ELF's interpreter (PT_INTERP) and its DT_NEEDED libraries, found as the
// dynamic loader finds them (DT_RPATH, DT_RUNPATH with $ORIGIN, the multiarch
// and /etc/ld.so.conf.d directories, /lib64, /usr/lib64, /lib, /usr/lib),
// recursively. Symbolic links on the way (/lib64/ld-linux-x86-64.so.2,
// merged-/usr's /lib -> usr/lib) are recreated in the guest, so that every
// host spelling of a path reaches the one guest inode uprobes attach to;
// except the guest's own top-level directories (bin, sbin, ...), which stay
// directories. ELF headers are read with <elf.h> only (run/ links libc only).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "translator/run/vm.h"
#include "translator/support/result.h"

namespace stap_pmu::vm {

// What a 64-bit little-endian ELF file needs from the dynamic loader.
struct ElfDeps {
	uint16_t machine = 0;              // EM_X86_64, EM_AARCH64, ...
	std::string interp;                // PT_INTERP ("" : static)
	std::vector<std::string> needed;   // DT_NEEDED, in order
	std::vector<std::string> rpath;    // DT_RPATH, split at ':'
	std::vector<std::string> runpath;  // DT_RUNPATH, split at ':'
};

// Error: unreadable, not ELF, not a 64-bit little-endian ELF, or truncated.
Result<ElfDeps> read_elf_deps(const std::string &path);

// The loader's directories after RPATH/RUNPATH, for an ELF machine, in order.
std::vector<std::string> library_dirs(uint16_t machine);

// The host path of DT_NEEDED `name` of the ELF at `path` ("" : not found);
// candidates of another machine are skipped, as the loader skips them.
std::string find_library(const std::string &name, const std::string &path, const ElfDeps &deps);

// The initramfs entries (directories, symbolic links, files) that put the
// user files and their interpreters and libraries at their host paths.
// Error: a user file that is not an absolute readable path, or a library
// no directory has.
Result<std::vector<InitramfsEntry>> user_file_entries(const std::vector<std::string> &files);

// The guest's own top-level names (bin, sbin, proc, ..., stap-pmu, init):
// never replaced by a host symbolic link.
bool guest_reserved_top(const std::string &name);

} // namespace stap_pmu::vm
