// translate_passes.h - passes 1-3, script to C, in order, each with typed input and
// output: parse (-p1), elaborate (-p2: sema + PMU tables), translate (-p3: C).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "translator/frontend/ast.h"
#include "translator/frontend/diagnostics.h"
#include "translator/sema/pmu_pass.h"
#include "translator/frontend/preprocess.h"
#include "translator/sema/sema.h"
#include "translator/frontend/source.h"

namespace stap_pmu {

struct TranslateOptions {
	std::vector<std::string> pmu_targets{"host"};
	std::string pmu_fallback = "row"; // --pmu-fallback: none | row | generic
	Arch arch = host_arch();          // -a / --vm-arch
	std::vector<std::pair<std::string, std::string>> defines;
	std::vector<std::string> script_args; // the script's $1 @1 ... (part of its hash)
	std::string module_name; // "" = stap_pmu_<hash>
	std::string version;
	// -c CMD or -x PID given: the module is loaded with a target process
	// (target() is set); at_boot: --vm-at-boot, the module loads
	// before any command exists
	bool has_target = false;
	bool at_boot = false;
	bool guru = false; // -g: embedded C, %p prints raw addresses
	// the user binaries a script's ubacktrace(), usymname(), ... name
	// addresses in besides its process probes' files: -d FILE, and the
	// target's program (-c CMD's first word, or -x PID's executable)
	std::vector<std::string> symbol_files;
	std::string target_program;
	bool ldd = false; // --ldd: and the shared libraries of all these

};

// What pass 1 needs besides the script: the target kernel's facts for the
// preprocessor (-g allows embedded C) and the tapset directories.
struct ParseOptions {
	PreprocInput pp; // parse_options: the target tree's, or host_preproc_input()
	std::vector<std::string> tapset_dirs; // searched in order; empty: none
	// The directory of the target kernel's generated syscall.* tapset
	// (kernelinfo/syscalls.h) for pp (this struct's), asked for only when
	// a probe point could name one of its aliases; empty or nullopt: none.
	std::function<std::optional<std::string>(const PreprocInput &pp)> syscall_tapsets;
};

// Whether a probe point of the pattern (probe_point_str form, wildcards
// allowed) could name a syscall.*, nd_syscall.* or syscall_any alias (the
// generated tapsets of the kernel).
bool may_name_syscall_alias(const std::string &point);

struct TapsetLibrary;
struct Script;
// Whether script's probe points, directly or through the aliases of tapsets
// they name, could name a syscall.* or nd_syscall.* alias (parses only the
// tapset files that may define such an alias).
bool needs_syscall_aliases(const Script &script, TapsetLibrary &tapsets);

struct Parsed {
	std::unique_ptr<SourceFile> source;
	Script script;
	std::vector<std::unique_ptr<SourceFile>> tapset_sources; // tapsets pulled in
};

struct Elaborated {
	SemaResult sema;
	PmuPassResult pmu;
	// the ELF files the script's process probes name (ResolvedPoint::path),
	// each once, in order: what a guest must have at the same paths
	std::vector<std::string> user_files;
	// when the script calls a user-stack or user-symbol function: the
	// symbols and CFI of user_files, -d's files and the target's program
	std::vector<UserUnwindData> user_binaries;
};

struct Translated {
	std::string module_name;
	std::string script_hash;
	std::string c_source;
};

Parsed parse_pass(std::unique_ptr<SourceFile> source, Diagnostics &diags);
Parsed parse_pass(std::unique_ptr<SourceFile> source, const ParseOptions &opts,
		  Diagnostics &diags);
// facts: the target kernel (nullptr: nothing is known about it, NoKernelFacts).
Elaborated elaborate_pass(const Parsed &p, const TranslateOptions &opts, const KernelFacts *facts,
			  Diagnostics &diags);
// process: the user-space programs process("PATH") probes name (nullptr:
// none, those probes are errors).
Elaborated elaborate_pass(const Parsed &p, const TranslateOptions &opts, const KernelFacts *facts,
			  const ProcessFacts *process, Diagnostics &diags);
Translated translate_pass(const Parsed &p, const Elaborated &e, const TranslateOptions &opts);

// What -p2 prints: probes, globals, events and the candidate rows.
void print_elaborated(const Parsed &p, const Elaborated &e, std::ostream &os);

// Stable 64-bit hash (FNV-1a) of everything that changes the module.
std::string script_hash(const std::string &text, const TranslateOptions &opts);

} // namespace stap_pmu
