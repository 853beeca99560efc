// binary.h - one user-space ELF file as userinfo/ reads it: its loadable
// segments (for file offsets), its function symbols, its DWARF (in the
// file or a separate debug file) and call frame information. Internal to
// userinfo/.
#pragma once

#include <elfutils/libdw.h>
#include <gelf.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "translator/dwarfloc/location.h"
#include "translator/support/result.h"
#include "translator/userinfo/elf_process_facts.h"

namespace stap_pmu::userinfo {

struct Segment {
	uint64_t vaddr = 0, memsz = 0, offset = 0, filesz = 0;
};

struct Symbol {
	std::string name;
	uint64_t value = 0, size = 0;
};

struct Binary {
	std::string path;
	int fd = -1;
	Elf *elf = nullptr;
	std::string debug_path; // the separate debug file ("" : none or not needed)
	int dfd = -1;
	Elf *delf = nullptr;
	Dwarf *dbg = nullptr;      // of elf, or else of delf; null: no DWARF
	Dwarf_CFI *eh = nullptr;   // .eh_frame of elf (dwarf_cfi_end'ed)
	uint16_t machine = 0;
	uint16_t type = 0; // e_type: ET_EXEC, ET_DYN, ...
	std::vector<Segment> loads;
	std::vector<Symbol> funcs; // defined functions: .symtab, else the debug file's, else .dynsym

	Binary() = default;
	Binary(const Binary &) = delete;
	Binary &operator=(const Binary &) = delete;
	~Binary();

	// The file offset of link-time address vaddr (in a PT_LOAD segment's file part).
	std::optional<uint64_t> file_offset(uint64_t vaddr) const;
	// The CFI to evaluate frame addresses with: .eh_frame, then .debug_frame.
	std::vector<Dwarf_CFI *> cfi() const;
};

// "x86-64", "arm64", "i386", ... for e_machine.
std::string machine_name(uint16_t machine);

// Opens path (an ELF file) and looks for its DWARF.
Result<std::unique_ptr<Binary>> open_binary(const std::string &path,
					    const std::vector<std::string> &debug_dirs);

// "Did you mean": the names of all nearest to name (up to three, all as
// near as the nearest).
std::vector<std::string> closest_names(const std::string &name,
				       const std::vector<std::string> &all);

// The functions of b matching pattern (ProcessFacts::functions).
Result<std::vector<UserFunction>> find_functions(const Binary &b, const std::string &pattern,
						 bool call);

// ProcessFacts::target_access for a function of b.
Result<TargetAccess> access_of(const Binary &b, Arch arch, const UserFunction &f,
			       const std::string &spelling, bool in_return);

// ProcessFacts::locals for a function of b.
std::vector<KernelParam> locals_of(const Binary &b, const UserFunction &f);

// ProcessFacts::marks for b.
Result<std::vector<SdtMark>> find_marks(const Binary &b, Arch arch,
					const std::string &provider, const std::string &name_glob);

// The section of elf called name (its header in sh), or null (sdt.cpp).
Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr &sh);

// b's program interpreter and DT_NEEDED libraries, found as the dynamic
// loader finds them (DT_RUNPATH/DT_RPATH, then arch's system directories);
// the names not found are left out (unwind.cpp).
std::vector<std::string> needed_of(const Binary &b, Arch arch);

// ProcessFacts::unwind_data for b (unwind.cpp).
UserUnwindData unwind_data_of(const Binary &b, Arch arch);

// ProcessFacts::plt for b.
Result<std::vector<UserFunction>> find_plt(const Binary &b, const std::string &glob);

} // namespace stap_pmu::userinfo

namespace stap_pmu {

struct ElfProcessFacts::State {
	std::map<std::string, std::unique_ptr<userinfo::Binary>> files; // by path
};

} // namespace stap_pmu
