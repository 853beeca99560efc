// target_facts.h - the target kernel's facts as pass 2 gets them
// (probes/kernel_facts.h), from the best source each question has:
// - DWARF where the kernel or a module has it (a debug vmlinux, a module
//   built with -g): functions with their files and lines, locals;
// - BTF everywhere else (every stock kernel carries it): functions,
//   prototypes and types, enough for $params, member chains, $return and
//   @cast;
// - the kernel's own symbol table (its kallsyms, read from the image, or
//   /proc/kallsyms when the target is the running kernel): which functions
//   kprobes can probe, and "did you mean" for kprobe.function;
// - tracepoint query modules for kernel.trace (with DWARF of their own).
// Every source is opened on the first question that needs it.
#pragma once

#include <map>
#include <memory>
#include <optional>

#include "translator/kernelinfo/btf_facts.h"
#include "translator/kernelinfo/dwarf_facts.h"
#include "translator/kernelinfo/kallsyms.h"

namespace stap_pmu {

struct TargetFactsOptions {
	dwarf::Options dwarf;
	btf::Options btf;
	// the kernel's symbol table: an image or a kallsyms file ("" : found
	// from btf.release and btf.arch, see symbol_source)
	std::string symbols;
};

// Where the target kernel's symbol table is read: /proc/kallsyms when the
// running kernel is the target, else the target's kernel image (the
// extracted vmlinux, or the arm64 Image).
Result<std::string> symbol_source(const std::string &release, Arch arch);

class TargetKernelFacts : public KernelFacts {
public:
	TargetKernelFacts(TargetFactsOptions opts,
			  std::unique_ptr<const tracequery::QueryModuleBuilder> builder);

	Result<std::vector<KernelFunction>> functions(const std::string &module,
						      const std::string &pattern) const override;
	Result<TargetAccess> target_access(const KernelFunction &f, const std::string &spelling,
					   bool in_return) const override;
	CastAccess cast_access(const std::string &module, const std::string &type,
			       const std::vector<std::string> &members) const override;
	TracepointLookup tracepoints(const std::string &sys) const override;
	std::vector<std::string> tracepoint_subsystems(const std::string &event_glob) const override
	{
		return dwarf_.tracepoint_subsystems(event_glob);
	}
	SymbolCheck check_symbol(const std::string &module, const std::string &name) const override;
	std::optional<SymbolDelta> symbol_delta(const std::string &name) const override;
	Result<Pretty> type_members(const KernelFunction &f, const std::string &spelling,
				    bool in_return, int depth) const override;
	Result<std::vector<KernelParam>> locals(const KernelFunction &f) const override;

private:
	// DWARF when module ("" : the kernel) has it, else BTF (remembered)
	const KernelFacts &source(const std::string &module) const;
	// the kernel's symbol table; nullptr when it cannot be read
	const ksyms::SymbolTable *symbols() const;
	// functions without the ones kprobes cannot probe (pattern: for errors)
	Result<std::vector<KernelFunction>> probeable(std::vector<KernelFunction> fns,
						      const std::string &pattern) const;

	TargetFactsOptions opts_;
	DwarfKernelFacts dwarf_;
	BtfKernelFacts btf_;
	mutable std::map<std::string, bool> has_dwarf_;
	mutable std::optional<Result<ksyms::SymbolTable>> symbols_;
};

} // namespace stap_pmu
