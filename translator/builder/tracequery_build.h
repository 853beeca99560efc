// tracequery_build.h - the builder of tracepoint query modules
// (kernelinfo/tracequery.h) that stap-pmu uses: the kernel pass 4 builds
// for, kbuild with -g, the module cache.
#pragma once

#include <string>
#include <vector>

#include "translator/kernelinfo/tracequery.h"
#include "translator/support/arch.h"
#include "translator/support/locations.h"

namespace stap_pmu::tracequery {

// What the stap-pmu command line decides about the target kernel.
struct BuilderOptions {
	std::string release;                  // -r ("" : default)
	Arch arch = host_arch();              // -a / --vm-arch
	bool vm = false;                      // --vm: the guest kernel
	std::vector<std::string> kbuild_vars; // -B NAME=VALUE (CROSS_COMPILE=...)
	bool use_cache = true;                // the module cache (cache.h)
	CacheLocations caches;                // the module cache, kbuild's recipes
	bool verbose = false;
};

class KbuildQueryModuleBuilder : public QueryModuleBuilder {
public:
	explicit KbuildQueryModuleBuilder(BuilderOptions opts) : opts_(std::move(opts)) {}

	Result<Target> target() const override;
	Result<std::string> build(const Target &t, const std::string &name,
				  const std::string &c_source) const override;

private:
	BuilderOptions opts_;
};

} // namespace stap_pmu::tracequery
