// Unit tests for translator/kernelinfo/kallsyms.{h,cpp}: the symbol tables
// of the installed kernel images, decoded from their kallsyms tables and
// cross-checked against what the images say independently (the ELF
// __ksymtab of exported symbols, the arm64 Image's PE header and code).
#include "translator/kernelinfo/kallsyms.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/kernelinfo/target_facts.h"
#include "translator/support/suggest.h"

#include <elf.h>
#include <glob.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

using namespace stap_pmu;
using ksyms::Symbol;
using ksyms::SymbolTable;

namespace {

// The arm64 kernels unpacked by scripts/install-deps.sh.
std::vector<kernel::GuestKernel> arm64_kernels()
{
	std::vector<kernel::GuestKernel> out;
	for (const std::string &root : kernel::foreign_kernel_roots(Arch::Arm64)) {
		glob_t g{};
		if (glob((root + "/*/.complete").c_str(), 0, nullptr, &g) == 0)
			for (size_t i = 0; i < g.gl_pathc; ++i) {
				std::string dir = std::string(g.gl_pathv[i]);
				dir.resize(dir.size() - strlen("/.complete"));
				std::string rel = dir.substr(dir.rfind('/') + 1);
				auto k = kernel::find_foreign_kernel(Arch::Arm64, rel);
				if (k && std::none_of(out.begin(), out.end(), [&](const auto &o) {
					    return o.release == k->release;
				    }))
					out.push_back(*k);
			}
		globfree(&g);
	}
	return out;
}

std::string slurp(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	std::stringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

template <class T> T at(const std::string &d, size_t off)
{
	T v{};
	if (off + sizeof v <= d.size())
		std::memcpy(&v, d.data() + off, sizeof v);
	return v;
}

// The installed releases whose uncompressed vmlinux can be had (extracted
// into the cache on first use).
std::vector<kernel::GuestKernel> host_arch_kernels()
{
	std::vector<kernel::GuestKernel> out;
	glob_t g{};
	if (glob("/boot/vmlinuz-*", 0, nullptr, &g) == 0)
		for (size_t i = 0; i < g.gl_pathc; ++i) {
			std::string rel = std::string(g.gl_pathv[i]).substr(strlen("/boot/vmlinuz-"));
			auto k = kernel::find_guest_kernel(rel, true);
			if (k && !k->vmlinux.empty())
				out.push_back(*k);
		}
	globfree(&g);
	return out;
}

const Symbol *only_text(const SymbolTable &t, const std::string &name)
{
	auto v = t.text(name);
	return v.size() == 1 ? v[0] : nullptr;
}

// An ELF section's header by name.
std::optional<Elf64_Shdr> section(const std::string &d, const std::string &name)
{
	auto eh = at<Elf64_Ehdr>(d, 0);
	auto strtab = at<Elf64_Shdr>(d, eh.e_shoff + size_t{eh.e_shstrndx} * eh.e_shentsize);
	for (size_t i = 1; i < eh.e_shnum; ++i) {
		auto sh = at<Elf64_Shdr>(d, eh.e_shoff + i * eh.e_shentsize);
		if (strtab.sh_offset + sh.sh_name < d.size() &&
		    name == d.c_str() + strtab.sh_offset + sh.sh_name)
			return sh;
	}
	return std::nullopt;
}

// The exported symbols of an x86-64 vmlinux from __ksymtab and
// __ksymtab_gpl: struct kernel_symbol { int value_offset, name_offset,
// namespace_offset; }, each relative to its own address (PREL32).
std::vector<std::pair<std::string, uint64_t>> exports(const std::string &d)
{
	std::vector<std::pair<std::string, uint64_t>> out;
	auto strs = section(d, "__ksymtab_strings");
	for (const char *name : {"__ksymtab", "__ksymtab_gpl"}) {
		auto tab = section(d, name);
		if (!tab || !strs)
			continue;
		for (size_t i = 0; i + 12 <= tab->sh_size; i += 12) {
			uint64_t va = tab->sh_addr + i;
			uint64_t value = va + at<int32_t>(d, tab->sh_offset + i);
			uint64_t str = va + 4 + at<int32_t>(d, tab->sh_offset + i + 4);
			size_t off = strs->sh_offset + (str - strs->sh_addr);
			out.emplace_back(off < d.size() ? d.c_str() + off : "", value);
		}
	}
	return out;
}

// The kallsyms tables of a made-up raw image in one of the orders
// scripts/kallsyms.c has emitted, each table 8-aligned: up to 6.1
// (offsets, base, num_syms, names, markers, token table, token index),
// 6.2-6.3 and Debian's 6.1 (seqs_of_names before the token table), 6.4+
// (num_syms, names, markers, tokens, offsets, base, seqs_of_names). Token
// k expands to the character k, so a name's bytes are its tokens.
enum class Order { Old, OldSeqs, New };

// a symbol a fake image is written from (ksyms::Symbol only views its name)
struct FakeSym {
	std::string name;
	char type;
	uint64_t addr;
};

std::string fake_image(Order order, const std::vector<FakeSym> &syms, uint64_t base)
{
	std::string out(4096, '\x55');
	auto align = [&] { out.resize((out.size() + 7) & ~size_t{7}, '\0'); };
	auto put = [&](auto v) { out.append(reinterpret_cast<const char *>(&v), sizeof v); };
	auto offsets = [&] {
		align();
		for (const FakeSym &s : syms)
			put(static_cast<uint32_t>(s.addr - base));
		align();
		put(base);
	};
	auto seqs = [&] {
		align();
		for (size_t i = 0; i < syms.size(); ++i)
			out += std::string{char(i >> 16), char(i >> 8), char(i)};
	};
	if (order != Order::New)
		offsets();
	align();
	put(static_cast<uint32_t>(syms.size()));
	align();
	size_t names = out.size();
	std::vector<uint32_t> markers;
	for (size_t i = 0; i < syms.size(); ++i) {
		if (i % 256 == 0)
			markers.push_back(static_cast<uint32_t>(out.size() - names));
		out += char(syms[i].name.size() + 1);
		out += syms[i].type + syms[i].name;
	}
	align();
	for (uint32_t m : markers)
		put(m);
	if (order == Order::OldSeqs)
		seqs();
	align();
	std::vector<uint16_t> index;
	size_t table = out.size();
	for (int k = 0; k < 256; ++k) {
		index.push_back(static_cast<uint16_t>(out.size() - table));
		out += k == 0 ? std::string("zz") : std::string(1, char(k));
		out += '\0';
	}
	align();
	for (uint16_t i : index)
		put(i);
	if (order == Order::New) {
		offsets();
		seqs();
	}
	out += std::string(4096, '\x55');
	return out;
}

} // namespace

// Each table order decodes: names, types and addresses as written.
TEST(Kallsyms, TableOrders)
{
	const uint64_t base = 0xffffffff81000000;
	std::vector<FakeSym> syms;
	for (int i = 0; i < 700; ++i)
		syms.push_back({"func_" + std::to_string(i * 7919 % 1000), i % 3 ? 't' : 'T',
				base + 0x40 * static_cast<uint64_t>(i)});
	syms.push_back({"_sinittext", 'T', base + 0x100000});
	syms.push_back({"init_func", 't', base + 0x100040});
	syms.push_back({"_einittext", 'T', base + 0x100080});
	for (Order order : {Order::Old, Order::OldSeqs, Order::New}) {
		SCOPED_TRACE(static_cast<int>(order));
		std::string path = testing::TempDir() + "/kallsyms_test.image";
		{
			std::ofstream f(path, std::ios::binary);
			f << fake_image(order, syms, base);
		}
		auto t = ksyms::read_image(path);
		ASSERT_TRUE(t.ok()) << t.error().what;
		ASSERT_EQ(t->size(), syms.size());
		for (size_t i = 0; i < syms.size(); ++i) {
			EXPECT_EQ(t->symbols()[i].name, syms[i].name);
			EXPECT_EQ(t->symbols()[i].type, syms[i].type);
			EXPECT_EQ(t->symbols()[i].addr, syms[i].addr);
		}
		EXPECT_EQ(t->why_not_probeable("init_func"), "it is __init code");
		EXPECT_EQ(t->why_not_probeable("func_7"), "");
		EXPECT_FALSE(t->blacklist_known());
	}
}

// The table kept on disk reads back the same: every symbol, the hash index
// (lookups by name, several symbols of one name in address order), the
// init range and the blacklist of a real kernel; a damaged file is not
// trusted (the image is decoded again and the file rewritten); a changed
// image is another key.
TEST(Kallsyms, CachedTableReadsBackTheSame)
{
	auto kernels = host_arch_kernels();
	ASSERT_FALSE(kernels.empty()) << "no installed kernel with an extractable vmlinux";
	std::string root = testing::TempDir() + "/kallsyms_cache_test";
	std::filesystem::remove_all(root);
	const std::string &img = kernels.front().vmlinux;
	auto direct = ksyms::read_image(img);
	ASSERT_TRUE(direct.ok()) << direct.error().what;
	auto first = ksyms::read_image_cached(img, root); // decodes, writes the file
	ASSERT_TRUE(first.ok()) << first.error().what;
	std::vector<std::filesystem::path> files;
	for (const auto &e : std::filesystem::directory_iterator(root + "/ksyms"))
		files.push_back(e.path());
	ASSERT_EQ(files.size(), 1u);
	auto check = [&](const ksyms::SymbolTable &t) {
		ASSERT_EQ(t.size(), direct->size());
		for (size_t i = 0; i < t.size(); ++i) {
			const Symbol &a = t.symbols()[i], &b = direct->symbols()[i];
			ASSERT_TRUE(a.name == b.name && a.type == b.type && a.addr == b.addr) << i;
		}
		EXPECT_EQ(t.blacklist(), direct->blacklist());
		EXPECT_EQ(t.blacklist_known(), direct->blacklist_known());
		EXPECT_EQ(t.init_range().start, direct->init_range().start);
		EXPECT_EQ(t.text("vfs_read").size(), 1u);
		EXPECT_EQ(t.why_not_probeable("start_kernel"), "it is __init code");
		EXPECT_EQ(t.why_not_probeable("vfs_read"), "");
		EXPECT_EQ(t.named("_stext").size(), direct->named("_stext").size());
		EXPECT_FALSE(t.has_text("vfs_raed"));
		// a static name several files share: every one, in address order
		std::string shared;
		for (const Symbol &s : direct->symbols())
			if (direct->named(s.name).size() >= 2) {
				shared = std::string(s.name);
				break;
			}
		ASSERT_FALSE(shared.empty());
		auto many = t.named(shared), many0 = direct->named(shared);
		ASSERT_EQ(many.size(), many0.size());
		for (size_t i = 0; i < many.size(); ++i)
			EXPECT_EQ(many[i]->addr, many0[i]->addr);
	};
	// lookups before any walk over the symbols: a mapped table decodes
	// only the symbols a lookup looks at, and finds what the image has
	{
		auto lazy = ksyms::read_image_cached(img, root);
		ASSERT_TRUE(lazy.ok());
		auto v = lazy->text("vfs_read"), v0 = direct->text("vfs_read");
		ASSERT_EQ(v.size(), 1u);
		EXPECT_EQ(v[0]->addr, v0[0]->addr);
		EXPECT_EQ(lazy->why_not_probeable("start_kernel"), "it is __init code");
		// an alias kallsyms shows by the name before it: the same name
		// from the mapped table as from the image
		size_t aliases = 0;
		for (size_t i = 1; i < direct->size() && aliases < 20; ++i) {
			const Symbol &s = direct->symbols()[i];
			if (s.addr != direct->symbols()[i - 1].addr || direct->named(s.name).size() != 1)
				continue;
			auto l = lazy->named(s.name);
			ASSERT_EQ(l.size(), 1u) << s.name;
			std::string_view shown = direct->shown_name(*direct->named(s.name)[0]);
			EXPECT_NE(shown, s.name);
			EXPECT_EQ(lazy->shown_name(*l[0]), shown) << s.name;
			aliases++;
		}
		EXPECT_EQ(aliases, 20u);
		check(*lazy);
	}
	auto second = ksyms::read_image_cached(img, root); // maps the file
	ASSERT_TRUE(second.ok());
	check(*second);
	// the names view the mapping, which the table keeps alive past the file
	std::filesystem::remove(files[0]);
	EXPECT_EQ(second->text("vfs_read").size(), 1u);
	// damaged: cut in half, then a header that claims more than it holds
	auto again = ksyms::read_image_cached(img, root);
	ASSERT_TRUE(again.ok());
	auto size = std::filesystem::file_size(files[0]);
	std::filesystem::resize_file(files[0], size / 2);
	auto cut = ksyms::read_image_cached(img, root);
	ASSERT_TRUE(cut.ok());
	check(*cut);
	EXPECT_EQ(std::filesystem::file_size(files[0]), size); // written again
	{
		std::fstream f(files[0], std::ios::in | std::ios::out | std::ios::binary);
		f.seekp(8);
		uint64_t huge = 1ull << 40;
		f.write(reinterpret_cast<const char *>(&huge), sizeof huge);
	}
	auto bad = ksyms::read_image_cached(img, root);
	ASSERT_TRUE(bad.ok());
	check(*bad);
	// a damaged name index (not checked when the file is mapped): every
	// slot naming one symbol, then every slot past the symbols; lookups end
	// (a full round of the probe at most) and find nothing they should not
	auto fill_slots = [&](uint32_t v) {
		std::fstream f(files[0], std::ios::in | std::ios::out | std::ios::binary);
		uint64_t h[6];
		f.read(reinterpret_cast<char *>(h), sizeof h);
		uint64_t at = sizeof h + h[1] * 16 + ((h[2] + 7) & ~7ull);
		f.seekp(static_cast<std::streamoff>(at));
		std::vector<uint32_t> slots(h[3], v);
		f.write(reinterpret_cast<const char *>(slots.data()),
			static_cast<std::streamsize>(slots.size() * sizeof(uint32_t)));
	};
	ASSERT_TRUE(ksyms::read_image_cached(img, root).ok()); // a sound file again
	fill_slots(0);
	auto same = ksyms::read_image_cached(img, root);
	ASSERT_TRUE(same.ok());
	EXPECT_FALSE(same->has_text("vfs_read"));
	ASSERT_NE(same->find(direct->symbols()[0].name), nullptr);
	fill_slots(0xfffffff0u);
	auto past = ksyms::read_image_cached(img, root);
	ASSERT_TRUE(past.ok());
	EXPECT_EQ(past->find("vfs_read"), nullptr);
	EXPECT_TRUE(past->text("vfs_read").empty());
	// another image (a copy: another path and inode) gets its own entry
	std::string copy = root + "/vmlinux-copy";
	std::filesystem::copy_file(img, copy);
	ASSERT_TRUE(ksyms::read_image_cached(copy, root).ok());
	size_t n = 0;
	for (const auto &e : std::filesystem::directory_iterator(root + "/ksyms"))
		n += e.path().extension() == ".bin";
	EXPECT_EQ(n, 2u);
	std::filesystem::remove_all(root);
}

// Every installed amd64 kernel decodes to a plausible table whose facts
// agree with each other and with the image's own export table.
TEST(Kallsyms, HostKernelImages)
{
	auto kernels = host_arch_kernels();
	ASSERT_FALSE(kernels.empty()) << "no installed kernel with an extractable vmlinux";
	for (const auto &k : kernels) {
		SCOPED_TRACE(k.vmlinux);
		auto t = ksyms::read_image(k.vmlinux);
		ASSERT_TRUE(t.ok()) << t.error().what;
		EXPECT_GT(t->size(), 50000u);
		const auto &syms = t->symbols();
		EXPECT_TRUE(std::is_sorted(syms.begin(), syms.end(),
					   [](const Symbol &a, const Symbol &b) { return a.addr < b.addr; }));
		for (const char *f : {"__x64_sys_getpid", "vfs_read", "schedule", "do_int3"})
			EXPECT_TRUE(t->has_text(f)) << f;
		EXPECT_FALSE(t->has_text("__x64_sys_getpdi"));
		EXPECT_FALSE(t->has_text("jiffies")); // data
		const Symbol *dsys = only_text(*t, "__do_sys_getpid");
		ASSERT_NE(dsys, nullptr);
		EXPECT_EQ(dsys->type, 't'); // static
		const Symbol *vr = only_text(*t, "vfs_read");
		ASSERT_NE(vr, nullptr);
		EXPECT_EQ(vr->type, 'T');
		EXPECT_TRUE(t->text_range().contains(vr->addr));
		EXPECT_LT(t->init_range().start, t->init_range().end);
		EXPECT_FALSE(t->is_init(vr->addr));
		const Symbol *sk = only_text(*t, "start_kernel");
		ASSERT_NE(sk, nullptr);
		EXPECT_TRUE(t->is_init(sk->addr));
		EXPECT_FALSE(t->text_range().contains(sk->addr));

		// exported symbols: names and addresses from __ksymtab
		std::string d = slurp(k.vmlinux);
		auto ex = exports(d);
		EXPECT_GT(ex.size(), 5000u);
		size_t agree = 0;
		for (const auto &[name, addr] : ex) {
			auto all = t->named(name); // a static symbol may share the name
			bool same = std::any_of(all.begin(), all.end(),
						[&](const Symbol *s) { return s->addr == addr; });
			EXPECT_TRUE(same) << name;
			agree += same;
		}
		EXPECT_EQ(agree, ex.size());
		auto sched = std::find_if(ex.begin(), ex.end(),
					  [](const auto &e) { return e.first == "schedule"; });
		ASSERT_NE(sched, ex.end());
		EXPECT_EQ(t->find("schedule")->addr, sched->second);
	}
}

// What kprobes refuse: __init code, NOKPROBE_SYMBOL functions, noinstr.
TEST(Kallsyms, HostKernelProbeability)
{
	auto kernels = host_arch_kernels();
	ASSERT_FALSE(kernels.empty());
	for (const auto &k : kernels) {
		SCOPED_TRACE(k.vmlinux);
		auto t = ksyms::read_image(k.vmlinux);
		ASSERT_TRUE(t.ok()) << t.error().what;
		ASSERT_TRUE(t->blacklist_known());
		EXPECT_GT(t->blacklist().size(), 50u);
		// every entry is the start of a function
		size_t starts = 0;
		for (uint64_t a : t->blacklist())
			starts += std::any_of(t->symbols().begin(), t->symbols().end(),
					      [&](const Symbol &s) { return s.addr == a && t->is_text(s); });
		EXPECT_EQ(starts, t->blacklist().size());
		EXPECT_EQ(t->why_not_probeable("vfs_read"), "");
		EXPECT_EQ(t->why_not_probeable("__x64_sys_getpid"), "");
		EXPECT_EQ(t->why_not_probeable("start_kernel"), "it is __init code");
		// arch/x86/kernel/traps.c: NOKPROBE_SYMBOL(do_int3)
		EXPECT_EQ(t->why_not_probeable("do_int3"), "it is on the kernel's kprobe blacklist");
		EXPECT_EQ(t->why_not_probeable("kprobe_int3_handler"),
			  "it is on the kernel's kprobe blacklist");
		EXPECT_EQ(t->why_not_probeable("get_kprobe"), "it is on the kernel's kprobe blacklist");
		// entry_SYSCALL_64 is in .entry.text; __do_softirq's section is not refused
		EXPECT_EQ(t->why_not_probeable("entry_SYSCALL_64"),
			  "it is in the kernel's entry text, where kprobes are not allowed");
		EXPECT_EQ(t->why_not_probeable("__do_softirq"), "");
		// DEFINE_IDTENTRY_RAW(exc_int3) is noinstr
		EXPECT_EQ(t->why_not_probeable("exc_int3"),
			  "it is in the kernel's noinstr text, where kprobes are not allowed");
	}
}

TEST(Kallsyms, Nearest)
{
	auto kernels = host_arch_kernels();
	ASSERT_FALSE(kernels.empty());
	auto t = ksyms::read_image(kernels.front().vmlinux);
	ASSERT_TRUE(t.ok()) << t.error().what;
	auto n = t->nearest("__x64_sys_getpdi", 3);
	ASSERT_FALSE(n.empty());
	EXPECT_EQ(n[0], "__x64_sys_getpid");
	EXPECT_LE(n.size(), 3u);
	n = t->nearest("vfs_raed", 5);
	ASSERT_FALSE(n.empty());
	EXPECT_EQ(n[0], "vfs_read");
	n = t->nearest("SCHEDULE", 1);
	ASSERT_EQ(n.size(), 1u);
	EXPECT_EQ(n[0], "schedule");
	EXPECT_TRUE(t->nearest("zzzzqqqqxxxxwwww", 5).empty());
	// exc_int3 is noinstr: not offered when only probeable names are asked for
	n = t->nearest("exc_int2", 3);
	ASSERT_FALSE(n.empty());
	EXPECT_EQ(n[0], "exc_int3");
	n = t->nearest("exc_int2", 3, true);
	EXPECT_EQ(std::find(n.begin(), n.end(), "exc_int3"), n.end());
}

// The raw arm64 Images: no ELF headers, addresses relocated at boot.
TEST(Kallsyms, Arm64Images)
{
	auto kernels = arm64_kernels();
	ASSERT_FALSE(kernels.empty()) << "no arm64 kernel; run scripts/install-deps.sh";
	for (const auto &k : kernels) {
		SCOPED_TRACE(k.vmlinuz);
		auto t = ksyms::read_image(k.vmlinuz);
		ASSERT_TRUE(t.ok()) << t.error().what;
		EXPECT_GT(t->size(), 30000u);
		for (const char *f : {"__arm64_sys_getpid", "vfs_read", "schedule"})
			EXPECT_TRUE(t->has_text(f)) << f;
		EXPECT_FALSE(t->has_text("__x64_sys_getpid"));
		const auto &syms = t->symbols();
		EXPECT_TRUE(std::is_sorted(syms.begin(), syms.end(), [](const Symbol &a, const Symbol &b) {
			return a.addr < b.addr;
		}));
		const Symbol *vr = only_text(*t, "vfs_read");
		ASSERT_NE(vr, nullptr);
		EXPECT_TRUE(t->text_range().contains(vr->addr));
		const Symbol *sk = only_text(*t, "start_kernel");
		ASSERT_NE(sk, nullptr);
		EXPECT_TRUE(t->is_init(sk->addr));
		EXPECT_EQ(t->why_not_probeable("start_kernel"), "it is __init code");
		EXPECT_EQ(t->why_not_probeable("vfs_read"), "");
		// arch/arm64/kernel/patching.c: int __kprobes aarch64_insn_patch_text
		EXPECT_EQ(t->why_not_probeable("aarch64_insn_patch_text"),
			  "it is in the kernel's __kprobes text, where kprobes are not allowed");
		// kernel/kprobes.c: NOKPROBE_SYMBOL(get_kprobe), when the image
		// names its blacklist section (6.1's arm64 build has no data symbols)
		if (t->blacklist_known()) {
			EXPECT_EQ(t->why_not_probeable("get_kprobe"),
				  "it is on the kernel's kprobe blacklist");
		}
		EXPECT_EQ(t->nearest("__arm64_sys_getpdi", 1),
			  std::vector<std::string>{"__arm64_sys_getpid"});

		// The PE header's BaseOfCode is _stext's offset in the file: the
		// load address that follows is kernel space and 2 MB aligned, and
		// vfs_read there starts with the function entry (2 patchable
		// NOPs, then PACIASP or BTI C).
		std::string d = slurp(k.vmlinuz);
		uint32_t pe = at<uint32_t>(d, 0x3c);
		ASSERT_EQ(d.substr(pe, 4), std::string("PE\0\0", 4));
		uint32_t base_of_code = at<uint32_t>(d, pe + 24 + 20);
		const Symbol *stext = t->find("_stext");
		ASSERT_NE(stext, nullptr);
		uint64_t head = stext->addr - base_of_code;
		EXPECT_GE(head, uint64_t{0xffff} << 48);
		EXPECT_EQ(head % (2u << 20), 0u);
		bool entry = false;
		for (size_t i = 0; i < 4; ++i) {
			uint32_t insn = at<uint32_t>(d, vr->addr - head + 4 * i);
			entry |= insn == 0xd503233f || insn == 0xd503245f;
		}
		EXPECT_TRUE(entry);
	}
}

// /proc/kallsyms format: the image's own symbols written out and read back,
// module symbols skipped; and the running kernel's.
TEST(Kallsyms, ProcFormat)
{
	auto kernels = host_arch_kernels();
	ASSERT_FALSE(kernels.empty());
	auto img = ksyms::read_image(kernels.front().vmlinux);
	ASSERT_TRUE(img.ok()) << img.error().what;
	std::string path = testing::TempDir() + "/kallsyms_test.kallsyms";
	{
		std::ofstream f(path);
		char line[64];
		for (const Symbol &s : img->symbols()) {
			snprintf(line, sizeof line, "%016llx %c ", (unsigned long long)s.addr, s.type);
			f << line << s.name << "\n";
		}
		f << "ffffffffc0000000 t vfs_raed\t[fake_module]\n";
	}
	auto t = ksyms::read_kallsyms(path);
	ASSERT_TRUE(t.ok()) << t.error().what;
	ASSERT_EQ(t->size(), img->size());
	EXPECT_FALSE(t->has_text("vfs_raed"));
	EXPECT_EQ(only_text(*t, "vfs_read")->addr, only_text(*img, "vfs_read")->addr);
	EXPECT_EQ(t->init_range().start, img->init_range().start);
	EXPECT_EQ(t->why_not_probeable("start_kernel"), "it is __init code");
	EXPECT_EQ(t->nearest("__x64_sys_getpdi", 1), img->nearest("__x64_sys_getpdi", 1));

	auto host = ksyms::read_kallsyms("/proc/kallsyms");
	ASSERT_TRUE(host.ok()) << host.error().what;
	EXPECT_GT(host->size(), 10000u);
	EXPECT_TRUE(host->has_text("vfs_read"));
	EXPECT_TRUE(host->has_text("schedule"));
}

TEST(Kallsyms, Errors)
{
	auto missing = ksyms::read_image("/nonexistent/vmlinux");
	ASSERT_FALSE(missing.ok());
	EXPECT_EQ(missing.error().what,
		  "cannot read the kernel image /nonexistent/vmlinux: No such file or directory");
	EXPECT_FALSE(missing.error().hint.empty());

	std::string junk = testing::TempDir() + "/kallsyms_test.junk";
	{
		std::ofstream f(junk, std::ios::binary);
		for (int i = 0; i < 100000; ++i)
			f << "not a kernel " << i << "\n";
	}
	auto none = ksyms::read_image(junk);
	ASSERT_FALSE(none.ok());
	EXPECT_EQ(none.error().what, "no kallsyms tables found in " + junk);
	EXPECT_NE(none.error().hint.find("CONFIG_KALLSYMS"), std::string::npos);

	// the installed vmlinuz is a compressed bzImage
	auto kernels = host_arch_kernels();
	ASSERT_FALSE(kernels.empty());
	auto bz = ksyms::read_image(kernels.front().vmlinuz);
	ASSERT_FALSE(bz.ok());
	EXPECT_EQ(bz.error().what, kernels.front().vmlinuz +
					   " is a compressed kernel, not an uncompressed image");

	auto empty_file = ksyms::read_kallsyms(junk);
	ASSERT_FALSE(empty_file.ok());
	EXPECT_EQ(empty_file.error().what, junk + " holds no kernel symbols");
	auto no_file = ksyms::read_kallsyms("/nonexistent/kallsyms");
	ASSERT_FALSE(no_file.ok());
	EXPECT_EQ(no_file.error().what, "cannot read /nonexistent/kallsyms: No such file or directory");
}

// symbol_delta: a name's distance to register_kprobe in the target's symbol
// table, for names one symbol has (a kprobe by name takes the first of
// several; data symbols are not probed); module symbols are not in it.
TEST(Kallsyms, SymbolDeltaToRegisterKprobe)
{
	std::string path = testing::TempDir() + "/delta_test.kallsyms";
	{
		std::ofstream f(path);
		f << "ffffffff81000000 T _stext\n"
		  << "ffffffff81001000 t __do_sys_getpid\n"
		  << "ffffffff81001000 T __x64_sys_getpid\n"
		  << "ffffffff81002000 t dup_show\n"
		  << "ffffffff81003000 t dup_show\n"
		  << "ffffffff81004000 T register_kprobe\n"
		  << "ffffffff81005000 t vfs_read\n"
		  << "ffffffff81e00000 T _etext\n"
		  << "ffffffff82000000 D some_data\n"
		  << "ffffffffc0001000 t mod_fn\t[fake_module]\n";
	}
	TargetFactsOptions o;
	o.symbols = path;
	TargetKernelFacts facts(o, nullptr);
	using D = std::optional<SymbolDelta>;
	EXPECT_EQ(facts.symbol_delta("__x64_sys_getpid"), D(SymbolDelta{-0x3000, "__do_sys_getpid"}));
	EXPECT_EQ(facts.symbol_delta("__do_sys_getpid"), D(SymbolDelta{-0x3000, "__do_sys_getpid"}));
	EXPECT_EQ(facts.symbol_delta("vfs_read"), D(SymbolDelta{0x1000, "vfs_read"}));
	EXPECT_EQ(facts.symbol_delta("register_kprobe"), D(SymbolDelta{0, "register_kprobe"}));
	EXPECT_FALSE(facts.symbol_delta("dup_show"));
	EXPECT_FALSE(facts.symbol_delta("some_data"));
	EXPECT_FALSE(facts.symbol_delta("mod_fn"));
	EXPECT_FALSE(facts.symbol_delta("nosuch"));
}

// One distance for every "did you mean": a swap of two neighbours is one
// edit for symbol names and for script names alike.
TEST(Suggest, OneDistanceForEveryKindOfName)
{
	EXPECT_EQ(edit_distance("vfs_raed", "vfs_read"), 1u);
	EXPECT_EQ(edit_distance("VFS_READ", "vfs_read"), 7u); // all but the "_"
	EXPECT_EQ(edit_distance("VFS_READ", "vfs_read", true), 0u);
	EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
	EXPECT_EQ(closest_name("cuont", {"count", "other"}), "count");
	LetterBag bag("vfs_raed");
	EXPECT_EQ(bag("vfs_read"), 0u);
	EXPECT_LE(bag("kitten"), edit_distance("vfs_raed", "kitten", true));
}
