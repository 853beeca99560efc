// symvers.cpp - a module's lines of Module.symvers (symvers.h).
#include "translator/builder/symvers.h"

#include <elf.h>

#include <cstring>
#include <string_view>
#include <unordered_set>

#include "translator/support/file.h"

namespace stap_pmu::symvers {

Result<std::vector<std::string>> undefined_symbols(const std::string &object)
{
	auto data = sys::read_file(object);
	if (!data)
		return fail("cannot read " + object);
	const std::string &f = *data;
	auto bad = [&](const char *why) { return fail(object + ": " + why); };
	Elf64_Ehdr eh;
	if (f.size() < sizeof(eh))
		return bad("not an ELF file");
	std::memcpy(&eh, f.data(), sizeof(eh));
	if (std::memcmp(eh.e_ident, ELFMAG, SELFMAG))
		return bad("not an ELF file");
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return bad("not a 64-bit little-endian ELF file");
	if (eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shoff > f.size() ||
	    (f.size() - eh.e_shoff) / sizeof(Elf64_Shdr) < eh.e_shnum)
		return bad("section headers out of the file");
	auto section = [&](size_t i) {
		Elf64_Shdr sh;
		std::memcpy(&sh, f.data() + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		return sh;
	};
	auto in_file = [&](const Elf64_Shdr &sh) {
		return sh.sh_offset <= f.size() && sh.sh_size <= f.size() - sh.sh_offset;
	};
	std::vector<std::string> names;
	for (size_t i = 0; i < eh.e_shnum; i++) {
		Elf64_Shdr sh = section(i);
		if (sh.sh_type != SHT_SYMTAB)
			continue;
		if (sh.sh_link >= eh.e_shnum || !in_file(sh))
			return bad("symbol table out of the file");
		Elf64_Shdr strs = section(sh.sh_link);
		if (!in_file(strs))
			return bad("string table out of the file");
		std::string_view str(f.data() + strs.sh_offset, strs.sh_size);
		for (size_t at = sizeof(Elf64_Sym); at + sizeof(Elf64_Sym) <= sh.sh_size;
		     at += sizeof(Elf64_Sym)) {
			Elf64_Sym s;
			std::memcpy(&s, f.data() + sh.sh_offset + at, sizeof(s));
			int bind = ELF64_ST_BIND(s.st_info);
			if (s.st_shndx != SHN_UNDEF || (bind != STB_GLOBAL && bind != STB_WEAK) ||
			    s.st_name >= str.size())
				continue;
			std::string_view name = str.substr(s.st_name);
			name = name.substr(0, name.find('\0'));
			if (!name.empty())
				names.emplace_back(name);
		}
	}
	return names;
}

std::string select(const std::string &symvers_text, const std::vector<std::string> &names)
{
	std::unordered_set<std::string_view> want(names.begin(), names.end());
	want.insert("module_layout");
	std::string out;
	std::string_view text(symvers_text);
	while (!text.empty()) {
		size_t nl = text.find('\n');
		std::string_view line = text.substr(0, nl);
		text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
		size_t t1 = line.find('\t');
		if (t1 == std::string_view::npos)
			continue;
		size_t t2 = line.find('\t', t1 + 1);
		if (want.count(line.substr(t1 + 1, t2 == std::string_view::npos ? std::string_view::npos
										  : t2 - t1 - 1))) {
			out += line;
			out += '\n';
		}
	}
	return out;
}

} // namespace stap_pmu::symvers
