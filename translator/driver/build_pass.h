// build_pass.h - pass 4: the target kernel, the module cache, kbuild, signing,
// and where the built module goes (--initramfs, -p4 and -m keep NAME.ko).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "translator/driver/cli.h"
#include "translator/driver/translate_passes.h"
#include "translator/driver/timer.h"
#include "translator/kernelinfo/kernel.h"
#include "translator/support/file.h"
#include "translator/support/result.h"

namespace stap_pmu {

// Pass 4's target: arch, build tree, and the guest kernel with --vm.
struct BuildTarget {
	Arch arch = host_arch();
	bool foreign = false; // arch is not the host's: a cross-build
	kernel::BuildTree tree;
	kernel::GuestKernel guest;
};

// The target -a / --vm-arch (cli.arch) / -r / --vm name. With -p5 and no --vm, also
// that this host can load the module (before spending seconds in kbuild).
Result<BuildTarget> resolve_build_target(const Cli &cli);

// Everything that changes the module (docs/deploy.md, "Module cache").
std::string module_cache_key(const Cli &cli, const Parsed &parsed, const TranslateOptions &topts,
			     const BuildTarget &bt, const std::string &module_name);

// The work directory of passes 3-5 ($TMPDIR/stap-pmuXXXXXX), made on first
// use and removed when the invocation ends, unless -k or keep().
class WorkDir {
public:
	explicit WorkDir(bool keep) : keep_(keep) {}
	Status create(); // nothing to do when it exists
	const std::string &path() const { return path_; }
	bool exists() const { return !path_.empty(); }
	void keep(); // it outlives the invocation (a failed build's C is in it)

private:
	bool keep_;
	std::optional<sys::TempDir> dir_;
	std::string path_;
};

// Pass 4's input: pass 3's C (or the cached module) and how to build it.
struct BuildRequest {
	const Parsed *parsed = nullptr;          // compile errors map back to its scripts
	const Translated *translated = nullptr;  // nullptr: a cache hit, cached_ko
	const TranslateOptions *topts = nullptr; // its -D defines, for compile errors
	const BuildTarget *target = nullptr;
	std::string module_name;
	std::string cached_ko;                 // the cache's module when translated is nullptr
	std::string cache_key;                 // "" : --no-cache
	std::vector<std::string> kbuild_vars;  // -B NAME=VALUE
	std::vector<std::string> sign_module;  // --sign-module KEY CERT (or empty)
	bool debug_info = false;               // --module-debuginfo
	bool kbuild_replay = true;             // not --kbuild-make (builder/kbuild_replay.h)
	CacheLocations caches;                 // the module cache, kbuild's recipes and log
	bool verbose = false;
};

struct Built {
	std::string ko_path; // signed with --sign-module
};

// Builds (or takes from the cache) and signs the module. A compile error is
// explained on stderr at the script lines of its C before the Error returns.
Result<Built> build_pass(const BuildRequest &req, WorkDir &work, Timer &timer);

// After pass 4: --initramfs adds the module to the image, -p4 and -m copy
// NAME.ko into the current directory. True when the invocation ends here.
Result<bool> deliver(const Cli &cli, const Built &built, const std::string &module_name);

// --clean-cache: empties the module cache.
Result<int> clean_cache(const CacheLocations &caches);

} // namespace stap_pmu
