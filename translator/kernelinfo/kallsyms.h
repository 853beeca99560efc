// kallsyms.h - the target kernel's symbol table without debuginfo: read
// from the kallsyms tables every kernel image carries (CONFIG_KALLSYMS), or
// from /proc/kallsyms of the running kernel. Pass 2 asks it whether a
// kprobe.function name exists ("did you mean"), whether it is __init code,
// and whether kprobes refuse it (the kprobe blacklist and the kernel's
// no-kprobe text sections).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "translator/support/result.h"

namespace stap_pmu::ksyms {

// name views bytes the SymbolTable keeps (decoding 150 k names into one
// buffer, not one allocation each, is most of what reading a table costs)
struct Symbol {
	std::string_view name;
	char type = '?'; // nm's letter: 'T'/'t' text, 'D'/'d' data, ...
	uint64_t addr = 0;
};

// A half-open address range [start, end).
struct AddrRange {
	uint64_t start = 0, end = 0;
	bool contains(uint64_t a) const { return a >= start && a < end; }
	bool empty() const { return end <= start; }
};

class SymbolTable {
public:
	SymbolTable() = default;
	// symbols in the kernel's order (by address), their names in names
	// (shared by copies of the table); blacklist: start addresses of the
	// _kprobe_blacklist section ("" : not known).
	SymbolTable(std::shared_ptr<const void> names, std::vector<Symbol> symbols,
		    std::vector<uint64_t> blacklist, bool blacklist_known);

	// Every symbol (a table read from the cache decodes them all on the
	// first call: lookups by name decode only what they look at).
	std::span<const Symbol> symbols() const;
	size_t size() const { return n_; }

	// Whether s is code: nm's t/T, or a weak symbol (w/W) in the kernel's
	// text or init text.
	bool is_text(const Symbol &s) const;

	// The text symbols called name (several static functions may share
	// one), in address order; empty when there is none.
	std::vector<const Symbol *> text(std::string_view name) const;
	bool has_text(std::string_view name) const;

	// The first symbol (text or data) called name; nullptr when there is none.
	const Symbol *find(std::string_view name) const;
	// All symbols called name, in address order.
	std::vector<const Symbol *> named(std::string_view name) const;
	// The name kallsyms gives s's address (s one of this table's): the
	// first symbol at that address in the kernel's order.
	std::string_view shown_name(const Symbol &s) const;

	// _stext.._etext and _sinittext.._einittext (empty when unknown).
	AddrRange text_range() const { return text_range_; }
	AddrRange init_range() const { return init_range_; }
	bool is_init(uint64_t addr) const { return init_range_.contains(addr); }

	// Up to n text symbol names closest to name (support/suggest.h's
	// nearest_names; a swap of two letters counts as one edit), nearest
	// first; probeable_only: only names why_not_probeable accepts.
	std::vector<std::string> nearest(const std::string &name, size_t n,
					 bool probeable_only = false) const;

	// Why kprobes cannot probe the text symbol name: "" when they can (or
	// when no symbol of that name is known: ask has_text first), else
	// "it is __init code", "it is on the kernel's kprobe blacklist" or
	// "it is in the kernel's <what> text, where kprobes are not allowed".
	// With several symbols of that name, "" when any of them is probeable.
	std::string why_not_probeable(std::string_view name) const;

	// Whether the _kprobe_blacklist entries were read (a raw arm64 Image
	// does not name that section; the text ranges are known regardless).
	bool blacklist_known() const { return blacklist_known_; }
	const std::vector<uint64_t> &blacklist() const { return blacklist_; }

	// The table as the bytes read_image_cached keeps, and back: a table
	// whose names view d, kept alive by owner (nothing when d is not one).
	std::string to_cache() const;
	struct CacheSym; // a symbol's record in those bytes
	static std::optional<SymbolTable> from_cache(std::shared_ptr<const void> owner,
						     std::string_view d);

private:
	static constexpr uint32_t none = UINT32_MAX;
	void finish(); // after the index: ranges and the text kprobes refuse
	void index_names();
	const Symbol &sym(uint32_t i) const;	     // decoded on first use (cache)
	uint32_t first(std::string_view name) const; // first symbol of that name, or none
	uint32_t next(uint32_t i) const;	     // the next symbol of i's name, or none
	std::string why_not(const Symbol &s) const;
	AddrRange range(const char *start, const char *end) const;

	std::shared_ptr<const void> names_; // owns the bytes the names view
	size_t n_ = 0;			    // symbols
	// A decoded table holds its symbols in syms_. One read from the cache
	// views the file's records (cache_, names at cache_names_) and decodes
	// a symbol into lazy_ (room for n_, written only where decoded) the
	// first time it is looked at: 150 k symbols written out whole were
	// most of a -p3 run's instructions and page faults.
	std::vector<Symbol> syms_;
	const CacheSym *cache_ = nullptr;
	const char *cache_names_ = nullptr;
	struct Free {
		void operator()(Symbol *p) const;
	};
	mutable std::unique_ptr<Symbol, Free> lazy_;
	mutable std::vector<bool> decoded_;
	mutable bool all_decoded_ = false;
	// The names, hashed: open addressing over the first symbol of each
	// name; next_ chains the symbols of one name in address order. Views
	// of slots_own_/next_own_, or of the cache file.
	std::vector<uint32_t> slots_own_, next_own_;
	std::span<const uint32_t> slots_, next_;
	std::vector<uint64_t> blacklist_; // sorted
	bool blacklist_known_ = false;
	AddrRange text_range_, init_range_;
	std::vector<std::pair<AddrRange, std::string>> no_kprobe_; // text sections kprobes refuse
};

// The symbol table of an uncompressed kernel image: an ELF vmlinux (such as
// the one extracted from /boot/vmlinuz-RELEASE) or a raw arm64 Image, found
// through its kallsyms tables (64-bit little-endian kernels, 6.1 to 6.12
// layouts). Errors say what the file is and what to pass instead.
Result<SymbolTable> read_image(const std::string &path);

// read_image, with the decoded table kept under CACHE_ROOT/ksyms/ (keyed by
// the image's path, size, mtime and inode): the next read of the same image
// maps it instead of decoding some 150 k names again (pass 2 checks every
// kprobe.function name against it). cache_root "": read_image.
Result<SymbolTable> read_image_cached(const std::string &path, const std::string &cache_root);

// The symbol table in /proc/kallsyms format ("ADDR TYPE NAME [MODULE]");
// module symbols are skipped. For /proc/kallsyms itself, the kprobe
// blacklist of the running kernel is read from debugfs when readable.
Result<SymbolTable> read_kallsyms(const std::string &path);

} // namespace stap_pmu::ksyms
