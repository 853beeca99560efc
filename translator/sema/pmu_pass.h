// pmu_pass.h - resolves the script's @pmu events for every target PMU into
// the fat table the module carries. Input: the events sema collected, the
// --pmu-targets list, --pmu-fallback and the target architecture; output:
// the table and diagnostics at event uses.
#pragma once

#include <string>
#include <vector>

#include "pmu/fat_table.h"
#include "translator/frontend/diagnostics.h"
#include "translator/sema/sema.h"

namespace stap_pmu {

struct PmuOptions {
	std::vector<std::string> targets{"host"};
	std::string fallback = "row"; // none | row | generic (docs/pmu.md)
	Arch arch = host_arch();      // the target's
};

struct PmuPassResult {
	std::vector<std::string> targets; // expanded PMU names (with the generic row)
	pmu::FatTable table;
	bool implicit_generic = false;    // "perf" added by the fallback, not named
};

PmuPassResult resolve_pmu_events(const std::vector<EventUse> &events, const PmuOptions &opts,
				 Diagnostics &diags);
// Old form: TARGET_SPEC as given, fallback "row", the host's architecture.
PmuPassResult resolve_pmu_events(const std::vector<EventUse> &events,
				 const std::vector<std::string> &target_spec, Diagnostics &diags);

// Lines -v prints: "PMU tables: 11 rows, 4 events, 812 bytes", then one line
// per event some target lacks or takes generically.
std::vector<std::string> pmu_summary(const PmuPassResult &r);

} // namespace stap_pmu
