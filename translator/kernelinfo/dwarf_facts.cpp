// dwarf_facts.cpp - DwarfKernelFacts: KernelFacts answered by dwarf::Reader
// and tracequery::Tracepoints.
#include "translator/kernelinfo/dwarf_facts.h"

namespace stap_pmu {

DwarfKernelFacts::DwarfKernelFacts(dwarf::Options opts,
				   std::unique_ptr<const tracequery::QueryModuleBuilder> builder)
	: builder_(std::move(builder)), reader_(std::move(opts)),
	  tracepoints_(builder_.get(), reader_)
{
}

Result<std::vector<KernelFunction>> DwarfKernelFacts::functions(const std::string &module,
								const std::string &pattern) const
{
	return reader_.find_functions(module, pattern);
}

Result<TargetAccess> DwarfKernelFacts::target_access(const KernelFunction &f,
						     const std::string &spelling,
						     bool in_return) const
{
	return reader_.target_access(f, spelling, in_return);
}

CastAccess DwarfKernelFacts::cast_access(const std::string &module, const std::string &type,
					 const std::vector<std::string> &members) const
{
	return reader_.cast_access(module, type, members);
}

TracepointLookup DwarfKernelFacts::tracepoints(const std::string &sys) const
{
	return tracepoints_.subsystem(sys);
}

} // namespace stap_pmu
