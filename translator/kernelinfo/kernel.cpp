// kernel.cpp - kernel build tree and guest kernel discovery.
#include "translator/kernelinfo/kernel.h"
#include "translator/support/process.h"
#include "translator/support/arch.h"
#include "translator/support/file.h"
#include "translator/support/locations.h"
#include "translator/support/sysutil.h"
#include "translator/support/text.h"

#include <elf.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

namespace fs = std::filesystem;

namespace stap_pmu::kernel {

namespace {

bool is_dir(const std::string &p)
{
	struct stat sb;
	return stat(p.c_str(), &sb) == 0 && S_ISDIR(sb.st_mode);
}

bool is_file(const std::string &p)
{
	struct stat sb;
	return stat(p.c_str(), &sb) == 0 && S_ISREG(sb.st_mode);
}

// A directory kbuild can use: a Makefile plus the generated configuration.
bool looks_like_tree(const std::string &dir)
{
	return is_file(dir + "/Makefile") &&
	       (is_file(dir + "/include/generated/autoconf.h") || is_file(dir + "/.config"));
}

Result<BuildTree> make_tree(const std::string &dir)
{
	BuildTree t;
	std::error_code ec;
	fs::path canon = fs::canonical(dir, ec);
	t.dir = ec ? dir : canon.string();
	auto rel = tree_release(t.dir);
	if (!rel)
		return fail(dir + " is not a configured kernel build tree (no "
				  "include/generated/utsrelease.h or include/config/kernel.release)");
	t.release = *rel;
	t.arch = tree_arch(t.dir);
	return t;
}

std::string uname_release()
{
	struct utsname u;
	if (uname(&u) != 0)
		return "";
	return u.release;
}

} // namespace

std::optional<std::string> tree_release(const std::string &dir)
{
	if (auto s = sys::read_file(dir + "/include/generated/utsrelease.h", 1 << 20)) {
		const std::string key = "UTS_RELEASE \"";
		size_t a = s->find(key);
		if (a != std::string::npos) {
			a += key.size();
			size_t b = s->find('"', a);
			if (b != std::string::npos && b > a)
				return s->substr(a, b - a);
		}
	}
	if (auto s = sys::read_file(dir + "/include/config/kernel.release", 1 << 20)) {
		std::string r = text::trim(*s);
		if (!r.empty())
			return r;
	}
	return std::nullopt;
}

namespace {

// A tree's configuration as read once: include/generated/autoconf.h, else
// .config (a tree that was never built has only the latter).
struct TreeConfig {
	std::optional<std::string> text;
	bool autoconf = false;

	explicit TreeConfig(const std::string &dir)
	    : text(sys::read_file(dir + "/include/generated/autoconf.h", 8 << 20)),
	      autoconf(text.has_value())
	{
		if (!text)
			text = sys::read_file(dir + "/.config", 8 << 20);
	}
	bool set(const std::string &sym) const
	{
		return text && text->find(autoconf ? "#define " + sym + " 1\n" : "\n" + sym + "=y\n") !=
				       std::string::npos;
	}
};

} // namespace

bool tree_config_set(const std::string &dir, const std::string &sym)
{
	return TreeConfig(dir).set(sym);
}

std::optional<Arch> tree_arch(const std::string &dir)
{
	TreeConfig config(dir); // one read for both
	if (config.set("CONFIG_X86_64"))
		return Arch::X86_64;
	if (config.set("CONFIG_ARM64"))
		return Arch::Arm64;
	return std::nullopt;
}

std::string tree_arch_name(std::optional<Arch> arch)
{
	return arch ? arch_name(*arch) : "an architecture stap-pmu does not build for";
}

int compare_versions(std::string_view a, std::string_view b)
{
	size_t i = 0, j = 0;
	auto digit = [](char c) { return c >= '0' && c <= '9'; };
	while (i < a.size() && j < b.size()) {
		if (digit(a[i]) && digit(b[j])) {
			size_t i0 = i, j0 = j;
			while (i0 < a.size() && a[i0] == '0')
				i0++;
			while (j0 < b.size() && b[j0] == '0')
				j0++;
			size_t i1 = i0, j1 = j0;
			while (i1 < a.size() && digit(a[i1]))
				i1++;
			while (j1 < b.size() && digit(b[j1]))
				j1++;
			if (i1 - i0 != j1 - j0)
				return i1 - i0 < j1 - j0 ? -1 : 1;
			int c = a.substr(i0, i1 - i0).compare(b.substr(j0, j1 - j0));
			if (c)
				return c < 0 ? -1 : 1;
			i = i1;
			j = j1;
			continue;
		}
		if (a[i] != b[j])
			return (unsigned char)a[i] < (unsigned char)b[j] ? -1 : 1;
		i++;
		j++;
	}
	if (i < a.size())
		return 1;
	if (j < b.size())
		return -1;
	return 0;
}

void sort_versions(std::vector<std::string> &v)
{
	std::sort(v.begin(), v.end(),
		  [](const std::string &a, const std::string &b) { return compare_versions(a, b) < 0; });
}

std::optional<std::string> metapackage_line(const std::string &dpkg_status, Arch arch)
{
	auto s = sys::read_file(dpkg_status, 256 << 20);
	if (!s)
		return std::nullopt;
	const std::string pkg = "Package: linux-image-" + std::string(debian_arch(arch)) + "\n";
	for (size_t p = s->find(pkg); p != std::string::npos; p = s->find(pkg, p + 1)) {
		if (p != 0 && (*s)[p - 1] != '\n')
			continue;
		size_t end = s->find("\n\n", p);
		std::string stanza = s->substr(p, end == std::string::npos ? std::string::npos : end - p);
		if (stanza.find("\nStatus: install ok installed\n") == std::string::npos)
			continue;
		size_t d = stanza.find("\nDepends: ");
		if (d == std::string::npos)
			continue;
		std::string deps = stanza.substr(d + 10, stanza.find('\n', d + 1) - d - 10);
		std::istringstream list(deps);
		for (std::string dep; std::getline(list, dep, ',');) {
			std::string name = text::trim(dep.substr(0, dep.find_first_of("(|")));
			if (name.rfind("linux-image-", 0) != 0)
				continue;
			if (auto n = parse_release(name.substr(strlen("linux-image-"))))
				return n->line;
		}
	}
	return std::nullopt;
}

std::optional<std::string> pick_default_release(const std::vector<std::string> &releases, Arch arch,
						const std::optional<std::string> &line)
{
	std::vector<std::string> stock;
	for (const std::string &r : releases)
		if (auto n = parse_release(r); n && n->flavour == debian_arch(arch))
			stock.push_back(r);
	if (stock.empty())
		return std::nullopt;
	sort_versions(stock);
	std::string want = parse_release(stock.front())->line; // the oldest line
	if (line)
		for (const std::string &r : stock)
			if (parse_release(r)->line == *line)
				want = *line;
	for (auto it = stock.rbegin(); it != stock.rend(); ++it)
		if (parse_release(*it)->line == want)
			return *it;
	return std::nullopt;
}

std::optional<std::string> default_line(Arch arch, const std::string &root)
{
	return metapackage_line(root + "/var/lib/dpkg/status", arch);
}

namespace {

std::string list_of(const std::vector<std::string> &v)
{
	std::string s;
	for (const std::string &x : v)
		s += (s.empty() ? "" : ", ") + x;
	return s;
}

// The default build tree of a host that cannot use its running kernel's.
Result<BuildTree> default_build_tree(const std::string &root)
{
	Arch host = host_arch();
	std::string arch = debian_arch(host);
	std::string suffix = "-" + arch;
	std::vector<std::string> found;
	std::error_code ec;
	for (const auto &e : fs::directory_iterator(root + "/usr/src", ec)) {
		std::string n = e.path().filename().string();
		if (n.rfind("linux-headers-", 0) != 0 || n.size() <= suffix.size() ||
		    n.compare(n.size() - suffix.size(), suffix.size(), suffix) != 0)
			continue;
		if (looks_like_tree(e.path().string()))
			found.push_back(n.substr(strlen("linux-headers-")));
	}
	if (found.empty())
		return fail("no kernel build tree found; install linux-headers-" + arch + " or use -r");
	auto pick = pick_default_release(found, host, default_line(host, root));
	if (!pick)
		return fail("no kernel build tree of the stock " + arch + " flavour (found: " +
			    list_of(found) + "); install linux-headers-" + arch + " or name one with -r");
	return make_tree(root + "/usr/src/linux-headers-" + *pick);
}

} // namespace

Result<BuildTree> find_build_tree(const std::string &release_or_dir, const std::string &root)
{
	const std::string &arg = release_or_dir;
	if (!arg.empty() && arg.find('/') != std::string::npos) {
		if (!is_dir(arg))
			return fail("kernel build tree " + arg + " does not exist");
		if (!looks_like_tree(arg))
			return fail(arg + " is not a configured kernel build tree (no Makefile and "
					  "include/generated/autoconf.h)");
		return make_tree(arg);
	}
	if (!arg.empty()) {
		std::string mod = root + "/lib/modules/" + arg + "/build",
			    src = root + "/usr/src/linux-headers-" + arg;
		for (const std::string &d : {mod, src})
			if (looks_like_tree(d))
				return make_tree(d);
		if (std::string b = built_kernel_dir(arg); !b.empty() && looks_like_tree(b + "/build"))
			return make_tree(b + "/build");
		return fail("no kernel build tree for " + arg + " (looked in " + mod + " and " + src +
			    "); install linux-headers-" + arg);
	}
	std::string running = uname_release();
	if (!running.empty() && looks_like_tree(root + "/lib/modules/" + running + "/build"))
		return make_tree(root + "/lib/modules/" + running + "/build");
	return default_build_tree(root);
}

std::string cache_dir()
{
	return CacheLocations::from_environment().root;
}

std::string built_kernels_root()
{
	const char *e = getenv("STAP_PMU_KERNEL_CACHE");
	if (e && *e == '/')
		return e;
	return cache_dir() + "/kernels";
}

std::string built_kernel_dir(const std::string &release)
{
	if (release.empty() || release.find('/') != std::string::npos)
		return "";
	std::vector<std::string> found;
	std::error_code ec;
	for (const auto &e : fs::directory_iterator(built_kernels_root(), ec)) {
		std::string d = e.path().string();
		if (!is_file(d + "/complete"))
			continue;
		std::optional<std::string> r = sys::read_file(d + "/release", 256);
		if (r && text::trim(*r) == release)
			found.push_back(d);
	}
	// the same release from several configurations: the newest build
	std::sort(found.begin(), found.end(), [](const std::string &a, const std::string &b) {
		struct stat sa, sb;
		stat((a + "/complete").c_str(), &sa);
		stat((b + "/complete").c_str(), &sb);
		return sa.st_mtime != sb.st_mtime ? sa.st_mtime < sb.st_mtime : a < b;
	});
	return found.empty() ? "" : found.back();
}

std::string modules_dir(const std::string &release)
{
	std::string d = "/lib/modules/" + release;
	if (is_dir(d))
		return d;
	std::string b = built_kernel_dir(release);
	return b.empty() ? d : b + "/lib/modules/" + release;
}

std::vector<std::string> foreign_kernel_roots(Arch arch)
{
	std::vector<std::string> v;
	std::string name = debian_arch(arch);
	std::string up = name;
	for (char &c : up)
		c = (char)toupper((unsigned char)c);
	if (const char *e = getenv(("STAP_PMU_" + up + "_ROOT").c_str()); e && *e)
		v.push_back(e);
	v.push_back("/var/cache/stap-pmu/" + name);
	v.push_back(cache_dir() + "/" + name);
	return v;
}

namespace {

// A kernel built by scripts/debug-kernel.sh: its bzImage boots (QEMU exits at
// once on the PVH entry of the KASAN vmlinux), or on arm64 its Image; its
// vmlinux, nothing extracted, gives BTF and symbols.
Result<GuestKernel> built_guest_kernel(const std::string &dir)
{
	Result<BuildTree> t = find_build_tree(dir + "/build");
	if (!t)
		return t.error();
	GuestKernel k;
	k.release = t->release;
	k.build_dir = t->dir;
	k.arch = t->arch;
	k.vmlinuz = dir + (k.arch == Arch::Arm64 ? "/Image" : "/bzImage");
	k.boot = k.vmlinuz;
	k.pseudo_nmi = k.arch == Arch::Arm64 && tree_config_set(k.build_dir, "CONFIG_ARM64_PSEUDO_NMI");
	if (is_complete_elf(dir + "/vmlinux"))
		k.vmlinux = dir + "/vmlinux";
	if (access(k.boot_image().c_str(), R_OK) != 0)
		return fail("cannot read " + k.boot_image() + ": " + strerror(errno) +
			    "; run scripts/debug-kernel.sh again");
	return k;
}

// The arm64 kernel scripts/debug-kernel.sh built in dir: booted with the
// static busybox of an unpacked (install-deps.sh) kernel of that architecture.
Result<GuestKernel> built_foreign_kernel(Arch arch, const std::string &dir,
					 const std::vector<std::string> &roots)
{
	Result<GuestKernel> k = built_guest_kernel(dir);
	if (!k)
		return k;
	if (k->arch != arch)
		return fail("kernel " + k->release + " in " + dir + " is built for " +
			    tree_arch_name(k->arch) + ", not " +
			    arch_name(arch));
	for (const std::string &root : roots) {
		std::error_code ec;
		for (const auto &e : fs::directory_iterator(root, ec)) {
			std::string bb = e.path().string() + "/bin/busybox";
			if (is_file(e.path().string() + "/.complete") && is_file(bb)) {
				k->busybox = bb;
				return k;
			}
		}
	}
	return fail("no static " + std::string(debian_arch(arch)) + " busybox for the guest of " + k->release +
		    " (none unpacked in " + roots.front() + " or the other roots); run " +
		    "scripts/install-deps.sh as root");
}

} // namespace

Result<GuestKernel> find_foreign_kernel(Arch arch, const std::string &release,
					const std::string &sysroot)
{
	auto roots = foreign_kernel_roots(arch);
	const std::string debian = debian_arch(arch);
	// a kernel scripts/debug-kernel.sh built ("6.1.192-debug-arm64")
	if (!release.empty() && sysroot.empty())
		if (std::string b = built_kernel_dir(release); !b.empty())
			return built_foreign_kernel(arch, b, roots);
	for (const std::string &root : roots) {
		std::vector<std::string> rels;
		std::error_code ec;
		for (const auto &e : fs::directory_iterator(root, ec)) {
			std::string n = e.path().filename().string();
			if (!is_file(e.path().string() + "/.complete"))
				continue;
			if (release.empty() || n == release)
				rels.push_back(n);
		}
		if (rels.empty())
			continue;
		// the default: the stock flavour of the host's default line (kernel.h)
		auto pick = release.empty() ? pick_default_release(rels, arch,
								   default_line(host_arch(), sysroot))
					    : std::optional<std::string>(rels.front());
		if (!pick)
			return fail("no " + debian + " kernel of the stock flavour in " + root +
				    " (found: " + list_of(rels) + "); name one with -r");
		GuestKernel k;
		std::string base = root + "/" + *pick;
		k.release = *pick;
		k.vmlinuz = base + "/boot/vmlinuz-" + k.release;
		Result<BuildTree> t = find_build_tree(base + "/usr/src/linux-headers-" + k.release);
		if (!t)
			return t.error();
		k.build_dir = t->dir;
		k.arch = t->arch;
		k.pseudo_nmi = k.arch == Arch::Arm64 && tree_config_set(k.build_dir, "CONFIG_ARM64_PSEUDO_NMI");
		k.busybox = base + "/bin/busybox";
		if (!is_file(k.vmlinuz))
			return fail("unpacked " + debian + " kernel " + base + " has no " + k.vmlinuz +
				    "; run scripts/install-deps.sh again");
		return k;
	}
	std::string where;
	for (const auto &r : roots)
		where += (where.empty() ? "" : ", ") + r;
	return fail("no " + debian + " kernel " + (release.empty() ? "" : release + " ") +
		    "unpacked in " + where + "; run scripts/install-deps.sh as root (it downloads " +
		    "linux-headers, linux-image and busybox-static for " + debian + ")");
}

std::vector<size_t> find_xz_offsets(std::string_view data)
{
	static const char magic[] = "\xfd" "7zXZ";
	std::string_view m(magic, 6); // includes the terminating NUL of the literal
	std::vector<size_t> out;
	for (size_t p = data.find(m); p != std::string_view::npos; p = data.find(m, p + 1))
		out.push_back(p);
	return out;
}

bool is_complete_elf(const std::string &path)
{
	sys::Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
	if (!fd)
		return false;
	struct stat sb;
	Elf64_Ehdr eh;
	bool ok = fstat(fd.get(), &sb) == 0 && pread(fd.get(), &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
		  memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64;
	if (ok) {
		uint64_t size = (uint64_t)sb.st_size;
		ok = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize <= size &&
		     eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize <= size &&
		     eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum > 0;
		for (unsigned i = 0; ok && i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd.get(), &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) !=
			    (ssize_t)sizeof ph)
				ok = false;
			else if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > size)
				ok = false;
		}
	}
	return ok;
}


std::vector<size_t> find_zstd_offsets(std::string_view data)
{
	std::string_view m("\x28\xb5\x2f\xfd", 4); // a zstd frame's magic, little-endian 0xFD2FB528
	std::vector<size_t> out;
	for (size_t p = data.find(m); p != std::string_view::npos; p = data.find(m, p + 1))
		out.push_back(p);
	return out;
}

namespace {

// Decompresses the XZ stream at data[off] into the open file `out` with xz -dc.
// An error only when xz cannot run; whether it gave a kernel is the caller's ELF check.
Status unxz_at(const std::string &vmlinuz, size_t off, int out)
{
	sys::Fd in(open(vmlinuz.c_str(), O_RDONLY | O_CLOEXEC));
	if (!in || lseek(in.get(), (off_t)off, SEEK_SET) < 0)
		return fail("cannot read " + vmlinuz + ": " + strerror(errno));
	sys::Spawn xz;
	xz.argv = {"xz", "-dc"};
	xz.in = in.get();
	xz.out = out;
	// xz complains about the bzImage bytes after the stream: its status is not
	// meaningful, the ELF check is.
	auto st = sys::run(xz, 120);
	if (!st && st.error().what.find("cannot run") == 0)
		return fail(st.error().what + " (install xz-utils)");
	return {};
}

// Decompresses the one zstd frame at data[off] into the open file `out` with
// libzstd; what follows the frame (the bzImage's size trailer) is ignored.
// False when the frame is corrupt or cannot be written.
bool unzstd_at(std::string_view data, size_t off, int out)
{
	std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream *)> ds(ZSTD_createDStream(),
								      ZSTD_freeDStream);
	if (!ds || ZSTD_isError(ZSTD_initDStream(ds.get())))
		return false;
	std::vector<char> buf(ZSTD_DStreamOutSize());
	ZSTD_inBuffer in{data.data() + off, data.size() - off, 0};
	for (;;) {
		ZSTD_outBuffer ob{buf.data(), buf.size(), 0};
		size_t r = ZSTD_decompressStream(ds.get(), &ob, &in);
		if (ZSTD_isError(r) || !sys::write_all(out, buf.data(), ob.pos))
			return false;
		if (r == 0)
			return true; // the frame is complete
		if (in.pos == in.size && ob.pos < ob.size)
			return false; // truncated
	}
}

} // namespace

Status extract_vmlinux(const std::string &vmlinuz, const std::string &out)
{
	auto data = sys::read_file(vmlinuz, 256 << 20);
	if (!data)
		return fail("cannot read " + vmlinuz + ": " + strerror(errno));
	auto xz = find_xz_offsets(*data);
	auto zstd = find_zstd_offsets(*data);
	if (xz.empty() && zstd.empty())
		return fail(vmlinuz + " contains no XZ or zstd stream");
	std::string tmp = out + ".tmp." + std::to_string(getpid());
	// every candidate stream, XZ ones first, until one gives a complete ELF
	for (size_t i = 0; i < xz.size() + zstd.size(); i++) {
		sys::Fd o(open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
		if (!o)
			return fail("cannot create " + tmp + ": " + strerror(errno));
		bool written = true;
		if (i < xz.size()) {
			if (Status st = unxz_at(vmlinuz, xz[i], o.get()); !st) {
				unlink(tmp.c_str());
				return st;
			}
		} else {
			written = unzstd_at(*data, zstd[i - xz.size()], o.get());
		}
		o.reset();
		if (written && is_complete_elf(tmp)) {
			if (rename(tmp.c_str(), out.c_str()) != 0) {
				Error e = fail("cannot rename " + tmp + ": " + strerror(errno));
				unlink(tmp.c_str());
				return e;
			}
			return {};
		}
	}
	unlink(tmp.c_str());
	return fail("no XZ or zstd stream in " + vmlinuz + " decompresses to a complete ELF kernel");
}

namespace {

// /boot/vmlinuz-RELEASE, or every /boot/vmlinuz-* in version order.
Result<std::vector<std::string>> guest_releases(const std::string &release,
						const std::string &root)
{
	std::vector<std::string> releases;
	if (!release.empty()) {
		if (!is_file(root + "/boot/vmlinuz-" + release))
			return fail("no guest kernel " + root + "/boot/vmlinuz-" + release +
				    "; install linux-image-" + release);
		releases.push_back(release);
		return releases;
	}
	std::error_code ec;
	for (const auto &e : fs::directory_iterator(root + "/boot", ec)) {
		std::string n = e.path().filename().string();
		if (n.rfind("vmlinuz-", 0) == 0 && n.size() > 8 && is_file(e.path().string()))
			releases.push_back(n.substr(8));
	}
	sort_versions(releases);
	return releases;
}

// The uncompressed kernel of k from the cache, extracted there on first use;
// on failure a warning, and k boots its compressed image.
void add_vmlinux(GuestKernel &k, bool verbose)
{
	std::string dir = cache_dir();
	std::string cached = dir + "/vmlinux-" + k.release;
	struct stat zs, cs;
	if (stat(cached.c_str(), &cs) == 0 && stat(k.vmlinuz.c_str(), &zs) == 0 &&
	    cs.st_mtime >= zs.st_mtime && is_complete_elf(cached)) {
		k.vmlinux = cached;
		return;
	}
	std::error_code ec;
	fs::create_directories(dir, ec);
	std::string why;
	if (ec) {
		why = "cannot create " + dir + ": " + ec.message();
	} else if (Status st = extract_vmlinux(k.vmlinuz, cached); st) {
		k.vmlinux = cached;
	} else {
		why = st.error().what;
	}
	if (k.vmlinux.empty())
		fprintf(stderr, "stap-pmu: warning: %s; booting the compressed %s (slower)\n", why.c_str(),
			k.vmlinuz.c_str());
	else if (verbose)
		fprintf(stderr, "stap-pmu: extracted %s\n", cached.c_str());
}

} // namespace


Result<GuestKernel> find_guest_kernel(const std::string &release, bool extract, bool verbose,
				      const std::string &root)
{
	if (!release.empty() && root.empty() && !is_file("/boot/vmlinuz-" + release))
		if (std::string b = built_kernel_dir(release); !b.empty()) {
			Result<GuestKernel> k = built_guest_kernel(b);
			if (k && k->arch != host_arch()) {
				std::string a = tree_arch_name(k->arch);
				return fail("kernel " + release + " is built for " + a +
					    (k->arch ? "; select it with -a " + a : ""));
			}
			return k;
		}
	Result<std::vector<std::string>> releases = guest_releases(release, root);
	if (!releases)
		return releases.error();
	std::vector<std::string> with_tree, without;
	for (const std::string &r : *releases)
		(find_build_tree(r, root) ? with_tree : without).push_back(r);
	Arch host = host_arch();
	std::string arch = debian_arch(host);
	if (with_tree.empty()) {
		if (releases->empty())
			return fail("no guest kernel found (no " + root + "/boot/vmlinuz-*); install "
				    "linux-image-" + arch + " and linux-headers-" + arch);
		return fail("no guest kernel with matching headers (kernels without headers: " +
			    list_of(without) + "); install linux-headers-" + arch);
	}
	GuestKernel k;
	if (!release.empty()) {
		k.release = release;
	} else if (auto pick = pick_default_release(with_tree, host, default_line(host, root))) {
		k.release = *pick;
	} else {
		return fail("no guest kernel of the stock " + arch + " flavour (found: " +
			    list_of(with_tree) + "); install linux-image-" + arch + " and linux-headers-" +
			    arch + ", or name one with -r");
	}
	Result<BuildTree> t = find_build_tree(k.release, root);
	k.build_dir = t->dir;
	k.arch = t->arch;
	k.vmlinuz = root + "/boot/vmlinuz-" + k.release;
	if (access(k.vmlinuz.c_str(), R_OK) != 0)
		return fail("cannot read " + k.vmlinuz + ": " + strerror(errno) +
			    " (run as root or make it readable)");
	if (extract)
		add_vmlinux(k, verbose);
	return k;
}

} // namespace stap_pmu::kernel
