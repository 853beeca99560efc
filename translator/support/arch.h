// arch.h - the one target-architecture type. Every library holds an
// architecture as an Arch and spells it through the functions here: the
// only place that maps the spellings of the command line (-a, --vm-arch),
// kbuild's ARCH, uname's machine, Debian's release suffix and ELF's
// e_machine to an architecture and back.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace stap_pmu {

// The architectures a module can be built for.
enum class Arch { X86_64, Arm64 };

// Any spelling of an architecture: "x86_64", "x86", "amd64" (uname, kbuild,
// Debian) or "arm64", "aarch64". nullopt for any other and for "". The
// command line's -a and --vm-arch are its only input (driver/cli.cpp's
// resolve_arch): every library holds an Arch.
std::optional<Arch> parse_arch(std::string_view name);

// The architecture this program was compiled for.
Arch host_arch();

// The architecture of an ELF e_machine (EM_X86_64, EM_AARCH64); nullopt
// for any other machine.
std::optional<Arch> arch_of_elf_machine(uint16_t e_machine);

// The names each consumer needs.
const char *kbuild_arch(Arch a); // kbuild ARCH and guest_bin_dir: "x86", "arm64"
const char *debian_arch(Arch a); // Debian's release suffix/package arch: "amd64", "arm64"
const char *arch_name(Arch a);   // messages and libpfm4's PMU tables: "x86_64", "arm64"
const char *qemu_arch(Arch a);   // qemu-system-NAME: "x86_64", "aarch64"

// The spellings a user is told about when a name is not an architecture:
// "x86_64, arm64".
const char *arch_choices();

} // namespace stap_pmu
