// kallsyms_cache.cpp - the decoded symbol table on disk (read_image_cached).
#include "translator/kernelinfo/kallsyms_impl.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

namespace stap_pmu::ksyms {

using namespace detail;

// ---- the decoded table on disk (read_image_cached) ----
//
// Native byte order, read only on the machine that wrote it: a header of
// six u64 (magic, symbols, name bytes, hash slots, blacklist entries,
// blacklist known), per symbol {u64 addr; u32 name offset; u32 length << 8 |
// type}, the names (padded to 8), the hash slots and chains (u32), padded
// to 8, the blacklist (u64).

namespace {

constexpr uint64_t cache_magic = 0x3130594b53505453ULL; // "STPSKY01"

struct CacheHeader {
	uint64_t magic, num, blob, nslots, nbl, known;
};


size_t cache_size(const CacheHeader &h)
{
	return sizeof h + h.num * sizeof(SymbolTable::CacheSym) + align8(h.blob) +
	       align8((h.nslots + h.num) * sizeof(uint32_t)) + h.nbl * sizeof(uint64_t);
}

// FNV-1a over the image's identity: a changed or replaced file is another key
std::string cache_key(const std::string &path, const struct stat &st)
{
	std::string id = path + '\0' + std::to_string(st.st_size) + '\0' +
			 std::to_string(st.st_mtim.tv_sec) + '.' +
			 std::to_string(st.st_mtim.tv_nsec) + '\0' + std::to_string(st.st_ino);
	uint64_t h = 0xcbf29ce484222325ULL;
	for (unsigned char c : id)
		h = (h ^ c) * 0x100000001b3ULL;
	char hex[17];
	snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
	return hex;
}

template <class T> void put(std::string &out, const T *p, size_t n)
{
	out.append(reinterpret_cast<const char *>(p), n * sizeof(T));
}

} // namespace

std::string SymbolTable::to_cache() const
{
	// the names again as one buffer, in symbol order
	std::string blob;
	std::span<const Symbol> all = symbols();
	std::vector<CacheSym> cs(all.size());
	for (size_t i = 0; i < all.size(); ++i) {
		const Symbol &s = all[i];
		cs[i] = {s.addr, static_cast<uint32_t>(blob.size()),
			 static_cast<uint32_t>(s.name.size() << 8 | static_cast<unsigned char>(s.type))};
		blob += s.name;
	}
	CacheHeader h{cache_magic,    all.size(),	blob.size(), slots_.size(),
		      blacklist_.size(), blacklist_known_};
	std::string out;
	out.reserve(cache_size(h));
	put(out, &h, 1);
	put(out, cs.data(), cs.size());
	out += blob;
	out.resize(align8(out.size()), '\0');
	put(out, slots_.data(), slots_.size());
	put(out, next_.data(), next_.size());
	out.resize(align8(out.size()), '\0');
	put(out, blacklist_.data(), blacklist_.size());
	return out;
}

std::optional<SymbolTable> SymbolTable::from_cache(std::shared_ptr<const void> owner,
						    std::string_view d)
{
	if (d.size() < sizeof(CacheHeader))
		return std::nullopt;
	auto h = rd<CacheHeader>(d, 0);
	if (h.magic != cache_magic || h.num >= none || h.blob > d.size() || h.nslots > d.size() ||
	    h.nbl > d.size() || cache_size(h) != d.size() || h.nslots < h.num ||
	    (h.nslots & (h.nslots - 1)) != 0)
		return std::nullopt;
	size_t at = sizeof h, names = at + h.num * sizeof(CacheSym);
	// one pass over the records (read, not written): every name within
	// the names; the symbols themselves are decoded when looked at
	const auto *recs = reinterpret_cast<const CacheSym *>(d.data() + at);
	uint64_t end = 0;
	for (size_t i = 0; i < h.num; ++i)
		end = std::max(end, uint64_t{recs[i].off} + (recs[i].len_type >> 8));
	if (end > h.blob)
		return std::nullopt;
	at = names + align8(h.blob);
	const auto *ix = reinterpret_cast<const uint32_t *>(d.data() + at);
	at += align8((h.nslots + h.num) * sizeof(uint32_t));
	std::vector<uint64_t> bl(h.nbl);
	std::memcpy(bl.data(), d.data() + at, h.nbl * sizeof(uint64_t));

	SymbolTable t;
	// room for every symbol, not written (calloc's fresh pages stay
	// untouched until a symbol is decoded into them)
	t.lazy_.reset(static_cast<Symbol *>(std::calloc(h.num ? h.num : 1, sizeof(Symbol))));
	if (!t.lazy_)
		return std::nullopt;
	t.names_ = std::move(owner);
	t.n_ = h.num;
	t.cache_ = recs;
	t.cache_names_ = d.data() + names;
	t.decoded_.assign(h.num, false);
	// an entry past the symbols ends a probe or a chain (first(), next())
	t.slots_ = {ix, h.nslots};
	t.next_ = {ix + h.nslots, h.num};
	t.blacklist_ = std::move(bl);
	t.blacklist_known_ = h.known != 0;
	t.finish();
	return t;
}

Result<SymbolTable> read_image_cached(const std::string &path, const std::string &cache_root)
{
	struct stat st {};
	if (cache_root.empty() || stat(path.c_str(), &st) != 0)
		return read_image(path);
	std::string dir = cache_root + "/ksyms";
	std::string file = dir + "/" + cache_key(path, st) + ".bin";
	if (auto m = Mapping::open(file, true)) {
		std::shared_ptr<const Mapping> owner(std::move(*m));
		if (auto t = SymbolTable::from_cache(owner, owner->bytes()))
			return std::move(*t);
	}
	Result<SymbolTable> t = read_image(path);
	if (!t)
		return t;
	// best effort: a cache that cannot be written costs the next run the decoding
	std::string tmp = file + ".tmp." + std::to_string(getpid());
	std::error_code ec;
	std::filesystem::create_directories(dir, ec);
	std::string bytes = t->to_cache();
	{
		std::ofstream f(tmp, std::ios::binary);
		f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
		if (!f.good()) {
			f.close();
			unlink(tmp.c_str());
			return t;
		}
	}
	if (rename(tmp.c_str(), file.c_str()) != 0)
		unlink(tmp.c_str());
	return t;
}

} // namespace stap_pmu::ksyms
