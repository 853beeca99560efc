// kernel.h - finding kernel build trees (for kbuild) and guest kernels (for --vm).
// Nothing here hard-codes a kernel release: everything is discovered.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "translator/support/result.h"

// Errors are one line (no "stap-pmu: error: " prefix; the caller adds it)
// that end with what to do, e.g. "...; install linux-headers-RELEASE".
namespace stap_pmu::kernel {

struct BuildTree {
	std::string dir;     // kbuild directory for make -C
	std::string release; // uname -r of the kernel it builds for, e.g. "6.1.0-57-amd64"
	std::string arch;    // kbuild ARCH: "x86", "arm64", ...
};

// release_or_dir: "" -> the running kernel's /lib/modules/$(uname -r)/build if it
// exists, else the newest /usr/src/linux-headers-*-<debian arch>;
// a path (contains '/') -> that directory; otherwise a release ("-r RELEASE") ->
// /lib/modules/RELEASE/build or /usr/src/linux-headers-RELEASE.
Result<BuildTree> find_build_tree(const std::string &release_or_dir = "");

// The release a tree builds for: UTS_RELEASE from include/generated/utsrelease.h,
// else include/config/kernel.release. nullopt when neither is readable.
// (Debian's headers have kernel.release = "6.1.192" but UTS_RELEASE = "6.1.0-57-amd64";
// the latter is what vermagic and uname -r use.)
std::optional<std::string> tree_release(const std::string &dir);

// kbuild ARCH of a tree from include/generated/autoconf.h (or .config); "" if unknown.
std::string tree_arch(const std::string &dir);

// Natural version order ("6.1.0-9-amd64" < "6.1.0-57-amd64" < "6.10.0-1-amd64"):
// digit runs compare as numbers, everything else bytewise. <0, 0, >0.
int compare_versions(std::string_view a, std::string_view b);
void sort_versions(std::vector<std::string> &v); // ascending

// Debian architecture name of the host ("amd64", "arm64", ...); from uname -m.
std::string host_debian_arch();

struct GuestKernel {
	std::string release;   // e.g. "6.1.0-57-amd64"
	std::string vmlinuz;   // /boot/vmlinuz-<release>
	std::string vmlinux;   // extracted uncompressed ELF (PVH boot); "" if unavailable
	std::string build_dir; // matching kbuild tree
	std::string arch;      // kbuild ARCH of the tree
	std::string busybox;   // static busybox for the guest ("" : the host's /bin/busybox)
	const std::string &boot_image() const { return vmlinux.empty() ? vmlinuz : vmlinux; }
};

// Newest /boot/vmlinuz-* that has matching headers (or exactly `release`), with an
// uncompressed vmlinux from the cache (extracted on first use when `extract`).
// An error when no such kernel exists or it is unreadable. When the extraction
// fails, a warning is printed and the compressed image boots instead.
Result<GuestKernel> find_guest_kernel(const std::string &release = "", bool extract = true,
				      bool verbose = false);

// Kernels of another architecture (arm64), downloaded and unpacked by
// scripts/install-deps.sh as <root>/<release>/ holding boot/vmlinuz-<release>,
// usr/src/linux-headers-<release> and bin/busybox, with a .complete stamp.
// Roots, in order: $STAP_PMU_ARM64_ROOT, /var/cache/stap-pmu/arm64,
// cache_dir()/arm64.
std::vector<std::string> foreign_kernel_roots(const std::string &debian_arch);

// The newest (or exactly `release`) unpacked kernel for debian_arch ("arm64").
// The error names the roots searched and the set-up script.
Result<GuestKernel> find_foreign_kernel(const std::string &debian_arch,
					const std::string &release = "");

// "arm64" for arm64/aarch64, "amd64" for amd64/x86_64/x86; "" otherwise.
std::string normalize_arch(const std::string &arch);

// $XDG_CACHE_HOME/stap-pmu, else $HOME/.cache/stap-pmu (not created here).
std::string cache_dir();

// Offsets of the XZ stream magic "\xfd" "7zXZ\0" in data.
std::vector<size_t> find_xz_offsets(std::string_view data);

// True when path is an ELF file whose section and program header tables and
// segments lie inside the file (i.e. the decompression was not truncated).
bool is_complete_elf(const std::string &path);

// Extracts the uncompressed kernel from an XZ bzImage into out (atomically, via
// a temporary file). An error when no XZ stream yields an ELF.
Status extract_vmlinux(const std::string &vmlinuz, const std::string &out);

} // namespace stap_pmu::kernel
