// arch.cpp - target architectures and which one a PMU belongs to.
#include "pmu/arm64.h"
#include "pmu/intel_hybrid.h"
#include "pmu/internal.h"
#include "pmu/pmu.h"

namespace stap_pmu::pmu {

std::optional<Arch> parse_arch(const std::string &name)
{
	if (name.empty())
		return host_arch();
	if (name == "x86_64" || name == "x86" || name == "amd64")
		return Arch::x86_64;
	if (name == "arm64" || name == "aarch64")
		return Arch::arm64;
	return std::nullopt;
}

Arch host_arch()
{
#if defined(__aarch64__)
	return Arch::arm64;
#else
	return Arch::x86_64;
#endif
}

const char *arch_name(Arch a)
{
	return a == Arch::arm64 ? "arm64" : "x86_64";
}

std::optional<Arch> Resolver::pmu_arch(const std::string &pmu)
{
	if (detail::find_arm_pmu(pmu))
		return Arch::arm64;
	if (detail::find_hybrid_pmu(pmu))
		return Arch::x86_64;
	const detail::PmuDesc *p = detail::find_pmu(pmu);
	if (p && p->kind == detail::PmuKind::core)
		return Arch::x86_64; // the Debian build's tables are x86 only
	return std::nullopt;
}

} // namespace stap_pmu::pmu
