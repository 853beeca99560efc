// info.h - what stap-pmu reports without a script: -V, --pmu-encode EVENT,
// --list-pmu-events.
#pragma once

#include "translator/driver/cli.h"
#include "translator/support/result.h"

namespace stap_pmu {

// -V: the version, libpfm4's, and the kernel a build would target.
int print_version();

// --pmu-encode EVENT: its encoding on each --pmu-targets PMU; exit status 1
// when no target encodes it.
Result<int> pmu_encode(const Cli &cli);

// --list-pmu-events: the events of the --pmu-targets PMUs and the portable ones.
Result<int> list_pmu_events(const Cli &cli);

// "a,,b" -> {"a", "b"}
std::vector<std::string> split_list(const std::string &s);

} // namespace stap_pmu
