// binary.cpp - opening user-space ELF files: segments, function symbols,
// DWARF in the file or in a separate debug file (build-id, debuglink).
#include "translator/userinfo/binary.h"

#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <set>

namespace stap_pmu::userinfo {

namespace fs = std::filesystem;

Binary::~Binary()
{
	if (dbg)
		dwarf_end(dbg);
	if (eh)
		dwarf_cfi_end(eh);
	if (delf)
		elf_end(delf);
	if (elf)
		elf_end(elf);
	if (dfd >= 0)
		close(dfd);
	if (fd >= 0)
		close(fd);
}

std::optional<uint64_t> Binary::file_offset(uint64_t vaddr) const
{
	for (const Segment &s : loads)
		if (vaddr >= s.vaddr && vaddr - s.vaddr < s.filesz)
			return vaddr - s.vaddr + s.offset;
	return std::nullopt;
}

std::vector<Dwarf_CFI *> Binary::cfi() const
{
	std::vector<Dwarf_CFI *> out;
	if (eh)
		out.push_back(eh);
	if (dbg)
		if (Dwarf_CFI *d = dwarf_getcfi(dbg))
			out.push_back(d);
	return out;
}

std::string machine_name(uint16_t machine)
{
	switch (machine) {
	case EM_X86_64: return "x86-64";
	case EM_AARCH64: return "arm64";
	case EM_386: return "i386";
	case EM_ARM: return "arm";
	case EM_RISCV: return "riscv";
	case EM_PPC64: return "ppc64";
	case EM_S390: return "s390";
	}
	return "e_machine " + std::to_string(machine);
}

namespace {

// The defined function symbols of the symbol table section of type `type`.
std::vector<Symbol> function_symbols(Elf *elf, Elf64_Word type)
{
	std::vector<Symbol> out;
	std::set<std::string> seen;
	Elf_Scn *scn = nullptr;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != type || !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, nullptr);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, static_cast<int>(i), &s))
				continue;
			int t = GELF_ST_TYPE(s.st_info);
			const char *nm = elf_strptr(elf, sh.sh_link, s.st_name);
			if ((t != STT_FUNC && t != STT_GNU_IFUNC) || s.st_shndx == SHN_UNDEF ||
			    !s.st_value || !nm || !*nm)
				continue;
			std::string name = nm;
			if (size_t at = name.find('@'); at != std::string::npos)
				name.resize(at); // "memcpy@@GLIBC_2.14"
			if (seen.insert(name).second)
				out.push_back({name, s.st_value, s.st_size});
		}
	}
	return out;
}

bool open_elf(const std::string &path, int &fd, Elf *&elf)
{
	fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, nullptr);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		fd = -1;
		elf = nullptr;
		return false;
	}
	return true;
}

std::string hex(const unsigned char *p, size_t n)
{
	std::string s;
	char b[3];
	for (size_t i = 0; i < n; i++) {
		snprintf(b, sizeof b, "%02x", p[i]);
		s += b;
	}
	return s;
}

// Where a separate debug file of b may be: by build-id under each debug
// dir, then by .gnu_debuglink next to the file, in .debug/ there, and under
// each debug dir plus the file's directory.
std::vector<std::string> debug_candidates(const Binary &b, const std::vector<std::string> &dirs)
{
	std::vector<std::string> out;
	const void *id = nullptr;
	ssize_t n = dwelf_elf_gnu_build_id(b.elf, &id);
	if (n > 1) {
		std::string h = hex(static_cast<const unsigned char *>(id), static_cast<size_t>(n));
		for (const std::string &d : dirs)
			out.push_back(d + "/.build-id/" + h.substr(0, 2) + "/" + h.substr(2) + ".debug");
	}
	GElf_Word crc = 0;
	const char *link = dwelf_elf_gnu_debuglink(b.elf, &crc);
	if (link && *link) {
		std::string dir = fs::path(b.path).parent_path().string();
		out.push_back(dir + "/" + link);
		out.push_back(dir + "/.debug/" + link);
		for (const std::string &d : dirs)
			out.push_back(d + dir + "/" + link);
	}
	return out;
}

void find_debug_file(Binary &b, const std::vector<std::string> &dirs)
{
	for (const std::string &cand : debug_candidates(b, dirs)) {
		if (cand == b.path || !fs::is_regular_file(cand))
			continue;
		int fd = -1;
		Elf *elf = nullptr;
		if (!open_elf(cand, fd, elf))
			continue;
		Dwarf *dbg = dwarf_begin_elf(elf, DWARF_C_READ, nullptr);
		if (!dbg) {
			elf_end(elf);
			close(fd);
			continue;
		}
		b.debug_path = cand;
		b.dfd = fd;
		b.delf = elf;
		b.dbg = dbg;
		return;
	}
}

} // namespace

Result<std::unique_ptr<Binary>> open_binary(const std::string &path,
					    const std::vector<std::string> &debug_dirs)
{
	elf_version(EV_CURRENT);
	auto b = std::make_unique<Binary>();
	b->path = path;
	if (!open_elf(path, b->fd, b->elf))
		return fail(path + " is not an ELF file");
	GElf_Ehdr eh;
	if (!gelf_getehdr(b->elf, &eh))
		return fail(path + " is not an ELF file");
	b->machine = eh.e_machine;
	b->type = eh.e_type;
	size_t nph = 0;
	elf_getphdrnum(b->elf, &nph);
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(b->elf, static_cast<int>(i), &ph) && ph.p_type == PT_LOAD)
			b->loads.push_back({ph.p_vaddr, ph.p_memsz, ph.p_offset, ph.p_filesz});
	}
	b->dbg = dwarf_begin_elf(b->elf, DWARF_C_READ, nullptr);
	if (!b->dbg)
		find_debug_file(*b, debug_dirs);
	b->eh = dwarf_getcfi_elf(b->elf);
	b->funcs = function_symbols(b->elf, SHT_SYMTAB);
	if (b->funcs.empty() && b->delf)
		b->funcs = function_symbols(b->delf, SHT_SYMTAB);
	if (b->funcs.empty())
		b->funcs = function_symbols(b->elf, SHT_DYNSYM);
	return b;
}

} // namespace stap_pmu::userinfo
