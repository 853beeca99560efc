// locations.cpp - the cache locations, from the environment.
#include "translator/support/locations.h"

#include <unistd.h>

#include <cstdlib>

namespace stap_pmu {

static std::string env_or(const char *name, const std::string &fallback)
{
	const char *e = std::getenv(name);
	return e && *e ? std::string(e) : fallback;
}

static std::string cache_root()
{
	const char *x = std::getenv("XDG_CACHE_HOME");
	if (x && *x == '/')
		return std::string(x) + "/stap-pmu";
	const char *h = std::getenv("HOME");
	if (h && *h)
		return std::string(h) + "/.cache/stap-pmu";
	return "/tmp/stap-pmu-cache-" + std::to_string(getuid());
}

CacheLocations CacheLocations::from_environment()
{
	CacheLocations c;
	c.root = cache_root();
	c.modules = env_or("STAP_PMU_MODULE_CACHE", c.root + "/modules");
	c.kbuild_recipes = env_or("STAP_PMU_KBUILD_CACHE", c.root + "/kbuild");
	c.kbuild_log = env_or("STAP_PMU_KBUILD_LOG", "");
	return c;
}

} // namespace stap_pmu
