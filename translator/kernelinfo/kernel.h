// kernel.h - finding kernel build trees (for kbuild) and guest kernels (for --vm).
// Nothing here hard-codes a kernel release: everything is discovered.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "translator/support/arch.h"
#include "translator/support/release.h"
#include "translator/support/result.h"

// Errors are one line (no "stap-pmu: error: " prefix; the caller adds it)
// that end with what to do, e.g. "...; install linux-headers-RELEASE".
namespace stap_pmu::kernel {

struct BuildTree {
	std::string dir;     // kbuild directory for make -C
	std::string release; // uname -r of the kernel it builds for, e.g. "6.1.0-57-amd64"
	std::optional<Arch> arch; // from its configuration; nullopt: one stap-pmu does not build for
};

// release_or_dir: "" -> the running kernel's /lib/modules/$(uname -r)/build if it
// exists (a host that can load modules builds for itself, as stap does), else the
// default release (below) among /usr/src/linux-headers-*-<debian arch>;
// a path (contains '/') -> that directory; otherwise a release ("-r RELEASE") ->
// /lib/modules/RELEASE/build or /usr/src/linux-headers-RELEASE.
// root ("" in real use) prefixes every absolute path looked at, for tests.
Result<BuildTree> find_build_tree(const std::string &release_or_dir = "",
				  const std::string &root = "");

// ---- the default target kernel ----
// Without -r, the kernel is chosen by one rule, so that a host with several
// kernel lines and flavours (Debian 12: 6.1 and 6.12, stock, -rt, -cloud)
// always builds for and boots the same one:
//  1. a host that can load modules (it has /lib/modules/$(uname -r)/build)
//     builds for its running kernel (find_build_tree only; --vm never does);
//  2. otherwise the STOCK flavour (release ending in -<debian arch>: -amd64,
//     -arm64; never -rt-amd64, -cloud-amd64) of the DEFAULT LINE: the line of
//     the kernel the linux-image-<debian arch> metapackage depends on, read
//     from the dpkg database (on Debian 12: 6.1); with no such metapackage
//     installed, the oldest line that has a stock kernel;
//  3. within that line, the newest release that has an image and headers.
// Foreign kernels (find_foreign_kernel, arm64) follow 2 and 3 with the host's
// default line. A host with only non-stock flavours gets an error naming them:
// -r picks one.

// ReleaseName and parse_release: support/release.h (pass 1's kernel_v uses it too)
using stap_pmu::parse_release;
using stap_pmu::ReleaseName;

// The line of the kernel linux-image-<debian_arch(arch)> depends on in the
// dpkg status file (e.g. "6.1"); nullopt when it is not installed.
std::optional<std::string> metapackage_line(const std::string &dpkg_status, Arch arch);
// metapackage_line of root/var/lib/dpkg/status.
std::optional<std::string> default_line(Arch arch, const std::string &root = "");

// Rules 2 and 3 over the candidate releases of arch; nullopt when none is stock.
std::optional<std::string> pick_default_release(const std::vector<std::string> &releases, Arch arch,
						const std::optional<std::string> &line);

// The release a tree builds for: UTS_RELEASE from include/generated/utsrelease.h,
// else include/config/kernel.release. nullopt when neither is readable.
// (Debian's headers have kernel.release = "6.1.192" but UTS_RELEASE = "6.1.0-57-amd64";
// the latter is what vermagic and uname -r use.)
std::optional<std::string> tree_release(const std::string &dir);

// The architecture of a tree from include/generated/autoconf.h (or .config):
// CONFIG_X86_64 or CONFIG_ARM64; nullopt for any other.
std::optional<Arch> tree_arch(const std::string &dir);
// A tree_arch for messages: its arch_name, or "an architecture stap-pmu does
// not build for".
std::string tree_arch_name(std::optional<Arch> arch);

// True when the tree's configuration sets the bool/tristate option sym
// ("CONFIG_ARM64_PSEUDO_NMI") to y: include/generated/autoconf.h, else .config.
bool tree_config_set(const std::string &dir, const std::string &sym);

// Natural version order ("6.1.0-9-amd64" < "6.1.0-57-amd64" < "6.10.0-1-amd64"):
// digit runs compare as numbers, everything else bytewise. <0, 0, >0.
int compare_versions(std::string_view a, std::string_view b);
void sort_versions(std::vector<std::string> &v); // ascending

struct GuestKernel {
	std::string release;   // e.g. "6.1.0-57-amd64"
	std::string vmlinuz;   // /boot/vmlinuz-<release>
	std::string vmlinux;   // extracted uncompressed ELF (PVH boot); "" if unavailable
	std::string build_dir; // matching kbuild tree
	std::optional<Arch> arch; // the tree's (tree_arch)
	std::string busybox;   // static busybox for the guest ("" : the host's /bin/busybox)
	std::string boot;      // what QEMU boots when not the default below (built kernels)
	// arm64 built with CONFIG_ARM64_PSEUDO_NMI (its tree says so): booted on a
	// GICv3 with irqchip.gicv3_pseudo_nmi=1, the PMU interrupt is an NMI
	bool pseudo_nmi = false;
	const std::string &boot_image() const
	{
		return !boot.empty() ? boot : vmlinux.empty() ? vmlinuz : vmlinux;
	}
};

// The default /boot/vmlinuz-* (rules 2 and 3 above over the kernels that have
// matching headers), or exactly `release`, with an uncompressed vmlinux from the
// cache (extracted on first use when `extract`). An error when no such kernel
// exists or it is unreadable. When the extraction fails, a warning is printed and
// the compressed image boots instead. root as for find_build_tree.
Result<GuestKernel> find_guest_kernel(const std::string &release = "", bool extract = true,
				      bool verbose = false, const std::string &root = "");

// Kernels of another architecture (arm64), downloaded and unpacked by
// scripts/install-deps.sh as <root>/<release>/ holding boot/vmlinuz-<release>,
// usr/src/linux-headers-<release> and bin/busybox, with a .complete stamp.
// Roots, in order: $STAP_PMU_ARM64_ROOT, /var/cache/stap-pmu/arm64,
// cache_dir()/arm64.
std::vector<std::string> foreign_kernel_roots(Arch arch);

// The default (rules 2 and 3 above, with the host's default line read below
// sysroot) or exactly `release` unpacked kernel for arch (Arm64), from
// the first root that has any. The error names the roots searched and the set-up script.
Result<GuestKernel> find_foreign_kernel(Arch arch, const std::string &release = "",
					const std::string &sysroot = "");

// Kernels built by scripts/debug-kernel.sh (the debugging guest kernel), one
// entry a configuration: <built_kernels_root()>/<source version>-<config hash>/
// with a `complete` stamp, `release` (uname -r), build/ (the built kbuild tree),
// vmlinux, bzImage (x86) or Image (arm64) and lib/modules/<release>/.
// find_build_tree and find_guest_kernel (x86) or find_foreign_kernel (arm64:
// "-a arm64 -r 6.1.192-debug-arm64", busybox from an unpacked arm64 kernel)
// take their release like an installed one's ("-r 6.1.192-debug-amd64") when
// /lib/modules, /usr/src and /boot (the foreign roots) have none.
// Root: $STAP_PMU_KERNEL_CACHE (absolute), else cache_dir()/kernels.
std::string built_kernels_root();
// The complete entry that built `release` (the newest, when several); "" if none.
std::string built_kernel_dir(const std::string &release);
// A release's modules: /lib/modules/<release>, or a built kernel's copy of it.
std::string modules_dir(const std::string &release);

// CacheLocations::from_environment().root (support/locations.h): the driver
// passes its own copy down to builder/; kernelinfo still asks here.
std::string cache_dir();

// Offsets of the XZ stream magic "\xfd" "7zXZ\0" in data.
std::vector<size_t> find_xz_offsets(std::string_view data);

// Offsets of the zstd frame magic 28 b5 2f fd in data.
std::vector<size_t> find_zstd_offsets(std::string_view data);

// True when path is an ELF file whose section and program header tables and
// segments lie inside the file (i.e. the decompression was not truncated).
bool is_complete_elf(const std::string &path);

// Extracts the uncompressed kernel from a bzImage into out (atomically, via a
// temporary file): an XZ stream (xz -dc; Debian's 6.1) or a zstd frame
// (libzstd; CONFIG_KERNEL_ZSTD, Debian's 6.12). An error when no stream yields
// a complete ELF.
Status extract_vmlinux(const std::string &vmlinuz, const std::string &out);

} // namespace stap_pmu::kernel
