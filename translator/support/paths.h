// paths.h - where stap-pmu finds its runtime headers, tapsets and the static
// guest programs: next to an installed binary, else in the build tree.
#pragma once

#include "translator/support/arch.h"

#include <string>

namespace stap_pmu {

std::string runtime_dir();   // runtime/ headers
std::string tapset_dir();    // tapsets/ (.stp libraries searched by default)
std::string guest_bin_dir(); // stap-pmu-loader, pmu-workload (static), uprobe-target
// A guest program of a guest architecture: guest_bin_dir()/NAME,
// guest_bin_dir()/arm64/NAME for arm64.
std::string guest_program(Arch arch, const std::string &name);
std::string self_exe_dir();

} // namespace stap_pmu
