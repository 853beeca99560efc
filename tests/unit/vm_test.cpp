// Unit tests for the pure parts of translator/kernel.{h,cpp} and translator/vm.{h,cpp}.
#include "translator/kernelinfo/kernel.h"
#include "translator/run/vm.h"
#include "translator/support/text.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace stap_pmu;

namespace {

std::string make_temp_dir()
{
	std::string t = testing::TempDir() + "/vm_test.XXXXXX";
	std::vector<char> b(t.begin(), t.end());
	b.push_back('\0');
	EXPECT_NE(mkdtemp(b.data()), nullptr);
	return b.data();
}

void write(const std::string &path, const std::string &content)
{
	fs::create_directories(fs::path(path).parent_path());
	std::ofstream f(path, std::ios::binary);
	f << content;
}

// A fake Debian-style headers tree: kernel.release is the upstream version, UTS_RELEASE the ABI name.
std::string fake_tree(const std::string &root, bool with_uts = true)
{
	write(root + "/Makefile", "include /dev/null\n");
	write(root + "/include/generated/autoconf.h", "#define CONFIG_64BIT 1\n#define CONFIG_X86_64 1\n");
	write(root + "/include/config/kernel.release", "6.1.192\n");
	if (with_uts)
		write(root + "/include/generated/utsrelease.h", "#define UTS_RELEASE \"6.1.0-57-amd64\"\n");
	return root;
}

vm::VmOptions sample_options()
{
	vm::VmOptions o;
	o.module_path = "/tmp/build/stap_pmu_3f2a.ko";
	o.command = "pmu-workload getpid 1000";
	o.kernel.release = "6.1.0-57-amd64";
	o.kernel.boot_image = "/cache/vmlinux-6.1.0-57-amd64";
	o.loader_path = "/b/guest/stap-pmu-loader";
	o.workload_path = "/b/guest/pmu-workload";
	return o;
}

} // namespace

TEST(KernelVersions, NaturalOrder)
{
	EXPECT_LT(kernel::compare_versions("6.1.0-9-amd64", "6.1.0-57-amd64"), 0);
	EXPECT_LT(kernel::compare_versions("6.1.0-57-amd64", "6.10.0-1-amd64"), 0);
	EXPECT_GT(kernel::compare_versions("6.2", "6.1.99"), 0);
	EXPECT_EQ(kernel::compare_versions("6.1.0-57-amd64", "6.1.0-57-amd64"), 0);
	EXPECT_LT(kernel::compare_versions("6.1", "6.1.0"), 0);
	EXPECT_EQ(kernel::compare_versions("6.01", "6.1"), 0);

	std::vector<std::string> v = {"6.1.0-57-amd64", "5.10.0-30-amd64", "6.10.0-1-amd64",
				      "6.1.0-9-amd64", "6.1.0-57-cloud-amd64"};
	kernel::sort_versions(v);
	EXPECT_EQ(v, (std::vector<std::string>{"5.10.0-30-amd64", "6.1.0-9-amd64", "6.1.0-57-amd64",
					       "6.1.0-57-cloud-amd64", "6.10.0-1-amd64"}));
}

TEST(KernelTree, ReleaseAndArch)
{
	std::string d = make_temp_dir();
	fake_tree(d + "/a");
	EXPECT_EQ(kernel::tree_release(d + "/a"), "6.1.0-57-amd64"); // UTS_RELEASE wins
	EXPECT_EQ(kernel::tree_arch(d + "/a"), Arch::X86_64);
	fake_tree(d + "/b", false);
	EXPECT_EQ(kernel::tree_release(d + "/b"), "6.1.192"); // fallback
	EXPECT_FALSE(kernel::tree_release(d + "/nothing"));

	auto t = kernel::find_build_tree(d + "/a");
	ASSERT_TRUE(t.ok()) << t.error().what;
	EXPECT_EQ(t->release, "6.1.0-57-amd64");
	EXPECT_EQ(t->arch, Arch::X86_64);
	EXPECT_EQ(t->dir, fs::canonical(d + "/a").string());
	fs::remove_all(d);
}

TEST(KernelTree, Errors)
{
	auto missing = kernel::find_build_tree("/nonexistent/tree");
	ASSERT_FALSE(missing.ok());
	EXPECT_EQ(missing.error().what, "kernel build tree /nonexistent/tree does not exist");
	std::string d = make_temp_dir();
	auto not_tree = kernel::find_build_tree(d);
	ASSERT_FALSE(not_tree.ok());
	EXPECT_EQ(not_tree.error().what, d + " is not a configured kernel build tree (no Makefile "
					     "and include/generated/autoconf.h)");
	auto no_release = kernel::find_build_tree("0.0.0-no-such-release");
	ASSERT_FALSE(no_release.ok());
	EXPECT_NE(no_release.error().what.find("install linux-headers-0.0.0-no-such-release"),
		  std::string::npos);
	// a tree with a Makefile and a configuration but no release
	write(d + "/Makefile", "");
	write(d + "/.config", "CONFIG_X86_64=y\n");
	auto no_uts = kernel::find_build_tree(d);
	ASSERT_FALSE(no_uts.ok());
	EXPECT_NE(no_uts.error().what.find("is not a configured kernel build tree (no "
					   "include/generated/utsrelease.h"),
		  std::string::npos);
	fs::remove_all(d);
}

TEST(KernelForeign, MissingKernelNamesRootsAndScript)
{
	std::string d = make_temp_dir();
	const char *old = getenv("STAP_PMU_ARM64_ROOT");
	std::string saved = old ? old : "";
	setenv("STAP_PMU_ARM64_ROOT", d.c_str(), 1);
	auto k = kernel::find_foreign_kernel(Arch::Arm64, "0.0.0-none");
	ASSERT_FALSE(k.ok());
	EXPECT_EQ(k.error().what.rfind("no arm64 kernel 0.0.0-none unpacked in " + d + ", ", 0), 0u)
		<< k.error().what;
	EXPECT_NE(k.error().what.find("run scripts/install-deps.sh"), std::string::npos);
	// an unpacked kernel without its vmlinuz
	std::string base = d + "/6.1.0-9-arm64";
	write(base + "/.complete", "");
	fake_tree(base + "/usr/src/linux-headers-6.1.0-9-arm64");
	auto partial = kernel::find_foreign_kernel(Arch::Arm64);
	ASSERT_FALSE(partial.ok());
	EXPECT_NE(partial.error().what.find("has no " + base + "/boot/vmlinuz-6.1.0-9-arm64"),
		  std::string::npos);
	write(base + "/boot/vmlinuz-6.1.0-9-arm64", "");
	auto found = kernel::find_foreign_kernel(Arch::Arm64);
	ASSERT_TRUE(found.ok()) << found.error().what;
	EXPECT_EQ(found->release, "6.1.0-9-arm64");
	EXPECT_EQ(found->busybox, base + "/bin/busybox");
	if (old)
		setenv("STAP_PMU_ARM64_ROOT", saved.c_str(), 1);
	else
		unsetenv("STAP_PMU_ARM64_ROOT");
	fs::remove_all(d);
}

TEST(KernelCache, XdgCacheHome)
{
	const char *old = getenv("XDG_CACHE_HOME");
	std::string saved = old ? old : "";
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	EXPECT_EQ(kernel::cache_dir(), "/x/cache/stap-pmu");
	unsetenv("XDG_CACHE_HOME");
	const char *home = getenv("HOME");
	if (home && *home) {
		EXPECT_EQ(kernel::cache_dir(), std::string(home) + "/.cache/stap-pmu");
	}
	if (old)
		setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

TEST(KernelVmlinux, XzOffsets)
{
	std::string magic("\xfd" "7zXZ\0", 6);
	std::string data = "bzImage header" + magic + "payload" + magic.substr(0, 5) + "x" + magic;
	auto offs = kernel::find_xz_offsets(data);
	ASSERT_EQ(offs.size(), 2u);
	EXPECT_EQ(offs[0], 14u);
	EXPECT_EQ(data.substr(offs[1], 6), magic);
	EXPECT_TRUE(kernel::find_xz_offsets("no magic here").empty());
}

TEST(KernelVmlinux, CompleteElf)
{
	std::string d = make_temp_dir();
	Elf64_Ehdr eh{};
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_type = ET_EXEC;
	eh.e_phoff = sizeof eh;
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 1;
	Elf64_Phdr ph{};
	ph.p_type = PT_LOAD;
	ph.p_offset = 0;
	ph.p_filesz = sizeof eh + sizeof ph + 100;
	std::string img((const char *)&eh, sizeof eh);
	img.append((const char *)&ph, sizeof ph);
	img.append(100, 'k');
	write(d + "/ok", img);
	EXPECT_TRUE(kernel::is_complete_elf(d + "/ok"));
	write(d + "/truncated", img.substr(0, img.size() - 10)); // a cut-off decompression
	EXPECT_FALSE(kernel::is_complete_elf(d + "/truncated"));
	write(d + "/garbage", "MZ not an elf");
	EXPECT_FALSE(kernel::is_complete_elf(d + "/garbage"));
	EXPECT_FALSE(kernel::is_complete_elf(d + "/missing"));
	fs::remove_all(d);
}

TEST(KernelVmlinux, ExtractErrors)
{
	std::string d = make_temp_dir();
	Status missing = kernel::extract_vmlinux(d + "/missing", d + "/out");
	ASSERT_FALSE(missing.ok());
	EXPECT_EQ(missing.error().what, "cannot read " + d + "/missing: No such file or directory");
	write(d + "/plain", "a bzImage without a compressed kernel");
	Status plain = kernel::extract_vmlinux(d + "/plain", d + "/out");
	ASSERT_FALSE(plain.ok());
	EXPECT_EQ(plain.error().what, d + "/plain contains no XZ or zstd stream");
	// an XZ magic followed by garbage: nothing decompresses, nothing is left behind
	write(d + "/bad", "header" + std::string("\xfd" "7zXZ\0", 6) + "garbage");
	Status bad = kernel::extract_vmlinux(d + "/bad", d + "/out");
	ASSERT_FALSE(bad.ok());
	EXPECT_NE(bad.error().what.find("decompresses to a complete ELF kernel"), std::string::npos)
		<< bad.error().what;
	EXPECT_FALSE(fs::exists(d + "/out"));
	fs::remove_all(d);
}

TEST(VmInit, ShellQuote)
{
	EXPECT_EQ(text::shell_quote("abc"), "'abc'");
	EXPECT_EQ(text::shell_quote("it's"), "'it'\\''s'");
	EXPECT_EQ(text::shell_quote(""), "''");
}

TEST(VmInit, Script)
{
	auto o = sample_options();
	o.command = "pmu-workload getpid 10; echo 'done'";
	std::string s = vm::init_script(o);
	EXPECT_EQ(s.rfind("#!/bin/busybox sh\n", 0), 0u);
	EXPECT_NE(s.find("/bin/busybox --install -s /bin\n"), std::string::npos);
	EXPECT_NE(s.find("export PATH=/stap-pmu/bin:/bin:/sbin\n"), std::string::npos);
	EXPECT_NE(s.find("mount -t proc proc /proc\n"), std::string::npos);
	// probed files under /tmp are in the initramfs at their host path:
	// nothing is mounted over /tmp to hide them
	EXPECT_EQ(s.find("tmpfs /tmp"), std::string::npos);
	EXPECT_NE(s.find("stap-pmu-loader -c 'pmu-workload getpid 10; echo '\\''done'\\''' "
			 "'/stap-pmu/stap_pmu_3f2a.ko' >&3 2>&4 &\n"),
		  std::string::npos)
		<< s;
	size_t marker = s.find("echo \"STAP-PMU-EXIT: $rc\"\n");
	size_t dmesg = s.find("\ndmesg\n");
	size_t off = s.find("poweroff -f\n");
	ASSERT_NE(marker, std::string::npos);
	ASSERT_NE(dmesg, std::string::npos);
	ASSERT_NE(off, std::string::npos);
	EXPECT_LT(marker, dmesg);
	EXPECT_LT(dmesg, off);
	EXPECT_EQ(s.find("stap-pmu-loader -v"), std::string::npos);
	o.verbose = true;
	EXPECT_NE(vm::init_script(o).find("stap-pmu-loader -v -c"), std::string::npos);
}

// A --vm-module that insmod refuses ends the run with an error before the
// loader starts (the script's probes may be in it).
TEST(VmInit, ExtraModuleThatDoesNotLoadIsAnError)
{
	auto o = sample_options();
	o.extra_modules = {"/tmp/x/brd.ko"};
	std::string s = vm::init_script(o);
	size_t ins = s.find("if ! insmod '/stap-pmu/extra/brd.ko'; then\n");
	size_t err = s.find("\techo \"stap-pmu: error: --vm-module brd.ko did not load into the "
			    "guest's kernel (insmod failed: a module must be built for that kernel "
			    "release)\" >&4\n\trc=1\n");
	size_t marker = s.find("echo \"STAP-PMU-EXIT: $rc\"\n", ins);
	size_t fi = s.find("\nfi\n", ins);
	size_t loader = s.find("stap-pmu-loader");
	ASSERT_NE(ins, std::string::npos) << s;
	ASSERT_NE(err, std::string::npos) << s;
	EXPECT_LT(ins, err);
	EXPECT_LT(err, marker);
	EXPECT_LT(marker, fi);
	EXPECT_LT(fi, loader);
}

TEST(VmInitramfs, Entries)
{
	auto o = sample_options();
	auto v = vm::initramfs_entries(o);
	std::vector<std::string> files, dirs;
	for (const auto &e : v)
		(e.is_dir ? dirs : files).push_back(e.path);
	EXPECT_EQ(files, (std::vector<std::string>{"bin/busybox", "stap-pmu/bin/stap-pmu-loader",
						   "stap-pmu/bin/pmu-workload", "stap-pmu/stap_pmu_3f2a.ko",
						   "init"}));
	for (const char *d : {"bin", "proc", "sys", "dev", "tmp", "stap-pmu", "stap-pmu/bin"})
		EXPECT_NE(std::find(dirs.begin(), dirs.end(), d), dirs.end()) << d;
	// Every directory comes before anything inside it (cpio order).
	for (size_t i = 0; i < v.size(); i++)
		for (size_t j = 0; j < i; j++)
			EXPECT_NE(v[j].path.rfind(v[i].path + "/", 0), 0u) << v[j].path << " before " << v[i].path;
	for (const auto &e : v) {
		if (e.path == "bin/busybox") {
			EXPECT_EQ(e.source, "/bin/busybox");
		}
		if (e.path == "init") {
			EXPECT_EQ(e.mode, 0755u);
			EXPECT_EQ(e.content, vm::init_script(o));
		}
		if (e.path == "stap-pmu/stap_pmu_3f2a.ko") {
			EXPECT_EQ(e.source, o.module_path);
		}
	}
}

TEST(VmQemu, Argv)
{
	auto o = sample_options();
	o.cpu = "Skylake-Client";
	o.extra_cmdline = "module.sig_enforce=1";
	auto a = vm::qemu_argv(o, "/t/initrd.img", "/t");
	auto after = [&](const std::string &flag) {
		auto it = std::find(a.begin(), a.end(), flag);
		return it == a.end() || it + 1 == a.end() ? std::string() : *(it + 1);
	};
	EXPECT_EQ(a[0], "qemu-system-x86_64");
	EXPECT_EQ(after("-accel"), "tcg,thread=single");
	EXPECT_EQ(after("-cpu"), "Skylake-Client");
	EXPECT_EQ(after("-smp"), "2");
	EXPECT_EQ(after("-m"), "1G");
	EXPECT_EQ(after("-kernel"), "/cache/vmlinux-6.1.0-57-amd64");
	EXPECT_EQ(after("-initrd"), "/t/initrd.img");
	EXPECT_EQ(after("-append"), "console=ttyS0 panic=-1 oops=panic loglevel=4 no_timer_check module.sig_enforce=1");
	EXPECT_NE(std::find(a.begin(), a.end(), "-no-reboot"), a.end());
	std::vector<std::string> serial;
	for (size_t i = 0; i + 1 < a.size(); i++)
		if (a[i] == "-serial")
			serial.push_back(a[i + 1]);
	EXPECT_EQ(serial, (std::vector<std::string>{"file:/t/console.log", "file:/t/stdout.log",
						    "file:/t/stderr.log", "pipe:/t/control"}));
}

// arm64: -M virt with the GIC QEMU picks; a kernel with pseudo-NMIs gets a
// GICv3 (pseudo-NMIs need its priority masking) and irqchip.gicv3_pseudo_nmi=1.
TEST(VmQemu, Arm64PseudoNmi)
{
	auto o = sample_options();
	vm::set_arch_defaults(o, Arch::Arm64);
	auto after = [](const std::vector<std::string> &a, const std::string &flag) {
		auto it = std::find(a.begin(), a.end(), flag);
		return it == a.end() || it + 1 == a.end() ? std::string() : *(it + 1);
	};
	auto a = vm::qemu_argv(o, "/t/initrd.img", "/t");
	EXPECT_EQ(a[0], "qemu-system-aarch64");
	EXPECT_EQ(after(a, "-M"), "virt");
	EXPECT_EQ(after(a, "-icount"), "shift=0");
	EXPECT_EQ(after(a, "-append"), "console=ttyAMA0 panic=-1 oops=panic loglevel=4 nokaslr");
	o.kernel.pseudo_nmi = true;
	a = vm::qemu_argv(o, "/t/initrd.img", "/t");
	EXPECT_EQ(after(a, "-M"), "virt,gic-version=3");
	EXPECT_EQ(after(a, "-append"),
		  "console=ttyAMA0 panic=-1 oops=panic loglevel=4 nokaslr irqchip.gicv3_pseudo_nmi=1");
	// on x86 the flag means nothing
	vm::set_arch_defaults(o, Arch::X86_64);
	a = vm::qemu_argv(o, "/t/initrd.img", "/t");
	EXPECT_EQ(std::find(a.begin(), a.end(), "-M"), a.end());
	EXPECT_EQ(after(a, "-append").find("gicv3"), std::string::npos);
}

// The driver fills VmOptions::kernel.boot_image from GuestKernel::boot_image():
// the PVH vmlinux is preferred, the vmlinuz is the fallback.
TEST(VmQemu, BootImagePrefersVmlinux)
{
	kernel::GuestKernel k;
	k.vmlinuz = "/boot/vmlinuz-6.1.0-57-amd64";
	k.vmlinux = "/cache/vmlinux-6.1.0-57-amd64";
	EXPECT_EQ(k.boot_image(), "/cache/vmlinux-6.1.0-57-amd64");
	k.vmlinux.clear();
	EXPECT_EQ(k.boot_image(), "/boot/vmlinuz-6.1.0-57-amd64");
}

TEST(VmConsole, ExitMarker)
{
	EXPECT_EQ(vm::parse_exit_marker("boot\r\nSTAP-PMU-EXIT: 3\r\nmore\r\n"), 3);
	EXPECT_EQ(vm::parse_exit_marker("STAP-PMU-EXIT: 0\n"), 0);
	EXPECT_EQ(vm::parse_exit_marker("STAP-PMU-EXIT: 255"), 255);
	EXPECT_FALSE(vm::parse_exit_marker("no marker\r\n"));
	EXPECT_FALSE(vm::parse_exit_marker("x STAP-PMU-EXIT: 3\n"));   // not at a line start
	EXPECT_FALSE(vm::parse_exit_marker("STAP-PMU-EXIT: $rc\n"));   // the script text itself
	EXPECT_FALSE(vm::parse_exit_marker("STAP-PMU-EXIT: 3[ 1.2] x\n")); // interleaved garbage
}

TEST(VmConsole, KernelProblems)
{
	std::string con =
		"[    0.000000] Linux version 6.1.0-57-amd64\r\n"
		"[    5.100000] ------------[ cut here ]------------\r\n"
		"[    5.100001] WARNING: CPU: 1 PID: 99 at kernel/kprobes.c:123 foo+0x1/0x2\r\n"
		"STAP-PMU-EXIT: 0\r\n"
		"[    5.100001] WARNING: CPU: 1 PID: 99 at kernel/kprobes.c:123 foo+0x1/0x2\n" // dmesg copy
		"[    6.0] BUG: sleeping function called from invalid context at mm/slab.h:1\n"
		"[    7.0] watchdog: BUG: soft lockup - CPU#0 stuck for 22s!\n"
		"[    8.0] tp: loading out-of-tree module taints kernel.\n";
	auto p = vm::kernel_problems(con);
	ASSERT_EQ(p.size(), 3u);
	EXPECT_EQ(p[0], "WARNING: CPU: 1 PID: 99 at kernel/kprobes.c:123 foo+0x1/0x2");
	EXPECT_EQ(p[1], "BUG: sleeping function called from invalid context at mm/slab.h:1");
	EXPECT_EQ(p[2], "watchdog: BUG: soft lockup - CPU#0 stuck for 22s!");
	EXPECT_TRUE(vm::kernel_problems("[ 1.0] all fine\nhard to say\n").empty());
	EXPECT_EQ(vm::kernel_problems("NMI watchdog: Watchdog detected hard LOCKUP on cpu 1\n").size(), 1u);
	EXPECT_EQ(vm::kernel_problems("Oops: 0002 [#1] PREEMPT SMP\n").size(), 1u);
	EXPECT_EQ(vm::kernel_problems("[ 9.0] kernel BUG at mm/slub.c:12!\n").size(), 1u);
}

// The debugging kernel's reports (scripts/debug-kernel.sh), as 6.1 prints them.
TEST(VmConsole, DebugKernelReports)
{
	std::string con =
		"[   10.1] WARNING: possible circular locking dependency detected\n"
		"[   10.2] BUG: KASAN: slab-out-of-bounds in _stp_map_set+0x1c/0x90 [stap_pmu_1]\n"
		"[   10.3] BUG: sleeping function called from invalid context at mm/slub.c:3278\n"
		"[   10.4] INFO: task insmod:120 blocked for more than 61 seconds.\n"
		"[   10.5] list_add corruption. prev->next should be next (ffff888003a1c0d0), but was 0000000000000000. (prev=ffff888003a1c0d0).\n"
		"[   10.6] ODEBUG: free active (active state 0) object type: hrtimer hint: _stp_timer_fn+0x0/0x40\n"
		"[   10.7] INFO: trying to register non-static key.\n"
		"[   10.8] kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)\n"
		"unreferenced object 0xffff888004d2e400 (size 64):\n"
		"  comm \"insmod\", pid 120, jiffies 4294893410 (age 9.220s)\n"
		"[   10.9] kmemleak: Kernel memory leak detector initialized (mem pool available: 15732)\n"
		"[   11.0] INFO: lockdep is turned off.\n";
	auto p = vm::kernel_problems(con);
	ASSERT_EQ(p.size(), 9u);
	EXPECT_EQ(p[3], "INFO: task insmod:120 blocked for more than 61 seconds.");
	EXPECT_EQ(p[4].rfind("list_add corruption.", 0), 0u);
	EXPECT_EQ(p[5].rfind("ODEBUG: free active", 0), 0u);
	EXPECT_EQ(p[6], "INFO: trying to register non-static key.");
	EXPECT_EQ(p[7], "kmemleak: 2 new suspected memory leaks (see /sys/kernel/debug/kmemleak)");
	EXPECT_EQ(p[8], "unreferenced object 0xffff888004d2e400 (size 64):");
	EXPECT_EQ(vm::kernel_problems("[ 1.0] list_del corruption, ffff8880 -> next is NULL\n").size(), 1u);
	EXPECT_EQ(vm::kernel_problems("[ 1.0] kmemleak: 1 new suspected memory leak (see x)\n").size(), 1u);
}

TEST(VmConsole, KmemleakScanOnlyWhereTheKernelHasIt)
{
	std::string k = vm::kmemleak_lines();
	EXPECT_EQ(k, "if [ -w /sys/kernel/debug/kmemleak ]; then\n"
		     "\tsleep 6\n"
		     "\techo scan > /sys/kernel/debug/kmemleak\n"
		     "\techo scan > /sys/kernel/debug/kmemleak\n"
		     "\tcat /sys/kernel/debug/kmemleak\n"
		     "fi\n");
	std::string e = vm::init_exit_lines();
	size_t scan = e.find(k), log = e.find("dmesg");
	ASSERT_NE(scan, std::string::npos);
	EXPECT_LT(scan, log); // the scan's kernel message is in the dmesg copy
	EXPECT_LT(e.find(vm::kExitMarker), scan);
	EXPECT_LT(log, e.find("poweroff -f\n"));
}

TEST(VmConsole, MitigationNoticesAreNotProblems)
{
	// Printed at boot with -cpu Skylake-Client / EPYC.
	std::string con =
		"[    0.272306] RETBleed: WARNING: Spectre v2 mitigation leaves CPU vulnerable to RETBleed attacks, data leaks possible!\r\n"
		"[    0.232122] Speculative Return Stack Overflow: WARNING: See https://kernel.org/doc/html/latest/admin-guide/hw-vuln/srso.html for mitigation options.\n";
	EXPECT_TRUE(vm::kernel_problems(con).empty());
}

TEST(VmConsole, SinceInit)
{
	std::string con =
		"stap-pmu guest: init at 2.33 s\r\n"
		"[    1.500000] WARNING: CPU: 0 PID: 1 at drivers/x.c:1 boot_thing+0x1/0x2\n"
		"[    2.500000] WARNING: CPU: 1 PID: 98 at t.c:5 probe+0x6/0x10 [stap_pmu_x]\n";
	auto init = vm::guest_init_time(con);
	ASSERT_TRUE(init);
	EXPECT_DOUBLE_EQ(*init, 2.33);
	auto p = vm::kernel_problems(con, *init);
	ASSERT_EQ(p.size(), 1u);
	EXPECT_EQ(p[0], "WARNING: CPU: 1 PID: 98 at t.c:5 probe+0x6/0x10 [stap_pmu_x]");
	EXPECT_EQ(vm::kernel_problems(con).size(), 2u);
	EXPECT_FALSE(vm::guest_init_time("no init line"));
}

// 6.12-rt with 4 vCPUs (a real console, shortened): the 8250 driver warns while
// /init opens the serial ports; that is before the window marker, so it is not
// a problem; the module's warning after it is.
TEST(VmConsole, PortStartupWarningBeforeTheWindow)
{
	std::string con =
		"stap-pmu guest: init at 7.07 s\r\n"
		"STAP-PMU-EXIT: 0\r\n"
		"stap-pmu guest: kernel log follows\r\n"
		"[    0.912345] Run /init as init process\n"
		"[    7.083693] Unbalanced enable for IRQ 3\n"
		"[    7.084001] WARNING: CPU: 1 PID: 188 at kernel/irq/manage.c:791 __enable_irq+0x3b/0x60\n"
		"[    7.094676]  serial8250_do_startup+0x935/0xbd0\n"
		"[    7.095012] stap-pmu guest: ports open\n"
		"[    7.187750] stap_pmu_e44a614745: loading out-of-tree module taints kernel.\n"
		"[    7.200000] WARNING: CPU: 0 PID: 190 at t.c:5 probe+0x6/0x10 [stap_pmu_e44a614745]\n";
	auto w = vm::problem_window_start(con, false);
	ASSERT_TRUE(w);
	EXPECT_DOUBLE_EQ(*w, 7.095012);
	auto p = vm::kernel_problems(con, *w);
	ASSERT_EQ(p.size(), 1u);
	EXPECT_EQ(p[0], "WARNING: CPU: 0 PID: 190 at t.c:5 probe+0x6/0x10 [stap_pmu_e44a614745]");
	// /proc/uptime's 10 ms steps: the init time alone would count the 8250 warning
	EXPECT_EQ(vm::kernel_problems(con, *vm::guest_init_time(con)).size(), 2u);
	// --vm-at-boot loads the module first: its window opens with /init
	auto b = vm::problem_window_start(con, true);
	ASSERT_TRUE(b);
	EXPECT_DOUBLE_EQ(*b, 0.912345);
	EXPECT_EQ(vm::kernel_problems(con, *b).size(), 2u);
	// no marker (an /init of an older stap-pmu): the init time
	EXPECT_DOUBLE_EQ(*vm::problem_window_start("stap-pmu guest: init at 2.33 s\r\n", false), 2.33);
	EXPECT_FALSE(vm::problem_window_start("[ 1.0] Run /init as init process\n", false));
	EXPECT_EQ(vm::kernel_log_time("[ 3.5] x\n[ 4.5] stap-pmu guest: ports open\r\n",
				      vm::kWindowMarker), 4.5);
	// the marker's text in the /init script itself is not a time stamp
	EXPECT_FALSE(vm::kernel_log_time("echo \"stap-pmu guest: ports open\" >/dev/kmsg\n",
					 vm::kWindowMarker));
}

// Both /init scripts open the ports once, before the marker, and never again.
TEST(VmInit, PortsOpenOnceBeforeTheMarker)
{
	for (bool at_boot : {false, true}) {
		auto o = sample_options();
		o.module_name = "stap_pmu_3f2a";
		o.at_boot = at_boot;
		std::string s = vm::init_script(o);
		size_t open = s.find("exec 3<>/dev/ttyS1 4<>/dev/ttyS2 5<>/dev/ttyS3\n");
		size_t marker = s.find("echo \"stap-pmu guest: ports open\" >/dev/kmsg\n");
		ASSERT_NE(open, std::string::npos) << s;
		ASSERT_NE(marker, std::string::npos) << s;
		EXPECT_LT(open, marker);
		EXPECT_LT(s.find("mount -t devtmpfs"), open);
		size_t ttys = 0;
		for (size_t p = s.find("/dev/tty"); p != std::string::npos; p = s.find("/dev/tty", p + 1))
			ttys++;
		EXPECT_EQ(ttys, 3u) << s; // the exec line's three
		if (!at_boot) {
			EXPECT_LT(marker, s.find("stap-pmu-loader"));
		}
	}
	auto o = sample_options();
	vm::set_arch_defaults(o, Arch::Arm64);
	EXPECT_NE(vm::init_script(o).find("exec 3<>/dev/ttyS0 4<>/dev/ttyS1 5<>/dev/ttyS2\n"),
		  std::string::npos);
}

// What run_in_vm writes to its error fd when it fails (exit status 1).
static std::string vm_error(vm::VmOptions o)
{
	int p[2];
	if (pipe(p) != 0)
		return "pipe failed";
	o.error_fd = p[1];
	int rc = vm::run_in_vm(o);
	close(p[1]);
	char buf[512] = {0};
	ssize_t n = read(p[0], buf, sizeof buf - 1);
	close(p[0]);
	if (rc != 1)
		return "exit status " + std::to_string(rc);
	return n > 0 ? std::string(buf, (size_t)n) : "";
}

TEST(VmRun, MissingInputsAreOneLineErrors)
{
	auto o = sample_options();
	o.module_path = "/nonexistent/m.ko";
	EXPECT_EQ(vm_error(o), "stap-pmu: error: module /nonexistent/m.ko: No such file or directory\n");
}

// The initramfs is built (cpio, gzip), then QEMU cannot be started: one line
// with what to install, and the temp dir is gone.
TEST(VmRun, MissingQemuIsOneLineErrorAndCleansUp)
{
	std::string d = make_temp_dir();
	for (const char *f : {"/m.ko", "/loader", "/workload", "/busybox", "/vmlinuz"})
		write(d + f, "x");
	fs::create_directories(d + "/tmp");
	vm::VmOptions o;
	o.module_path = d + "/m.ko";
	o.loader_path = d + "/loader";
	o.workload_path = d + "/workload";
	o.busybox_path = d + "/busybox";
	o.kernel.boot_image = d + "/vmlinuz";
	o.qemu = "stap-pmu-no-such-qemu";
	o.temp_parent = d + "/tmp";
	EXPECT_EQ(vm_error(o), "stap-pmu: error: cannot run stap-pmu-no-such-qemu: No such file or directory "
			  "(install qemu-system-x86)\n");
	EXPECT_TRUE(fs::is_empty(d + "/tmp"));
	fs::remove_all(d);
}

// The guest's stdout and stderr are copied whole lines at a time, so with
// 2>&1 a line of one is never cut by a line of the other (a serial file
// had "WARN" of "WARNING: ..." when the other stream's "n=1000" came).
TEST(VmOutput, WholeLinesOnly)
{
	std::string pending;
	EXPECT_EQ(vm::take_whole_lines(pending, "WARN"), "");
	EXPECT_EQ(pending, "WARN");
	EXPECT_EQ(vm::take_whole_lines(pending, "ING: 1000 probe hits skipped\nn="), "WARNING: 1000 probe hits skipped\n");
	EXPECT_EQ(pending, "n=");
	EXPECT_EQ(vm::take_whole_lines(pending, "1000\na\nb"), "n=1000\na\n");
	EXPECT_EQ(pending, "b");
	EXPECT_EQ(vm::take_whole_lines(pending, ""), "");
	// a line longer than the limit goes out in pieces rather than waiting
	EXPECT_EQ(vm::take_whole_lines(pending, "cdef", 4), "bcdef");
	EXPECT_EQ(pending, "");
}
