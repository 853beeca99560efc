// process_facts.h - what pass 2 knows about user-space binaries for
// process("PATH") probe points: where a name is on disk, the functions and
// SDT markers of an ELF file (and of its separate debug file), and how a
// probe reads a parameter or local from its DWARF location. Plain data and
// the ProcessFacts interface; translator/userinfo/ answers it from the ELF
// and DWARF (libelf, libdw), tests pass a fake. Like kernel_facts.h it
// depends on the standard library and support/ only.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "translator/probes/kernel_facts.h"
#include "translator/support/result.h"

namespace stap_pmu {

// A function (or statement, or PLT entry) of a user binary a probe point
// names. fn holds what kernel functions have: name, declaration file and
// line, parameters with their C types, return type; fn.module is the
// binary's absolute path, fn.info_file / fn.info_id the facts' own handle
// (the file with the DWARF and the DIE offset).
struct UserFunction {
	KernelFunction fn;
	std::string path;    // the ELF file probed (absolute; a library for shared objects)
	uint64_t vaddr = 0;  // link-time address of the probed instruction
	uint64_t offset = 0; // its file offset: what uprobe_register() takes
	bool has_dwarf = false; // false: an ELF symbol only (no $vars)
	bool after_prologue = false; // vaddr is past the prologue (function probes
				     // with DWARF, as SystemTap places them); .call at entry
};

// An SDT (USDT) marker: a .note.stapsdt note.
struct SdtMark {
	std::string provider, name;
	std::string path;
	uint64_t vaddr = 0, offset = 0;
	uint64_t semaphore_offset = 0; // file offset of the semaphore (0: none):
				       // uprobe_register_refctr's ref_ctr_offset
	std::vector<std::string> arg_text;  // "-4@%edi", "8@-16(%rbp)", as the note has them
	std::vector<TargetAccess> args;     // $arg1..$argN: Base::Loc accesses (user)
};

// What a module needs to name and unwind user addresses of one binary
// (ubacktrace(), usymname(), ...): its PT_LOAD segments (file offset to
// link-time address), its function symbols sorted by address, and its
// .eh_frame rows for the stack pointer, frame pointer and return address.
struct UserLoad {
	uint64_t offset = 0, vaddr = 0, filesz = 0;
};
struct UserSym {
	uint64_t vaddr = 0, size = 0;
	std::string name;
};
// One CFI row: from start for len bytes the caller's frame is found so.
// cfa: the CFA is register cfa_reg (Sp or Fp) + cfa_off, or unknown (an
// expression: unwinding stops). ra: saved at CFA + ra_off, still in the
// return-address register (arm64's lr before the prologue), or undefined
// (the outermost frame). fp: saved at CFA + fp_off, or unchanged.
struct UserCfiRow {
	enum class Cfa : uint8_t { Sp, Fp, Unknown };
	enum class Ra : uint8_t { Undefined, Saved, InRegister };
	uint64_t start = 0;
	uint32_t len = 0;
	Cfa cfa = Cfa::Unknown;
	Ra ra = Ra::Undefined;
	bool fp_saved = false;
	int32_t cfa_off = 0, ra_off = 0, fp_off = 0;
};
struct UserUnwindData {
	std::string path;
	std::vector<UserLoad> loads;
	std::vector<UserSym> syms;
	std::vector<UserCfiRow> cfi;
};

// The user-space side of pass 2. Same contract as KernelFacts: stable
// answers, failures are values worded for the user (Error{what, hint}),
// nothing printed.
class ProcessFacts {
public:
	virtual ~ProcessFacts() = default;

	// process("NAME"): the absolute path of the ELF file it means. A name
	// without '/' is looked up in $PATH as SystemTap does (and, for --vm,
	// in the project's guest programs); a relative path is made absolute.
	// Error: not found, not a regular file, not ELF, or an ELF of another
	// architecture than the target's.
	virtual Result<std::string> resolve_path(const std::string &name) const = 0;

	// The program of the -c command as given ("ls", "./prog"), which
	// process.function(...) and the other forms without a PATH probe; ""
	// without -c.
	virtual std::string target_program() const { return ""; }

	// The functions of `path` matching `pattern` ("glob", "glob@fileglob",
	// "glob@fileglob:line"), sorted by name, each once. call: the entry
	// (.call, .return) rather than past the prologue. Error when nothing
	// matches (with "did you mean"), or a file:line needs DWARF it lacks.
	virtual Result<std::vector<UserFunction>> functions(const std::string &path,
							    const std::string &pattern,
							    bool call) const = 0;

	// How a probe on f reads "$name", "$name->field", "$return" (in_return)
	// or a local: a TargetAccess with base Loc and user set.
	virtual Result<TargetAccess> target_access(const UserFunction &f,
						   const std::string &spelling,
						   bool in_return) const = 0;

	// $$locals and -L: the local variables (not parameters, not globals)
	// visible at f's probe address, innermost scope first, each name once,
	// with their C types. The default knows none.
	virtual std::vector<KernelParam> locals(const UserFunction &f) const
	{
		(void)f;
		return {};
	}

	// The SDT markers of `path` whose name matches `name_glob` (provider:
	// "" for any), in note order.
	virtual Result<std::vector<SdtMark>> marks(const std::string &path,
						   const std::string &provider,
						   const std::string &name_glob) const = 0;

	// The PLT entries of `path` matching `glob` (process("P").plt("name")).
	virtual Result<std::vector<UserFunction>> plt(const std::string &path,
						      const std::string &glob) const
	{
		(void)path;
		(void)glob;
		return fail("process(\"PATH\").plt is not supported");
	}

	// The shared libraries `path` needs (DT_NEEDED, found in its DT_RUNPATH
	// or DT_RPATH and the system's library directories), and the ones they
	// need, and its program interpreter: absolute paths, each once. Names
	// not found are left out. The default knows none.
	virtual std::vector<std::string> needed_libraries(const std::string &path) const
	{
		(void)path;
		return {};
	}

	// The symbols and unwind rows of `path` (an absolute path).
	virtual Result<UserUnwindData> unwind_data(const std::string &path) const
	{
		return fail("cannot read the symbols of " + path);
	}
};

} // namespace stap_pmu
