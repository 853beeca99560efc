// dwarf.h - functions, parameters and types from DWARF (libdw), for
// kernel.function / module("m").function probe points, target variables,
// @cast and tracepoint prototypes (the data model: probes/kernel_facts.h).
// This header keeps libdw out of its interface: in kernelinfo/, dwarf.cpp
// is the only file that includes libdw. libdw is used by three libraries
// (translator/CMakeLists.txt): dwarfloc/ (locations, types, variables and
// source lines over libdw's Dwarf_Die, in its headers too), kernelinfo/ (here)
// and userinfo/ (binary.h/.cpp, functions.cpp: user-space binaries).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "translator/probes/kernel_facts.h"

namespace stap_pmu::dwarf {

// Where DWARF is looked up.
struct Options {
	std::string release;                  // target kernel release (/lib/modules/<release>)
	std::vector<std::string> module_dirs; // searched first (recursively) for <name>.ko
	std::vector<std::string> module_files; // explicit .ko files (--vm-module)
	std::string vmlinux;                  // "" : /usr/lib/debug/boot/vmlinux-<release> etc.
};

// The DWARF of one target kernel and its modules. Files are opened on first
// use and stay open (with what was looked up in them) for the reader's life.
class Reader {
public:
	explicit Reader(Options opts);
	~Reader();
	Reader(const Reader &) = delete;
	Reader &operator=(const Reader &) = delete;

	// Whether module ("" : the kernel; or a path to a .ko) has DWARF
	// here: its file is found and holds debugging information.
	bool has_dwarf(const std::string &module) const;

	// KernelFacts::functions.
	Result<std::vector<KernelFunction>> find_functions(const std::string &module,
							   const std::string &pattern) const;

	// The tracepoint prototypes of a query module (tracequery.h): functions
	// named prefix + EVENT defined in `path` whose declaration file ends
	// with decl_suffix ("trace/events/sched.h"), sorted by event.
	// Parameters get their position as `arg` and their C ABI type as `abi`.
	Result<std::vector<KernelFunction>> tracepoint_functions(const std::string &path,
								 const std::string &prefix,
								 const std::string &decl_suffix) const;

	// KernelFacts::target_access.
	Result<TargetAccess> target_access(const KernelFunction &f, const std::string &spelling,
					   bool in_return) const;

	// KernelFacts::cast_access.
	CastAccess cast_access(const std::string &module, const std::string &type,
			       const std::vector<std::string> &members) const;

	// KernelFacts::locals
	std::vector<KernelParam> locals(const KernelFunction &f) const;

	// KernelFacts::type_members
	Result<KernelFacts::Pretty> type_members(const KernelFunction &f,
						 const std::string &spelling, bool in_return,
						 int depth) const;

	struct State; // the open files and their indexes (dwarf.cpp)

private:
	Options opts_;
	std::unique_ptr<State> state_;
};

} // namespace stap_pmu::dwarf
