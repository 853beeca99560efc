// kallsyms.cpp - the kernel's symbol table and the questions pass 2 asks of it;
// /proc/kallsyms read as text. An image's own tables are decoded in
// kallsyms_image.cpp, the decoded table kept on disk by kallsyms_cache.cpp.
#include "translator/kernelinfo/kallsyms_impl.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <string_view>
#include "translator/support/suggest.h"

namespace stap_pmu::ksyms {

using namespace detail;

SymbolTable::SymbolTable(std::shared_ptr<const void> names, std::vector<Symbol> symbols,
			 std::vector<uint64_t> blacklist, bool blacklist_known)
	: names_(std::move(names)), n_(symbols.size()), syms_(std::move(symbols)),
	  all_decoded_(true), blacklist_(std::move(blacklist)), blacklist_known_(blacklist_known)
{
	std::sort(blacklist_.begin(), blacklist_.end());
	index_names();
	finish();
}

void SymbolTable::Free::operator()(Symbol *p) const
{
	std::free(p);
}

const Symbol &SymbolTable::sym(uint32_t i) const
{
	if (!cache_)
		return syms_[i];
	Symbol *s = lazy_.get() + i;
	if (!decoded_[i]) {
		const CacheSym &c = cache_[i];
		new (s) Symbol{std::string_view(cache_names_ + c.off, c.len_type >> 8),
			       static_cast<char>(c.len_type & 0xff), c.addr};
		decoded_[i] = true;
	}
	return *s;
}

std::span<const Symbol> SymbolTable::symbols() const
{
	if (!cache_)
		return syms_;
	if (!all_decoded_) {
		for (uint32_t i = 0; i < n_; ++i)
			sym(i);
		all_decoded_ = true;
	}
	return {lazy_.get(), n_};
}

std::string_view SymbolTable::shown_name(const Symbol &s) const
{
	const Symbol *base = cache_ ? lazy_.get() : syms_.data();
	auto i = static_cast<uint32_t>(&s - base);
	while (i && sym(i - 1).addr == s.addr)
		i--;
	return sym(i).name;
}

void SymbolTable::finish()
{
	text_range_ = range("_stext", "_etext");
	init_range_ = range("_sinittext", "_einittext");
	// The text kprobes refuse whole (kernel/kprobes.c and the arch's
	// arch_populate_kprobe_blacklist: x86 adds entry text, arm64 entry
	// and irqentry text; on x86 irqentry text lies inside entry text).
	// Not softirqentry text: kprobes on __do_softirq are allowed.
	static const char *const sections[][3] = {
		{"__kprobes_text_start", "__kprobes_text_end", "__kprobes"},
		{"__entry_text_start", "__entry_text_end", "entry"},
		{"__noinstr_text_start", "__noinstr_text_end", "noinstr"},
		{"__irqentry_text_start", "__irqentry_text_end", "irqentry"},
	};
	for (const auto &s : sections) {
		AddrRange r = range(s[0], s[1]);
		if (!r.empty())
			no_kprobe_.emplace_back(r, s[2]);
	}
}

void SymbolTable::index_names()
{
	size_t cap = 16;
	while (cap < 2 * syms_.size())
		cap *= 2;
	slots_own_.assign(cap, none);
	next_own_.assign(syms_.size(), none);
	// backwards, so that each name's chain comes out in address order
	for (size_t i = syms_.size(); i-- > 0;) {
		std::string_view name = syms_[i].name;
		size_t h = std::hash<std::string_view>{}(name) & (cap - 1);
		while (slots_own_[h] != none && syms_[slots_own_[h]].name != name)
			h = (h + 1) & (cap - 1);
		next_own_[i] = slots_own_[h];
		slots_own_[h] = static_cast<uint32_t>(i);
	}
	slots_ = slots_own_;
	next_ = next_own_;
}

uint32_t SymbolTable::first(std::string_view name) const
{
	if (slots_.empty())
		return none;
	size_t mask = slots_.size() - 1;
	size_t h = std::hash<std::string_view>{}(name) & mask;
	// an entry past the symbols (none, or a damaged cache's) ends the
	// probe, and so does a full round
	for (size_t n = 0; n <= mask; n++, h = (h + 1) & mask) {
		uint32_t v = slots_[h];
		if (v >= n_)
			return none;
		if (sym(v).name == name)
			return v;
	}
	return none;
}

uint32_t SymbolTable::next(uint32_t i) const
{
	uint32_t v = next_[i];
	return v < n_ ? v : none;
}

bool SymbolTable::is_text(const Symbol &s) const
{
	if (s.type == 'T' || s.type == 't')
		return true;
	return (s.type == 'W' || s.type == 'w') &&
	       (text_range_.contains(s.addr) || init_range_.contains(s.addr));
}

AddrRange SymbolTable::range(const char *start, const char *end) const
{
	const Symbol *s = find(start), *e = find(end);
	if (!s || !e)
		return {};
	return {s->addr, e->addr};
}

std::vector<const Symbol *> SymbolTable::text(std::string_view name) const
{
	std::vector<const Symbol *> out;
	for (uint32_t i = first(name); i != none; i = next(i))
		if (is_text(sym(i)))
			out.push_back(&sym(i));
	return out;
}

std::vector<const Symbol *> SymbolTable::named(std::string_view name) const
{
	std::vector<const Symbol *> out;
	for (uint32_t i = first(name); i != none; i = next(i))
		out.push_back(&sym(i));
	return out;
}

bool SymbolTable::has_text(std::string_view name) const
{
	for (uint32_t i = first(name); i != none; i = next(i))
		if (is_text(sym(i)))
			return true;
	return false;
}

const Symbol *SymbolTable::find(std::string_view name) const
{
	uint32_t i = first(name);
	return i == none ? nullptr : &sym(i);
}

std::vector<std::string> SymbolTable::nearest(const std::string &name, size_t n,
					      bool probeable_only) const
{
	// the edit distance over every text symbol takes a tenth of a second:
	// only names whose letters could be within a third of the query's
	// length are scored (the bag distance is a lower bound of it).
	size_t limit = std::max<size_t>(2, name.size() / 3);
	LetterBag bag(name);
	std::vector<std::string> close;
	for (const Symbol &s : symbols()) {
		size_t diff = s.name.size() > name.size() ? s.name.size() - name.size()
							  : name.size() - s.name.size();
		if (diff <= limit && is_text(s) && bag(s.name) <= limit &&
		    (!probeable_only || why_not(s).empty()))
			close.emplace_back(s.name);
	}
	return nearest_names(name, close, n);
}

std::string SymbolTable::why_not(const Symbol &s) const
{
	if (is_init(s.addr))
		return "it is __init code";
	if (std::binary_search(blacklist_.begin(), blacklist_.end(), s.addr))
		return "it is on the kernel's kprobe blacklist";
	for (const auto &[r, what] : no_kprobe_)
		if (r.contains(s.addr))
			return "it is in the kernel's " + what + " text, where kprobes are not allowed";
	return "";
}

std::string SymbolTable::why_not_probeable(std::string_view name) const
{
	std::string first;
	for (const Symbol *s : text(name)) {
		std::string why = why_not(*s);
		if (why.empty())
			return "";
		if (first.empty())
			first = why;
	}
	return first;
}


namespace {

// The start addresses of debugfs's kprobes/blacklist ("0xS-0xE\tname").
std::vector<uint64_t> debugfs_blacklist(bool &known)
{
	std::vector<uint64_t> out;
	std::ifstream in("/sys/kernel/debug/kprobes/blacklist");
	known = in.good();
	std::string line;
	while (std::getline(in, line))
		out.push_back(std::strtoull(line.c_str(), nullptr, 16));
	return out;
}

// One line of /proc/kallsyms: "ADDR TYPE NAME", not a module's ("\t[MODULE]").
std::optional<Symbol> kallsyms_line(std::string_view line)
{
	size_t a = line.find(' ');
	if (a == 0 || a == std::string_view::npos || a + 3 >= line.size() || line[a + 2] != ' ')
		return std::nullopt;
	std::string_view addr = line.substr(0, a), name = line.substr(a + 3);
	if (addr.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos ||
	    !std::isalpha(static_cast<unsigned char>(line[a + 1])) || name.empty() ||
	    name.find_first_of(" \t") != std::string_view::npos)
		return std::nullopt;
	Symbol s;
	s.addr = std::strtoull(std::string(addr).c_str(), nullptr, 16);
	s.type = line[a + 1];
	s.name = name;
	return s;
}

} // namespace

Result<SymbolTable> read_kallsyms(const std::string &path)
{
	std::optional<std::string> read = sys::read_file(path, 256u << 20);
	if (!read)
		return fail("cannot read " + path + ": " + std::strerror(errno),
			    "pass a file in /proc/kallsyms format");
	// the names view the text itself
	auto text = std::make_shared<const std::string>(std::move(*read));
	std::vector<Symbol> syms;
	std::string_view rest = *text;
	while (!rest.empty()) {
		size_t nl = rest.find('\n');
		if (std::optional<Symbol> s = kallsyms_line(rest.substr(0, nl)))
			syms.push_back(std::move(*s));
		rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
	}
	if (syms.empty())
		return fail(path + " holds no kernel symbols", "pass a file in /proc/kallsyms format");
	bool known = false;
	std::vector<uint64_t> bl;
	if (path == "/proc/kallsyms")
		bl = debugfs_blacklist(known);
	return SymbolTable(std::move(text), std::move(syms), std::move(bl), known);
}

} // namespace stap_pmu::ksyms
