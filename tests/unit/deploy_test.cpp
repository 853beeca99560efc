// deploy_test.cpp - kernel mismatch and signature messages, the module cache
// key, the --vm-at-boot /init and the --initramfs hook (docs/deploy.md).
#include "translator/builder/boot.h"
#include "translator/builder/cache.h"
#include "translator/builder/sign.h"
#include "translator/run/loader.h"
#include "translator/run/vm.h"
#include "translator/support/file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>

using namespace stap_pmu;
namespace fs = std::filesystem;

namespace {

// A fresh directory for one test, removed at its end.
sys::TempDir scratch()
{
	Result<sys::TempDir> d = sys::TempDir::create("deploy_test.");
	EXPECT_TRUE(d.ok());
	return std::move(*d);
}

void write(const std::string &path, const std::string &text)
{
	fs::create_directories(fs::path(path).parent_path());
	std::ofstream(path, std::ios::binary) << text;
}

// msg with the test's directory shown as DIR.
std::string in_dir(std::string msg, const std::string &dir)
{
	for (size_t p; (p = msg.find(dir)) != std::string::npos;)
		msg.replace(p, dir.size(), "DIR");
	return msg;
}

} // namespace

TEST(DeployLoader, VermagicLine)
{
	std::vector<std::string> kmsg = {
		"m: version magic '6.1.0-9-amd64 SMP preempt mod_unload modversions ' should be "
		"'6.1.0-57-amd64 SMP preempt mod_unload modversions '"};
	EXPECT_EQ(loader::kernel_mismatch_hint(kmsg, "", "6.1.0-57-amd64"),
		  "built for kernel 6.1.0-9-amd64, this kernel is 6.1.0-57-amd64; rebuild with -r "
		  "6.1.0-57-amd64");
	loader::LoadEnv env;
	env.kernel_release = "6.1.0-57-amd64";
	env.kmsg = kmsg;
	EXPECT_EQ(loader::load_error_message(ENOEXEC, "m", env),
		  "module m was built for kernel 6.1.0-9-amd64, this kernel is 6.1.0-57-amd64; "
		  "rebuild with -r 6.1.0-57-amd64");
}

TEST(DeployLoader, SymbolVersions)
{
	std::vector<std::string> kmsg = {"m: disagrees about version of symbol module_layout"};
	EXPECT_EQ(loader::kernel_mismatch_hint(kmsg, "6.1.0-9-amd64 SMP preempt mod_unload", "6.1.0-57-amd64"),
		  "built for kernel 6.1.0-9-amd64, this kernel is 6.1.0-57-amd64; rebuild with -r "
		  "6.1.0-57-amd64");
	// same release, another build: the CRCs differ
	EXPECT_NE(loader::kernel_mismatch_hint(kmsg, "6.1.0-57-amd64 SMP", "6.1.0-57-amd64")
			  .find("different build of kernel 6.1.0-57-amd64"),
		  std::string::npos);
	// nothing about versions in the log: no hint, the generic message stays
	EXPECT_EQ(loader::kernel_mismatch_hint({"m: Unknown symbol foo (err -2)"}, "6.1.0-9-amd64", "x"), "");
}

TEST(DeployLoader, UnsignedUnderEnforcement)
{
	loader::LoadEnv env;
	env.sig_enforce = true;
	env.module_checked = true;
	env.module_signed = false;
	EXPECT_EQ(loader::load_error_message(EKEYREJECTED, "m", env),
		  "the kernel requires signed modules (module.sig_enforce=1) and m is not signed; sign "
		  "it with --sign-module KEY CERT using a key the kernel trusts");
	env.module_signed = true;
	EXPECT_NE(loader::load_error_message(EKEYREJECTED, "m", env).find("untrusted key"),
		  std::string::npos);
}

TEST(DeployCache, KeyChangesWithEveryPart)
{
	cache::Key a, b, c;
	a.add("script", "probe begin {}");
	a.add("define", "X=1");
	b.add("script", "probe begin {}");
	b.add("define", "X=2");
	c.add("script", "probe begin {}define");
	c.add("", "X=1");
	EXPECT_EQ(a.hex().size(), 32u);
	EXPECT_NE(a.hex(), b.hex());
	EXPECT_NE(a.hex(), c.hex()); // labels and values are length-prefixed
	cache::Key a2;
	a2.add("script", "probe begin {}");
	a2.add("define", "X=1");
	EXPECT_EQ(a.hex(), a2.hex());
}

TEST(DeployBoot, AtBootInit)
{
	vm::VmOptions o;
	o.module_path = "/tmp/x/mod_t.ko";
	o.module_name = "mod_t";
	o.command = "pmu-workload getpid 10";
	o.at_boot = true;
	std::string s = vm::init_script(o);
	// the module is the first thing /init does; no loader runs with the command
	size_t ins = s.find("/bin/busybox insmod '/stap-pmu/mod_t.ko'");
	ASSERT_NE(ins, std::string::npos);
	EXPECT_LT(ins, s.find("--install"));
	EXPECT_LT(ins, s.find("mount"));
	size_t cmd = s.find("( sh -c 'pmu-workload getpid 10' ) >&3 2>&4 &");
	ASSERT_NE(cmd, std::string::npos);
	EXPECT_EQ(s.find("stap-pmu-loader"), s.find("stap-pmu-loader -S 'mod_t'"));
	EXPECT_LT(cmd, s.find("stap-pmu-loader -S 'mod_t'"));
	EXPECT_EQ(s.find("stap-pmu-loader -c"), std::string::npos);
}

TEST(DeployBoot, InitramfsHook)
{
	std::string s = boot::boot_init_script("mod_t");
	EXPECT_EQ(s.rfind("#!/bin/sh\n", 0), 0u);
	EXPECT_NE(s.find("\ninsmod /stap-pmu/mod_t.ko || "), std::string::npos);
	EXPECT_NE(s.find("\nexec /init \"$@\"\n"), std::string::npos);
}

TEST(DeployCache, StoreLookupClean)
{
	sys::TempDir d = scratch();
	std::string dir = d.path() + "/modules";
	write(d.path() + "/m.ko", "module");
	Result<std::string> p = cache::store(dir, "k1", "m", d.path() + "/m.ko");
	ASSERT_TRUE(p.ok()) << p.error().what;
	EXPECT_EQ(*p, dir + "/k1/m.ko");
	EXPECT_EQ(cache::lookup(dir, "k1", "m"), *p);
	EXPECT_FALSE(cache::lookup(dir, "k2", "m"));
	// the same key again: the first copy stays
	Result<std::string> again = cache::store(dir, "k1", "m", d.path() + "/m.ko");
	ASSERT_TRUE(again.ok());
	EXPECT_EQ(*again, *p);
	Result<int> n = cache::clean(dir);
	ASSERT_TRUE(n.ok());
	EXPECT_EQ(*n, 1);
	EXPECT_FALSE(cache::lookup(dir, "k1", "m"));
	Result<int> none = cache::clean(d.path() + "/never-made");
	ASSERT_TRUE(none.ok());
	EXPECT_EQ(*none, 0);
}

TEST(DeployCache, Errors)
{
	sys::TempDir d = scratch();
	Result<std::string> no_ko = cache::store(d.path(), "k", "m", "/nonexistent/m.ko");
	ASSERT_FALSE(no_ko.ok());
	EXPECT_EQ(in_dir(no_ko.error().what, d.path()),
		  "cannot store the module in DIR/k: No such file or directory");
	Result<std::string> no_dir = cache::store("/proc", "k", "m", "/nonexistent/m.ko");
	ASSERT_FALSE(no_dir.ok());
	EXPECT_EQ(no_dir.error().what.rfind("cannot create a directory in /proc: ", 0), 0u)
		<< no_dir.error().what;
	write(d.path() + "/file", "");
	Result<int> not_dir = cache::clean(d.path() + "/file");
	ASSERT_FALSE(not_dir.ok());
	EXPECT_EQ(in_dir(not_dir.error().what, d.path()), "cannot read DIR/file: Not a directory");
}

TEST(DeploySign, Errors)
{
	Status no_tool = sign::sign_module("/nonexistent", "/nonexistent/k.pem", "/nonexistent/c.x509",
					   "/nonexistent/m.ko");
	ASSERT_FALSE(no_tool.ok());
	EXPECT_EQ(no_tool.error().what, "cannot sign: /nonexistent/scripts/sign-file is missing or "
					"not executable (No such file or directory)");
	sys::TempDir d = scratch();
	std::string tree = d.path() + "/tree", tool = tree + "/scripts/sign-file";
	write(tool, "#!/bin/sh\necho 'sign-file: key not found' >&2\nexit 2\n");
	chmod(tool.c_str(), 0755);
	write(d.path() + "/k.pem", "key");
	write(d.path() + "/c.x509", "cert");
	write(d.path() + "/m.ko", "module");
	Status no_key = sign::sign_module(tree, d.path() + "/none.pem", d.path() + "/c.x509",
					  d.path() + "/m.ko");
	ASSERT_FALSE(no_key.ok());
	EXPECT_EQ(in_dir(no_key.error().what, d.path()),
		  "cannot sign: DIR/none.pem: No such file or directory");
	Status failed = sign::sign_module(tree, d.path() + "/k.pem", d.path() + "/c.x509",
					  d.path() + "/m.ko");
	ASSERT_FALSE(failed.ok());
	EXPECT_EQ(failed.error().what, "sign-file failed: sign-file: key not found");
}

TEST(DeployBoot, InitramfsErrors)
{
	Status no_image = boot::append_to_initramfs("/nonexistent/initrd.img", "/nonexistent/m.ko", "m");
	ASSERT_FALSE(no_image.ok());
	EXPECT_EQ(no_image.error().what,
		  "initramfs image /nonexistent/initrd.img: No such file or directory");
	sys::TempDir d = scratch();
	std::string image = d.path() + "/initrd.img";
	write(image, "070701");
	Status no_ko = boot::append_to_initramfs(image, "/nonexistent/m.ko", "m");
	ASSERT_FALSE(no_ko.ok());
	EXPECT_EQ(no_ko.error().what, "cannot prepare the files to add: No such file or directory");
	// no cpio on PATH
	write(d.path() + "/m.ko", "module");
	std::string path = getenv("PATH") ? getenv("PATH") : "";
	setenv("PATH", "/nonexistent", 1);
	Status no_cpio = boot::append_to_initramfs(image, d.path() + "/m.ko", "m");
	setenv("PATH", path.c_str(), 1);
	ASSERT_FALSE(no_cpio.ok());
	EXPECT_EQ(no_cpio.error().what,
		  "cannot build the archive to add: cannot run cpio: No such file or directory");
	// a cpio that runs and fails
	fs::create_directory(d.path() + "/bin");
	write(d.path() + "/bin/cpio", "#!/bin/sh\nexit 1\n");
	chmod((d.path() + "/bin/cpio").c_str(), 0755);
	setenv("PATH", (d.path() + "/bin").c_str(), 1);
	Status cpio_fails = boot::append_to_initramfs(image, d.path() + "/m.ko", "m");
	setenv("PATH", path.c_str(), 1);
	ASSERT_FALSE(cpio_fails.ok());
	EXPECT_EQ(cpio_fails.error().what, "cannot build the archive to add: cpio/gzip failed");
	EXPECT_EQ(fs::file_size(image), 6u); // the image is untouched
}

TEST(DeployBoot, InitramfsAppends)
{
	sys::TempDir d = scratch();
	std::string image = d.path() + "/initrd.img";
	write(image, "07070"); // 5 bytes: the archive starts at the next multiple of 4
	write(d.path() + "/m.ko", "module");
	Status st = boot::append_to_initramfs(image, d.path() + "/m.ko", "m");
	ASSERT_TRUE(st.ok()) << st.error().what;
	std::string img = sys::read_file(image).value_or("");
	ASSERT_GT(img.size(), 8u);
	EXPECT_EQ(img.substr(5, 3), std::string(3, '\0'));
	EXPECT_EQ((unsigned char)img[8], 0x1f); // gzip magic
	EXPECT_EQ((unsigned char)img[9], 0x8b);
}
