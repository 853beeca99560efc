// pmu_pass.h - resolves the script's @pmu events for every target PMU into
// the fat table the module carries. Input: the events sema collected and
// the --pmu-targets list; output: the table and diagnostics at event uses.
#pragma once

#include <string>
#include <vector>

#include "pmu/fat_table.h"
#include "translator/diagnostics.h"
#include "translator/sema.h"

namespace stap_pmu {

struct PmuPassResult {
	std::vector<std::string> targets; // expanded libpfm4 PMU names
	pmu::FatTable table;
};

PmuPassResult resolve_pmu_events(const std::vector<EventUse> &events,
				 const std::vector<std::string> &target_spec, Diagnostics &diags);

} // namespace stap_pmu
