// Unit tests for translator/kernelinfo/kernel.{h,cpp}: the default target kernel
// (release names, the dpkg metapackage's line, a fake /boot and /usr/src) and
// the extraction of zstd-compressed kernels (a synthetic frame and the
// installed 6.12 vmlinuz).
#include "translator/kernelinfo/kernel.h"
#include "translator/support/file.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;
using namespace stap_pmu;

namespace {

std::string temp_dir()
{
	std::string t = testing::TempDir() + "/kernel_test.XXXXXX";
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

// A kernel image and its kbuild tree below root, as Debian installs them.
void install(const std::string &root, const std::string &release, bool headers = true)
{
	write(root + "/boot/vmlinuz-" + release, "bzImage");
	if (!headers)
		return;
	std::string t = root + "/usr/src/linux-headers-" + release;
	write(t + "/Makefile", "include /dev/null\n");
	write(t + "/include/generated/autoconf.h", "#define CONFIG_X86_64 1\n");
	write(t + "/include/generated/utsrelease.h", "#define UTS_RELEASE \"" + release + "\"\n");
}

// A dpkg status file where linux-image-<arch> (in `status`) depends on `image`.
std::string dpkg_status(const std::string &arch, const std::string &image,
			const std::string &status = "install ok installed")
{
	return "Package: linux-image-" + image + "\nStatus: install ok installed\nVersion: 1\n\n"
	       "Package: linux-image-" + arch + "\nStatus: " + status + "\nPriority: optional\n"
	       "Depends: linux-image-" + image + " (= 1)\nDescription: meta\n\n"
	       "Package: zlib1g\nStatus: install ok installed\n";
}

} // namespace

TEST(KernelRelease, Parse)
{
	auto a = kernel::parse_release("6.1.0-57-amd64");
	ASSERT_TRUE(a);
	EXPECT_EQ(a->line, "6.1");
	EXPECT_EQ(a->flavour, "amd64");
	auto b = kernel::parse_release("6.12.117+deb12-rt-amd64");
	ASSERT_TRUE(b);
	EXPECT_EQ(b->line, "6.12");
	EXPECT_EQ(b->flavour, "rt-amd64");
	EXPECT_EQ(kernel::parse_release("6.12.117+deb12-cloud-arm64")->flavour, "cloud-arm64");
	EXPECT_EQ(kernel::parse_release("6.1.0-57-rt-amd64")->flavour, "rt-amd64");
	auto c = kernel::parse_release("6.1.192");
	ASSERT_TRUE(c);
	EXPECT_EQ(c->line, "6.1");
	EXPECT_EQ(c->flavour, "");
	EXPECT_EQ(kernel::parse_release("6.18.44-fc-v669")->flavour, "fc-v669");
	EXPECT_FALSE(kernel::parse_release("amd64"));
	EXPECT_FALSE(kernel::parse_release("6"));
	EXPECT_FALSE(kernel::parse_release("6.x-amd64"));
}

// pass 1's kernel_v and kernel discovery read a release through the same
// support/release.h
TEST(KernelRelease, Version)
{
	EXPECT_EQ(release_version("6.1.0-57-amd64"), "6.1.0");
	EXPECT_EQ(release_version("6.12.117+deb12-rt-amd64"), "6.12.117+deb12");
	EXPECT_EQ(release_version("6.1.192"), "6.1.192");
	EXPECT_EQ(release_version(""), "");
}

TEST(KernelDefault, PickStockFlavourOfTheLine)
{
	std::vector<std::string> r = {"6.12.117+deb12-rt-amd64", "6.12.117+deb12-amd64",
				      "6.12.9+deb12-amd64",      "6.1.0-57-amd64",
				      "6.1.0-9-amd64",           "6.12.117+deb12-cloud-amd64"};
	EXPECT_EQ(kernel::pick_default_release(r, Arch::X86_64, std::string("6.1")), "6.1.0-57-amd64");
	EXPECT_EQ(kernel::pick_default_release(r, Arch::X86_64, std::string("6.12")),
		  "6.12.117+deb12-amd64");
	// no metapackage: the oldest line
	EXPECT_EQ(kernel::pick_default_release(r, Arch::X86_64, std::nullopt), "6.1.0-57-amd64");
	// a line with no stock kernel installed: the oldest line
	EXPECT_EQ(kernel::pick_default_release(r, Arch::X86_64, std::string("6.8")), "6.1.0-57-amd64");
	// never a non-stock flavour
	EXPECT_FALSE(kernel::pick_default_release({"6.12.117+deb12-rt-amd64", "6.12.117+deb12-cloud-amd64"},
						  Arch::X86_64, std::string("6.12")));
	EXPECT_EQ(kernel::pick_default_release({"6.12.117+deb12-arm64", "6.1.0-57-arm64"}, Arch::Arm64,
					       std::string("6.12")),
		  "6.12.117+deb12-arm64");
}

TEST(KernelDefault, MetapackageLine)
{
	std::string d = temp_dir();
	write(d + "/status", dpkg_status("amd64", "6.12.117+deb12-amd64"));
	EXPECT_EQ(kernel::metapackage_line(d + "/status", Arch::X86_64), "6.12");
	EXPECT_FALSE(kernel::metapackage_line(d + "/status", Arch::Arm64));
	write(d + "/status", dpkg_status("amd64", "6.1.0-57-amd64", "deinstall ok config-files"));
	EXPECT_FALSE(kernel::metapackage_line(d + "/status", Arch::X86_64));
	EXPECT_FALSE(kernel::metapackage_line(d + "/missing", Arch::X86_64));
	fs::remove_all(d);
}

// The host's own dpkg database: the line is that of the image
// linux-image-<arch> depends on, as dpkg-query reports it.
TEST(KernelDefault, MetapackageLineOfThisHost)
{
	std::string arch = std::string(debian_arch(host_arch()));
	FILE *p = popen(("dpkg-query -W -f='${Status}|${Depends}' linux-image-" + arch +
			 " 2>/dev/null").c_str(), "r");
	ASSERT_NE(p, nullptr);
	char buf[512] = {0};
	size_t n = fread(buf, 1, sizeof buf - 1, p);
	pclose(p);
	std::string out(buf, n);
	ASSERT_EQ(out.rfind("install ok installed|linux-image-", 0), 0u)
		<< "linux-image-" << arch << " is not installed (scripts/install-deps.sh installs it): " << out;
	std::string image = out.substr(out.find('|') + strlen("|linux-image-"));
	image = image.substr(0, image.find(' '));
	auto want = kernel::parse_release(image);
	ASSERT_TRUE(want) << image;
	EXPECT_EQ(kernel::default_line(host_arch()), want->line);
}

TEST(KernelDefault, GuestKernelFromFakeBoot)
{
	std::string a = std::string(debian_arch(host_arch()));
	std::string root = temp_dir();
	for (std::string r : {"6.1.0-9-", "6.1.0-57-", "6.12.117+deb12-", "6.12.117+deb12-rt-",
				     "6.12.117+deb12-cloud-"})
		install(root, r + a);
	install(root, "6.1.0-60-" + a, false); // no headers: not a candidate
	auto pick = [&] {
		auto k = kernel::find_guest_kernel("", false, false, root);
		return k ? k->release : "error: " + k.error().what;
	};
	write(root + "/var/lib/dpkg/status", dpkg_status(a, "6.1.0-57-" + a));
	EXPECT_EQ(pick(), "6.1.0-57-" + a);
	auto k = kernel::find_guest_kernel("", false, false, root);
	ASSERT_TRUE(k);
	EXPECT_EQ(k->vmlinuz, root + "/boot/vmlinuz-6.1.0-57-" + a);
	EXPECT_EQ(k->build_dir, fs::canonical(root + "/usr/src/linux-headers-6.1.0-57-" + a).string());
	// the build tree of a host that cannot load modules follows the same rule
	auto t = kernel::find_build_tree("", root);
	ASSERT_TRUE(t) << t.error().what;
	EXPECT_EQ(t->release, "6.1.0-57-" + a);
	write(root + "/var/lib/dpkg/status", dpkg_status(a, "6.12.117+deb12-" + a));
	EXPECT_EQ(pick(), "6.12.117+deb12-" + a);
	EXPECT_EQ(kernel::find_build_tree("", root)->release, "6.12.117+deb12-" + a);
	fs::remove(root + "/var/lib/dpkg/status");
	EXPECT_EQ(pick(), "6.1.0-57-" + a); // the oldest line
	// -r names any flavour
	auto rt = kernel::find_guest_kernel("6.12.117+deb12-rt-" + a, false, false, root);
	ASSERT_TRUE(rt) << rt.error().what;
	EXPECT_EQ(rt->release, "6.12.117+deb12-rt-" + a);
	fs::remove_all(root);
}

TEST(KernelDefault, OnlyOtherFlavoursIsAnError)
{
	std::string a = std::string(debian_arch(host_arch()));
	std::string root = temp_dir();
	install(root, "6.12.117+deb12-rt-" + a);
	auto k = kernel::find_guest_kernel("", false, false, root);
	ASSERT_FALSE(k);
	EXPECT_EQ(k.error().what, "no guest kernel of the stock " + a + " flavour (found: 6.12.117+deb12-rt-" +
					  a + "); install linux-image-" + a + " and linux-headers-" + a +
					  ", or name one with -r");
	auto t = kernel::find_build_tree("", root);
	ASSERT_FALSE(t);
	EXPECT_EQ(t.error().what, "no kernel build tree of the stock " + a + " flavour (found: "
				  "6.12.117+deb12-rt-" + a + "); install linux-headers-" + a +
				  " or name one with -r");
	fs::remove_all(root);
}

TEST(KernelDefault, ForeignKernelFollowsTheHostLine)
{
	std::string host = std::string(debian_arch(host_arch()));
	std::string sysroot = temp_dir(), arm = temp_dir();
	for (std::string r : {"6.1.0-57-arm64", "6.12.117+deb12-arm64", "6.12.117+deb12-rt-arm64"}) {
		write(arm + "/" + r + "/.complete", "");
		write(arm + "/" + r + "/boot/vmlinuz-" + r, "");
		install(arm + "/" + r, r);
	}
	const char *old = getenv("STAP_PMU_ARM64_ROOT");
	std::string saved = old ? old : "";
	setenv("STAP_PMU_ARM64_ROOT", arm.c_str(), 1);
	write(sysroot + "/var/lib/dpkg/status", dpkg_status(host, "6.1.0-57-" + host));
	auto k = kernel::find_foreign_kernel(Arch::Arm64, "", sysroot);
	ASSERT_TRUE(k) << k.error().what;
	EXPECT_EQ(k->release, "6.1.0-57-arm64");
	write(sysroot + "/var/lib/dpkg/status", dpkg_status(host, "6.12.117+deb12-" + host));
	EXPECT_EQ(kernel::find_foreign_kernel(Arch::Arm64, "", sysroot)->release, "6.12.117+deb12-arm64");
	EXPECT_EQ(kernel::find_foreign_kernel(Arch::Arm64, "6.12.117+deb12-rt-arm64", sysroot)->release,
		  "6.12.117+deb12-rt-arm64");
	if (old)
		setenv("STAP_PMU_ARM64_ROOT", saved.c_str(), 1);
	else
		unsetenv("STAP_PMU_ARM64_ROOT");
	fs::remove_all(sysroot);
	fs::remove_all(arm);
}

// A kernel built by scripts/debug-kernel.sh: an entry of $STAP_PMU_KERNEL_CACHE
// selected by its release, like an installed one; an incomplete entry is not.
TEST(KernelBuilt, ReleaseFromTheCache)
{
	std::string cache = temp_dir(), rel = "6.1.192-debug-amd64";
	const char *old = getenv("STAP_PMU_KERNEL_CACHE");
	std::string saved = old ? old : "";
	setenv("STAP_PMU_KERNEL_CACHE", cache.c_str(), 1);
	std::string e = cache + "/6.1.192-3-0123456789ab", half = cache + "/6.1.192-3-ba9876543210";
	for (const std::string &d : {e, half}) {
		write(d + "/release", rel + "\n");
		write(d + "/build/Makefile", "include /dev/null\n");
		write(d + "/build/include/generated/autoconf.h", "#define CONFIG_X86_64 1\n");
		write(d + "/build/include/generated/utsrelease.h",
		      "#define UTS_RELEASE \"" + rel + "\"\n");
		write(d + "/bzImage", "bzImage");
	}
	EXPECT_EQ(kernel::built_kernels_root(), cache);
	EXPECT_EQ(kernel::built_kernel_dir(rel), "");
	write(e + "/complete", "");
	EXPECT_EQ(kernel::built_kernel_dir(rel), e);
	EXPECT_EQ(kernel::built_kernel_dir("6.1.192-debug"), "");
	EXPECT_EQ(kernel::modules_dir(rel), e + "/lib/modules/" + rel);
	auto t = kernel::find_build_tree(rel);
	ASSERT_TRUE(t) << t.error().what;
	EXPECT_EQ(t->dir, fs::canonical(e + "/build").string());
	EXPECT_EQ(t->release, rel);
	auto k = kernel::find_guest_kernel(rel, true, false);
	ASSERT_TRUE(k) << k.error().what;
	EXPECT_EQ(k->release, rel);
	EXPECT_EQ(k->vmlinuz, e + "/bzImage");
	EXPECT_EQ(k->vmlinux, ""); // no ELF vmlinux: the bzImage boots
	EXPECT_EQ(k->boot_image(), e + "/bzImage");
	EXPECT_EQ(k->build_dir, t->dir);
	EXPECT_FALSE(kernel::find_guest_kernel("6.1.192-other-amd64", true, false));
	if (old)
		setenv("STAP_PMU_KERNEL_CACHE", saved.c_str(), 1);
	else
		unsetenv("STAP_PMU_KERNEL_CACHE");
	fs::remove_all(cache);
}

// An arm64 kernel built by scripts/debug-kernel.sh --arch arm64 (release
// 6.1.N-debug-arm64): -a arm64 selects it by its release (find_foreign_kernel),
// it boots its Image with an unpacked arm64 kernel's busybox, and its tree's
// CONFIG_ARM64_PSEUDO_NMI (not its name) says it has pseudo-NMIs; the x86 path
// refuses it with the option that selects it.
TEST(KernelBuilt, Arm64EntryIsAForeignKernel)
{
	std::string cache = temp_dir(), roots = temp_dir(), rel = "6.1.192-debug-arm64";
	const char *oc = getenv("STAP_PMU_KERNEL_CACHE"), *orr = getenv("STAP_PMU_ARM64_ROOT");
	std::string saved_c = oc ? oc : "", saved_r = orr ? orr : "";
	setenv("STAP_PMU_KERNEL_CACHE", cache.c_str(), 1);
	setenv("STAP_PMU_ARM64_ROOT", roots.c_str(), 1);
	std::string e = cache + "/6.1.192-3-0123456789ab";
	write(e + "/release", rel + "\n");
	write(e + "/build/Makefile", "include /dev/null\n");
	write(e + "/build/include/generated/autoconf.h",
	      "#define CONFIG_ARM64 1\n#define CONFIG_ARM64_PSEUDO_NMI_X 1\n");
	write(e + "/build/include/generated/utsrelease.h", "#define UTS_RELEASE \"" + rel + "\"\n");
	write(e + "/Image", "Image");
	write(e + "/complete", "");
	// no unpacked arm64 kernel: no busybox for its guest (only checkable where
	// the fixed root /var/cache/stap-pmu/arm64 has none either)
	if (!kernel::find_foreign_kernel(Arch::Arm64, "")) {
		auto none = kernel::find_foreign_kernel(Arch::Arm64, rel);
		ASSERT_FALSE(none);
		EXPECT_EQ(none.error().what.rfind("no static arm64 busybox for the guest of " + rel, 0),
			  0u) << none.error().what;
	}
	std::string stock = roots + "/6.1.0-57-arm64";
	write(stock + "/.complete", "");
	write(stock + "/bin/busybox", "busybox");
	auto k = kernel::find_foreign_kernel(Arch::Arm64, rel);
	ASSERT_TRUE(k) << k.error().what;
	EXPECT_EQ(k->release, rel);
	EXPECT_EQ(k->arch, Arch::Arm64);
	EXPECT_EQ(k->boot_image(), e + "/Image");
	EXPECT_EQ(k->busybox, stock + "/bin/busybox"); // $STAP_PMU_ARM64_ROOT is searched first
	EXPECT_FALSE(k->pseudo_nmi); // a similar name is not the option
	write(e + "/build/include/generated/autoconf.h",
	      "#define CONFIG_ARM64 1\n#define CONFIG_ARM64_PSEUDO_NMI 1\n");
	k = kernel::find_foreign_kernel(Arch::Arm64, rel);
	ASSERT_TRUE(k) << k.error().what;
	EXPECT_TRUE(k->pseudo_nmi);
	EXPECT_TRUE(kernel::tree_config_set(e + "/build", "CONFIG_ARM64_PSEUDO_NMI"));
	EXPECT_FALSE(kernel::tree_config_set(e + "/build", "CONFIG_KASAN"));
	auto x86 = kernel::find_guest_kernel(rel, true, false);
	ASSERT_FALSE(x86);
	EXPECT_EQ(x86.error().what, "kernel " + rel + " is built for arm64; select it with -a arm64");
	if (oc)
		setenv("STAP_PMU_KERNEL_CACHE", saved_c.c_str(), 1);
	else
		unsetenv("STAP_PMU_KERNEL_CACHE");
	if (orr)
		setenv("STAP_PMU_ARM64_ROOT", saved_r.c_str(), 1);
	else
		unsetenv("STAP_PMU_ARM64_ROOT");
	fs::remove_all(cache);
	fs::remove_all(roots);
}

// A tiny ELF compressed into one zstd frame inside bzImage-like bytes (setup
// code before, the 4-byte size trailer after, as in a CONFIG_KERNEL_ZSTD image).
TEST(KernelVmlinux, ZstdFrame)
{
	Elf64_Ehdr eh{};
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_phoff = sizeof eh;
	eh.e_phentsize = sizeof(Elf64_Phdr);
	eh.e_phnum = 1;
	Elf64_Phdr ph{};
	ph.p_type = PT_LOAD;
	ph.p_filesz = sizeof eh + sizeof ph + 4000;
	std::string elf((const char *)&eh, sizeof eh);
	elf.append((const char *)&ph, sizeof ph);
	for (int i = 0; i < 4000; i++)
		elf += (char)(i * 7 % 251);
	std::string frame(ZSTD_compressBound(elf.size()), '\0');
	size_t n = ZSTD_compress(frame.data(), frame.size(), elf.data(), elf.size(), 3);
	ASSERT_FALSE(ZSTD_isError(n));
	frame.resize(n);
	std::string d = temp_dir();
	std::string image = "MZ setup code" + frame + std::string("\x10\x00\x00\x00", 4);
	EXPECT_EQ(kernel::find_zstd_offsets(image), (std::vector<size_t>{13}));
	write(d + "/vmlinuz", image);
	Status st = kernel::extract_vmlinux(d + "/vmlinuz", d + "/vmlinux");
	ASSERT_TRUE(st.ok()) << st.error().what;
	EXPECT_EQ(sys::read_file(d + "/vmlinux", 1 << 20), elf);
	// a cut-off frame decompresses to nothing usable, and nothing is left behind
	write(d + "/cut", "MZ" + frame.substr(0, frame.size() / 2));
	Status cut = kernel::extract_vmlinux(d + "/cut", d + "/cut.out");
	ASSERT_FALSE(cut.ok());
	EXPECT_EQ(cut.error().what, "no XZ or zstd stream in " + d + "/cut decompresses to a complete ELF kernel");
	EXPECT_FALSE(fs::exists(d + "/cut.out"));
	fs::remove_all(d);
}

// The installed 6.12 kernel (scripts/install-deps.sh) is CONFIG_KERNEL_ZSTD:
// its extraction is an x86-64 ELF whose banner names the release.
TEST(KernelVmlinux, Real612Vmlinuz)
{
	std::string arch = std::string(debian_arch(host_arch()));
	std::vector<std::string> found;
	std::error_code ec;
	for (const auto &e : fs::directory_iterator("/boot", ec)) {
		std::string n = e.path().filename().string();
		auto r = kernel::parse_release(n.rfind("vmlinuz-", 0) == 0 ? n.substr(8) : "");
		if (r && r->line == "6.12" && r->flavour == arch)
			found.push_back(n.substr(8));
	}
	ASSERT_FALSE(found.empty()) << "no /boot/vmlinuz-6.12.*-" << arch << "; run scripts/install-deps.sh";
	kernel::sort_versions(found);
	std::string rel = found.back(), vmlinuz = "/boot/vmlinuz-" + rel;
	auto z = sys::read_file(vmlinuz, 256 << 20);
	ASSERT_TRUE(z);
	EXPECT_TRUE(kernel::find_xz_offsets(*z).empty());
	EXPECT_FALSE(kernel::find_zstd_offsets(*z).empty());
	std::string d = temp_dir();
	Status st = kernel::extract_vmlinux(vmlinuz, d + "/vmlinux");
	ASSERT_TRUE(st.ok()) << st.error().what;
	EXPECT_TRUE(kernel::is_complete_elf(d + "/vmlinux"));
	auto elf = sys::read_file(d + "/vmlinux", 512 << 20);
	ASSERT_TRUE(elf);
	ASSERT_GT(elf->size(), sizeof(Elf64_Ehdr));
	Elf64_Ehdr eh;
	memcpy(&eh, elf->data(), sizeof eh);
	if (arch == "amd64") {
		EXPECT_EQ(eh.e_machine, EM_X86_64);
	}
	EXPECT_NE(elf->find("Linux version " + rel + " "), std::string::npos);
	fs::remove_all(d);
}
