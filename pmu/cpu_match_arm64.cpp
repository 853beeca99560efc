// cpu_match_arm64.cpp - arm64 core PMUs and the MIDR_EL1 values that select
// them: implementer and part number from each core's Technical Reference
// Manual (MIDR_EL1 reset value), also in the kernel's
// arch/arm64/include/asm/cputype.h (ARM_CPU_PART_*). Names follow libpfm4's
// upstream ARM PMU names.
#include "pmu/arm64.h"

#include <array>
#include <strings.h>

namespace stap_pmu::pmu::detail {
namespace {

constexpr unsigned arm_ltd = 0x41; // MIDR implementer 'A'

constexpr auto pmu_table = std::to_array<ArmPmu>({
	{"arm_ac53", "cortex-a53", "ARM Cortex-A53", arm_ltd, 0xd03},
	{"arm_ac57", "cortex-a57", "ARM Cortex-A57", arm_ltd, 0xd07},
	{"arm_ac72", "cortex-a72", "ARM Cortex-A72", arm_ltd, 0xd08},
	{"arm_ac76", "cortex-a76", "ARM Cortex-A76", arm_ltd, 0xd0b},
	{"arm_n1", "neoverse-n1", "ARM Neoverse N1", arm_ltd, 0xd0c},
	{"arm_n2", "neoverse-n2", "ARM Neoverse N2", arm_ltd, 0xd49},
	{"arm_v1", "neoverse-v1", "ARM Neoverse V1", arm_ltd, 0xd40},
});

bool iequals(std::string_view a, std::string_view b)
{
	return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

} // namespace

std::span<const ArmPmu> arm_pmus()
{
	return pmu_table;
}

const ArmPmu *find_arm_pmu(std::string_view name)
{
	for (const auto &p : pmu_table)
		if (iequals(p.name, name) || iequals(p.alias, name))
			return &p;
	return nullptr;
}

} // namespace stap_pmu::pmu::detail
