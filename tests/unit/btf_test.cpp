// btf_test.cpp - kernel facts from BTF against the installed Debian 6.1
// kernel (the vmlinux extracted from its vmlinuz, its modules' .ko files)
// and the unpacked arm64 Image: prototypes, argument registers, member
// offsets (checked against offsetof() compiled from the kernel's headers
// with kbuild), @cast in kernel and module BTF, and the messages.
#include <gtest/gtest.h>

#include <sys/utsname.h>

#include <algorithm>
#include <filesystem>
#include <fnmatch.h>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "translator/kernelinfo/btf.h"
#include "translator/kernelinfo/btf_facts.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/support/file.h"
#include "translator/support/process.h"

using namespace stap_pmu;
namespace fs = std::filesystem;

namespace {

// The newest installed 6.1 kernel with its build tree ("6.1.0-57-amd64").
std::string release61()
{
	std::vector<std::string> rels;
	std::error_code ec;
	for (const auto &e : fs::directory_iterator("/boot", ec)) {
		std::string n = e.path().filename().string();
		if (n.rfind("vmlinuz-6.1.", 0) == 0 &&
		    fs::exists("/lib/modules/" + n.substr(8) + "/build"))
			rels.push_back(n.substr(8));
	}
	kernel::sort_versions(rels);
	return rels.empty() ? "" : rels.back();
}

btf::Options options61()
{
	btf::Options o;
	o.release = release61();
	o.arch = Arch::X86_64;
	return o;
}

// The BTF facts of the 6.1 kernel, shared by the tests of one process.
const BtfKernelFacts &facts61()
{
	static const BtfKernelFacts f(options61());
	return f;
}

KernelFunction function61(const std::string &name)
{
	auto fns = facts61().functions("", name);
	EXPECT_TRUE(fns) << (fns ? "" : fns.error().what);
	if (!fns || fns->size() != 1)
		return {};
	return (*fns)[0];
}

// offsetof() values compiled from the 6.1 kernel's headers by kbuild (the
// asm-offsets way: an "->NAME $VALUE" line in the .s file per OFFSET()).
const std::map<std::string, long> &header_offsets()
{
	static const std::map<std::string, long> offsets = [] {
		std::map<std::string, long> m;
		auto dir = sys::TempDir::create("btf-offsets");
		if (!dir)
			return m;
		std::ofstream(dir->path() + "/Makefile") << "obj-m := off.o\n";
		std::ofstream(dir->path() + "/off.c")
			<< "#include <linux/fs.h>\n#include <linux/sched.h>\n"
			   "#include <drm/drm_device.h>\n#include <drm/drm_drv.h>\n"
			   "#include <linux/kbuild.h>\nvoid f(void)\n{\n"
			   "\tOFFSET(file_f_path, file, f_path);\n"
			   "\tOFFSET(path_dentry, path, dentry);\n"
			   "\tOFFSET(dentry_d_name, dentry, d_name);\n"
			   "\tOFFSET(qstr_name, qstr, name);\n"
			   "\tOFFSET(file_f_pos, file, f_pos);\n"
			   "\tOFFSET(file_f_inode, file, f_inode);\n"
			   "\tOFFSET(file_f_op, file, f_op);\n"
			   "\tDEFINE(file_size, sizeof(struct file));\n"
			   "\tDEFINE(path_size, sizeof(struct path));\n"
			   "\tOFFSET(task_struct_pid, task_struct, pid);\n"
			   "\tOFFSET(task_struct_comm, task_struct, comm);\n"
			   "\tDEFINE(task_struct_size, sizeof(struct task_struct));\n"
			   "\tOFFSET(drm_device_driver, drm_device, driver);\n"
			   "\tOFFSET(drm_driver_name, drm_driver, name);\n}\n";
		sys::Spawn sp;
		sp.argv = {"make", "-s", "-C", "/lib/modules/" + release61() + "/build",
			   "M=" + dir->path(), "off.s"};
		sp.err = sys::Spawn::kInherit;
		auto st = sys::run(sp, 300);
		if (!st || *st != 0)
			return m;
		std::ifstream s(dir->path() + "/off.s");
		std::regex line("->(\\w+) \\$(\\d+) ");
		std::smatch mt;
		for (std::string l; std::getline(s, l);)
			if (std::regex_search(l, mt, line))
				m[mt[1]] = std::stol(mt[2]);
		return m;
	}();
	return offsets;
}

long offset_of(const std::string &name)
{
	auto it = header_offsets().find(name);
	EXPECT_NE(it, header_offsets().end()) << "offsetof " << name << " not compiled";
	return it == header_offsets().end() ? -1 : it->second;
}

// The newest unpacked arm64 6.1 kernel ("6.1.0-57-arm64"; "" : none).
std::string arm64_release61()
{
	std::vector<std::string> rels;
	for (const std::string &root : kernel::foreign_kernel_roots(Arch::Arm64)) {
		std::error_code ec;
		for (const auto &e : std::filesystem::directory_iterator(root, ec)) {
			std::string n = e.path().filename().string();
			if (n.rfind("6.1.", 0) == 0 && std::filesystem::exists(e.path() / ".complete"))
				rels.push_back(n);
		}
	}
	kernel::sort_versions(rels);
	return rels.empty() ? "" : rels.back();
}

std::string arm64_image()
{
	auto k = kernel::find_foreign_kernel(Arch::Arm64, arm64_release61());
	EXPECT_TRUE(k) << (k ? "" : k.error().what);
	return k ? k->vmlinuz : "";
}

} // namespace

TEST(BtfFacts, KernelOfTheTests)
{
	ASSERT_FALSE(release61().empty()) << "no /boot/vmlinuz-6.1.* with its build tree";
	auto src = btf::kernel_btf_source(release61(), Arch::X86_64);
	ASSERT_TRUE(src) << src.error().what;
	struct utsname u;
	uname(&u);
	if (release61() == u.release) {
		EXPECT_EQ(*src, "/sys/kernel/btf/vmlinux");
	} else {
		auto k = kernel::find_guest_kernel(release61(), true);
		ASSERT_TRUE(k);
		EXPECT_EQ(*src, k->vmlinux);
	}
}

TEST(BtfFacts, VfsReadPrototype)
{
	KernelFunction f = function61("vfs_read");
	EXPECT_EQ(f.name, "vfs_read");
	EXPECT_EQ(f.module, "");
	EXPECT_EQ(f.file, "");
	EXPECT_EQ(f.ret_type, "ssize_t");
	EXPECT_TRUE(f.ret_scalar);
	EXPECT_EQ(describe_vars(f, false), "$file:struct file* $buf:char* $count:size_t $pos:loff_t*");
	EXPECT_EQ(describe_vars(f, true),
		  "$file:struct file* $buf:char* $count:size_t $pos:loff_t* $return:ssize_t");
	ASSERT_EQ(f.params.size(), 4u);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(f.params[i].arg, i) << f.params[i].name;
	auto b = btf::Btf::open(f.info_file);
	ASSERT_TRUE(b);
	EXPECT_EQ(f.info_id, (*b)->find("vfs_read", btf::Kind::Func));
	// scalars: $count reads the register whole, unsigned
	auto acc = facts61().target_access(f, "$count", false);
	ASSERT_TRUE(acc) << acc.error().what;
	EXPECT_EQ(acc->arg, 2);
	EXPECT_EQ(acc->size, 8u);
	EXPECT_FALSE(acc->is_signed);
	EXPECT_TRUE(acc->offsets.empty());
}

TEST(BtfFacts, MemberChainThroughEmbeddedStructs)
{
	KernelFunction f = function61("vfs_read");
	auto acc = facts61().target_access(f, "$file->f_path->dentry->d_name->name", false);
	ASSERT_TRUE(acc) << acc.error().what;
	EXPECT_EQ(acc->base, TargetAccess::Arg);
	EXPECT_EQ(acc->arg, 0);
	// f_path and d_name are structs inside their parents: each "->" into
	// them adds to the offset of the pointer read before
	std::vector<int32_t> want = {
		static_cast<int32_t>(offset_of("file_f_path") + offset_of("path_dentry")),
		static_cast<int32_t>(offset_of("dentry_d_name") + offset_of("qstr_name"))};
	EXPECT_EQ(acc->offsets, want);
	EXPECT_TRUE(acc->deref_last);
	EXPECT_EQ(acc->size, 8u);

	auto path = facts61().target_access(f, "$file->f_path", false);
	ASSERT_TRUE(path) << path.error().what;
	EXPECT_EQ(path->offsets, std::vector<int32_t>{static_cast<int32_t>(offset_of("file_f_path"))});
	EXPECT_FALSE(path->deref_last); // a struct: its address

	auto pos = facts61().target_access(f, "$file->f_pos", true);
	ASSERT_TRUE(pos) << pos.error().what;
	EXPECT_EQ(pos->offsets, std::vector<int32_t>{static_cast<int32_t>(offset_of("file_f_pos"))});
	EXPECT_TRUE(pos->is_signed); // loff_t is long long
	EXPECT_TRUE(pos->deref_last);
}

// $file$ of vfs_read: struct file's members in order, the anonymous
// union's inline, with the offsets and sizes of the kernel's headers;
// $file$$ expands struct path, and $count$ is a scalar.
TEST(BtfFacts, PrettyMembersOfStructFile)
{
	KernelFunction f = function61("vfs_read");
	auto p = facts61().type_members(f, "$file", false, 1);
	ASSERT_TRUE(p) << p.error().what;
	EXPECT_TRUE(p->pointee);
	const TypeMember &r = p->root;
	EXPECT_EQ(r.kind, TypeMember::Struct);
	EXPECT_EQ(r.type, "struct file");
	EXPECT_EQ(static_cast<long>(r.size), offset_of("file_size"));
	ASSERT_TRUE(r.expanded);
	std::map<std::string, const TypeMember *> by;
	std::vector<std::string> names;
	for (const TypeMember &m : r.members) {
		by[m.name] = &m;
		names.push_back(m.name);
	}
	ASSERT_GE(names.size(), 6u);
	// 6.1: union { f_llist; f_rcuhead; f_iocb_flags; } f_u; struct path f_path; ...
	EXPECT_EQ(std::vector<std::string>(names.begin(), names.begin() + 6),
		  (std::vector<std::string>{"f_llist", "f_rcuhead", "f_iocb_flags", "f_path",
					    "f_inode", "f_op"}));
	ASSERT_TRUE(by.count("f_path") && by.count("f_inode") && by.count("f_pos"));
	EXPECT_EQ(by["f_path"]->kind, TypeMember::Struct);
	EXPECT_FALSE(by["f_path"]->expanded); // one level: "{...}"
	EXPECT_EQ(by["f_path"]->offset, offset_of("file_f_path"));
	EXPECT_EQ(static_cast<long>(by["f_path"]->size), offset_of("path_size"));
	EXPECT_EQ(by["f_inode"]->kind, TypeMember::Pointer);
	EXPECT_EQ(by["f_inode"]->offset, offset_of("file_f_inode"));
	EXPECT_EQ(by["f_op"]->offset, offset_of("file_f_op"));
	EXPECT_EQ(by["f_pos"]->kind, TypeMember::Signed); // loff_t
	EXPECT_EQ(by["f_pos"]->offset, offset_of("file_f_pos"));
	EXPECT_EQ(by["f_pos"]->size, 8u);
	EXPECT_EQ(by["f_llist"]->offset, 0);
	EXPECT_EQ(by["f_iocb_flags"]->offset, 0);

	auto deep = facts61().type_members(f, "$file", false, 2);
	ASSERT_TRUE(deep) << deep.error().what;
	for (const TypeMember &m : deep->root.members)
		if (m.name == "f_path") {
			ASSERT_TRUE(m.expanded);
			ASSERT_EQ(m.members.size(), 2u);
			EXPECT_EQ(m.members[0].name, "mnt");
			EXPECT_EQ(m.members[1].name, "dentry");
			EXPECT_EQ(m.members[1].offset, offset_of("path_dentry"));
		}

	auto count = facts61().type_members(f, "$count", false, 1);
	ASSERT_TRUE(count) << count.error().what;
	EXPECT_FALSE(count->pointee);
	EXPECT_EQ(count->root.kind, TypeMember::Unsigned); // size_t
	EXPECT_EQ(count->root.size, 8u);

	auto comm = facts61().type_members(function61("wake_up_process"), "$p->comm", false, 1);
	ASSERT_TRUE(comm) << comm.error().what;
	EXPECT_EQ(comm->root.kind, TypeMember::CharArray);
	EXPECT_EQ(comm->root.count, 16u); // TASK_COMM_LEN

	auto bad = facts61().type_members(f, "$nope", false, 1);
	ASSERT_FALSE(bad);
	EXPECT_NE(bad.error().what.find("nope"), std::string::npos);
}

TEST(BtfFacts, ReturnValue)
{
	KernelFunction f = function61("vfs_read");
	auto r = facts61().target_access(f, "$return", true);
	ASSERT_TRUE(r) << r.error().what;
	EXPECT_EQ(r->base, TargetAccess::Return);
	EXPECT_EQ(r->size, 8u);
	EXPECT_TRUE(r->is_signed);
	auto entry = facts61().target_access(f, "$return", false);
	ASSERT_FALSE(entry);
	EXPECT_EQ(entry.error().what, "$return is only available in .return probes");
	KernelFunction fput = function61("fput");
	EXPECT_EQ(fput.ret_type, "void");
	auto v = facts61().target_access(fput, "$return", true);
	ASSERT_FALSE(v);
	EXPECT_EQ(v.error().what, "fput() returns void: no $return");
}

TEST(BtfFacts, WildcardVfs)
{
	auto fns = facts61().functions("", "vfs_*");
	ASSERT_TRUE(fns) << fns.error().what;
	EXPECT_GE(fns->size(), 20u);
	std::vector<std::string> names;
	for (const KernelFunction &f : *fns) {
		EXPECT_EQ(fnmatch("vfs_*", f.name.c_str(), 0), 0) << f.name;
		names.push_back(f.name);
	}
	EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
	EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
	for (const char *n : {"vfs_read", "vfs_write", "vfs_open", "vfs_fsync"})
		EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
	// the same set as a scan of the BTF by hand
	auto b = btf::Btf::open((*fns)[0].info_file);
	ASSERT_TRUE(b);
	std::set<std::string> all;
	for (uint32_t id = 1; id < (*b)->end_id(); id++)
		if (btf::Type t = (*b)->type(id); t.kind == btf::Kind::Func && t.name.substr(0, 4) == "vfs_")
			all.insert(std::string(t.name));
	EXPECT_EQ(std::vector<std::string>(all.begin(), all.end()), names);
}

TEST(BtfFacts, MemberErrors)
{
	KernelFunction f = function61("vfs_read");
	auto bad = facts61().target_access(f, "$file->f_pathx", false);
	ASSERT_FALSE(bad);
	EXPECT_EQ(bad.error().what,
		  "no member 'f_pathx' (or a bit field) in the type of '$file' in vfs_read()");
	EXPECT_NE(bad.error().hint.find("did you mean 'f_path'?"), std::string::npos) << bad.error().hint;
	EXPECT_NE(bad.error().hint.find("struct file has "), std::string::npos) << bad.error().hint;
	EXPECT_NE(bad.error().hint.find("f_inode"), std::string::npos) << bad.error().hint;

	auto np = facts61().target_access(f, "$count->x", false);
	ASSERT_FALSE(np);
	EXPECT_EQ(np.error().what,
		  "'$count' is not a pointer to a struct or union in vfs_read(), cannot use '->x'");
	auto nparam = facts61().target_access(f, "$cnt", false);
	ASSERT_FALSE(nparam);
	EXPECT_EQ(nparam.error().what,
		  "'$cnt' is not a parameter of vfs_read() (parameters: $file $buf $count $pos)");
	// a bit field: struct file's f_mode is not one, struct sock's sk_userlocks is
	auto tcp = function61("tcp_sendmsg");
	auto bits = facts61().target_access(tcp, "$sk->sk_userlocks", false);
	ASSERT_FALSE(bits);
	EXPECT_EQ(bits.error().what,
		  "no member 'sk_userlocks' (or a bit field) in the type of '$sk' in tcp_sendmsg()");
}

TEST(BtfFacts, FileAndLineNeedDwarf)
{
	auto r = facts61().functions("", "vfs_read@fs/read_write.c");
	ASSERT_FALSE(r);
	EXPECT_EQ(r.error().what, "kernel.function(\"vfs_read@fs/read_write.c\") needs the kernel's "
				  "DWARF: BTF has no source files or line numbers");
	EXPECT_NE(r.error().hint.find("linux-image-" + release61() + "-dbg"), std::string::npos);
	EXPECT_NE(r.error().hint.find("--vmlinux"), std::string::npos);
	auto line = facts61().functions("", "vfs_read@fs/read_write.c:450");
	ASSERT_FALSE(line);
	EXPECT_NE(line.error().what.find("needs the kernel's DWARF"), std::string::npos);
	auto mod = facts61().functions("ext4", "ext4_file_read_iter@fs/ext4/file.c");
	ASSERT_FALSE(mod);
	EXPECT_EQ(mod.error().what, "module(\"ext4\").function(\"ext4_file_read_iter@fs/ext4/file.c\") "
				    "needs the module's DWARF: BTF has no source files or line numbers");
	auto badline = facts61().functions("", "vfs_read@x.c:4x");
	ASSERT_FALSE(badline);
	EXPECT_EQ(badline.error().what, "bad line number '4x' in 'vfs_read@x.c:4x'");
}

TEST(BtfFacts, NoMatch)
{
	auto r = facts61().functions("", "vfs_raed");
	ASSERT_FALSE(r);
	EXPECT_EQ(r.error().what.rfind("no function matches 'vfs_raed' in ", 0), 0u) << r.error().what;
	EXPECT_EQ(r.error().hint, "did you mean 'vfs_read'?");
	auto w = facts61().functions("", "no_such_fn_*");
	ASSERT_FALSE(w);
	EXPECT_EQ(w.error().hint, "BTF has the functions that are not inlined everywhere");
}

TEST(BtfFacts, CastKernelTypes)
{
	CastAccess pid = facts61().cast_access("kernel", "task_struct", {"pid"});
	ASSERT_TRUE(std::holds_alternative<TargetAccess>(pid)) << std::get<CastError>(pid).msg;
	const TargetAccess &a = std::get<TargetAccess>(pid);
	EXPECT_EQ(a.offsets, std::vector<int32_t>{static_cast<int32_t>(offset_of("task_struct_pid"))});
	EXPECT_EQ(a.size, 4u); // pid_t
	EXPECT_TRUE(a.is_signed);
	EXPECT_TRUE(a.deref_last);

	CastAccess name =
		facts61().cast_access("kernel", "struct file", {"f_path", "dentry", "d_name", "name"});
	ASSERT_TRUE(std::holds_alternative<TargetAccess>(name));
	std::vector<int32_t> want = {
		static_cast<int32_t>(offset_of("file_f_path") + offset_of("path_dentry")),
		static_cast<int32_t>(offset_of("dentry_d_name") + offset_of("qstr_name"))};
	EXPECT_EQ(std::get<TargetAccess>(name).offsets, want);

	CastAccess typo = facts61().cast_access("kernel", "struct fle", {"f_path"});
	ASSERT_TRUE(std::holds_alternative<CastError>(typo));
	EXPECT_EQ(std::get<CastError>(typo).part, CastError::Type);
	EXPECT_EQ(std::get<CastError>(typo).hint, "did you mean 'struct file'?");
	CastAccess mem = facts61().cast_access("kernel", "struct task_struct", {"pidd"});
	ASSERT_TRUE(std::holds_alternative<CastError>(mem));
	EXPECT_EQ(std::get<CastError>(mem).msg, "no member 'pidd' in struct task_struct");
	EXPECT_EQ(std::get<CastError>(mem).hint.rfind("did you mean 'pid'? struct task_struct has ", 0),
		  0u);
	CastAccess hdr = facts61().cast_access("<linux/sched.h>", "struct task_struct", {"pid"});
	ASSERT_TRUE(std::holds_alternative<CastError>(hdr));
	EXPECT_EQ(std::get<CastError>(hdr).msg,
		  "@cast with a header ('<linux/sched.h>') is not supported");
}

TEST(BtfFacts, IndexArraysAndPointers)
{
	KernelFunction f = function61("wake_up_new_task");
	const int32_t comm = static_cast<int32_t>(offset_of("task_struct_comm"));
	const int32_t pid = static_cast<int32_t>(offset_of("task_struct_pid"));
	const int32_t size = static_cast<int32_t>(offset_of("task_struct_size"));
	// a char array member by constant index: folded into the member's offset
	auto c3 = facts61().target_access(f, "$p->comm[3]", false);
	ASSERT_TRUE(c3) << c3.error().what;
	EXPECT_EQ(c3->offsets, std::vector<int32_t>{comm + 3});
	EXPECT_EQ(c3->size, 1u);
	EXPECT_TRUE(c3->deref_last);
	EXPECT_TRUE(c3->indices.empty());
	// by run-time index: one index of stride 1 on the first step
	auto ci = facts61().target_access(f, "$p->comm[]", false);
	ASSERT_TRUE(ci) << ci.error().what;
	EXPECT_EQ(ci->offsets, std::vector<int32_t>{comm});
	ASSERT_EQ(ci->indices.size(), 1u);
	EXPECT_EQ(ci->indices[0].step, 0u);
	EXPECT_EQ(ci->indices[0].stride, 1);
	// the pointer itself indexed: the next task_struct, then a member in it
	auto p1 = facts61().target_access(f, "$p[1]->pid", false);
	ASSERT_TRUE(p1) << p1.error().what;
	EXPECT_EQ(p1->offsets, std::vector<int32_t>{size + pid});
	auto pi = facts61().target_access(f, "$p[]->pid", false);
	ASSERT_TRUE(pi) << pi.error().what;
	ASSERT_EQ(pi->indices.size(), 1u);
	EXPECT_EQ(pi->indices[0].stride, size);
	// the bound of a fixed array, and what cannot be indexed
	auto over = facts61().target_access(f, "$p->comm[16]", false);
	ASSERT_FALSE(over);
	EXPECT_EQ(over.error().what, "index 16 is out of bounds of '$p->comm' in wake_up_new_task(), "
				     "char[] of 16 elements");
	EXPECT_EQ(over.error().hint, "the last element is [15]");
	auto scalar = facts61().target_access(f, "$p->pid[0]", false);
	ASSERT_FALSE(scalar);
	EXPECT_EQ(scalar.error().what, "'$p->pid' is pid_t in wake_up_new_task(), not an array or "
				       "pointer: cannot use '[0]'");
	KernelFunction kfree = function61("kfree");
	auto v = facts61().target_access(kfree, "$object[]", false);
	ASSERT_FALSE(v);
	EXPECT_EQ(v.error().what, "'$object' is void* in kfree(), whose elements have no known "
				  "size: cannot use '[...]'");

	// @cast: a member array, and the type's address indexed as an array
	CastAccess cc = facts61().cast_access("kernel", "struct task_struct", {"comm", "[0]"});
	ASSERT_TRUE(std::holds_alternative<TargetAccess>(cc)) << std::get<CastError>(cc).msg;
	EXPECT_EQ(std::get<TargetAccess>(cc).offsets, std::vector<int32_t>{comm});
	CastAccess ca = facts61().cast_access("kernel", "struct task_struct", {"[]", "pid"});
	ASSERT_TRUE(std::holds_alternative<TargetAccess>(ca)) << std::get<CastError>(ca).msg;
	const TargetAccess &a = std::get<TargetAccess>(ca);
	EXPECT_EQ(a.offsets, std::vector<int32_t>{pid});
	ASSERT_EQ(a.indices.size(), 1u);
	EXPECT_EQ(a.indices[0].stride, size);
	CastAccess bad = facts61().cast_access("kernel", "struct task_struct", {"comm", "[99]"});
	ASSERT_TRUE(std::holds_alternative<CastError>(bad));
	EXPECT_EQ(std::get<CastError>(bad).part, CastError::Member);
	EXPECT_EQ(std::get<CastError>(bad).member, 1u);
	EXPECT_EQ(std::get<CastError>(bad).msg, "index 99 is out of bounds of '->comm' of struct "
						"task_struct, char[] of 16 elements");
}

TEST(BtfFacts, CastModuleSplitBtf)
{
	// struct drm_device is only in drm.ko's BTF; drm_driver's name in it too
	CastAccess k = facts61().cast_access("kernel", "struct drm_device", {"driver"});
	ASSERT_TRUE(std::holds_alternative<CastError>(k));
	EXPECT_EQ(std::get<CastError>(k).msg.rfind("no struct drm_device in ", 0), 0u);
	for (const char *m : {"drm", "kernel:drm"}) {
		CastAccess a = facts61().cast_access(m, "struct drm_device", {"driver", "name"});
		ASSERT_TRUE(std::holds_alternative<TargetAccess>(a)) << std::get<CastError>(a).msg;
		std::vector<int32_t> want = {static_cast<int32_t>(offset_of("drm_device_driver")),
					     static_cast<int32_t>(offset_of("drm_driver_name"))};
		EXPECT_EQ(std::get<TargetAccess>(a).offsets, want) << m;
	}
	// ext4's own type, and a kernel type reached through it
	CastAccess e = facts61().cast_access("ext4", "ext4_sb_info", {"s_sb", "s_blocksize"});
	ASSERT_TRUE(std::holds_alternative<TargetAccess>(e)) << std::get<CastError>(e).msg;
	EXPECT_EQ(std::get<TargetAccess>(e).offsets.size(), 2u);
	std::string ko = btf::find_module(options61(), "ext4", nullptr);
	ASSERT_FALSE(ko.empty());
	CastAccess byfile = facts61().cast_access(ko, "struct ext4_sb_info", {"s_sb", "s_blocksize"});
	ASSERT_TRUE(std::holds_alternative<TargetAccess>(byfile));
	EXPECT_EQ(std::get<TargetAccess>(byfile).offsets, std::get<TargetAccess>(e).offsets);

	// a compressed module (as 6.12's are): the same BTF
	auto dir = sys::TempDir::create("btf-xz");
	ASSERT_TRUE(dir);
	std::string drm = btf::find_module(options61(), "drm", nullptr);
	sys::Spawn xz;
	xz.argv = {"sh", "-c", "xz -c \"$0\" > \"$1\"", drm, dir->path() + "/drm.ko.xz"};
	auto st = sys::run(xz, 120);
	ASSERT_TRUE(st && *st == 0);
	btf::Options o = options61();
	o.module_files = {dir->path() + "/drm.ko.xz"};
	BtfKernelFacts xzf(o);
	CastAccess fromxz = xzf.cast_access("drm", "struct drm_device", {"driver", "name"});
	ASSERT_TRUE(std::holds_alternative<TargetAccess>(fromxz)) << std::get<CastError>(fromxz).msg;
	CastAccess plain = facts61().cast_access("drm", "struct drm_device", {"driver", "name"});
	EXPECT_EQ(std::get<TargetAccess>(fromxz).offsets, std::get<TargetAccess>(plain).offsets);

	CastAccess none = facts61().cast_access("no_such_mod", "struct drm_device", {"driver"});
	ASSERT_TRUE(std::holds_alternative<CastError>(none));
	EXPECT_EQ(std::get<CastError>(none).part, CastError::Module);
	EXPECT_EQ(std::get<CastError>(none).msg, "@cast(..., \"no_such_mod\") needs no_such_mod.ko for "
						 "its BTF: not found in /lib/modules/" + release61());
	CastAccess nofile = facts61().cast_access("/no/such.ko", "struct drm_device", {"driver"});
	ASSERT_TRUE(std::holds_alternative<CastError>(nofile));
	EXPECT_EQ(std::get<CastError>(nofile).msg, "@cast's module file /no/such.ko does not exist");
}

TEST(BtfFacts, ModuleFunctions)
{
	auto fns = facts61().functions("ext4", "ext4_file_read_iter");
	ASSERT_TRUE(fns) << fns.error().what;
	ASSERT_EQ(fns->size(), 1u);
	const KernelFunction &f = (*fns)[0];
	EXPECT_EQ(f.module, "ext4");
	EXPECT_EQ(fs::path(f.info_file).filename(), "ext4.ko");
	EXPECT_EQ(describe_vars(f, true), "$iocb:struct kiocb* $to:struct iov_iter* $return:ssize_t");
	EXPECT_EQ(f.params[0].arg, 0);
	EXPECT_EQ(f.params[1].arg, 1);
	auto acc = facts61().target_access(f, "$iocb->ki_filp->f_path->dentry", false);
	ASSERT_TRUE(acc) << acc.error().what;
	EXPECT_EQ(acc->offsets.size(), 2u);
	EXPECT_EQ(acc->offsets[1], offset_of("file_f_path") + offset_of("path_dentry"));
	// a module's functions are its own, not the kernel's it builds on
	auto k = facts61().functions("ext4", "vfs_read");
	ASSERT_FALSE(k);
	auto missing = facts61().functions("no_such_mod", "f");
	ASSERT_FALSE(missing);
	EXPECT_EQ(missing.error().what, "module(\"no_such_mod\") needs no_such_mod.ko for its BTF: not "
					"found in /lib/modules/" + release61());
}

TEST(BtfFacts, StaticFunctionsOfSeveralFiles)
{
	// acpi_power_off is static in two files, with different parameters;
	// add_grec too (its skb agrees, its pmc does not)
	KernelFunction f = function61("acpi_power_off");
	ASSERT_EQ(f.params.size(), 1u);
	EXPECT_EQ(f.params[0].arg, -1);
	auto r = facts61().target_access(f, "$" + f.params[0].name, false);
	ASSERT_FALSE(r);
	EXPECT_NE(r.error().what.find("2 functions are named acpi_power_off"), std::string::npos)
		<< r.error().what;
	KernelFunction g = function61("add_grec");
	ASSERT_GE(g.params.size(), 2u);
	EXPECT_EQ(g.params[0].name, "skb");
	EXPECT_EQ(g.params[0].arg, 0);
	EXPECT_EQ(g.params[1].arg, -1);
	EXPECT_TRUE(facts61().target_access(g, "$skb->len", false));
	EXPECT_FALSE(facts61().target_access(g, "$pmc", false));
}

TEST(BtfFacts, TracepointsAreNotInBtf)
{
	TracepointLookup t = facts61().tracepoints("sched");
	ASSERT_TRUE(std::holds_alternative<TracepointError>(t));
	EXPECT_FALSE(std::get<TracepointError>(t).unknown_subsystem);
}

TEST(BtfFacts, RawBtfAndElfAgree)
{
	std::string vmlinux = function61("vfs_read").info_file;
	auto data = sys::read_file(vmlinux, 1u << 30);
	ASSERT_TRUE(data);
	auto blob = btf::find_blob(*data);
	ASSERT_TRUE(blob);
	auto dir = sys::TempDir::create("btf-raw");
	ASSERT_TRUE(dir);
	std::string raw = dir->path() + "/vmlinux.btf";
	std::ofstream(raw, std::ios::binary) << data->substr(blob->offset, blob->size);
	auto a = btf::Btf::open(vmlinux), b = btf::Btf::open(raw);
	ASSERT_TRUE(a && b) << (b ? "" : b.error().what);
	EXPECT_EQ((*a)->end_id(), (*b)->end_id());
	EXPECT_GT((*a)->end_id(), 50000u);
	EXPECT_EQ((*a)->find("vfs_read", btf::Kind::Func), (*b)->find("vfs_read", btf::Kind::Func));
	auto nobtf = btf::Btf::open(dir->path());
	EXPECT_FALSE(nobtf);
	auto sys_btf = btf::Btf::open("/sys/kernel/btf/vmlinux"); // the running kernel's
	ASSERT_TRUE(sys_btf) << sys_btf.error().what;
	EXPECT_NE((*sys_btf)->find("vfs_read", btf::Kind::Func), 0u);
}

TEST(BtfFacts, FindBlobChecksTheHeader)
{
	// header, 12 bytes of types (one INT), strings "\0int\0"
	std::string blob("\x9f\xeb\x01\x00", 4);
	auto u32 = [&](uint32_t v) { blob.append(reinterpret_cast<const char *>(&v), 4); };
	for (uint32_t v : {24u, 0u, 16u, 16u, 5u})
		u32(v);
	for (uint32_t v : {1u, 1u << 24, 4u, 32u})
		u32(v); // name "int", kind INT, size 4, 32 bits
	blob += std::string("\0int\0", 5);
	std::string data = std::string(1000, 'x') + blob + std::string(7, '\0');
	auto b = btf::find_blob(data);
	ASSERT_TRUE(b);
	EXPECT_EQ(b->offset, 1000u);
	EXPECT_EQ(b->size, blob.size());
	EXPECT_FALSE(btf::find_blob(data.substr(0, 1000 + blob.size() - 1))); // cut short
	std::string v2 = data;
	v2[1002] = 2; // version 2
	EXPECT_FALSE(btf::find_blob(v2));
	std::string longer = data;
	longer[1000 + 20] = 100; // str_len past the end
	EXPECT_FALSE(btf::find_blob(longer));
}

TEST(BtfFacts, Arm64ImageBtf)
{
	std::string image = arm64_image();
	ASSERT_FALSE(image.empty());
	auto head = sys::read_file(image, 4);
	ASSERT_TRUE(head);
	EXPECT_NE(*head, "\x7f" "ELF"); // a raw Image: the BTF is found by its header
	auto b = btf::Btf::open(image);
	ASSERT_TRUE(b) << b.error().what;
	uint32_t id = (*b)->find("vfs_read", btf::Kind::Func);
	ASSERT_NE(id, 0u);
	std::vector<btf::Param> ps = (*b)->params((*b)->type(id).ref);
	ASSERT_EQ(ps.size(), 4u);
	EXPECT_EQ(ps[0].name, "file");
	EXPECT_EQ(ps[3].name, "pos");

	std::string release = fs::path(image).filename().string().substr(8);
	auto src = btf::kernel_btf_source(release, Arch::Arm64);
	ASSERT_TRUE(src) << src.error().what;
	EXPECT_EQ(*src, image);
	btf::Options o;
	o.release = release;
	o.arch = Arch::Arm64;
	BtfKernelFacts arm(o);
	auto fns = arm.functions("", "vfs_read");
	ASSERT_TRUE(fns) << fns.error().what;
	EXPECT_EQ(describe_vars((*fns)[0], false),
		  "$file:struct file* $buf:char* $count:size_t $pos:loff_t*");
	for (int i = 0; i < 4; i++)
		EXPECT_EQ((*fns)[0].params[i].arg, i);
}

TEST(BtfFacts, MissingKernelBtf)
{
	btf::Options o = options61();
	o.btf_file = "/no/such/vmlinux";
	BtfKernelFacts f(o);
	auto r = f.functions("", "vfs_read");
	ASSERT_FALSE(r);
	EXPECT_EQ(r.error().what.rfind(
			  "kernel.function needs the kernel's BTF: cannot read /no/such/vmlinux", 0),
		  0u)
		<< r.error().what;
	CastAccess c = f.cast_access("kernel", "struct file", {"f_pos"});
	ASSERT_TRUE(std::holds_alternative<CastError>(c));
	EXPECT_EQ(std::get<CastError>(c).msg.rfind("@cast(..., \"kernel\") needs the kernel's BTF: ", 0),
		  0u);
	auto none = btf::kernel_btf_source("0.0.0-none", Arch::X86_64);
	ASSERT_FALSE(none);
	EXPECT_EQ(none.error().what.rfind("kernel.function needs the kernel's BTF: ", 0), 0u);
}
