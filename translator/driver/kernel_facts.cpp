// kernel_facts.cpp - the target kernel's facts for passes 1 and 2.
#include "translator/driver/kernel_facts.h"

#include "translator/builder/tracequery_build.h"
#include "translator/kernelinfo/dwarf_facts.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/support/paths.h"

namespace stap_pmu {

namespace {

// Kernel facts for %( %) conditionals: the tree pass 4 will build against
// (the guest's with --vm); the host's uname when there is none.
PreprocInput preproc_facts(const Cli &cli)
{
	std::string arch = !cli.arch.empty() ? cli.arch : cli.vm_arch;
	if (!arch.empty() && kernel::normalize_arch(arch) != kernel::host_debian_arch()) {
		PreprocInput in = host_preproc_input();
		in.arch = kernel::normalize_arch(arch) == "arm64" ? "arm64" : arch;
		return in;
	}
	if (cli.vm) {
		Result<kernel::GuestKernel> g = kernel::find_guest_kernel(cli.release, false, false);
		return g ? preproc_input_from_tree(g->build_dir, g->release, g->arch)
			 : host_preproc_input();
	}
	Result<kernel::BuildTree> t = kernel::find_build_tree(cli.release);
	return t ? preproc_input_from_tree(t->dir, t->release, t->arch) : host_preproc_input();
}

} // namespace

ParseOptions parse_options(const Cli &cli)
{
	ParseOptions po;
	po.pp = preproc_facts(cli);
	po.pp.guru = cli.guru;
	po.pp.args = cli.script_args;
	for (const std::string &d : cli.defines) {
		size_t eq = d.find('=');
		po.pp.defines[d.substr(0, eq)] = eq == std::string::npos ? "1" : d.substr(eq + 1);
	}
	po.tapset_dirs = cli.include_dirs;
	po.tapset_dirs.push_back(tapset_dir());
	return po;
}

// The target kernel's facts for pass 2 and -l/-L: where kernel.function /
// module("m").function find DWARF (kernelinfo/dwarf.h), and the builder of
// tracepoint query modules (build/tracequery_build.h).
std::unique_ptr<KernelFacts> target_kernel_facts(const Cli &cli, const ParseOptions &po)
{
	dwarf::Options dc;
	dc.release = po.pp.kernel_vr;
	dc.module_dirs = cli.module_dirs;
	dc.module_files = cli.vm_modules;
	dc.vmlinux = cli.vmlinux;
	// kernel.trace: the tracepoint query modules
	tracequery::BuilderOptions to;
	to.release = cli.release;
	to.arch = !cli.arch.empty() ? cli.arch : cli.vm_arch;
	to.vm = cli.vm;
	to.kbuild_vars = cli.kbuild_vars;
	to.use_cache = !cli.no_cache;
	to.verbose = cli.verbose > 0;
	return std::make_unique<DwarfKernelFacts>(
		dc, std::make_unique<tracequery::KbuildQueryModuleBuilder>(to));
}

} // namespace stap_pmu
