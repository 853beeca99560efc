// kernel.cpp - kernel build tree and guest kernel discovery (release order:
// kernel_release.cpp; vmlinux extraction: kernel_image.cpp).
#include "translator/kernelinfo/kernel.h"
#include "translator/support/arch.h"
#include "translator/support/file.h"
#include "translator/support/locations.h"
#include "translator/support/text.h"

#include <sys/stat.h>
#include <sys/utsname.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>

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
