// paths.h - where stap-pmu finds its runtime headers, tapsets and the static
// guest programs: next to an installed binary, else in the build tree.
#pragma once

#include <string>

namespace stap_pmu {

std::string runtime_dir();   // runtime/ headers
std::string tapset_dir();    // tapsets/ (.stp libraries searched by default)
std::string guest_bin_dir(); // stap-pmu-loader, pmu-workload (static)
std::string self_exe_dir();

} // namespace stap_pmu
