// tracequery.h - the tracepoints of a kernel subsystem, for
// kernel.trace("subsystem:event") probe points (SystemTap's "tracequery").
//
// The target kernel's include/trace/events/<subsystem>.h is compiled into a
// small query module in which every tracepoint declared there becomes an
// empty function stp_tq_<event>(prototype); the functions' DWARF gives each
// tracepoint's argument names and types, which -L lists, $name reads and
// the generated probe function's prototype is synthesized from. Built
// modules are cached per kernel, architecture and subsystem (the builder the
// driver passes in: build/tracequery_build.h), so only the first
// translation of a subsystem runs kbuild.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "translator/kernelinfo/dwarf.h"
#include "translator/support/arch.h"

namespace stap_pmu::tracequery {

// The kernel the probe module is built for.
struct Target {
	std::string tree;    // kbuild directory (make -C)
	std::string release; // its uname -r
	std::optional<Arch> arch; // when cross-building, else nullopt
	std::string cross_compile;
	std::vector<std::string> make_vars; // -B NAME=VALUE
};

// Builds the query modules: implemented by the stap-pmu build step
// (build/tracequery_build.h: kbuild with -g, the module cache), by fakes in
// tests.
class QueryModuleBuilder {
public:
	virtual ~QueryModuleBuilder() = default;
	// The kernel the probe module is built for (asked once, at the first
	// kernel.trace).
	virtual Result<Target> target() const = 0;
	// Builds the query module `name` from its C source for t, or finds it
	// in the cache: the .ko path, or the error with the compiler's first
	// error lines as its hint.
	virtual Result<std::string> build(const Target &t, const std::string &name,
					  const std::string &c_source) const = 0;
};

// The query module's C source for trace/events/<sys>.h.
std::string query_source(const std::string &sys);

// Directories holding the tree's include/ headers: the tree's own and, for
// Debian's split header packages, the common tree its Makefile includes.
std::vector<std::string> include_dirs(const std::string &tree);

// A trace/events header: the TRACE_SYSTEM it defines (its stem when it
// defines none), its stem and its path.
struct SystemHeader {
	std::string system, stem, path;
};

// The headers of trace/events in include_dirs(tree), by stem.
std::vector<SystemHeader> system_headers(const std::string &tree);

// The tracepoint systems (TRACE_SYSTEM names) of the tree's headers, sorted.
std::vector<std::string> subsystems(const std::string &tree);

// The stems of the headers declaring system sys; a header's stem stands for
// itself when no header defines sys as its TRACE_SYSTEM.
std::vector<std::string> headers_of(const std::vector<SystemHeader> &all, const std::string &sys);

// The event names a trace/events header's text declares: the first argument
// of TRACE_EVENT* and DECLARE_TRACE*, the second of DEFINE_EVENT*. A text
// scan, so a name built by a header's own macro is missed.
std::vector<std::string> declared_events(const std::string &header_text);

// The tracepoints of the target kernel, subsystem by subsystem: each asked
// for once (its query module built and read), then remembered, failures
// too.
class Tracepoints {
public:
	// builder: nullptr: no target kernel, kernel.trace cannot be resolved.
	Tracepoints(const QueryModuleBuilder *builder, const dwarf::Reader &reader);
	~Tracepoints();

	// KernelFacts::tracepoints.
	TracepointLookup subsystem(const std::string &sys) const;

	// KernelFacts::tracepoint_subsystems: the subsystems whose header text
	// declares an event matching the fnmatch pattern event_glob.
	std::vector<std::string> declaring(const std::string &event_glob) const;

private:
	TracepointLookup query(const std::string &sys) const;
	const Result<Target> &target() const;

	struct Memo;
	const QueryModuleBuilder *builder_;
	const dwarf::Reader &reader_;
	std::unique_ptr<Memo> memo_;
};

} // namespace stap_pmu::tracequery
