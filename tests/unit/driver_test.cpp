// driver_test.cpp - the driver's pieces that need no kernel build: option
// conflicts reported as errors (not exits), the error line main() prints,
// pass 4's target checks, the work directory and the module cache key.
#include "translator/driver/build_pass.h"
#include "translator/driver/driver.h"
#include "translator/kernelinfo/kernel.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace fs = std::filesystem;
using namespace stap_pmu;

namespace {

// What drive() fails with for cli (it must fail before any pass runs).
std::string drive_error(const Cli &cli)
{
	Result<int> r = drive(cli);
	EXPECT_FALSE(r.ok());
	return r.ok() ? "" : r.error().what;
}

// -a / --vm-arch resolved as parse_command_line does, then pass 4's target.
std::string target_error(Cli cli)
{
	if (Status st = resolve_arch(cli); !st)
		return st.error().what;
	Result<BuildTarget> t = resolve_build_target(cli);
	EXPECT_FALSE(t.ok());
	return t.ok() ? "" : t.error().what;
}

Parsed parse_script(const std::string &text)
{
	Diagnostics diags;
	Parsed p = parse_pass(std::make_unique<SourceFile>("<input>", text), diags);
	EXPECT_FALSE(diags.has_errors());
	return p;
}

} // namespace

TEST(Driver, OptionConflictsAreErrors)
{
	Cli cli;
	cli.command = "true";
	cli.target_pid = 1;
	EXPECT_EQ(drive_error(cli), "-c and -x cannot be used together");
	cli = Cli{};
	cli.attach = "m";
	cli.stop = "m";
	EXPECT_EQ(drive_error(cli), "--attach and --stop cannot be used together");
	cli = Cli{};
	cli.vm_at_boot = true;
	EXPECT_EQ(drive_error(cli), "--vm-at-boot needs --vm");
	cli = Cli{};
	cli.vm_during = "pmu-workload getpid 1";
	EXPECT_EQ(drive_error(cli), "--vm-during needs --vm (without --vm-at-boot)");
	cli.vm = true;
	cli.vm_at_boot = true;
	EXPECT_EQ(drive_error(cli), "--vm-during needs --vm (without --vm-at-boot)");
	cli = Cli{};
	cli.initramfs = "initrd.img";
	cli.vm = true;
	EXPECT_EQ(drive_error(cli), "--initramfs and --vm cannot be used together");
	cli.vm = false;
	cli.pass = 3;
	EXPECT_EQ(drive_error(cli), "--initramfs needs pass 4 (the module is built, not run)");
	cli = Cli{};
	cli.expr = "probe begin {}";
	cli.defines = {"1X=2"};
	EXPECT_EQ(drive_error(cli), "bad -D option '1X=2': expected NAME or NAME=VALUE");
}

TEST(Driver, ReportPrintsOneErrorLine)
{
	testing::internal::CaptureStderr();
	EXPECT_EQ(report(fail("no script given")), 1);
	EXPECT_EQ(report(fail("no subsystem 'schd'", "did you mean 'sched'?")), 1);
	EXPECT_EQ(testing::internal::GetCapturedStderr(),
		  "stap-pmu: error: no script given\n"
		  "stap-pmu: error: no subsystem 'schd' (did you mean 'sched'?)\n");
}

TEST(DriverBuild, TargetChecks)
{
	Cli cli;
	cli.arch_option = "sparc";
	EXPECT_EQ(target_error(cli), "unsupported architecture 'sparc' (supported: x86_64, arm64)");
	cli.arch_option = "";
	cli.vm_arch_option = "mips";
	EXPECT_EQ(target_error(cli), "unsupported architecture 'mips' (supported: x86_64, arm64)");
	cli.arch_option = "arm64";
	cli.vm_arch_option = "x86_64";
	EXPECT_EQ(target_error(cli), "-a arm64 and --vm-arch x86_64 disagree");
	// every spelling of one architecture agrees
	cli.vm_arch_option = "aarch64";
	EXPECT_EQ(resolve_arch(cli).ok(), true);
	EXPECT_EQ(cli.arch, Arch::Arm64);
	if (host_arch() == Arch::X86_64) {
		cli.vm_arch_option = "";
		cli.pass = 5;
		EXPECT_EQ(target_error(cli), "a module built for arm64 cannot be loaded on this amd64 "
					     "host; add --vm to run it in an arm64 guest");
	}
}

TEST(DriverBuild, WorkDirRemovedUnlessKept)
{
	std::string gone, kept;
	{
		WorkDir w(false);
		EXPECT_FALSE(w.exists());
		ASSERT_TRUE(w.create().ok());
		gone = w.path();
		ASSERT_TRUE(w.create().ok()); // made once
		EXPECT_EQ(w.path(), gone);
		EXPECT_TRUE(fs::is_directory(gone));
	}
	EXPECT_FALSE(fs::exists(gone));
	{
		WorkDir w(false);
		ASSERT_TRUE(w.create().ok());
		kept = w.path();
		w.keep(); // a failed build's C stays for the user
	}
	EXPECT_TRUE(fs::is_directory(kept));
	fs::remove_all(kept);
	{
		WorkDir w(true); // -k
		ASSERT_TRUE(w.create().ok());
		kept = w.path();
	}
	EXPECT_TRUE(fs::is_directory(kept));
	fs::remove_all(kept);
}

TEST(DriverBuild, CacheKeyFollowsTheOptions)
{
	Parsed p = parse_script("probe begin { exit() }");
	Cli cli;
	TranslateOptions topts;
	BuildTarget bt;
	bt.arch = Arch::X86_64;
	std::string k = module_cache_key(cli, p, topts, bt, "m");
	EXPECT_EQ(k.size(), 32u);
	EXPECT_EQ(module_cache_key(cli, p, topts, bt, "m"), k);
	EXPECT_NE(module_cache_key(cli, p, topts, bt, "m2"), k);
	TranslateOptions defined = topts;
	defined.defines.emplace_back("MAXACTION", "10");
	EXPECT_NE(module_cache_key(cli, p, defined, bt, "m"), k);
	Cli guru = cli;
	guru.guru = true;
	EXPECT_NE(module_cache_key(guru, p, topts, bt, "m"), k);
	Cli vm = cli;
	vm.vm = true;
	EXPECT_NE(module_cache_key(vm, p, topts, bt, "m"), k);
	Cli kbuild = cli;
	kbuild.kbuild_vars = {"W=1"};
	EXPECT_NE(module_cache_key(kbuild, p, topts, bt, "m"), k);
	Parsed other = parse_script("probe begin { exit(); }");
	EXPECT_NE(module_cache_key(cli, other, topts, bt, "m"), k);
}
