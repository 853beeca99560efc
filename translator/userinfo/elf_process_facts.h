// elf_process_facts.h - ProcessFacts (probes/process_facts.h) answered from
// the ELF files themselves: programs found as SystemTap finds them, their
// functions from DWARF (in the file or a separate debug file found by
// build-id or .gnu_debuglink) or else from the symbol table, parameters and
// locals through their DWARF locations (dwarfloc/), SDT markers from
// .note.stapsdt, PLT entries from .rela.plt.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "translator/probes/process_facts.h"
#include "translator/support/arch.h"

namespace stap_pmu {

struct ElfProcessFactsOptions {
	Arch arch = Arch::X86_64;             // the target's architecture
	std::vector<std::string> extra_dirs;  // searched after $PATH for a bare name (--vm: the guest programs)
	std::string target_program;           // -c's program ("" : none)
	std::vector<std::string> debug_dirs = {"/usr/lib/debug"}; // .build-id/NN/REST.debug, debuglink
};

// What its accesses mean (TargetAccess with base Loc, user set): loc is
// where the variable's value is at the probe address (Reg: the register;
// RegOffset: register + off is the value; Mem: `size` bytes of user memory
// at register + off, or 8 when member steps follow; Static: memory at the
// link-time address off plus the load bias; Const: off). Member steps
// then read through pointers as kernel target variables do (offsets,
// deref_last, indices). Members of a struct, and constant elements of an
// array, held in a stack slot or a static fold into loc.off. In a .return
// probe (in_return) a parameter or local is its value at entry
// (at_entry set, loc valid at the function's entry); $return is register
// rax (x86-64) or x0 (arm64).
class ElfProcessFacts : public ProcessFacts {
public:
	explicit ElfProcessFacts(ElfProcessFactsOptions o);
	~ElfProcessFacts() override;
	ElfProcessFacts(const ElfProcessFacts &) = delete;
	ElfProcessFacts &operator=(const ElfProcessFacts &) = delete;

	Result<std::string> resolve_path(const std::string &name) const override;
	std::string target_program() const override { return opts_.target_program; }
	Result<std::vector<UserFunction>> functions(const std::string &path,
						    const std::string &pattern,
						    bool call) const override;
	Result<TargetAccess> target_access(const UserFunction &f, const std::string &spelling,
					   bool in_return) const override;
	std::vector<KernelParam> locals(const UserFunction &f) const override;
	Result<std::vector<SdtMark>> marks(const std::string &path, const std::string &provider,
					   const std::string &name_glob) const override;
	Result<std::vector<UserFunction>> plt(const std::string &path,
					      const std::string &glob) const override;
	Result<UserUnwindData> unwind_data(const std::string &path) const override;
	std::vector<std::string> needed_libraries(const std::string &path) const override;

	struct State; // the open files (binary.h)

private:
	ElfProcessFactsOptions opts_;
	std::unique_ptr<State> state_;
};

// One SDT argument as its note spells it ("-4@%edi", "8@-16(%rbp)",
// "4@$42", "8@sym(%rip)"; arm64 "-4@x0", "8@[sp, 16]", "8@[x1]", "4@42")
// for arch: a Base::Loc access of user memory, size
// and sign from N ("-4": signed, 4 bytes). An argument it cannot parse is
// an access of size 0 (SdtMark::args keeps it so; $argN of it is refused
// when used).
TargetAccess parse_sdt_arg(const std::string &text, Arch arch);

} // namespace stap_pmu
