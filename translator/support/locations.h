// locations.h - where stap-pmu keeps its build caches. The driver reads them
// from the environment once (CacheLocations::from_environment, at the command
// line) and passes them down as values: builder/ reads no environment.
#pragma once

#include <string>

namespace stap_pmu {

struct CacheLocations {
	// $XDG_CACHE_HOME/stap-pmu, else $HOME/.cache/stap-pmu, else
	// /tmp/stap-pmu-cache-<uid> (not created here)
	std::string root;
	std::string modules;        // built modules: $STAP_PMU_MODULE_CACHE, else root/modules
	std::string kbuild_recipes; // kbuild replays: $STAP_PMU_KBUILD_CACHE, else root/kbuild
	// Test hook: every build is appended to $STAP_PMU_KBUILD_LOG ("": none)
	std::string kbuild_log;

	static CacheLocations from_environment();
};

} // namespace stap_pmu
