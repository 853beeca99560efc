// arch.cpp - which target architecture a PMU belongs to.
#include "pmu/arm64.h"
#include "pmu/intel_hybrid.h"
#include "pmu/internal.h"
#include "pmu/pmu.h"

namespace stap_pmu::pmu {

std::optional<Arch> Resolver::pmu_arch(const std::string &pmu)
{
	if (detail::find_arm_pmu(pmu))
		return Arch::Arm64;
	if (detail::find_hybrid_pmu(pmu))
		return Arch::X86_64;
	const detail::PmuDesc *p = detail::find_pmu(pmu);
	if (p && p->kind == detail::PmuKind::core)
		return Arch::X86_64; // the Debian build's tables are x86 only
	return std::nullopt;
}

} // namespace stap_pmu::pmu
