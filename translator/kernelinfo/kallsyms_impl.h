// kallsyms_impl.h - what the three kallsyms files share: a file mapping,
// little-endian reads, and the cache's record of a symbol. Internal to
// kallsyms.cpp (queries, /proc/kallsyms), kallsyms_image.cpp (decoding an
// image) and kallsyms_cache.cpp (the decoded table on disk).
#pragma once

#include "translator/kernelinfo/kallsyms.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <memory>
#include <string_view>

#include "translator/support/file.h"

namespace stap_pmu::ksyms {

namespace detail {

// A read-only mapping of a whole file.
class Mapping {
public:
	Mapping() = default;
	Mapping(const Mapping &) = delete;
	Mapping &operator=(const Mapping &) = delete;
	~Mapping()
	{
		if (base_)
			munmap(base_, size_);
	}
	// populate: read the whole file in now (one fault-in instead of one
	// page fault per page touched; for a file that is read whole)
	static Result<std::unique_ptr<Mapping>> open(const std::string &path, bool populate = false)
	{
		sys::Fd fd = sys::Fd::open(path, O_RDONLY);
		struct stat st {};
		if (!fd || fstat(fd.get(), &st) != 0)
			return fail("cannot read the kernel image " + path + ": " + std::strerror(errno),
				    "pass an uncompressed vmlinux or arm64 Image that exists");
		auto m = std::make_unique<Mapping>();
		m->size_ = static_cast<size_t>(st.st_size);
		if (m->size_ == 0)
			return fail("the kernel image " + path + " is empty",
				    "pass an uncompressed vmlinux or arm64 Image");
		void *p = mmap(nullptr, m->size_, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0),
			       fd.get(), 0);
		if (p == MAP_FAILED)
			return fail("cannot map the kernel image " + path + ": " + std::strerror(errno));
		m->base_ = p;
		return m;
	}
	std::string_view bytes() const { return {static_cast<const char *>(base_), size_}; }

private:
	void *base_ = nullptr;
	size_t size_ = 0;
};

// Little-endian reads at a byte offset (the caller checks the bounds).
template <class T> T rd(std::string_view d, size_t off)
{
	T v;
	std::memcpy(&v, d.data() + off, sizeof v);
	return v;
}

inline size_t align8(size_t x) { return (x + 7) & ~size_t{7}; }

} // namespace detail

// the cache file's record of a symbol (kallsyms_cache.cpp)
struct SymbolTable::CacheSym {
	uint64_t addr;
	uint32_t off, len_type;
};

} // namespace stap_pmu::ksyms
