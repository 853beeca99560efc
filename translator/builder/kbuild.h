// kbuild.h - builds a generated module with the kernel's own build system.
#pragma once

#include "translator/support/arch.h"
#include "translator/support/result.h"

#include <optional>
#include <string>
#include <vector>

namespace stap_pmu {

struct KbuildRequest {
	std::string module_name;  // NAME.ko
	std::string c_source;     // generated C
	std::string build_tree;   // kernel build dir (make -C)
	std::string runtime_dir;  // -I for stp_runtime.h
	std::string work_dir;     // where NAME.c, Makefile and NAME.ko go
	std::optional<Arch> arch; // nullopt: native (no ARCH=); Arm64 with cross_compile
	std::string cross_compile;
	std::vector<std::string> make_vars; // -B NAME=VALUE, passed to make as is
	std::string extra_ccflags;          // appended to ccflags-y (tracequery: -g)
	// DWARF in the module (the kernel's -g); without it -g0: about 10 % less
	// compile time and a module a quarter the size (docs/performance.md)
	bool debug_info = false;
	// Build by a replay of kbuild's commands recorded from an earlier make
	// run for the same tree, variables and Kbuild file (kbuild_replay.h);
	// without a recipe, make runs and its commands are recorded. The
	// recipes are kept below recipe_dir (CacheLocations::kbuild_recipes).
	bool replay = false;
	std::string recipe_dir;
	// Test hook: every build is appended to this file ("": none), a replay as
	// the make command it stands for, so tests can assert that a cached module
	// was not rebuilt (CacheLocations::kbuild_log).
	std::string build_log;
	bool verbose = false;
};

struct Kbuilt {
	std::string ko_path;
	std::string log; // make's output (or the replay's)
	std::string how; // how it was built, for -v: "make", "a replay of ..."
};

// what: the one-line summary; the rest is for reporting a failed make.
struct KbuildError : Error {
	std::string log{};      // make's output ("" when make did not run)
	std::string c_path{};   // the generated C (absolute), when make failed
	std::string log_path{}; // the make command and log, kept in work_dir
};

using KbuildResult = Result<Kbuilt, KbuildError>;

KbuildResult kbuild(const KbuildRequest &req);

} // namespace stap_pmu
