// sdt.cpp - SDT (USDT) markers from .note.stapsdt with their argument
// strings parsed into target accesses, and PLT entries from .rela.plt.
#include "translator/dwarfloc/location.h"
#include "translator/support/suggest.h"
#include "translator/support/text.h"
#include "translator/userinfo/binary.h"

#include <fnmatch.h>

#include <cerrno>
#include <cstring>
#include <functional>

namespace stap_pmu {

namespace {

// A symbol's link-time address by name; false when unknown.
using SymbolLookup = std::function<bool(const std::string &, uint64_t &)>;

bool parse_int(const std::string &s, int64_t &v)
{
	if (s.empty())
		return false;
	char *end = nullptr;
	errno = 0;
	v = strtoll(s.c_str(), &end, 0);
	return errno == 0 && end && *end == '\0';
}

// The x86-64 operand forms: %reg, $imm, off(%reg), sym(%rip), sym+off(%rip).
bool x86_operand(const std::string &op, Location &loc, const SymbolLookup &sym)
{
	if (op.size() > 1 && op[0] == '%') {
		int r = dwarfloc::reg_number(Arch::X86_64, op.substr(1));
		loc = {Location::Reg, r, 0};
		return r >= 0;
	}
	if (op.size() > 1 && op[0] == '$')
		return parse_int(op.substr(1), loc.off) && (loc.kind = Location::Const, true);
	size_t lp = op.find('(');
	if (lp == std::string::npos || op.back() != ')' || op[lp + 1] != '%')
		return false;
	std::string disp = op.substr(0, lp), reg = op.substr(lp + 2, op.size() - lp - 3);
	int r = dwarfloc::reg_number(Arch::X86_64, reg);
	int64_t off = 0;
	if (r >= 0 && (disp.empty() || parse_int(disp, off))) {
		loc = {Location::Mem, r, off};
		return true;
	}
	if (r != -1) // not %rip
		return false;
	size_t plus = disp.find_first_of("+-");
	uint64_t addr = 0;
	if (plus != std::string::npos && !parse_int(disp.substr(plus), off))
		return false;
	if (!sym || !sym(disp.substr(0, plus), addr))
		return false;
	loc = {Location::Static, 0, static_cast<int64_t>(addr) + off};
	return true;
}

// The arm64 operand forms: xN/wN/sp, [reg], [reg, N] ("#N" too), N.
bool arm64_operand(const std::string &op, Location &loc)
{
	int r = dwarfloc::reg_number(Arch::Arm64, op);
	if (r >= 0) {
		loc = {Location::Reg, r, 0};
		return true;
	}
	if (op.size() > 2 && op[0] == '[' && op.back() == ']') {
		std::string in = op.substr(1, op.size() - 2), off;
		size_t comma = in.find(',');
		if (comma != std::string::npos) {
			off = in.substr(comma + 1);
			in = in.substr(0, comma);
			off.erase(0, off.find_first_not_of(' '));
			if (!off.empty() && off[0] == '#')
				off.erase(0, 1);
		}
		r = dwarfloc::reg_number(Arch::Arm64, in);
		loc = {Location::Mem, r, 0};
		return r >= 0 && (off.empty() || parse_int(off, loc.off));
	}
	std::string n = !op.empty() && op[0] == '#' ? op.substr(1) : op;
	return parse_int(n, loc.off) && (loc.kind = Location::Const, true);
}

TargetAccess parse_arg(const std::string &text, Arch arch, const SymbolLookup &sym)
{
	TargetAccess a;
	a.base = TargetAccess::Loc;
	a.user = true;
	a.size = 0;
	size_t at = text.find('@');
	int64_t n = 0;
	if (at == std::string::npos || !parse_int(text.substr(0, at), n))
		return a;
	uint64_t size = n < 0 ? 0 - static_cast<uint64_t>(n) : static_cast<uint64_t>(n);
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return a;
	std::string op = text.substr(at + 1);
	bool ok = arch == Arch::Arm64 ? arm64_operand(op, a.loc) : x86_operand(op, a.loc, sym);
	if (ok) {
		a.size = static_cast<unsigned>(size);
		a.is_signed = n < 0;
	}
	return a;
}

} // namespace

TargetAccess parse_sdt_arg(const std::string &text, Arch arch)
{
	return parse_arg(text, arch, nullptr);
}

namespace userinfo {

Elf_Scn *section_named(Elf *elf, const char *name, GElf_Shdr &sh)
{
	size_t shstr = 0;
	if (elf_getshdrstrndx(elf, &shstr) != 0)
		return nullptr;
	for (Elf_Scn *s = elf_nextscn(elf, nullptr); s; s = elf_nextscn(elf, s)) {
		const char *n = gelf_getshdr(s, &sh) ? elf_strptr(elf, shstr, sh.sh_name) : nullptr;
		if (n && strcmp(n, name) == 0)
			return s;
	}
	return nullptr;
}

namespace {

// Any symbol's address in the symbol tables of elf (for sym(%rip) arguments).
bool symbol_in(Elf *elf, const std::string &name, uint64_t &addr)
{
	for (Elf_Scn *s = elf ? elf_nextscn(elf, nullptr) : nullptr; s; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(s, nullptr);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *nm = gelf_getsym(d, static_cast<int>(i), &sym)
						 ? elf_strptr(elf, sh.sh_link, sym.st_name)
						 : nullptr;
			if (nm && name == nm && sym.st_shndx != SHN_UNDEF) {
				addr = sym.st_value;
				return true;
			}
		}
	}
	return false;
}

// The file offset of a data address (the semaphore: in .probes, maybe past
// its segment's file part).
uint64_t data_offset(const Binary &b, uint64_t vaddr)
{
	for (const Segment &s : b.loads)
		if (vaddr >= s.vaddr && vaddr - s.vaddr < s.memsz)
			return vaddr - s.vaddr + s.offset;
	return 0;
}

// One note's description: pc, base, semaphore, then provider, name, args.
bool parse_note(const char *desc, size_t len, uint64_t words[3], std::string strs[3])
{
	if (len < 24)
		return false;
	memcpy(words, desc, 24);
	size_t p = 24;
	for (int i = 0; i < 3; i++) {
		const void *nul = p < len ? memchr(desc + p, 0, len - p) : nullptr;
		if (!nul)
			return i == 2; // no arguments
		strs[i] = desc + p;
		p += strs[i].size() + 1;
	}
	return true;
}

SdtMark make_mark(const Binary &b, Arch arch, const uint64_t w[3],
		  const std::string s[3], int64_t base_diff)
{
	SdtMark m;
	m.provider = s[0];
	m.name = s[1];
	m.path = b.path;
	m.vaddr = w[0] + static_cast<uint64_t>(base_diff);
	m.offset = b.file_offset(m.vaddr).value_or(0);
	if (w[2])
		m.semaphore_offset = data_offset(b, w[2] + static_cast<uint64_t>(base_diff));
	SymbolLookup sym = [&b](const std::string &n, uint64_t &a) {
		return symbol_in(b.elf, n, a) || symbol_in(b.delf, n, a);
	};
	for (size_t i = 0; i < s[2].size();) {
		size_t e = s[2].find(' ', i);
		std::string t = s[2].substr(i, e == std::string::npos ? std::string::npos : e - i);
		if (!t.empty()) {
			m.arg_text.push_back(t);
			m.args.push_back(parse_arg(t, arch, sym));
		}
		if (e == std::string::npos)
			break;
		i = e + 1;
	}
	return m;
}

bool glob_matches(const std::string &glob, const std::string &s)
{
	return glob.empty() || fnmatch(glob.c_str(), s.c_str(), 0) == 0;
}

} // namespace

Result<std::vector<SdtMark>> find_marks(const Binary &b, Arch arch,
					const std::string &provider, const std::string &name_glob)
{
	GElf_Shdr base_sh, sh;
	Elf_Scn *base = section_named(b.elf, ".stapsdt.base", base_sh);
	Elf_Scn *notes = section_named(b.elf, ".note.stapsdt", sh);
	if (!notes)
		return fail(b.path + " has no SDT markers (no .note.stapsdt section)",
			    "build it with <sys/sdt.h> probes (STAP_PROBE, DTRACE_PROBE)");
	Elf_Data *d = elf_getdata(notes, nullptr);
	std::vector<SdtMark> out;
	std::vector<std::string> names;
	GElf_Nhdr nh;
	size_t name_off, desc_off;
	for (size_t off = 0; d && (off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0;) {
		const char *owner = static_cast<const char *>(d->d_buf) + name_off;
		if (nh.n_type != 3 || nh.n_namesz != 8 || strcmp(owner, "stapsdt") != 0)
			continue;
		uint64_t w[3];
		std::string s[3];
		if (!parse_note(static_cast<const char *>(d->d_buf) + desc_off, nh.n_descsz, w, s))
			continue;
		int64_t diff = base ? static_cast<int64_t>(base_sh.sh_addr - w[1]) : 0;
		names.push_back(s[0] + ":" + s[1]);
		if (glob_matches(provider, s[0]) && glob_matches(name_glob, s[1]))
			out.push_back(make_mark(b, arch, w, s, diff));
	}
	if (out.empty())
		return fail("no SDT marker matches \"" + (provider.empty() ? "" : provider + ":") +
				    name_glob + "\" in " + b.path,
			    names.empty() ? "" : "it has: " + text::join(names));
	return out;
}

// The PLT stub of .rela.plt entry i: x86-64 .plt.sec entries (IBT), else
// .plt's after its 16-byte header; arm64 .plt's after its 32-byte header.
std::optional<uint64_t> plt_stub(const Binary &b, size_t i)
{
	GElf_Shdr sec, plt;
	if (b.machine == EM_X86_64 && section_named(b.elf, ".plt.sec", sec))
		return sec.sh_addr + 16 * i;
	if (!section_named(b.elf, ".plt", plt))
		return std::nullopt;
	if (b.machine == EM_X86_64)
		return plt.sh_addr + 16 * (i + 1);
	if (b.machine == EM_AARCH64)
		return plt.sh_addr + 32 + 16 * i;
	return std::nullopt;
}

Result<std::vector<UserFunction>> find_plt(const Binary &b, const std::string &glob)
{
	GElf_Shdr sh, dsh;
	Elf_Scn *rela = section_named(b.elf, ".rela.plt", sh);
	Elf_Scn *dyn = rela ? elf_getscn(b.elf, sh.sh_link) : nullptr;
	if (!dyn || !gelf_getshdr(dyn, &dsh) || !sh.sh_entsize)
		return fail(b.path + " has no PLT (no .rela.plt section)");
	Elf_Data *rd = elf_getdata(rela, nullptr), *sd = elf_getdata(dyn, nullptr);
	std::vector<UserFunction> out;
	std::vector<std::string> names;
	for (size_t i = 0; rd && sd && i < sh.sh_size / sh.sh_entsize; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		if (!gelf_getrela(rd, static_cast<int>(i), &r) ||
		    !gelf_getsym(sd, static_cast<int>(GELF_R_SYM(r.r_info)), &sym))
			continue;
		const char *nm = elf_strptr(b.elf, dsh.sh_link, sym.st_name);
		auto stub = plt_stub(b, i);
		if (!nm || !*nm || !stub)
			continue;
		names.push_back(nm);
		if (!glob_matches(glob, nm))
			continue;
		UserFunction u;
		u.fn.name = nm;
		u.fn.module = b.path;
		u.path = b.path;
		u.vaddr = *stub;
		u.offset = b.file_offset(*stub).value_or(0);
		out.push_back(std::move(u));
	}
	auto near = closest_names(glob, names);
	if (out.empty())
		return fail("no PLT entry matches \"" + glob + "\" in " + b.path,
			    near.empty() ? "" : "did you mean " + text::join(near) + "?");
	return out;
}

} // namespace userinfo
} // namespace stap_pmu
