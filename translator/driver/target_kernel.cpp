// target_kernel.cpp - the target kernel's facts for passes 1 and 2.
#include "translator/driver/target_kernel.h"

#include <sys/utsname.h>

#include <iostream>

#include "translator/builder/tracequery_build.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/kernelinfo/syscalls.h"
#include "translator/kernelinfo/target_facts.h"
#include "translator/support/file.h"
#include "translator/support/paths.h"
#include "translator/support/release.h"

namespace stap_pmu {

PreprocInput host_preproc_input()
{
	PreprocInput in;
	struct utsname u;
	if (uname(&u) == 0) {
		in.kernel_vr = u.release;
		in.kernel_v = release_version(u.release);
	}
	return in;
}

PreprocInput preproc_input_from_tree(const std::string &dir, const std::string &release, Arch arch)
{
	PreprocInput in;
	in.kernel_vr = release;
	in.kernel_v = release_version(release);
	in.arch = arch;
	for (const char *name : {"/include/config/auto.conf", "/.config"}) {
		std::optional<std::string> text = sys::read_file(dir + name);
		if (!text)
			continue;
		in.config = KernelConfig::parse(std::move(*text));
		break;
	}
	return in;
}

namespace {

struct TreeFacts {
	PreprocInput pp;
	std::string tree; // "" : no tree
};

// (a tree whose configuration names no architecture stap-pmu knows is
// taken as the target's: pass 4 says what it is)
TreeFacts from_tree(const std::string &dir, const std::string &release, std::optional<Arch> tree,
		    Arch target)
{
	return {preproc_input_from_tree(dir, release, tree.value_or(target)), dir};
}

// Kernel facts for %( %) conditionals: the tree pass 4 will build against
// (the guest's with --vm); the host's uname when there is none.
TreeFacts preproc_facts(const Cli &cli)
{
	PreprocInput host = host_preproc_input();
	host.arch = cli.arch;
	if (cli.arch != host_arch()) {
		// the unpacked foreign kernel pass 4 builds against
		Result<kernel::GuestKernel> g = kernel::find_foreign_kernel(cli.arch, cli.release);
		return g ? from_tree(g->build_dir, g->release, g->arch, cli.arch) : TreeFacts{host, ""};
	}
	if (cli.vm) {
		Result<kernel::GuestKernel> g = kernel::find_guest_kernel(cli.release, false, false);
		return g ? from_tree(g->build_dir, g->release, g->arch, cli.arch) : TreeFacts{host, ""};
	}
	Result<kernel::BuildTree> t = kernel::find_build_tree(cli.release);
	return t ? from_tree(t->dir, t->release, t->arch, cli.arch) : TreeFacts{host, ""};
}

// The target kernel's generated syscall.* tapset (kernelinfo/syscalls.h),
// when its tree has the prototypes; without, those aliases do not exist.
// With -v, a note of what it holds (SystemTap's '?': calls the kernel lacks
// are skipped).
std::optional<std::string> syscall_tapsets(const std::string &tree, const PreprocInput &pp,
					   bool verbose)
{
	if (tree.empty())
		return std::nullopt;
	Result<syscalls::GeneratedTapset> g =
		syscalls::tapset_dir(tree, pp.kernel_vr, pp.arch, pp.config);
	if (!g) {
		if (verbose)
			std::cerr << "stap-pmu: no syscall.* aliases: " << g.error().what << "\n";
		return std::nullopt;
	}
	if (verbose && !g->checked)
		std::cerr << "stap-pmu: syscall.* aliases of " << pp.kernel_vr
			  << " not checked against its symbol table: each probe point is optional\n";
	else if (verbose && g->generated)
		std::cerr << "stap-pmu: syscall.* aliases of " << pp.kernel_vr << ": " << g->aliases
			  << " system calls; " << g->lacking
			  << " of syscalls.h have no wrapper in the kernel, skipped\n";
	return g->dir;
}

} // namespace

ParseOptions parse_options(const Cli &cli)
{
	ParseOptions po;
	TreeFacts t = preproc_facts(cli);
	// moved: the config's index has some 8000 entries (a copy shares the
	// text but copies the index)
	po.pp = std::move(t.pp);
	po.pp.guru = cli.guru;
	if (!cli.compatible.empty())
		po.pp.compatible = cli.compatible;
	po.pp.args = cli.script_args;
	for (const std::string &d : cli.defines) {
		size_t eq = d.find('=');
		po.pp.defines[d.substr(0, eq)] = eq == std::string::npos ? "1" : d.substr(eq + 1);
	}
	po.tapset_dirs = cli.include_dirs;
	po.tapset_dirs.push_back(tapset_dir());
	po.syscall_tapsets = [tree = t.tree, verbose = cli.verbose > 0](const PreprocInput &pp) {
		return syscall_tapsets(tree, pp, verbose);
	};
	return po;
}

// The target kernel's facts for pass 2 and -l/-L (kernelinfo/target_facts.h):
// DWARF where it exists, BTF elsewhere, the kernel's symbol table, and the
// builder of tracepoint query modules (builder/tracequery_build.h).
std::unique_ptr<KernelFacts> target_kernel_facts(const Cli &cli, const ParseOptions &po)
{
	TargetFactsOptions o;
	o.dwarf.release = po.pp.kernel_vr;
	o.dwarf.module_dirs = cli.module_dirs;
	o.dwarf.module_files = cli.vm_modules;
	o.dwarf.vmlinux = cli.vmlinux;
	o.btf.release = po.pp.kernel_vr;
	o.btf.arch = cli.arch;
	o.btf.module_dirs = cli.module_dirs;
	o.btf.module_files = cli.vm_modules;
	o.btf.use_cache = !cli.no_cache;
	// kernel.trace: the tracepoint query modules
	tracequery::BuilderOptions to;
	to.release = cli.release;
	to.arch = cli.arch;
	to.vm = cli.vm;
	to.kbuild_vars = cli.kbuild_vars;
	to.use_cache = !cli.no_cache;
	to.caches = cli.caches;
	to.verbose = cli.verbose > 0;
	return std::make_unique<TargetKernelFacts>(
		std::move(o), std::make_unique<tracequery::KbuildQueryModuleBuilder>(to));
}

} // namespace stap_pmu
