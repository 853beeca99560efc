// syscalls_test.cpp - the syscall prototypes from include/linux/syscalls.h
// (made-up headers and the installed kernels' own), the syscall.* tapset
// generated from them, and wildcards over probe alias names.
#include <gtest/gtest.h>

#include <glob.h>

#include <algorithm>

#include "tests/unit/frontend_helpers.h"
#include "translator/driver/translate_passes.h"
#include "translator/frontend/tapsets.h"
#include "translator/kernelinfo/kallsyms.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/kernelinfo/syscalls.h"
#include "translator/support/file.h"

namespace stap_pmu {
namespace {

using syscalls::Syscall;

const Syscall *find(const std::vector<Syscall> &v, const std::string &name)
{
	for (const Syscall &s : v)
		if (s.name == name)
			return &s;
	return nullptr;
}

std::string sig(const Syscall &s)
{
	std::string out;
	for (const syscalls::Arg &a : s.args)
		out += (out.empty() ? "" : ", ") + a.type + "|" + a.name;
	return out;
}

TEST(Syscalls, ParsePrototypes)
{
	const char *h = R"(
#define SYSCALL_DEFINE0(sname)					\
	asmlinkage long sys_##sname(void);			\
	asmlinkage long sys_macro(int x)
/* asmlinkage long sys_commented(int a); */
#ifndef CONFIG_ARCH_HAS_SYSCALL_WRAPPER
asmlinkage long sys_read(unsigned int fd, char __user *buf, size_t count);
asmlinkage long sys_openat(int dfd, const char __user *filename, int flags,
			   umode_t mode);
asmlinkage long sys_getpid(void);
#ifdef CONFIG_BACKWARDS
asmlinkage long sys_clone(unsigned long, unsigned long, int __user *, unsigned long,
	       int __user *);
#else
asmlinkage long sys_clone(unsigned long, unsigned long, int __user *,
	       int __user *, unsigned long);
#endif
#if defined(CONFIG_SPLIT) || defined(CONFIG_OTHER)
asmlinkage long sys_both(int a);
#else
asmlinkage long sys_both(long b);
#endif
#if !defined(CONFIG_MISSING)
asmlinkage long sys_ipc(struct ipc_buf __user *b, pid_t pid);
#endif
#endif
)";
	KernelConfig config;
	config.set("CONFIG_ARCH_HAS_SYSCALL_WRAPPER", "y");
	auto v = syscalls::parse_prototypes(h, config);
	std::vector<std::string> names;
	for (const Syscall &s : v)
		names.push_back(s.name);
	EXPECT_EQ(names, (std::vector<std::string>{"read", "openat", "getpid", "clone", "both", "ipc"}));
	EXPECT_EQ(sig(*find(v, "read")), "unsigned int|fd, char __user *|buf, size_t|count");
	EXPECT_EQ(sig(*find(v, "openat")),
		  "int|dfd, const char __user *|filename, int|flags, umode_t|mode");
	EXPECT_TRUE(find(v, "getpid")->args.empty());
	EXPECT_EQ(sig(*find(v, "clone")), "unsigned long|arg1, unsigned long|arg2, int __user *|arg3, "
					  "int __user *|arg4, unsigned long|arg5");
	EXPECT_EQ(sig(*find(v, "both")), "int|a"); // not known: the first wins
	EXPECT_EQ(sig(*find(v, "ipc")), "struct ipc_buf __user *|b, pid_t|pid");
	config.set("CONFIG_BACKWARDS", "y");
	v = syscalls::parse_prototypes(h, config);
	EXPECT_EQ(sig(*find(v, "clone")), "unsigned long|arg1, unsigned long|arg2, int __user *|arg3, "
					  "unsigned long|arg4, int __user *|arg5");
}

// The installed kernels' headers (Debian's -common trees).
std::vector<std::string> installed_trees()
{
	std::vector<std::string> out;
	glob_t g{};
	if (glob("/usr/src/linux-headers-*", GLOB_ONLYDIR, nullptr, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc; ++i) {
			std::string t = g.gl_pathv[i];
			if (t.find("-common") == std::string::npos && syscalls::find_header(t))
				out.push_back(t);
		}
	globfree(&g);
	return out;
}

TEST(Syscalls, InstalledHeaders)
{
	auto trees = installed_trees();
	ASSERT_FALSE(trees.empty()) << "no kernel headers installed";
	for (const std::string &t : trees) {
		SCOPED_TRACE(t);
		auto h = syscalls::find_header(t);
		ASSERT_TRUE(h.ok());
		auto text = sys::read_file(*h);
		ASSERT_TRUE(text);
		auto v = syscalls::parse_prototypes(*text, KernelConfig::parse("CONFIG_ARCH_HAS_SYSCALL_WRAPPER=y"));
		EXPECT_GT(v.size(), 300u);
		ASSERT_NE(find(v, "read"), nullptr);
		EXPECT_EQ(sig(*find(v, "read")), "unsigned int|fd, char __user *|buf, size_t|count");
		ASSERT_NE(find(v, "openat"), nullptr);
		EXPECT_EQ(sig(*find(v, "openat")),
			  "int|dfd, const char __user *|filename, int|flags, umode_t|mode");
		ASSERT_NE(find(v, "execve"), nullptr);
		EXPECT_EQ(find(v, "execve")->args.size(), 3u);
		ASSERT_NE(find(v, "getpid"), nullptr);
		EXPECT_TRUE(find(v, "getpid")->args.empty());
		ASSERT_NE(find(v, "kill"), nullptr);
		EXPECT_EQ(sig(*find(v, "kill")), "pid_t|pid, int|sig");
		// x86-64 has no CONFIG_CLONE_BACKWARDS: tls last
		ASSERT_NE(find(v, "clone"), nullptr);
		EXPECT_EQ(find(v, "clone")->args.size(), 5u);
		EXPECT_EQ(find(v, "clone")->args[4].type, "unsigned long");
	}
}

// syscall_any's numbers: a uapi unistd_64.h, asm-generic/unistd.h's
// __NR3264_ indirections, and the installed trees' own headers.
TEST(Syscalls, Numbers)
{
	auto n = syscalls::parse_numbers("#ifndef _UAPI\n#define _UAPI\n#define __NR_read 0\n"
					 "#define __NR_write 1\n#define __NR3264_fcntl 25\n"
					 "#define __NR_fcntl __NR3264_fcntl\n#define __NR_fcntl64 __NR3264_fcntl\n"
					 "#define __NR_arch_specific_syscall 244\n"
					 "#define __NR_syscalls 451\n#define __NR_bad __NR_nope\n");
	EXPECT_EQ(n, (std::map<long, std::string>{{0, "read"}, {1, "write"}, {25, "fcntl"}}));
	for (const std::string &t : installed_trees()) {
		SCOPED_TRACE(t);
		auto h = syscalls::find_numbers_header(t, Arch::X86_64);
		ASSERT_TRUE(h.ok()) << h.error().what;
		auto text = sys::read_file(*h);
		ASSERT_TRUE(text);
		auto m = syscalls::parse_numbers(*text);
		EXPECT_EQ(m[0], "read");
		EXPECT_EQ(m[4], "stat");
		EXPECT_EQ(m[39], "getpid");
		EXPECT_EQ(m[231], "exit_group");
		EXPECT_GT(m.size(), 350u);
	}
	EXPECT_FALSE(syscalls::find_numbers_header("/nonexistent", Arch::X86_64).ok());
}

// The syscall_any tapset parses, and its name function is a binary search
// that names every number it was given.
TEST(Syscalls, AnyTapset)
{
	std::map<long, std::string> n;
	for (long i = 0; i < 40; i++)
		n[i * 3] = "c" + std::to_string(i * 3);
	std::string t = syscalls::generate_any_tapset(n, Arch::X86_64);
	EXPECT_NE(t.find("probe syscall_any = kernel.trace(\"raw_syscalls:sys_enter\") {\n"
			 "\tsyscall_nr = $id\n\tname = __syscall_any_name(syscall_nr)\n}\n"),
		  std::string::npos)
		<< t;
	EXPECT_NE(t.find("\tsyscall_nr = $regs->orig_ax\n"), std::string::npos);
	EXPECT_NE(t.find("if (__nr == 117) return \"c117\""), std::string::npos);
	EXPECT_NE(syscalls::generate_any_tapset(n, Arch::Arm64).find("$regs->syscallno"),
		  std::string::npos);
	test::Front f(t);
	EXPECT_FALSE(f.diags.has_errors()) << f.rendered();
	EXPECT_EQ(f.script.probes.size(), 2u);
}

TEST(Syscalls, GeneratedTapset)
{
	std::vector<Syscall> protos = {
		{"read", {{"unsigned int", "fd"}, {"char __user *", "buf"}, {"size_t", "count"}}},
		{"openat", {{"int", "dfd"}, {"const char __user *", "filename"}, {"int", "flags"},
			    {"umode_t", "mode"}}},
		{"getpid", {}},
		{"newfstat", {{"unsigned int", "fd"}, {"struct stat __user *", "statbuf"}}},
	};
	std::set<std::string> present = {"read", "openat", "getpid", "newfstat", "mmap", "odd"};
	std::string t = syscalls::generate_tapset(protos, present, Arch::X86_64);
	for (const char *want : {
		     "probe syscall.read = kprobe.function(\"__x64_sys_read\") {\n"
		     "\tname = \"read\"\n\t__regs = register(\"rdi\")\n"
		     "\tfd = kernel_long(__regs + 112) & 0xffffffff\n"
		     "\tbuf_uaddr = kernel_long(__regs + 104)\n"
		     "\tcount = kernel_long(__regs + 96)\n"
		     "\targstr = sprintf(\"%d, 0x%x, %u\", fd, buf_uaddr, count)\n}\n",
		     "probe syscall.read.return = kprobe.function(\"__x64_sys_read\").return {\n"
		     "\tname = \"read\"\n\tretval = returnval()\n"
		     "\tretstr = __syscall_retstr(retval)\n}\n",
		     "probe nd_syscall.read = syscall.read { }\n",
		     "\tdfd = __syscall_s32(kernel_long(__regs + 112))\n",
		     "\tfilename_uaddr = kernel_long(__regs + 104)\n",
		     "\tmode = kernel_long(__regs + 56) & 0xffff\n",
		     "probe syscall.getpid = kprobe.function(\"__x64_sys_getpid\") {\n"
		     "\tname = \"getpid\"\n\targstr = \"\"\n}\n",
		     "probe syscall.fstat = kprobe.function(\"__x64_sys_newfstat\") {",
		     "\tstart = kernel_long(__regs + 112)\n", // mmap: arch code, SystemTap's names
		     "\tretstr = __syscall_retstr_addr(retval)\n",
		     "\toffset = kernel_long(__regs + 64)\n",
		     "probe syscall.odd = kprobe.function(\"__x64_sys_odd\") {\n"
		     "\tname = \"odd\"\n\targstr = \"\"\n}\n",
	     })
		EXPECT_NE(t.find(want), std::string::npos) << want << "\nin:\n" << t;
	EXPECT_EQ(t.find("openat\") ?"), std::string::npos);
	// every alias parses
	test::Front f(t);
	EXPECT_FALSE(f.diags.has_errors()) << f.rendered();
	EXPECT_EQ(f.script.probes.size(), 6u * 4);

	// arm64: the pt_regs in x0, arguments in regs[0..5]
	std::string a = syscalls::generate_tapset(protos, present, Arch::Arm64);
	EXPECT_NE(a.find("kprobe.function(\"__arm64_sys_read\")"), std::string::npos);
	EXPECT_NE(a.find("\t__regs = register(\"x0\")\n\tfd = kernel_long(__regs + 0) & 0xffffffff\n"
			 "\tbuf_uaddr = kernel_long(__regs + 8)\n"),
		  std::string::npos);
	// without the symbol table: every prototype, each point optional
	std::string u = syscalls::generate_tapset(protos, std::nullopt, Arch::X86_64);
	EXPECT_NE(u.find("kprobe.function(\"__x64_sys_openat\") ? {"), std::string::npos);
	EXPECT_NE(u.find("kprobe.function(\"__x64_sys_openat\").return ? {"), std::string::npos);
	EXPECT_EQ(u.find("__x64_sys_odd"), std::string::npos);
	test::Front fu(u);
	EXPECT_FALSE(fu.diags.has_errors()) << fu.rendered();
	// the calls of syscalls.h this kernel lacks are named in a comment
	std::set<std::string> some = {"read", "getpid"};
	std::string l = syscalls::generate_tapset(protos, some, Arch::X86_64);
	EXPECT_NE(l.find("// In syscalls.h but without a probeable wrapper here (no alias):\n"
			 "// openat newfstat\n"),
		  std::string::npos)
		<< l;
}

// SystemTap's strings and decoded flags for the common calls, and .return
// aliases that carry the entry's arguments where BTF describes the wrapper.
TEST(Syscalls, GeneratedStringsAndEntryArguments)
{
	std::vector<Syscall> protos = {
		{"read", {{"unsigned int", "fd"}, {"char __user *", "buf"}, {"size_t", "count"}}},
		{"openat", {{"int", "dfd"}, {"const char __user *", "filename"}, {"int", "flags"},
			    {"umode_t", "mode"}}},
		{"getpid", {}},
	};
	std::set<std::string> present = {"read", "openat", "getpid"};
	// a wrapper whose BTF prototype is SYSCALL_DEFINE0's names it __unused
	std::map<std::string, std::string> btf = {{"read", "regs"}, {"openat", "__unused"}};
	std::string t = syscalls::generate_tapset(protos, present, Arch::X86_64, btf);
	for (const char *want : {
		     "\tdfd_str = _dfd_str(dfd)\n"
		     "\tfilename = user_string_quoted(filename_uaddr)\n"
		     "\tflags_str = _sys_open_flag_str(flags)\n"
		     "\tmode_str = _sys_open_mode_str(mode)\n"
		     "\targstr = dfd_str . \", \" . __syscall_open_argstr(filename, flags, mode)\n",
		     "probe syscall.read.return = kernel.function(\"__x64_sys_read\").return {\n"
		     "\tname = \"read\"\n"
		     "\tfd = @entry($regs->di) & 0xffffffff\n"
		     "\tbuf_uaddr = @entry($regs->si)\n"
		     "\tcount = @entry($regs->dx)\n"
		     "\targstr = sprintf(\"%d, 0x%x, %u\", fd, buf_uaddr, count)\n"
		     "\tretval = $return\n\tretstr = __syscall_retstr(retval)\n}\n",
		     "\tmode = @entry($__unused->r10) & 0xffff\n",
		     // no BTF for getpid's wrapper: a kprobe without arguments
		     "probe syscall.getpid.return = kprobe.function(\"__x64_sys_getpid\").return {\n"
		     "\tname = \"getpid\"\n\tretval = returnval()\n",
		     "// Wrappers the kernel's BTF lacks (.return without the entry's arguments):\n"
		     "// getpid\n",
	     })
		EXPECT_NE(t.find(want), std::string::npos) << want << "\nin:\n" << t;
	test::Front f(t);
	EXPECT_FALSE(f.diags.has_errors()) << f.rendered();

	// arm64: the pt_regs pointer saved at entry, the registers read from it
	std::string a = syscalls::generate_tapset(protos, present, Arch::Arm64, btf);
	EXPECT_NE(a.find("probe syscall.read.return = kernel.function(\"__arm64_sys_read\").return {\n"
			 "\tname = \"read\"\n\t__regs = @entry($regs)\n"
			 "\tfd = kernel_long(__regs + 0) & 0xffffffff\n"),
		  std::string::npos)
		<< a;
}

TEST(Syscalls, ProbeNameMatches)
{
	EXPECT_TRUE(probe_name_matches("syscall.*", "syscall.read"));
	EXPECT_FALSE(probe_name_matches("syscall.*", "syscall.read.return"));
	EXPECT_TRUE(probe_name_matches("syscall.*.return", "syscall.read.return"));
	EXPECT_TRUE(probe_name_matches("sys*.re?d", "syscall.read"));
	EXPECT_FALSE(probe_name_matches("syscall.*", "nd_syscall.read"));
	EXPECT_TRUE(probe_name_matches("a*", "abc"));
	EXPECT_FALSE(probe_name_matches("a*", "abc.d"));
	EXPECT_TRUE(probe_name_matches("t.*(5)", "t.x(5)"));
	EXPECT_FALSE(probe_name_matches("t.*(5)", "t.x(6)"));
	EXPECT_TRUE(probe_name_matches("p(\"a.b\").*", "p(\"a.b\").c"));
	EXPECT_TRUE(has_wildcard("syscall.*"));
	EXPECT_TRUE(has_wildcard("s[ab].c"));
	EXPECT_FALSE(has_wildcard("kernel.function(\"vfs_*\")"));
	EXPECT_FALSE(has_wildcard("syscall.read"));
}

// The generated tapset is read only for a script that may probe its aliases.
TEST(Syscalls, MayNameSyscallAlias)
{
	for (const char *p : {"syscall.read", "nd_syscall.*.return", "*", "sys*.x", "*syscall.y",
			      "syscall_any", "syscall_any.return", "syscall_*"})
		EXPECT_TRUE(may_name_syscall_alias(p)) << p;
	for (const char *p : {"kernel.function(\"sys_read\")", "timer.s(1)", "syscallx.read",
			      "syscall_anyx", "begin", "kprobe.function(\"__x64_sys_read\")"})
		EXPECT_FALSE(may_name_syscall_alias(p)) << p;
}

TEST(Syscalls, WildcardOverAliases)
{
	test::Checked c(R"(
global n
probe foo.a = begin { x = 1 }
probe foo.b = end { x = 2 }
probe foo.b.c = end { x = 3 }
probe bar = begin { x = 4 }
probe foo.* { n += x }
probe ba* { n += x }
)");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	EXPECT_EQ(c.sema.instances.size(), 3u); // foo.a, foo.b, bar
	// a wildcard that matches no alias is an ordinary (here unknown) point
	EXPECT_EQ(test::first_error("probe foo.a = begin { }\nprobe nomatch.* { }")
			  .rfind("t.stp:2:7: unknown probe point 'nomatch.*' [probe points known: ", 0),
		  0u);
}

// Every syscall of an installed kernel: the generated tapset parses and
// `probe syscall.* { n++ }` resolves one kprobe per syscall with a wrapper.
TEST(Syscalls, AllOfAnInstalledKernel)
{
	auto trees = installed_trees();
	ASSERT_FALSE(trees.empty());
	auto h = syscalls::find_header(trees.front());
	ASSERT_TRUE(h.ok());
	auto text = sys::read_file(*h);
	ASSERT_TRUE(text);
	auto protos = syscalls::parse_prototypes(*text, KernelConfig::parse("CONFIG_ARCH_HAS_SYSCALL_WRAPPER=y"));
	std::set<std::string> present;
	for (const Syscall &s : protos)
		present.insert(s.name);
	std::string t = syscalls::generate_tapset(protos, present, Arch::X86_64);
	auto helpers = sys::read_file(STAP_PMU_SOURCE_DIR "/tapsets/syscalls.stp");
	ASSERT_TRUE(helpers);
	test::Checked c(t + *helpers + "\nglobal n\nprobe syscall.* { n++ }\nprobe nd_syscall.*.return { n++ }\n");
	ASSERT_FALSE(c.diags.has_errors()) << c.rendered();
	present.erase("ni_syscall");
	EXPECT_EQ(c.sema.instances.size(), 2 * present.size());
}

} // namespace
} // namespace stap_pmu
