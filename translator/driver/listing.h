// listing.h - -l / -L PATTERN: the probe points matching a glob.
#pragma once

#include "translator/driver/cli.h"
#include "translator/support/result.h"

namespace stap_pmu {

// Prints the matching probe points (-L: with their context variables);
// exit status 1 when none matches.
Result<int> list_probes(const Cli &cli);

} // namespace stap_pmu
