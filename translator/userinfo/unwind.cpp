// unwind.cpp - ProcessFacts::unwind_data: a binary's symbols and the rows
// of its .eh_frame CFI that a module's user-space unwinder evaluates
// (runtime/stp_usym.h): the CFA as stack or frame pointer + offset, where
// the return address and the frame pointer were saved. The FDEs are found
// through .eh_frame_hdr's search table (else at the function symbols),
// each walked row by row with libdw's CFI evaluation.
#include <dwarf.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "translator/userinfo/binary.h"

namespace stap_pmu::userinfo {

namespace {

struct Regs {
	unsigned sp, fp, ra;
};

Regs regs_of(Arch arch)
{
	if (arch == Arch::Arm64)
		return {31, 29, 30};
	return {7, 6, 16};
}

int32_t le32(const unsigned char *p)
{
	uint32_t v = uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 |
		     uint32_t(p[3]) << 24;
	return static_cast<int32_t>(v);
}

// The initial locations of .eh_frame_hdr's table, when it has gcc's usual
// encodings (pc-relative sdata4 pointer, udata4 count, datarel sdata4
// table); empty otherwise.
std::vector<uint64_t> fde_starts(Elf *elf)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section_named(elf, ".eh_frame_hdr", sh);
	Elf_Data *d = scn ? elf_getdata(scn, nullptr) : nullptr;
	std::vector<uint64_t> out;
	if (!d || !d->d_buf || d->d_size < 12)
		return out;
	auto *p = static_cast<const unsigned char *>(d->d_buf);
	if (p[0] != 1 || p[2] != (DW_EH_PE_udata4) || p[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return out;
	uint32_t n = static_cast<uint32_t>(le32(p + 8));
	if (12 + uint64_t(n) * 8 > d->d_size)
		return out;
	for (uint32_t i = 0; i < n; i++)
		out.push_back(sh.sh_addr + static_cast<int64_t>(le32(p + 12 + i * 8)));
	return out;
}

// where register r of the caller is: saved at CFA + off, unchanged, or
// neither (undefined, or a rule the runtime does not evaluate)
enum class Where { Saved, Same, Other };

Where register_rule(Dwarf_Frame *f, unsigned r, int32_t &off)
{
	Dwarf_Op mem[3], *ops = nullptr;
	size_t n = 0;
	if (dwarf_frame_register(f, static_cast<int>(r), mem, &ops, &n) != 0)
		return Where::Other;
	if (n == 0)
		return ops ? Where::Other : Where::Same;
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return Where::Other;
	if (n == 1) {
		off = 0;
		return Where::Saved;
	}
	if (n == 2 && ops[1].atom == DW_OP_plus_uconst) {
		off = static_cast<int32_t>(static_cast<int64_t>(ops[1].number));
		return Where::Saved;
	}
	return Where::Other;
}

UserCfiRow row_of(Dwarf_Frame *f, const Regs &rg)
{
	UserCfiRow row;
	Dwarf_Op *ops = nullptr;
	size_t n = 0;
	if (dwarf_frame_cfa(f, &ops, &n) == 0 && n == 1) {
		uint64_t reg = ~0ull;
		int64_t off = 0;
		if (ops[0].atom == DW_OP_bregx) {
			reg = ops[0].number;
			off = static_cast<int64_t>(ops[0].number2);
		} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
			reg = ops[0].atom - DW_OP_breg0;
			off = static_cast<int64_t>(ops[0].number);
		}
		if (reg == rg.sp || reg == rg.fp) {
			row.cfa = reg == rg.sp ? UserCfiRow::Cfa::Sp : UserCfiRow::Cfa::Fp;
			row.cfa_off = static_cast<int32_t>(off);
		}
	}
	Where ra = register_rule(f, rg.ra, row.ra_off);
	row.ra = ra == Where::Saved  ? UserCfiRow::Ra::Saved
		 : ra == Where::Same ? UserCfiRow::Ra::InRegister
				     : UserCfiRow::Ra::Undefined;
	row.fp_saved = register_rule(f, rg.fp, row.fp_off) == Where::Saved;
	if (!row.fp_saved)
		row.fp_off = 0;
	if (row.ra != UserCfiRow::Ra::Saved)
		row.ra_off = 0;
	return row;
}

bool same_rules(const UserCfiRow &a, const UserCfiRow &b)
{
	return a.cfa == b.cfa && a.ra == b.ra && a.fp_saved == b.fp_saved &&
	       a.cfa_off == b.cfa_off && a.ra_off == b.ra_off && a.fp_off == b.fp_off;
}

// The rows from start up to limit (the next FDE's start), appended to out.
void walk_fde(Dwarf_CFI *cfi, uint64_t start, uint64_t limit, const Regs &rg,
	      std::vector<UserCfiRow> &out)
{
	uint64_t addr = start;
	while (addr < limit) {
		Dwarf_Frame *f = nullptr;
		if (dwarf_cfi_addrframe(cfi, addr, &f) != 0)
			return;
		Dwarf_Addr s = 0, e = 0;
		bool sig = false;
		dwarf_frame_info(f, &s, &e, &sig);
		UserCfiRow row = row_of(f, rg);
		free(f);
		if (e <= addr)
			return;
		uint64_t end = std::min<uint64_t>(e, limit);
		if (end - addr > UINT32_MAX)
			return;
		row.start = addr;
		row.len = static_cast<uint32_t>(end - addr);
		if (!out.empty() && out.back().start + out.back().len == addr &&
		    same_rules(out.back(), row))
			out.back().len += row.len;
		else
			out.push_back(row);
		addr = end;
	}
}

// DT_NEEDED names and the DT_RUNPATH/DT_RPATH directories of elf
void dynamic_of(Elf *elf, std::vector<std::string> &needed, std::vector<std::string> &dirs)
{
	for (Elf_Scn *s = elf_nextscn(elf, nullptr); s; s = elf_nextscn(elf, s)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		Elf_Data *d = elf_getdata(s, nullptr);
		for (size_t i = 0; d && sh.sh_entsize && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn dyn;
			if (!gelf_getdyn(d, static_cast<int>(i), &dyn))
				break;
			if (dyn.d_tag != DT_NEEDED && dyn.d_tag != DT_RUNPATH && dyn.d_tag != DT_RPATH)
				continue;
			const char *v = elf_strptr(elf, sh.sh_link, dyn.d_un.d_val);
			if (!v)
				continue;
			if (dyn.d_tag == DT_NEEDED) {
				needed.push_back(v);
				continue;
			}
			std::istringstream in(v);
			for (std::string dir; std::getline(in, dir, ':');)
				if (!dir.empty() && dir.find('$') == std::string::npos)
					dirs.push_back(dir);
		}
	}
}

// PT_INTERP of elf ("" : none)
std::string interpreter_of(Elf *elf)
{
	size_t n = 0;
	elf_getphdrnum(elf, &n);
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, static_cast<int>(i), &ph) || ph.p_type != PT_INTERP)
			continue;
		size_t size = 0;
		const char *raw = elf_rawfile(elf, &size);
		if (raw && ph.p_offset < size && ph.p_filesz <= size - ph.p_offset)
			return std::string(raw + ph.p_offset, strnlen(raw + ph.p_offset, ph.p_filesz));
	}
	return "";
}

} // namespace

std::vector<std::string> needed_of(const Binary &b, Arch arch)
{
	namespace fs = std::filesystem;
	std::vector<std::string> needed, dirs, out;
	dynamic_of(b.elf, needed, dirs);
	const std::string triple = arch == Arch::Arm64 ? "aarch64-linux-gnu" : "x86_64-linux-gnu";
	for (const char *d : {"/lib/", "/usr/lib/"})
		dirs.push_back(d + triple);
	for (const char *d : {"/lib64", "/usr/lib64", "/lib", "/usr/lib"})
		dirs.push_back(d);
	std::error_code ec;
	auto add = [&](const std::string &p) {
		fs::path c = fs::canonical(p, ec);
		if (!ec && fs::is_regular_file(c, ec))
			out.push_back(c.string());
	};
	std::string interp = interpreter_of(b.elf);
	if (!interp.empty())
		add(interp);
	for (const std::string &n : needed) {
		if (n.find('/') != std::string::npos) {
			add(n);
			continue;
		}
		for (const std::string &d : dirs)
			if (fs::exists(d + "/" + n, ec)) {
				add(d + "/" + n);
				break;
			}
	}
	return out;
}

UserUnwindData unwind_data_of(const Binary &b, Arch arch)
{
	UserUnwindData u;
	u.path = b.path;
	for (const Segment &s : b.loads)
		u.loads.push_back({s.offset, s.vaddr, s.filesz});
	for (const Symbol &s : b.funcs)
		if (s.value)
			u.syms.push_back({s.value, s.size, s.name});
	std::sort(u.syms.begin(), u.syms.end(), [](const UserSym &x, const UserSym &y) {
		return x.vaddr != y.vaddr ? x.vaddr < y.vaddr : x.name < y.name;
	});
	u.syms.erase(std::unique(u.syms.begin(), u.syms.end(),
				 [](const UserSym &x, const UserSym &y) { return x.vaddr == y.vaddr; }),
		     u.syms.end());
	if (!b.eh)
		return u;
	std::vector<uint64_t> starts = fde_starts(b.elf);
	if (starts.empty())
		for (const UserSym &s : u.syms)
			starts.push_back(s.vaddr);
	std::sort(starts.begin(), starts.end());
	starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
	Regs rg = regs_of(arch);
	for (size_t i = 0; i < starts.size(); i++)
		walk_fde(b.eh, starts[i], i + 1 < starts.size() ? starts[i + 1] : UINT64_MAX, rg,
			 u.cfi);
	return u;
}

} // namespace stap_pmu::userinfo
