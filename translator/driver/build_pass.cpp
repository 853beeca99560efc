// build_pass.cpp - pass 4: target kernel, module cache, kbuild, signing.
#include "translator/driver/build_pass.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <iostream>

#include "pmu/pmu.h"
#include "translator/builder/boot.h"
#include "translator/builder/cache.h"
#include "translator/builder/kbuild.h"
#include "translator/builder/sign.h"
#include "translator/codegen/cmap.h"
#include "translator/support/paths.h"

namespace fs = std::filesystem;

namespace stap_pmu {

namespace {

// The running host cannot load modules when it has no module support at all.
Status check_host_can_load()
{
	// root first: it is what a user on an ordinary host can fix
	if (geteuid() != 0)
		return fail("loading a kernel module needs root; run stap-pmu as root (or use --vm)");
	if (!fs::exists("/proc/modules"))
		return fail("this kernel cannot load modules (no /proc/modules); run the script in a "
			    "guest with --vm");
	return {};
}

// The kernel we build for: the unpacked foreign one with -a / --vm-arch, the
// guest's with --vm, else the host's build tree (-r).
Status find_target_kernel(const Cli &cli, BuildTarget &bt)
{
	if (bt.foreign || cli.vm) {
		Result<kernel::GuestKernel> g =
			bt.foreign ? kernel::find_foreign_kernel(bt.arch, cli.release)
				   : kernel::find_guest_kernel(cli.release, cli.pass >= 5, cli.verbose > 0);
		if (!g)
			return g.error();
		bt.guest = std::move(*g);
		bt.tree = {bt.guest.build_dir, bt.guest.release, bt.guest.arch};
		return {};
	}
	Result<kernel::BuildTree> t = kernel::find_build_tree(cli.release);
	if (!t)
		return t.error();
	bt.tree = std::move(*t);
	return {};
}

// kbuild's input for pass 3's C; -B NAME=VALUE split into CROSS_COMPILE and
// the rest of make's variables.
Result<KbuildRequest> kbuild_request(const BuildRequest &req, const std::string &work)
{
	const BuildTarget &bt = *req.target;
	KbuildRequest kr;
	kr.module_name = req.module_name;
	kr.c_source = req.translated->c_source;
	kr.build_tree = bt.tree.dir;
	kr.runtime_dir = fs::absolute(runtime_dir()).string();
	kr.work_dir = work;
	kr.debug_info = req.debug_info;
	kr.replay = req.kbuild_replay;
	kr.recipe_dir = req.caches.kbuild_recipes;
	kr.build_log = req.caches.kbuild_log;
	kr.verbose = req.verbose;
	for (const std::string &v : req.kbuild_vars) {
		if (v.find('=') == std::string::npos || v.find('\n') != std::string::npos)
			return fail("bad -B option '" + v + "': expected NAME=VALUE");
		if (v.rfind("CROSS_COMPILE=", 0) == 0)
			kr.cross_compile = v.substr(strlen("CROSS_COMPILE="));
		else
			kr.make_vars.push_back(v);
	}
	if (bt.foreign) {
		kr.arch = bt.tree.arch;
		if (kr.cross_compile.empty() && bt.arch == Arch::Arm64)
			kr.cross_compile = "aarch64-linux-gnu-";
	}
	return kr;
}

// Pass 4 failed: the compiler's errors at the script locations of the C
// they are in (codegen/cmap.h), make's whole output with -v; the work
// directory stays for the user to look at.
Error kbuild_failed(const BuildRequest &req, const KbuildError &kres, WorkDir &work)
{
	if (req.verbose)
		std::cerr << kres.log;
	work.keep();
	std::string where = " (generated C kept in " + work.path() + ")";
	if (!kres.c_path.empty()) {
		std::vector<const SourceFile *> sources{req.parsed->source.get()};
		for (const auto &t : req.parsed->tapset_sources)
			sources.push_back(t.get());
		std::cerr << cmap::explain_failure(kres.log, req.translated->c_source, kres.c_path,
						   sources, req.topts->defines)
				     .text;
		if (!kres.log_path.empty())
			where = "; make's output is in " + kres.log_path + ", the C in " + kres.c_path;
	}
	return fail(kres.what + where);
}

// Pass 3's C compiled into NAME.ko in the work directory and stored in the
// module cache.
Result<std::string> compile(const BuildRequest &req, WorkDir &work, Timer &timer)
{
	if (Status st = work.create(); !st)
		return st.error();
	timer.pass("Pass 3: translated to C into \"" + work.path() + "/" + req.module_name + ".c\"");
	Result<KbuildRequest> kr = kbuild_request(req, work.path());
	if (!kr)
		return kr.error();
	KbuildResult kres = kbuild(*kr);
	if (!kres) {
		timer.pass("Pass 4: compilation failed");
		return kbuild_failed(req, kres.error(), work);
	}
	timer.pass("Pass 4: compiled C into \"" + req.module_name + ".ko\" for " +
		   req.target->tree.release);
	if (req.verbose)
		std::cerr << "kbuild: " << kres->how << "\n";
	if (!req.cache_key.empty()) {
		const std::string &dir = req.caches.modules;
		if (Result<std::string> p = cache::store(dir, req.cache_key, req.module_name, kres->ko_path);
		    !p)
			std::cerr << "stap-pmu: warning: module cache: " << p.error().what << "\n";
		else if (req.verbose)
			std::cerr << "Pass 4: stored in the module cache (" << dir << "/"
				  << req.cache_key << ")\n";
	}
	return kres->ko_path;
}

// --sign-module KEY CERT: a signed copy of the module in the work directory.
Result<std::string> sign_copy(const BuildRequest &req, const std::string &ko_path, WorkDir &work)
{
	if (Status st = work.create(); !st)
		return st.error();
	std::string signed_ko = work.path() + "/signed/" + req.module_name + ".ko";
	std::error_code ec;
	fs::create_directories(work.path() + "/signed", ec);
	fs::copy_file(ko_path, signed_ko, fs::copy_options::overwrite_existing, ec);
	if (ec)
		return fail("cannot copy the module to sign it: " + ec.message());
	const std::string &tree = req.target->tree.dir;
	if (Status st = sign::sign_module(tree, req.sign_module[0], req.sign_module[1], signed_ko); !st)
		return st.error();
	if (req.verbose)
		std::cerr << "Pass 4: signed " << signed_ko << " (sha256, " << req.sign_module[1] << ")\n";
	return signed_ko;
}

} // namespace

Result<BuildTarget> resolve_build_target(const Cli &cli)
{
	// -a ARCH / --vm-arch ARCH: a foreign arch builds against the kernel that
	// scripts/install-deps.sh unpacked, cross-compiling with kbuild.
	BuildTarget bt;
	bt.arch = cli.arch;
	bt.foreign = bt.arch != host_arch();
	if (cli.pass >= 5 && !cli.vm && bt.foreign) {
		std::string a = debian_arch(bt.arch);
		return fail("a module built for " + a + " cannot be loaded on this " +
			    debian_arch(host_arch()) + " host; add --vm to run it in an " + a + " guest");
	}
	if (cli.pass >= 5 && !cli.vm)
		if (Status st = check_host_can_load(); !st) // before spending seconds in kbuild
			return st.error();
	// Pass 4: the kernel we build for is the guest's with --vm.
	if (Status st = find_target_kernel(cli, bt); !st)
		return st.error();
	return bt;
}

std::string module_cache_key(const Cli &cli, const Parsed &parsed, const TranslateOptions &topts,
			     const BuildTarget &bt, const std::string &module_name)
{
	cache::Key k;
	k.add("stap-pmu", STAP_PMU_VERSION);
	k.add_file_stat("exe", "/proc/self/exe");
	cache::add_dir(k, "runtime", runtime_dir());
	k.add("script.name", parsed.source->name());
	k.add("script", parsed.source->text());
	for (const std::string &a : cli.script_args)
		k.add("arg", a);
	for (const auto &t : parsed.tapset_sources) {
		k.add("tapset.name", t->name());
		k.add("tapset", t->text());
	}
	k.add("module", module_name);
	for (const std::string &t : topts.pmu_targets)
		k.add("pmu.target", t);
	if (std::find(topts.pmu_targets.begin(), topts.pmu_targets.end(), "host") !=
	    topts.pmu_targets.end()) {
		pmu::CpuId c = pmu::Resolver::host_cpu();
		k.add("host.cpu", c.vendor + " " + std::to_string(c.family) + "/" +
					  std::to_string(c.model) + "/" + std::to_string(c.stepping));
	}
	k.add("pmu.fallback", topts.pmu_fallback);
	k.add("pmu.arch", arch_name(topts.arch));
	k.add("libpfm", pmu::Resolver::pfm_version());
	for (const auto &[n, v] : topts.defines)
		k.add("define", n + "=" + v);
	for (const std::string &v : cli.kbuild_vars)
		k.add("kbuild.var", v);
	k.add("guru", cli.guru ? "1" : "0");
	k.add("debuginfo", cli.module_debuginfo ? "1" : "0");
	k.add("compatible", cli.compatible); // %( systemtap_v %) picks tokens
	k.add("arch", debian_arch(bt.arch));
	k.add("vm", cli.vm ? "1" : "0");
	cache::add_build_tree(k, bt.tree.dir, bt.tree.release);
	// DWARF inputs of kernel.function/module() probe points
	if (!cli.vmlinux.empty())
		k.add_file_stat("vmlinux", cli.vmlinux);
	for (const std::string &d : cli.module_dirs)
		k.add_file_stat("module.dir", d);
	for (const std::string &m : cli.vm_modules)
		k.add_file_stat("vm.module", m);
	return k.hex();
}

Status WorkDir::create()
{
	if (exists())
		return {};
	Result<sys::TempDir> dir = sys::TempDir::create("stap-pmu");
	if (!dir)
		return dir.error();
	path_ = dir->path();
	if (keep_)
		dir->keep();
	else
		dir_.emplace(std::move(*dir));
	return {};
}

void WorkDir::keep()
{
	if (dir_)
		dir_->keep();
}

Result<Built> build_pass(const BuildRequest &req, WorkDir &work, Timer &timer)
{
	Built b;
	if (req.translated) {
		Result<std::string> ko = compile(req, work, timer);
		if (!ko)
			return ko.error();
		b.ko_path = *ko;
	} else {
		b.ko_path = req.cached_ko;
		if (req.verbose)
			std::cerr << "Pass 3-4: using cached module " << b.ko_path << "\n";
	}
	if (!req.sign_module.empty()) {
		Result<std::string> signed_ko = sign_copy(req, b.ko_path, work);
		if (!signed_ko)
			return signed_ko.error();
		b.ko_path = *signed_ko;
	}
	return b;
}

Result<bool> deliver(const Cli &cli, const Built &built, const std::string &module_name)
{
	if (!cli.initramfs.empty()) {
		if (Status st = boot::append_to_initramfs(cli.initramfs, built.ko_path, module_name); !st)
			return st.error();
		std::cout << "added " << module_name << ".ko to " << cli.initramfs
			  << "; boot with rdinit=" << boot::kBootInit << " to load it before /init\n";
		return true;
	}
	if (cli.pass == 4 || !cli.module_name.empty()) {
		fs::path dest = fs::current_path() / (module_name + ".ko");
		std::error_code ec;
		fs::copy_file(built.ko_path, dest, fs::copy_options::overwrite_existing, ec);
		if (ec)
			return fail("cannot write " + dest.string() + ": " + ec.message());
		if (cli.pass == 4) {
			std::cout << dest.string() << "\n";
			return true;
		}
	}
	return false;
}

Result<int> clean_cache(const CacheLocations &caches)
{
	const std::string &dir = caches.modules;
	Result<int> n = cache::clean(dir);
	if (!n)
		return n.error();
	std::cout << "removed " << *n << " cached module" << (*n == 1 ? "" : "s") << " from " << dir
		  << "\n";
	return 0;
}

} // namespace stap_pmu
