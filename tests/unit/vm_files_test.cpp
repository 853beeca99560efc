// Unit tests for translator/run/vm_files.{h,cpp}: the probed user files of a
// --vm run, their interpreters and libraries, as initramfs entries. Real
// files: the guest programs of this build (uprobe-target is dynamic on
// x86-64, static on arm64) and the host's C library.
#include "translator/run/vm_files.h"
#include "translator/support/paths.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

namespace fs = std::filesystem;
using namespace stap_pmu;

namespace {

std::string temp_dir()
{
	std::string t = testing::TempDir() + "/vm_files_test.XXXXXX";
	std::vector<char> b(t.begin(), t.end());
	b.push_back('\0');
	EXPECT_NE(mkdtemp(b.data()), nullptr);
	return fs::canonical(b.data()).string();
}

std::map<std::string, vm::InitramfsEntry> by_path(const std::vector<vm::InitramfsEntry> &v)
{
	std::map<std::string, vm::InitramfsEntry> m;
	for (const auto &e : v)
		m[e.path] = e;
	return m;
}

// Follows the entries' links from guest path `p` (no leading '/') to a file entry.
const vm::InitramfsEntry *resolve(const std::map<std::string, vm::InitramfsEntry> &m, std::string p)
{
	for (int depth = 0; depth < 40; depth++) {
		// the longest listed prefix that is a link is replaced by its target
		bool changed = false;
		for (size_t cut = p.size(); cut != std::string::npos && cut > 0; cut = p.rfind('/', cut - 1)) {
			auto it = m.find(p.substr(0, cut));
			if (it == m.end() || it->second.link.empty())
				continue;
			std::string t = it->second.link;
			std::string base = it->first.find('/') == std::string::npos
						   ? ""
						   : it->first.substr(0, it->first.rfind('/'));
			std::string np = t[0] == '/' ? t.substr(1) : (base.empty() ? t : base + "/" + t);
			p = fs::path("/" + np + p.substr(cut)).lexically_normal().string().substr(1);
			changed = true;
			break;
		}
		if (!changed) {
			auto it = m.find(p);
			return it == m.end() || it->second.is_dir ? nullptr : &it->second;
		}
	}
	return nullptr;
}

} // namespace

TEST(VmFiles, ReadsDynamicElf)
{
	std::string ut = guest_program(Arch::X86_64, "uprobe-target");
	ASSERT_EQ(access(ut.c_str(), R_OK), 0) << ut;
	auto d = vm::read_elf_deps(ut);
	ASSERT_TRUE(d) << d.error().what;
	EXPECT_EQ(d->machine, EM_X86_64);
	EXPECT_EQ(d->interp, "/lib64/ld-linux-x86-64.so.2"); // the x86-64 psABI's
	EXPECT_NE(std::find(d->needed.begin(), d->needed.end(), "libc.so.6"), d->needed.end());
	std::string libc = vm::find_library("libc.so.6", ut, *d);
	ASSERT_FALSE(libc.empty());
	EXPECT_TRUE(fs::equivalent(libc, "/lib/x86_64-linux-gnu/libc.so.6")) << libc;
	EXPECT_EQ(vm::find_library("libno-such-library.so.9", ut, *d), "");
}

TEST(VmFiles, ReadsStaticElf)
{
	auto d = vm::read_elf_deps(guest_program(Arch::X86_64, "pmu-workload"));
	ASSERT_TRUE(d) << d.error().what;
	EXPECT_EQ(d->interp, "");
	EXPECT_TRUE(d->needed.empty());
	std::string arm = guest_program(Arch::Arm64, "uprobe-target");
	if (access(arm.c_str(), R_OK) == 0) {
		auto a = vm::read_elf_deps(arm);
		ASSERT_TRUE(a) << a.error().what;
		EXPECT_EQ(a->machine, EM_AARCH64);
		EXPECT_EQ(a->interp, "");
	}
}

TEST(VmFiles, RefusesNonElf)
{
	std::string dir = temp_dir();
	std::ofstream(dir + "/script.sh") << "#!/bin/sh\necho hi\n";
	auto d = vm::read_elf_deps(dir + "/script.sh");
	ASSERT_FALSE(d);
	EXPECT_EQ(d.error().what, dir + "/script.sh: not an ELF file");
	auto m = vm::read_elf_deps(dir + "/missing");
	ASSERT_FALSE(m);
	EXPECT_EQ(m.error().what, dir + "/missing: No such file or directory");
	fs::remove_all(dir);
}

// The dynamic uprobe-target: itself, the interpreter (through the host's
// symbolic links) and libc, each reachable at its host path.
TEST(VmFiles, DynamicProgramWithItsLibraries)
{
	std::string ut = guest_program(Arch::X86_64, "uprobe-target");
	auto v = vm::user_file_entries({ut});
	ASSERT_TRUE(v) << v.error().what;
	auto m = by_path(*v);
	const vm::InitramfsEntry *self = resolve(m, ut.substr(1));
	ASSERT_NE(self, nullptr);
	EXPECT_EQ(self->source, ut);
	for (const char *p : {"/lib64/ld-linux-x86-64.so.2", "/lib/x86_64-linux-gnu/libc.so.6"}) {
		const vm::InitramfsEntry *e = resolve(m, std::string(p).substr(1));
		ASSERT_NE(e, nullptr) << p;
		EXPECT_TRUE(fs::equivalent(e->source, p)) << p << " -> " << e->source;
	}
	// a host symbolic link is one in the guest too (same inode for every spelling)
	struct stat st;
	if (lstat("/lib64/ld-linux-x86-64.so.2", &st) == 0 && S_ISLNK(st.st_mode)) {
		// (under merged /usr, /lib64 itself may be a link to usr/lib64)
		std::string target = fs::read_symlink("/lib64/ld-linux-x86-64.so.2").string();
		bool found = false;
		for (const auto &e : *v)
			found |= e.link == target && fs::path(e.path).filename() == "ld-linux-x86-64.so.2";
		EXPECT_TRUE(found) << target;
	}
	// every directory before what is inside it, each path once
	for (size_t i = 0; i < v->size(); i++)
		for (size_t j = 0; j < i; j++) {
			EXPECT_NE((*v)[j].path.rfind((*v)[i].path + "/", 0), 0u) << (*v)[j].path;
			EXPECT_NE((*v)[j].path, (*v)[i].path);
		}
}

TEST(VmFiles, MirrorsLinksButNotGuestDirectories)
{
	std::string dir = temp_dir();
	fs::create_directories(dir + "/real");
	std::ofstream(dir + "/real/prog") << "not an ELF";
	fs::create_symlink("real", dir + "/alias");
	auto v = vm::user_file_entries({dir + "/alias/prog"});
	ASSERT_TRUE(v) << v.error().what;
	auto m = by_path(*v);
	std::string rel = dir.substr(1);
	ASSERT_TRUE(m.count(rel + "/alias"));
	EXPECT_EQ(m[rel + "/alias"].link, "real");
	ASSERT_TRUE(m.count(rel + "/real/prog"));
	EXPECT_EQ(m[rel + "/real/prog"].source, dir + "/real/prog");
	EXPECT_TRUE(m[rel + "/real"].is_dir);
	EXPECT_TRUE(vm::guest_reserved_top("bin"));
	EXPECT_TRUE(vm::guest_reserved_top("stap-pmu"));
	EXPECT_FALSE(vm::guest_reserved_top("lib"));
	fs::remove_all(dir);
}

TEST(VmFiles, Errors)
{
	auto rel = vm::user_file_entries({"relative/prog"});
	ASSERT_FALSE(rel);
	EXPECT_EQ(rel.error().what, "--vm: the probed file relative/prog is not an absolute path");
	std::string dir = temp_dir();
	auto missing = vm::user_file_entries({dir + "/nothing"});
	ASSERT_FALSE(missing);
	EXPECT_EQ(missing.error().what, "--vm: " + dir + "/nothing: No such file or directory");
	fs::remove_all(dir);
}

// A probed guest program is one file: /stap-pmu/bin/NAME links to the copy
// at the host path, the inode the probes attach to.
TEST(VmFiles, ProbedGuestProgramIsLinked)
{
	vm::VmOptions o;
	o.module_path = "/t/m.ko";
	o.loader_path = guest_program(Arch::X86_64, "stap-pmu-loader");
	o.workload_path = guest_program(Arch::X86_64, "pmu-workload");
	o.uprobe_target_path = guest_program(Arch::X86_64, "uprobe-target");
	auto plain = by_path(vm::initramfs_entries(o));
	EXPECT_EQ(plain["stap-pmu/bin/pmu-workload"].source, o.workload_path);
	EXPECT_EQ(plain["stap-pmu/bin/uprobe-target"].source, o.uprobe_target_path);
	o.user_files = {o.workload_path};
	auto g = vm::guest_entries(o);
	ASSERT_TRUE(g) << g.error().what;
	auto m = by_path(*g);
	EXPECT_EQ(m["stap-pmu/bin/pmu-workload"].link, o.workload_path);
	EXPECT_EQ(m["stap-pmu/bin/pmu-workload"].source, "");
	EXPECT_EQ(m[o.workload_path.substr(1)].source, o.workload_path);
	EXPECT_EQ(m["stap-pmu/bin/uprobe-target"].source, o.uprobe_target_path);
	EXPECT_EQ(vm::user_copy_of(o, o.workload_path), o.workload_path);
	EXPECT_EQ(vm::user_copy_of(o, o.uprobe_target_path), "");
}

// --vm-during: /init starts the command in the background once the module
// is live (its name, - as _, in /proc/modules), before waiting for the
// loader, and stops it after; nothing without it.
TEST(VmFiles, DuringCommand)
{
	vm::VmOptions o;
	o.module_path = "/t/stap-pmu-1.ko";
	EXPECT_EQ(vm::during_lines(o), "");
	o.during_command = "pmu-workload getpid 10";
	EXPECT_EQ(vm::during_lines(o),
		  "( while ! grep -q '^stap_pmu_1 .* Live ' /proc/modules; do sleep 0.1; done; "
		  "sh -c 'pmu-workload getpid 10' ) >&4 2>&4 </dev/null &\nduring=$!\n");
	std::string s = vm::init_script(o);
	size_t bg = s.find(vm::during_lines(o)), wait = s.find("wait $loader"),
	       kill = s.find("kill $during");
	ASSERT_NE(bg, std::string::npos) << s;
	EXPECT_LT(s.find("loader=$!"), bg);
	EXPECT_LT(bg, wait);
	EXPECT_LT(wait, kill);
	EXPECT_EQ(s.find("stap-pmu-loader -c"), std::string::npos) << s;  // not the target
}

// --vm-after: /init runs the command once the loader (and with it the
// module) is gone, before the exit marker; nothing without it.
TEST(VmFiles, AfterCommand)
{
	vm::VmOptions o;
	o.module_path = "/t/stap_pmu_1.ko";
	o.module_name = "stap_pmu_1";
	EXPECT_EQ(vm::after_lines(o), "");
	EXPECT_EQ(vm::init_script(o).find("sh -c 'uprobe-target"), std::string::npos);
	o.after_command = "uprobe-target -m work 1 0";
	EXPECT_EQ(vm::after_lines(o), "( sh -c 'uprobe-target -m work 1 0' ) >&3 2>&4 </dev/null\n");
	for (bool at_boot : {false, true}) {
		o.at_boot = at_boot;
		std::string s = vm::init_script(o);
		size_t after = s.find(vm::after_lines(o));
		size_t done = s.find(at_boot ? "stap-pmu-loader -S" : "wait $loader");
		size_t marker = s.find(vm::kExitMarker);
		ASSERT_NE(after, std::string::npos) << s;
		EXPECT_LT(done, after);
		EXPECT_LT(after, marker);
	}
}
