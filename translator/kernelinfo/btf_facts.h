// btf_facts.h - the target kernel's facts (probes/kernel_facts.h) read from
// BTF, which stock kernels carry (no debuginfo): kernel.function and
// module("m").function by name or wildcard with their prototypes,
// $param->member chains and $return at entry and return, and @cast. BTF has
// no source files, lines, locals or tracepoint prototypes: "func@file:line"
// is refused with a message that names DWARF, and tracepoints() always
// fails (the DWARF / tracepoint query side answers those).
#pragma once

#include <memory>

#include "translator/kernelinfo/btf.h"
#include "translator/probes/kernel_facts.h"

namespace stap_pmu {

class BtfKernelFacts : public KernelFacts {
public:
	explicit BtfKernelFacts(btf::Options opts);
	~BtfKernelFacts() override;
	BtfKernelFacts(const BtfKernelFacts &) = delete;
	BtfKernelFacts &operator=(const BtfKernelFacts &) = delete;

	Result<std::vector<KernelFunction>> functions(const std::string &module,
						      const std::string &pattern) const override;
	Result<TargetAccess> target_access(const KernelFunction &f, const std::string &spelling,
					   bool in_return) const override;
	CastAccess cast_access(const std::string &module, const std::string &type,
			       const std::vector<std::string> &members) const override;
	TracepointLookup tracepoints(const std::string &sys) const override;
	Result<Pretty> type_members(const KernelFunction &f, const std::string &spelling,
				    bool in_return, int depth) const override;

	struct State; // the parsed BTFs (btf_facts.cpp)

private:
	Result<TargetAccess> access_of(const KernelFunction &f, const std::string &spelling,
				       bool in_return, uint32_t *end) const;

	btf::Options opts_;
	std::unique_ptr<State> state_;
};

} // namespace stap_pmu
