// kbuild_replay.h - kbuild's own commands for a module, recorded from one
// make run per kernel build tree and replayed for the modules after it.
//
// `make -C TREE M=DIR modules` spends about 0.6 s on 6.1 before it compiles
// anything: parsing the kernel's Makefiles three times and 32 cc-option
// probes (docs/performance.md). What it then runs depends only on the tree,
// the make variables and the Kbuild file, not on the C: kbuild writes each
// command into DIR/.TARGET.cmd. A recipe is those commands with DIR and the
// module name turned into placeholders, in kbuild's order: compile and
// objtool, modules.order, NAME.mod, modpost, NAME.mod.o (and 6.12's
// .module-common.o), the link, and the BTF step (pahole, resolve_btfids),
// which kbuild does not record and make V=1 shows.
//
// The recipe also moves the module's first compile onto a precompiled
// header of runtime/stp_kernel.h: gcc uses a PCH only as the first header
// of a translation unit, so the step's forced -include's (compiler-version,
// kconfig, compiler_types) go into the PCH's own header, and the -D's that
// carry the module's name (KBUILD_MODNAME...) into a small header included
// after it: a PCH is valid only for the macro values it was made with, and
// the kernel's headers use these names only inside macro bodies. gcc checks
// a PCH itself and parses the header when it does not apply, so a PCH that
// does not fit costs time, never a wrong module.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "translator/support/result.h"

namespace stap_pmu::kbuild_replay {

inline constexpr const char *kDirMark = "@DIR@";
inline constexpr const char *kNameMark = "@NAME@";
inline constexpr const char *kPchMark = "@PCH@"; // the PCH's directory in pch_create

// A compile step moved onto a precompiled header.
struct Pch {
	std::string header;     // its file name in the recipe's directory
	std::string text;       // the header: kbuild's forced headers, then the step's own
	std::string create;     // the command that makes @PCH@/HEADER.gch
	std::string names_file; // in DIR: the step's name -D's as #defines
	std::string names_text;
};

struct Recipe {
	// shell commands run in the build tree, one after the other
	std::vector<std::string> steps;
	std::vector<Pch> pchs;
	// NAME=VALUE: what make exports to the commands (SRCARCH for Debian's
	// objtool wrapper, srctree, KBUILD_EXTMOD...) where it differs from
	// stap-pmu's environment
	std::vector<std::string> env;
	// program_identity() of each of program_words() when recorded: a
	// recipe whose compiler or linker changed is recorded again
	std::vector<std::string> programs;
};

// The recipe of the module NAME that make just built in DIR, from kbuild's
// .cmd files there and the output of make V=1 -n (for the BTF step),
// without PCHs.
Result<Recipe> record(const std::string &dir, const std::string &name, const std::string &make_log);

// The step that compiles @DIR@/OBJECT ("@NAME@.o", "@NAME@.mod.o").
std::optional<size_t> compile_step(const Recipe &r, const std::string &object);

// Moving that step onto pch_dir/HEADER: kbuild's forced -include's and
// the lines of own_headers (the step's first #include's and #define's)
// become HEADER's text, its -D's of the name go to DIR/names_file after it.
// plan_pch() computes the move (the step's new command and the Pch, whose
// create command makes HEADER.gch), apply() makes it, use_pch() both.
struct PchMove {
	size_t step;
	std::string command;
	Pch pch;
};
Result<PchMove> plan_pch(const Recipe &r, size_t step, const std::string &pch_dir,
			 const std::string &header, const std::string &own_headers,
			 const std::string &names_file);
void apply(Recipe &r, const PchMove &m);
Status use_pch(Recipe &r, size_t step, const std::string &pch_dir, const std::string &header,
	       const std::string &own_headers, const std::string &names_file);

// The leading preprocessor lines of a C file (kbuild's NAME.mod.c).
std::string leading_directives(const std::string &c_text);

// The programs the steps start (the compiler, fixdep, modpost, the linker;
// not the shell's own words).
std::vector<std::string> program_words(const Recipe &r);

// text with @DIR@ and @NAME@ replaced.
std::string expand(const std::string &text, const std::string &dir, const std::string &name);

// "PATH SIZE MTIME" of a program the way a shell started from the build
// tree finds it ("" when it cannot be found).
std::string program_identity(const std::string &word, const std::string &tree);

// The recipe as a file and back (a line per field, steps escaped).
std::string to_text(const Recipe &r);
Result<Recipe> from_text(const std::string &text);

// A shell command split into its words, quotes kept as written.
std::vector<std::string> shell_words(const std::string &cmd);

} // namespace stap_pmu::kbuild_replay
