// Unit tests for the pure parts of translator/loader.{h,cpp}.
#include "translator/run/loader.h"
#include "translator/run/loader_detail.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>

using namespace stap_pmu::loader;
using stap_pmu::Result;
using stap_pmu::Status;

TEST(LoaderParams, TargetPid)
{
	EXPECT_EQ(module_params(1234), "_stp_target=1234");
	EXPECT_EQ(module_params(0), "_stp_target=0");
	EXPECT_EQ(module_params(-5), "_stp_target=0");
}

// tz_gmtoff() is seconds west of UTC, struct tm's tm_gmtoff seconds east;
// a zone's name keeps only characters a module parameter takes whole
TEST(LoaderParams, TimeZone)
{
	EXPECT_EQ(tz_module_params(3600, "CET"), "_stp_tz_gmtoff=-3600 _stp_tz_name=CET");
	EXPECT_EQ(tz_module_params(-18000, "EST"), "_stp_tz_gmtoff=18000 _stp_tz_name=EST");
	EXPECT_EQ(tz_module_params(19800, "+0530"), "_stp_tz_gmtoff=-19800 _stp_tz_name=+0530");
	EXPECT_EQ(tz_module_params(0, ""), "_stp_tz_gmtoff=0 _stp_tz_name=UTC");
	EXPECT_EQ(tz_module_params(0, "a b\"c"), "_stp_tz_gmtoff=0 _stp_tz_name=abc");
}

// the local zone, as TZ sets it, to module parameters and to a POSIX TZ
// for the guest (names that are not three letters or more are quoted)
TEST(LoaderParams, LocalTimeZone)
{
	const char *old = getenv("TZ");
	std::string saved = old ? old : "";
	struct Case {
		const char *tz, *params, *posix;
	} cases[] = {
		{"EST5", "_stp_tz_gmtoff=18000 _stp_tz_name=EST", "EST5"},
		{"CET-1", "_stp_tz_gmtoff=-3600 _stp_tz_name=CET", "CET-1"},
		{"<+0530>-5:30", "_stp_tz_gmtoff=-19800 _stp_tz_name=+0530", "<+0530>-5:30"},
		{"UTC0", "_stp_tz_gmtoff=0 _stp_tz_name=UTC", "UTC0"},
	};
	for (const Case &c : cases) {
		setenv("TZ", c.tz, 1);
		tzset();
		EXPECT_EQ(local_tz_module_params(), c.params) << c.tz;
		EXPECT_EQ(local_posix_tz(), c.posix) << c.tz;
	}
	if (old)
		setenv("TZ", saved.c_str(), 1);
	else
		unsetenv("TZ");
	tzset();
}

TEST(LoaderStatus, FirstLineOnly)
{
	auto s = parse_status("running 0\n");
	ASSERT_TRUE(s);
	EXPECT_EQ(s->state, "running");
	EXPECT_EQ(s->exit_code, 0);
	EXPECT_EQ(s->skipped, 0u);
	EXPECT_EQ(s->dropped, 0u);
}

TEST(LoaderStatus, AllFields)
{
	auto s = parse_status("exit-requested 3\nskipped 2\ndropped 100\nerror 1\n");
	ASSERT_TRUE(s);
	EXPECT_EQ(s->state, "exit-requested");
	EXPECT_EQ(s->exit_code, 3);
	EXPECT_EQ(s->skipped, 2u);
	EXPECT_EQ(s->dropped, 100u);
	EXPECT_EQ(s->errors, 1u);
}

TEST(LoaderStatus, EveryStateAndNoTrailingNewline)
{
	for (const char *st : {"starting", "running", "exit-requested", "stopping", "stopped"}) {
		auto s = parse_status(std::string(st) + " 1");
		ASSERT_TRUE(s) << st;
		EXPECT_EQ(s->state, st);
		EXPECT_EQ(s->exit_code, 1);
	}
}

TEST(LoaderStatus, UnknownExtraLinesIgnored)
{
	auto s = parse_status("stopped 0\nfuture 7\ndropped 12\n\n");
	ASSERT_TRUE(s);
	EXPECT_EQ(s->dropped, 12u);
}

// System-wide @pmu_thread's count of switches that found the task table full.
TEST(LoaderStatus, PmuThreadFull)
{
	auto s = parse_status("stopped 0\npmu_unavailable 0\npmu_thread_slots 40\npmu_thread_full 3\n");
	ASSERT_TRUE(s);
	EXPECT_EQ(s->pmu_thread_full, 3u);
	EXPECT_EQ(pmu_thread_full_warning(*s),
		  "WARNING: 3 context switches found the @pmu_thread task table full: those tasks' "
		  "counts were not kept and their reads are errors; -D STP_PMU_THREAD_SLOTS=N (a "
		  "power of 2) makes it larger");
	s = parse_status("stopped 0\npmu_thread_full 1\n");
	ASSERT_TRUE(s);
	EXPECT_NE(pmu_thread_full_warning(*s).find("1 context switch found"), std::string::npos);
	s = parse_status("stopped 0\npmu_thread_full 0\n");
	ASSERT_TRUE(s);
	EXPECT_EQ(pmu_thread_full_warning(*s), "");
}

// The runtime's per-CPU count of @pmu reads that found no counter (a CPU coming
// online or going offline): the total, each CPU's line, and the warning naming them.
TEST(LoaderStatus, PmuUnavailablePerCpu)
{
	auto s = parse_status("stopped 0\nskipped 0\ncpu0 written 3 dropped 0 dropped_bytes 0\n"
			      "pmu_unavailable 7\ncpu1 pmu_unavailable 4\ncpu3 pmu_unavailable 3\n");
	ASSERT_TRUE(s);
	EXPECT_EQ(s->pmu_unavailable, 7u);
	ASSERT_EQ(s->pmu_unavailable_cpus.size(), 2u);
	EXPECT_EQ(s->pmu_unavailable_cpus[0], std::make_pair(1, uint64_t{4}));
	EXPECT_EQ(s->pmu_unavailable_cpus[1], std::make_pair(3, uint64_t{3}));
	EXPECT_EQ(pmu_unavailable_warning(*s),
		  "WARNING: 7 @pmu reads found no counter on their CPU and were 0 (cpu1: 4, cpu3: 3): "
		  "a CPU came online or went offline during the run; -D STP_PMU_STRICT makes such a "
		  "read an error");
	s = parse_status("stopped 0\npmu_unavailable 1\ncpu12 pmu_unavailable 1\n");
	ASSERT_TRUE(s);
	EXPECT_EQ(pmu_unavailable_warning(*s),
		  "WARNING: 1 @pmu read found no counter on its CPU and was 0 (cpu12: 1): a CPU "
		  "came online or went offline during the run; -D STP_PMU_STRICT makes such a read "
		  "an error");
	// no reads without counters, and lines that only look like it
	s = parse_status("stopped 0\npmu_unavailable 0\ncpuX pmu_unavailable 2\ncpu1 pmu_unavailable x\n"
			 "cpu pmu_unavailable 2\ncpu2 pmu_unavail 2\n");
	ASSERT_TRUE(s);
	EXPECT_EQ(s->pmu_unavailable, 0u);
	EXPECT_TRUE(s->pmu_unavailable_cpus.empty());
	EXPECT_EQ(pmu_unavailable_warning(*s), "");
}

TEST(LoaderStatus, Malformed)
{
	EXPECT_FALSE(parse_status(""));
	EXPECT_FALSE(parse_status("\n"));
	EXPECT_FALSE(parse_status("running"));
	EXPECT_FALSE(parse_status("running x"));
	EXPECT_FALSE(parse_status("running 256"));
	EXPECT_FALSE(parse_status("bogus 0"));
	EXPECT_FALSE(parse_status("RUNNING 0"));
}

TEST(LoaderName, FromPath)
{
	EXPECT_EQ(module_name_from_path("/tmp/x/stap-pmu_3f2a.ko"), "stap_pmu_3f2a");
	EXPECT_EQ(module_name_from_path("plain.ko"), "plain");
	EXPECT_EQ(module_name_from_path("noext"), "noext");
}

// A minimal ELF64 relocatable with a .modinfo section, as modpost leaves it.
static std::string fake_ko(const std::string &modinfo)
{
	const std::string shstr = std::string("\0.modinfo\0.shstrtab\0", 20);
	Elf64_Ehdr eh{};
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_type = ET_REL;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_ehsize = sizeof eh;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 3;
	eh.e_shstrndx = 2;
	size_t info_off = sizeof eh, str_off = info_off + modinfo.size();
	eh.e_shoff = str_off + shstr.size();
	Elf64_Shdr sh[3]{};
	sh[1].sh_name = 1;
	sh[1].sh_type = SHT_PROGBITS;
	sh[1].sh_offset = info_off;
	sh[1].sh_size = modinfo.size();
	sh[2].sh_name = 10;
	sh[2].sh_type = SHT_STRTAB;
	sh[2].sh_offset = str_off;
	sh[2].sh_size = shstr.size();
	std::string img((const char *)&eh, sizeof eh);
	img += modinfo + shstr;
	img.append((const char *)sh, sizeof sh);
	return img;
}

TEST(LoaderName, FromModinfo)
{
	std::string path = testing::TempDir() + "/loader_test_fake.ko";
	{
		std::ofstream f(path, std::ios::binary);
		f << fake_ko(std::string("license=GPL\0name=stap_pmu_abc\0vermagic=6.1.0 SMP\0", 49));
	}
	auto n = modinfo_name(path);
	ASSERT_TRUE(n);
	EXPECT_EQ(*n, "stap_pmu_abc");
	{
		std::ofstream f(path, std::ios::binary);
		f << fake_ko(std::string("license=GPL\0", 12));
	}
	EXPECT_FALSE(modinfo_name(path));
	{
		std::ofstream f(path, std::ios::binary);
		f << "not an elf file";
	}
	EXPECT_FALSE(modinfo_name(path));
	unlink(path.c_str());
	EXPECT_FALSE(modinfo_name(path));
}

TEST(LoaderKmsg, Text)
{
	EXPECT_EQ(kmsg_text("3,1234,5678901,-;stap_pmu_x: no PMU row matches\n SUBSYSTEM=x\n"),
		  "stap_pmu_x: no PMU row matches");
	EXPECT_EQ(kmsg_text("6,1,2,c;plain"), "plain");
	EXPECT_EQ(kmsg_text("a;b;c\n"), "b;c");
}

TEST(LoaderErrors, Messages)
{
	LoadEnv user;
	user.is_root = false;
	EXPECT_EQ(load_error_message(EPERM, "m", user), "loading modules needs root (run as root)");

	LoadEnv root;
	root.kernel_release = "6.1.0-57-amd64";
	LoadEnv enforce = root;
	enforce.sig_enforce = true;
	EXPECT_NE(load_error_message(EPERM, "m", enforce).find("sig_enforce"), std::string::npos);
	LoadEnv locked = root;
	locked.lockdown = "integrity";
	EXPECT_EQ(load_error_message(EPERM, "m", locked),
		  "kernel lockdown (integrity) forbids loading the unsigned module m");
	LoadEnv disabled = root;
	disabled.modules_disabled = true;
	EXPECT_NE(load_error_message(EPERM, "m", disabled).find("modules_disabled"), std::string::npos);

	EXPECT_NE(load_error_message(EKEYREJECTED, "m", root).find("signature"), std::string::npos);
	std::string noexec = load_error_message(ENOEXEC, "m", root);
	EXPECT_NE(noexec.find("another kernel"), std::string::npos);
	EXPECT_NE(noexec.find("6.1.0-57-amd64"), std::string::npos);
	EXPECT_EQ(load_error_message(EEXIST, "m", root),
		  "a module named m is loaded already (unload it with: rmmod m)");
	EXPECT_EQ(load_error_message(ENODEV, "m", root),
		  std::string("loading module m failed: ") + strerror(ENODEV));
	for (int e : {EPERM, EKEYREJECTED, ENOEXEC, EEXIST, ENOENT, ENOMEM, EINVAL})
		EXPECT_EQ(load_error_message(e, "m", e == EPERM ? user : root).find('\n'),
			  std::string::npos);
}

TEST(LoaderCommand, SimpleWords)
{
	using V = std::vector<std::string>;
	EXPECT_EQ(simple_command_words("pmu-workload getpid 1000"), (V{"pmu-workload", "getpid", "1000"}));
	EXPECT_EQ(simple_command_words("  /bin/true  "), (V{"/bin/true"}));
	EXPECT_TRUE(simple_command_words("a; b").empty());
	EXPECT_TRUE(simple_command_words("echo $HOME").empty());
	EXPECT_TRUE(simple_command_words("echo 'x'").empty());
	EXPECT_TRUE(simple_command_words("ls *").empty());
	EXPECT_TRUE(simple_command_words("a | b").empty());
	EXPECT_TRUE(simple_command_words("a > f").empty());
	EXPECT_TRUE(simple_command_words("X=1 prog").empty());
	EXPECT_TRUE(simple_command_words("exec prog").empty());
	EXPECT_TRUE(simple_command_words("").empty());
}

// The loader returns its errors, unprinted: the caller prints them once.
TEST(LoaderRun, MissingModuleIsReturnedNotPrinted)
{
	LoadOptions o;
	o.module_path = "/nonexistent/stap_pmu_none.ko";
	testing::internal::CaptureStderr();
	Result<int> rc = run_module(o);
	EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
	ASSERT_FALSE(rc.ok());
	EXPECT_EQ(rc.error().what, "cannot open /nonexistent/stap_pmu_none.ko: No such file or directory");
	EXPECT_EQ(rc.error().hint, "");
}

TEST(LoaderRun, UncreatableOutputFileIsReturnedNotPrinted)
{
	LoadOptions o;
	o.module_path = "/dev/null"; // opened before the output file, never loaded
	o.output_file = "/nonexistent/dir/out";
	testing::internal::CaptureStderr();
	Result<int> rc = run_module(o);
	EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
	ASSERT_FALSE(rc.ok());
	EXPECT_EQ(rc.error().what, "cannot create /nonexistent/dir/out: No such file or directory");
}

TEST(LoaderSession, AttachNeedsALoadedModule)
{
	SessionOptions o;
	o.module_name = "a/b";
	testing::internal::CaptureStderr();
	Result<int> a = attach_module(o);
	EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
	ASSERT_FALSE(a.ok());
	EXPECT_EQ(a.error().what, "a module name is needed (as in /proc/<name>)");
	o.module_name = "stap_pmu_not_loaded";
	testing::internal::CaptureStderr();
	Result<int> s = stop_module(o);
	EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
	ASSERT_FALSE(s.ok());
	EXPECT_EQ(s.error().what, "module stap_pmu_not_loaded is not loaded "
				  "(no /proc/stap_pmu_not_loaded/output)");
}

// open_output keeps open's errno for the callers that word the error by it.
TEST(LoaderSession, OpenOutputKeepsTheErrno)
{
	detail::ModuleFiles m;
	m.dir = "/proc/stap_pmu_not_loaded";
	Status st = detail::open_output(m);
	ASSERT_FALSE(st.ok());
	EXPECT_EQ(st.error().what, "No such file or directory");
	EXPECT_EQ(st.error().code, ENOENT);
	m.json = true;
	EXPECT_EQ(detail::open_output(m).error().code, ENOENT);
}
