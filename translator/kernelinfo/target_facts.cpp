// target_facts.cpp - TargetKernelFacts: DWARF where it exists, BTF
// elsewhere, the kernel's symbol table for what kprobes can probe.
#include "translator/kernelinfo/target_facts.h"

#include <sys/utsname.h>

#include <fstream>

#include "translator/kernelinfo/kernel.h"

namespace stap_pmu {

namespace {

// /proc/kallsyms shows addresses (not all zero: kptr_restrict hides them
// from the unprivileged, and then nothing can be told from them)
bool kallsyms_usable(const std::string &path)
{
	std::ifstream in(path);
	std::string addr;
	return in >> addr && addr.find_first_not_of('0') != std::string::npos;
}

bool has_wildcard(const std::string &pattern)
{
	return pattern.find_first_of("*?[") != std::string::npos;
}

} // namespace

Result<std::string> symbol_source(const std::string &release, Arch arch)
{
	if (arch != host_arch()) {
		Result<kernel::GuestKernel> k = kernel::find_foreign_kernel(arch, release);
		if (!k)
			return k.error();
		return k->vmlinuz;
	}
	struct utsname u;
	if (uname(&u) == 0 && release == u.release && kallsyms_usable("/proc/kallsyms"))
		return std::string("/proc/kallsyms");
	Result<kernel::GuestKernel> k = kernel::find_guest_kernel(release, true, false);
	if (!k)
		return k.error();
	if (k->vmlinux.empty())
		return fail("cannot read the symbols of " + k->vmlinuz + ": it could not be extracted");
	return k->vmlinux;
}

TargetKernelFacts::TargetKernelFacts(TargetFactsOptions opts,
				     std::unique_ptr<const tracequery::QueryModuleBuilder> builder)
	: opts_(opts), dwarf_(std::move(opts.dwarf), std::move(builder)),
	  btf_(std::move(opts.btf))
{
}

const KernelFacts &TargetKernelFacts::source(const std::string &module) const
{
	auto it = has_dwarf_.find(module);
	if (it == has_dwarf_.end())
		it = has_dwarf_.emplace(module, dwarf_.has_dwarf(module)).first;
	if (it->second)
		return dwarf_;
	return btf_;
}

const ksyms::SymbolTable *TargetKernelFacts::symbols() const
{
	if (!symbols_) {
		Result<std::string> path = !opts_.symbols.empty()
						   ? Result<std::string>(opts_.symbols)
						   : symbol_source(opts_.btf.release, opts_.btf.arch);
		if (!path)
			symbols_ = Result<ksyms::SymbolTable>(path.error());
		else if (path->find("kallsyms") != std::string::npos)
			symbols_ = ksyms::read_kallsyms(*path);
		else
			symbols_ = ksyms::read_image_cached(
				*path, opts_.btf.use_cache ? kernel::cache_dir() : "");
	}
	return *symbols_ ? &**symbols_ : nullptr;
}

Result<std::vector<KernelFunction>> TargetKernelFacts::probeable(std::vector<KernelFunction> fns,
								 const std::string &pattern) const
{
	const ksyms::SymbolTable *syms = symbols();
	if (!syms)
		return fns;
	std::vector<KernelFunction> out;
	std::string first, why;
	for (KernelFunction &f : fns) {
		std::string w = f.offset ? "" // a line of a function DWARF found
			      : !syms->has_text(f.name)
				      ? "it has no symbol of its own in the kernel (the compiler "
					"inlined or renamed it)"
				      : syms->why_not_probeable(f.name);
		if (w.empty()) {
			out.push_back(std::move(f));
		} else if (first.empty()) {
			first = f.name;
			why = w;
		}
	}
	if (!out.empty())
		return out;
	if (has_wildcard(pattern))
		return fail("no function matching '" + pattern + "' can be probed (" + first + ": " +
			    why + ")");
	return fail("cannot probe " + first + ": " + why,
		    "probe a function that calls it, or list what can be probed with "
		    "-l 'kernel.function(\"PATTERN\")'");
}

Result<std::vector<KernelFunction>> TargetKernelFacts::functions(const std::string &module,
								 const std::string &pattern) const
{
	Result<std::vector<KernelFunction>> fns = source(module).functions(module, pattern);
	if (!fns || !module.empty())
		return fns;
	return probeable(std::move(*fns), pattern);
}

Result<TargetAccess> TargetKernelFacts::target_access(const KernelFunction &f,
						      const std::string &spelling,
						      bool in_return) const
{
	// tracepoint prototypes come from the query modules' DWARF
	const KernelFacts &src = f.tracepoint ? dwarf_ : source(f.module);
	return src.target_access(f, spelling, in_return);
}

Result<KernelFacts::Pretty> TargetKernelFacts::type_members(const KernelFunction &f,
							     const std::string &spelling,
							     bool in_return, int depth) const
{
	const KernelFacts &src = f.tracepoint ? dwarf_ : source(f.module);
	return src.type_members(f, spelling, in_return, depth);
}

Result<std::vector<KernelParam>> TargetKernelFacts::locals(const KernelFunction &f) const
{
	return source(f.module).locals(f);
}

CastAccess TargetKernelFacts::cast_access(const std::string &module, const std::string &type,
					  const std::vector<std::string> &members) const
{
	std::vector<std::string> mods = cast_modules(module);
	std::string first = mods.empty() || mods[0] == "kernel" ? "" : mods[0];
	return source(first).cast_access(module, type, members);
}

TracepointLookup TargetKernelFacts::tracepoints(const std::string &sys) const
{
	return dwarf_.tracepoints(sys);
}

SymbolCheck TargetKernelFacts::check_symbol(const std::string &module,
					    const std::string &name) const
{
	const ksyms::SymbolTable *syms = module.empty() ? symbols() : nullptr;
	if (!syms)
		return {};
	SymbolCheck c;
	c.known = true;
	if (!syms->has_text(name)) {
		c.nearest = syms->nearest(name, 3, true);
		return c;
	}
	c.why_not = syms->why_not_probeable(name);
	c.found = c.why_not.empty();
	return c;
}

std::optional<SymbolDelta> TargetKernelFacts::symbol_delta(const std::string &name) const
{
	const ksyms::SymbolTable *syms = symbols();
	if (!syms)
		return std::nullopt;
	std::vector<const ksyms::Symbol *> same = syms->named(name);
	std::vector<const ksyms::Symbol *> anchor = syms->text("register_kprobe");
	if (same.size() != 1 || !syms->is_text(*same[0]) || anchor.size() != 1 ||
	    !same[0]->addr || !anchor[0]->addr)
		return std::nullopt;
	// kallsyms names an address by the first symbol there, in its order
	return SymbolDelta{static_cast<int64_t>(same[0]->addr - anchor[0]->addr),
			   std::string(syms->shown_name(*same[0]))};
}

} // namespace stap_pmu
