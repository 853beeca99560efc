// deploy_test.cpp - kernel mismatch and signature messages, the module cache
// key, the --vm-at-boot /init and the --initramfs hook (docs/deploy.md).
#include "translator/build/boot.h"
#include "translator/build/cache.h"
#include "translator/run/loader.h"
#include "translator/run/vm.h"

#include <gtest/gtest.h>

#include <cerrno>

using namespace stap_pmu;

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
	size_t cmd = s.find("( sh -c 'pmu-workload getpid 10' ) >/dev/ttyS1 2>/dev/ttyS2 &");
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
