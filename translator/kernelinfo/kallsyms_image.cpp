// kallsyms_image.cpp - the kernel's symbol table decoded from its own kallsyms
// tables in an image (vmlinux or arm64 Image) that has no symbols.
//
// How an image is read without symbols. scripts/kallsyms.c emits, in
// .rodata, each table behind an 8-byte aligned label:
//   kallsyms_num_syms    u32
//   kallsyms_names       per symbol: a length (1 byte, or 2 when the first
//                        has bit 7 set: low 7 bits + next byte << 7), then
//                        that many token indexes; the first character of
//                        the expansion is the type letter
//   kallsyms_markers     u32 per 256 symbols: offset of that symbol's entry
//   kallsyms_token_table 256 NUL-terminated strings
//   kallsyms_token_index u16[256]: offset of each string in the table
//   kallsyms_offsets     s32 per symbol, kallsyms_relative_base u64
//   kallsyms_seqs_of_names (6.2+ and Debian's 6.1): 3 bytes per symbol
// The order changed: up to 6.3 (Debian's 6.1 included) offsets and the
// relative base come first and seqs_of_names sits between the markers and
// the token table; from 6.4 the offsets, base and seqs follow the token
// index. The token table with its index is the anchor (256 strings whose
// offsets are the u16 array right after them); the markers are found
// backwards from it, num_syms and the names before them, and the offsets
// where their addresses come out sorted.
#include "translator/kernelinfo/kallsyms_impl.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string_view>

namespace stap_pmu::ksyms {

using namespace detail;

namespace {

// Where the tables are, as file offsets.
struct Layout {
	size_t names = 0, markers = 0, tokens = 0, token_index = 0;
	size_t offsets = 0, relative_base = 0;
	uint32_t num = 0;
	size_t marker_count() const { return (num + 255) / 256; }
};

// Whether 256 NUL-terminated strings at t have the offsets idx and end
// right before the 8-aligned index at i.
bool tokens_at(std::string_view d, size_t t, const uint16_t *idx, size_t i)
{
	for (int k = 0; k < 256; ++k) {
		size_t b = t + idx[k];
		size_t e = k < 255 ? t + idx[k + 1] - 1 : d.find('\0', b);
		if (e == std::string_view::npos || e >= i || d[e] != '\0')
			return false;
		if (d.substr(b, e - b).find('\0') != std::string_view::npos)
			return false;
		if (k == 255 && align8(e + 1) != i)
			return false;
	}
	return true;
}

// The token table and index: an 8-aligned u16[256] starting at 0 whose
// steps are string lengths, right after the strings they index.
bool find_tokens(std::string_view d, size_t from, size_t to, Layout &l)
{
	uint16_t idx[256];
	to = std::min(to, d.size());
	for (size_t p = align8(from); p + 512 <= to; p += 8) {
		if (d[p] != 0 || d[p + 1] != 0)
			continue;
		uint16_t first = rd<uint16_t>(d, p + 2);
		if (first < 2 || first > 64)
			continue;
		std::memcpy(idx, d.data() + p, sizeof idx);
		bool steps = true;
		for (int k = 0; k < 255 && steps; ++k)
			steps = idx[k + 1] >= idx[k] + 2 && idx[k + 1] - idx[k] <= 64;
		if (!steps || p < idx[255] + 2u)
			continue;
		size_t hi = p - idx[255] - 2; // the last token has at least one character
		for (size_t k = 0; k < 10 && (hi & ~size_t{7}) >= 8 * k; ++k) {
			size_t t = (hi & ~size_t{7}) - 8 * k;
			if (tokens_at(d, t, idx, p)) {
				l.tokens = t;
				l.token_index = p;
				return true;
			}
		}
	}
	return false;
}

// The length of entry at pos in kallsyms_names and where its tokens start.
std::pair<size_t, size_t> entry_at(std::string_view d, size_t pos)
{
	size_t len = static_cast<unsigned char>(d[pos]);
	if (len & 0x80) {
		len = (len & 0x7f) | (size_t{static_cast<unsigned char>(d[pos + 1])} << 7);
		return {len, pos + 2};
	}
	return {len, pos + 1};
}

// Whether n names starting at s agree with the markers at m and end right
// before them.
bool names_fit(std::string_view d, size_t s, uint32_t n, size_t m)
{
	size_t pos = s;
	for (uint32_t i = 0; i < n; ++i) {
		if (i % 256 == 0 && rd<uint32_t>(d, m + 4 * (i / 256)) != pos - s)
			return false;
		if (pos + 2 > m)
			return false;
		auto [len, tok] = entry_at(d, pos);
		if (len == 0)
			return false;
		pos = tok + len;
	}
	return pos <= m && align8(pos) == m;
}

// How many u32 at m look like markers: 0, then steps of 256 entries.
size_t marker_run(std::string_view d, size_t m, size_t end)
{
	if (rd<uint32_t>(d, m) != 0)
		return 0;
	size_t k = 1;
	while (m + 4 * (k + 1) <= end) {
		uint32_t step = rd<uint32_t>(d, m + 4 * k) - rd<uint32_t>(d, m + 4 * (k - 1));
		if (step < 256 * 2 || step > 256 * 256)
			break;
		++k;
	}
	return k;
}

// num_syms and the names before the markers at m (run: marker-like u32s).
bool find_names(std::string_view d, size_t m, size_t run, Layout &l)
{
	// the names end at most 256 entries of at most 512 bytes past the last marker
	size_t span = size_t{rd<uint32_t>(d, m + 4 * (run - 1))} + 256 * 512 + 16;
	size_t lo = m > span ? m - span : 16;
	for (size_t s = (m - 8) & ~size_t{7}; s >= lo && s >= 16; s -= 8) {
		uint32_t n = rd<uint32_t>(d, s - 8);
		if (n == 0 || rd<uint32_t>(d, s - 4) != 0 || (n + 255) / 256 > run)
			continue;
		uint32_t last = rd<uint32_t>(d, m + 4 * ((n - 1) / 256));
		if (s + last >= m || !names_fit(d, s, n, m))
			continue;
		l.num = n;
		l.names = s;
		l.markers = m;
		return true;
	}
	return false;
}

// The markers: searched backwards from the token table, past the
// seqs_of_names that may sit between them.
bool find_markers(std::string_view d, Layout &l)
{
	constexpr size_t max_gap = 16u << 20; // seqs_of_names: 3 bytes a symbol
	size_t lo = l.tokens > max_gap ? l.tokens - max_gap : 0;
	if (l.tokens < 32)
		return false;
	for (size_t m = l.tokens - 8; m >= lo + 16 && m >= 16; m -= 8) {
		size_t run = marker_run(d, m, l.tokens);
		if (run < 2)
			continue;
		if (find_names(d, m, run, l)) {
			size_t end = align8(m + 4 * l.marker_count());
			size_t seqs = align8(end + 3 * size_t{l.num});
			if (end == l.tokens || seqs == l.tokens)
				return true;
		}
	}
	return false;
}

// Addresses from kallsyms_offsets (kallsyms_sym_address): with
// KALLSYMS_ABSOLUTE_PERCPU (negative offsets present) non-negative ones are
// absolute and negative ones count down from base - 1; else unsigned
// offsets from base.
std::vector<uint64_t> addresses(std::string_view d, const Layout &l, uint64_t base)
{
	std::vector<uint64_t> a(l.num);
	bool absolute_percpu = false;
	for (uint32_t i = 0; i < l.num && !absolute_percpu; ++i)
		absolute_percpu = rd<int32_t>(d, l.offsets + 4 * i) < 0;
	for (uint32_t i = 0; i < l.num; ++i) {
		int32_t o = rd<int32_t>(d, l.offsets + 4 * i);
		if (!absolute_percpu)
			a[i] = base + static_cast<uint32_t>(o);
		else
			a[i] = o >= 0 ? static_cast<uint64_t>(o) : base - 1 - static_cast<int64_t>(o);
	}
	return a;
}

// The offsets and relative base: before num_syms (up to 6.3) or after the
// token index (6.4+), wherever the addresses come out sorted.
bool find_offsets(std::string_view d, Layout &l)
{
	size_t table = align8(4 * size_t{l.num});
	size_t num_syms = l.names - 8;
	std::vector<std::pair<size_t, size_t>> places; // offsets, relative base
	if (num_syms >= 8 + table)
		places.emplace_back(num_syms - 8 - table, num_syms - 8);
	places.emplace_back(l.token_index + 512, l.token_index + 512 + table);
	for (auto [off, base] : places) {
		if (base + 8 > d.size())
			continue;
		Layout t = l;
		t.offsets = off;
		t.relative_base = base;
		std::vector<uint64_t> a = addresses(d, t, rd<uint64_t>(d, base));
		if (std::is_sorted(a.begin(), a.end()) && a.front() != a.back()) {
			l = t;
			return true;
		}
	}
	return false;
}

// The expanded names ("T" + name) of the symbols: their types, and their
// names viewing *names (one buffer for all).
std::vector<Symbol> decode_names(std::string_view d, const Layout &l,
				 std::shared_ptr<const std::string> &names)
{
	// each token copied into a 16-byte slot, so that one fixed-size copy
	// (two moves, not a memcpy call) expands the short ones
	constexpr size_t slot = 16;
	char tok[256][slot] = {};
	std::string_view wide[256]; // the tokens longer than a slot
	uint8_t len_of[256];
	const char *table = d.data() + l.tokens;
	for (int k = 0; k < 256; ++k) {
		std::string_view t(table + rd<uint16_t>(d, l.token_index + 2 * k));
		len_of[k] = static_cast<uint8_t>(std::min<size_t>(t.size(), 255));
		if (t.size() <= slot)
			std::memcpy(tok[k], t.data(), t.size());
		else
			wide[k] = t;
	}
	std::vector<Symbol> out(l.num);
	std::vector<std::pair<uint32_t, uint32_t>> at(l.num); // offset, length in blob
	auto blob = std::make_shared<std::string>();
	blob->reserve(size_t{l.num} * 24);
	size_t pos = l.names;
	char buf[1024 + slot]; // KSYM_NAME_LEN is 512; room for a slot's overrun
	for (uint32_t i = 0; i < l.num; ++i) {
		auto [len, p] = entry_at(d, pos);
		size_t n = 0;
		for (size_t k = 0; k < len; ++k) {
			unsigned char c = static_cast<unsigned char>(d[p + k]);
			size_t tl = len_of[c];
			if (n + tl > 1024)
				break;
			if (tl <= slot)
				std::memcpy(buf + n, tok[c], slot);
			else
				std::memcpy(buf + n, wide[c].data(), tl);
			n += tl;
		}
		pos = p + len;
		if (n > 0) {
			out[i].type = buf[0];
			at[i] = {static_cast<uint32_t>(blob->size()), static_cast<uint32_t>(n - 1)};
			blob->append(buf + 1, n - 1);
		}
	}
	for (uint32_t i = 0; i < l.num; ++i)
		out[i].name = std::string_view(*blob).substr(at[i].first, at[i].second);
	names = std::move(blob);
	return out;
}

// An ELF image's PT_LOAD segments, to turn addresses into file offsets.
struct Segment {
	uint64_t vaddr, memsz, filesz, offset;
};

std::optional<std::vector<Segment>> elf_segments(std::string_view d)
{
	if (d.size() < sizeof(Elf64_Ehdr) || d.substr(0, 4) != ELFMAG)
		return std::nullopt;
	auto eh = rd<Elf64_Ehdr>(d, 0);
	std::vector<Segment> segs;
	if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB)
		return segs;
	for (unsigned i = 0; i < eh.e_phnum; ++i) {
		size_t off = eh.e_phoff + size_t{i} * eh.e_phentsize;
		if (off + sizeof(Elf64_Phdr) > d.size())
			break;
		auto ph = rd<Elf64_Phdr>(d, off);
		if (ph.p_type == PT_LOAD)
			segs.push_back({ph.p_vaddr, ph.p_memsz, ph.p_filesz, ph.p_offset});
	}
	return segs;
}

// Where an image's addresses are in the file: through the PT_LOAD segments
// of an ELF image, else (a raw Image) at address - head.
struct Placement {
	std::optional<std::vector<Segment>> segs;
	uint64_t head = 0;
	bool known = false;
	size_t rela = 0, rela_end = 0; // the R_AARCH64_RELATIVE entries, when found

	// The file offset of size bytes at addr.
	std::optional<size_t> offset(uint64_t addr, size_t size) const
	{
		if (segs) {
			for (const Segment &s : *segs)
				if (addr >= s.vaddr && addr + size <= s.vaddr + s.filesz)
					return s.offset + (addr - s.vaddr);
			return std::nullopt;
		}
		if (!known || addr < head)
			return std::nullopt;
		return addr - head;
	}
};

constexpr uint64_t r_aarch64_relative = 1027;

// Relocatable arm64 kernels leave fields that hold addresses 0 in the file
// and relocate them at boot from R_AARCH64_RELATIVE entries (Elf64_Rela:
// target, type, value). The run of such entries around the one at p.
bool is_relative(std::string_view d, size_t p)
{
	return p + 24 <= d.size() && rd<uint64_t>(d, p + 8) == r_aarch64_relative;
}

void note_relocations(std::string_view d, size_t p, Placement &at)
{
	at.rela = p;
	while (at.rela >= 24 && is_relative(d, at.rela - 24))
		at.rela -= 24;
	for (at.rela_end = p; is_relative(d, at.rela_end);)
		at.rela_end += 24;
}

// The entry relocating the field at address `where`: its offset in d.
std::optional<size_t> relocation(std::string_view d, uint64_t where)
{
	for (size_t p = 0; p + 24 <= d.size(); p += 8)
		if (is_relative(d, p) && rd<uint64_t>(d, p) == where)
			return p;
	return std::nullopt;
}

// The relative base of such a kernel and, for a raw Image (loaded at its
// first byte), that byte's address: the entry relocating the base field is
// the one whose target minus the field's file offset is 2 MB aligned.
std::optional<uint64_t> relocated_base(std::string_view d, size_t field, Placement &at)
{
	std::optional<size_t> entry;
	if (at.segs) {
		for (const Segment &s : *at.segs)
			if (field >= s.offset && field < s.offset + s.filesz)
				entry = relocation(d, s.vaddr + (field - s.offset));
	}
	for (size_t p = 0; !at.segs && !entry && p + 24 <= d.size(); p += 8) {
		if (!is_relative(d, p))
			continue;
		uint64_t where = rd<uint64_t>(d, p), value = rd<uint64_t>(d, p + 16);
		uint64_t head = where - field;
		if (where >= (uint64_t{0xffff} << 48) && head % (2u << 20) == 0 && value >= head &&
		    value - head < d.size()) {
			at.head = head;
			at.known = true;
			entry = p;
		}
	}
	if (!entry)
		return std::nullopt;
	note_relocations(d, *entry, at);
	return rd<uint64_t>(d, *entry + 16);
}

// The entries of the _kprobe_blacklist section (unsigned long start
// addresses), those left 0 in the file from the relocation entries;
// nothing when they cannot all be read.
std::optional<std::vector<uint64_t>> read_blacklist(std::string_view d, const Placement &at,
						    uint64_t start, uint64_t stop)
{
	if (stop < start)
		return std::nullopt;
	std::optional<size_t> off = at.offset(start, stop - start);
	if (!off || *off + (stop - start) > d.size())
		return std::nullopt;
	std::vector<uint64_t> out;
	std::vector<std::pair<uint64_t, size_t>> zero; // address, index
	for (uint64_t a = start; a + 8 <= stop; a += 8, *off += 8) {
		out.push_back(rd<uint64_t>(d, *off));
		if (out.back() == 0)
			zero.emplace_back(a, out.size() - 1);
	}
	if (zero.empty())
		return out;
	std::sort(zero.begin(), zero.end());
	for (size_t p = at.rela; p < at.rela_end; p += 24) {
		uint64_t where = rd<uint64_t>(d, p);
		auto it = std::lower_bound(zero.begin(), zero.end(), std::make_pair(where, size_t{0}));
		if (it != zero.end() && it->first == where)
			out[it->second] = rd<uint64_t>(d, p + 16);
	}
	if (std::count(out.begin(), out.end(), 0) != 0)
		return std::nullopt; // not relocated after all: not known
	return out;
}

// The file range of an ELF image's section `name`; nothing when d is not
// ELF or has no such section.
std::optional<std::pair<size_t, size_t>> elf_section(std::string_view d, std::string_view name)
{
	if (d.size() < sizeof(Elf64_Ehdr) || d.substr(0, 4) != ELFMAG || d[EI_CLASS] != ELFCLASS64)
		return std::nullopt;
	auto eh = rd<Elf64_Ehdr>(d, 0);
	auto shdr = [&](size_t i) -> std::optional<Elf64_Shdr> {
		size_t off = eh.e_shoff + i * eh.e_shentsize;
		if (i >= eh.e_shnum || off + sizeof(Elf64_Shdr) > d.size())
			return std::nullopt;
		return rd<Elf64_Shdr>(d, off);
	};
	std::optional<Elf64_Shdr> strtab = shdr(eh.e_shstrndx);
	if (!strtab)
		return std::nullopt;
	for (size_t i = 1; i < eh.e_shnum; ++i) {
		std::optional<Elf64_Shdr> sh = shdr(i);
		if (!sh)
			break;
		size_t at = strtab->sh_offset + sh->sh_name;
		if (at + name.size() < d.size() && d.substr(at, name.size()) == name &&
		    d[at + name.size()] == '\0' && sh->sh_offset + sh->sh_size <= d.size())
			return std::make_pair(size_t{sh->sh_offset}, size_t{sh->sh_size});
	}
	return std::nullopt;
}

// Where the tables are in image d (ELF or raw), or the error for path.
Result<Layout> locate(std::string_view d, const std::string &path)
{
	Layout l;
	std::optional<std::pair<size_t, size_t>> rodata = elf_section(d, ".rodata");
	bool found = rodata && find_tokens(d, rodata->first, rodata->first + rodata->second, l);
	if (!found && !find_tokens(d, 0, d.size(), l)) {
		bool bz = d.size() > 0x206 && d.substr(0x202, 4) == "HdrS";
		if (bz || d.substr(0, 2) == "\x1f\x8b" || d.substr(0, 4) == "\x28\xb5\x2f\xfd")
			return fail(path + " is a compressed kernel, not an uncompressed image",
				    "pass the vmlinux extracted from it (stap-pmu extracts "
				    "/boot/vmlinuz-RELEASE into its cache with --vm)");
		return fail("no kallsyms tables found in " + path,
			    "pass an uncompressed vmlinux or arm64 Image of a kernel built with "
			    "CONFIG_KALLSYMS=y");
	}
	if (!find_markers(d, l) || !find_offsets(d, l))
		return fail("the kallsyms tables of " + path + " have a layout this version does not read",
			    "pass a vmlinux with a symbol table (--vmlinux) or run on that kernel "
			    "(/proc/kallsyms)");
	return l;
}

// The symbols of an image whose tables are at l, with addresses.
Result<SymbolTable> symbols_of(std::string_view d, const Layout &l, const std::string &path)
{
	std::shared_ptr<const std::string> names;
	std::vector<Symbol> syms = decode_names(d, l, names);
	uint64_t base = rd<uint64_t>(d, l.relative_base);
	Placement at;
	at.segs = elf_segments(d);
	if (base == 0) {
		std::optional<uint64_t> b = relocated_base(d, l.relative_base, at);
		if (!b)
			return fail("cannot find the load address of the kernel image " + path,
				    "pass the kernel's vmlinux or read /proc/kallsyms on it");
		base = *b;
	}
	std::vector<uint64_t> a = addresses(d, l, base);
	const Symbol *start = nullptr, *stop = nullptr, *text = nullptr;
	using namespace std::string_view_literals;
	for (uint32_t i = 0; i < l.num; ++i) {
		syms[i].addr = a[i];
		if (syms[i].name == "__start_kprobe_blacklist"sv)
			start = &syms[i];
		else if (syms[i].name == "__stop_kprobe_blacklist"sv)
			stop = &syms[i];
		else if (syms[i].name == "_text"sv)
			text = &syms[i];
	}
	if (!at.segs && !at.known && text) // a raw Image whose fields hold addresses
		at.head = text->addr, at.known = true;
	std::optional<std::vector<uint64_t>> bl;
	if (start && stop)
		bl = read_blacklist(d, at, start->addr, stop->addr);
	bool known = bl.has_value();
	return SymbolTable(std::move(names), std::move(syms),
			   known ? std::move(*bl) : std::vector<uint64_t>{}, known);
}

} // namespace


Result<SymbolTable> read_image(const std::string &path)
{
	auto m = Mapping::open(path);
	if (!m)
		return m.error();
	std::string_view d = (*m)->bytes();
	auto l = locate(d, path);
	if (!l)
		return l.error();
	return symbols_of(d, *l, path);
}

} // namespace stap_pmu::ksyms
