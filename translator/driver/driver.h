// driver.h - one invocation of stap-pmu after its options are parsed: the
// action they ask for (-V, -l/-L, --pmu-encode, --list-pmu-events,
// --clean-cache, --attach/--stop) or passes 1-5 (translate_passes.h, build_pass.h,
// run_pass.h).
#pragma once

#include "translator/driver/cli.h"
#include "translator/support/result.h"

namespace stap_pmu {

// The exit status, or the error that ends the invocation (exit status 1).
// Script errors are rendered here and give exit status 1 without an Error.
Result<int> drive(Cli cli);

// Prints "stap-pmu: error: WHAT" (" (HINT)" appended when there is a hint)
// on stderr; returns the exit status of an invocation that failed with it.
int report(const Error &e);

} // namespace stap_pmu
