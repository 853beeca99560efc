// dwarf_facts.h - the target kernel's facts (probes/kernel_facts.h) read
// from DWARF: vmlinux and module .ko files for functions, target variables
// and @cast, tracepoint query modules for kernel.trace.
#pragma once

#include <memory>

#include "translator/kernelinfo/dwarf.h"
#include "translator/kernelinfo/tracequery.h"
#include "translator/probes/kernel_facts.h"

namespace stap_pmu {

class DwarfKernelFacts : public KernelFacts {
public:
	// builder: builds the tracepoint query modules (nullptr: kernel.trace
	// cannot be resolved).
	DwarfKernelFacts(dwarf::Options opts,
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
		return tracepoints_.declaring(event_glob);
	}
	Result<Pretty> type_members(const KernelFunction &f, const std::string &spelling,
				    bool in_return, int depth) const override
	{
		return reader_.type_members(f, spelling, in_return, depth);
	}

	Result<std::vector<KernelParam>> locals(const KernelFunction &f) const override
	{
		return reader_.locals(f);
	}

	// Whether module ("" : the kernel, or a .ko path) has DWARF here.
	bool has_dwarf(const std::string &module) const { return reader_.has_dwarf(module); }

private:
	std::unique_ptr<const tracequery::QueryModuleBuilder> builder_;
	dwarf::Reader reader_;
	tracequery::Tracepoints tracepoints_;
};

} // namespace stap_pmu
