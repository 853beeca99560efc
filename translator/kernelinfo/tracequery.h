// tracequery.h - the tracepoints of a kernel subsystem, for
// kernel.trace("subsystem:event") probe points (SystemTap's "tracequery").
//
// The target kernel's include/trace/events/<subsystem>.h is compiled into a
// small query module in which every tracepoint declared there becomes an
// empty function stp_tq_<event>(prototype); the functions' DWARF gives each
// tracepoint's argument names and types, which -L lists, $name reads and
// the generated probe function's prototype is synthesized from. Built
// modules are cached per kernel, architecture and subsystem (the builder
// main installs: tracequery_build.cpp), so only the first translation of a
// subsystem runs kbuild.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "translator/kernelinfo/dwarf.h"

namespace stap_pmu::tracequery {

// The kernel the probe module is built for.
struct Target {
	std::string tree;    // kbuild directory (make -C)
	std::string release; // its uname -r
	std::string arch;    // kbuild ARCH when cross-building, else ""
	std::string cross_compile;
	std::vector<std::string> make_vars; // -B NAME=VALUE
};

struct Config {
	// Resolves the target kernel (called once, at the first kernel.trace);
	// unset: kernel.trace points cannot be resolved.
	std::function<std::optional<Target>(std::string &err)> target;
	// Builds a query module from its C source, or finds it in the cache:
	// returns the .ko path, or nothing with err (and the compiler's first
	// error lines in detail) set.
	std::function<std::optional<std::string>(const Target &t, const std::string &name,
						 const std::string &c_source, std::string &err,
						 std::string &detail)>
		build;
};
Config &config();

struct Event {
	std::string name; // "sched_switch"
	std::shared_ptr<const dwarf::Function> func; // arguments as parameters
	std::string unsupported; // why it cannot be probed ("" : it can)
};

struct Subsystem {
	std::string name;   // "sched"
	std::string header; // "trace/events/sched.h"
	std::vector<Event> events; // sorted by name
};

// "sys:event" split in two. False (err set) unless both parts are there and
// only the event part has wildcards.
bool split_spec(const std::string &spec, std::string &sys, std::string &event, std::string &err);

// The query module's C source for trace/events/<sys>.h.
std::string query_source(const std::string &sys);

// Directories holding the tree's include/ headers: the tree's own and, for
// Debian's split header packages, the common tree its Makefile includes.
std::vector<std::string> include_dirs(const std::string &tree);

// Subsystems with a header in include_dirs(tree), sorted (for hints).
std::vector<std::string> subsystems(const std::string &tree);

// The tracepoints of `sys` in the configured target kernel. Remembered for
// the rest of the process, failures too. Returns nullptr with err and hint
// set; *unknown_sys tells a missing header from a failed build.
const Subsystem *subsystem(const std::string &sys, std::string &err, std::string &hint,
			   bool *unknown_sys = nullptr);

// What the stap-pmu command line decides about the target kernel.
struct BuilderOptions {
	std::string release;                  // -r ("" : default)
	std::string arch;                     // -a / --vm-arch ("" : the host's)
	bool vm = false;                      // --vm: the guest kernel
	std::vector<std::string> kbuild_vars; // -B NAME=VALUE (CROSS_COMPILE=...)
	bool use_cache = true;                // the module cache (cache.h)
	bool verbose = false;
};
// Installs config().target and config().build: the kernel pass 4 builds for,
// kbuild with -g, the module cache. Defined in tracequery_build.cpp (part
// of the stap-pmu executable, which links kernel.cpp and cache.cpp).
void setup_builder(const BuilderOptions &opts);

// The C prototype parameters of the generated probe function for ev
// ("void *__data, bool a0, void *a1"); "" when ev.unsupported is set.
std::string probe_params(const Event &ev);

} // namespace stap_pmu::tracequery
