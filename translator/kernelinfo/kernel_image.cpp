// kernel_image.cpp - an uncompressed vmlinux from a compressed kernel image
// (XZ through xz, zstd through libzstd), checked as a complete ELF file.
#include "translator/kernelinfo/kernel.h"
#include "translator/support/process.h"
#include "translator/support/arch.h"
#include "translator/support/sysutil.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace stap_pmu::kernel {

std::vector<size_t> find_xz_offsets(std::string_view data)
{
	static const char magic[] = "\xfd" "7zXZ";
	std::string_view m(magic, 6); // includes the terminating NUL of the literal
	std::vector<size_t> out;
	for (size_t p = data.find(m); p != std::string_view::npos; p = data.find(m, p + 1))
		out.push_back(p);
	return out;
}

bool is_complete_elf(const std::string &path)
{
	sys::Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
	if (!fd)
		return false;
	struct stat sb;
	Elf64_Ehdr eh;
	bool ok = fstat(fd.get(), &sb) == 0 && pread(fd.get(), &eh, sizeof eh, 0) == (ssize_t)sizeof eh &&
		  memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 && eh.e_ident[EI_CLASS] == ELFCLASS64;
	if (ok) {
		uint64_t size = (uint64_t)sb.st_size;
		ok = eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize <= size &&
		     eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize <= size &&
		     eh.e_phentsize == sizeof(Elf64_Phdr) && eh.e_phnum > 0;
		for (unsigned i = 0; ok && i < eh.e_phnum; i++) {
			Elf64_Phdr ph;
			if (pread(fd.get(), &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) !=
			    (ssize_t)sizeof ph)
				ok = false;
			else if (ph.p_type == PT_LOAD && ph.p_offset + ph.p_filesz > size)
				ok = false;
		}
	}
	return ok;
}

std::vector<size_t> find_zstd_offsets(std::string_view data)
{
	std::string_view m("\x28\xb5\x2f\xfd", 4); // a zstd frame's magic, little-endian 0xFD2FB528
	std::vector<size_t> out;
	for (size_t p = data.find(m); p != std::string_view::npos; p = data.find(m, p + 1))
		out.push_back(p);
	return out;
}

namespace {

// Decompresses the XZ stream at data[off] into the open file `out` with xz -dc.
// An error only when xz cannot run; whether it gave a kernel is the caller's ELF check.
Status unxz_at(const std::string &vmlinuz, size_t off, int out)
{
	sys::Fd in(open(vmlinuz.c_str(), O_RDONLY | O_CLOEXEC));
	if (!in || lseek(in.get(), (off_t)off, SEEK_SET) < 0)
		return fail("cannot read " + vmlinuz + ": " + strerror(errno));
	sys::Spawn xz;
	xz.argv = {"xz", "-dc"};
	xz.in = in.get();
	xz.out = out;
	// xz complains about the bzImage bytes after the stream: its status is not
	// meaningful, the ELF check is.
	auto st = sys::run(xz, 120);
	if (!st && st.error().what.find("cannot run") == 0)
		return fail(st.error().what + " (install xz-utils)");
	return {};
}

// Decompresses the one zstd frame at data[off] into the open file `out` with
// libzstd; what follows the frame (the bzImage's size trailer) is ignored.
// False when the frame is corrupt or cannot be written.
bool unzstd_at(std::string_view data, size_t off, int out)
{
	std::unique_ptr<ZSTD_DStream, size_t (*)(ZSTD_DStream *)> ds(ZSTD_createDStream(),
								      ZSTD_freeDStream);
	if (!ds || ZSTD_isError(ZSTD_initDStream(ds.get())))
		return false;
	std::vector<char> buf(ZSTD_DStreamOutSize());
	ZSTD_inBuffer in{data.data() + off, data.size() - off, 0};
	for (;;) {
		ZSTD_outBuffer ob{buf.data(), buf.size(), 0};
		size_t r = ZSTD_decompressStream(ds.get(), &ob, &in);
		if (ZSTD_isError(r) || !sys::write_all(out, buf.data(), ob.pos))
			return false;
		if (r == 0)
			return true; // the frame is complete
		if (in.pos == in.size && ob.pos < ob.size)
			return false; // truncated
	}
}

} // namespace

Status extract_vmlinux(const std::string &vmlinuz, const std::string &out)
{
	auto data = sys::read_file(vmlinuz, 256 << 20);
	if (!data)
		return fail("cannot read " + vmlinuz + ": " + strerror(errno));
	auto xz = find_xz_offsets(*data);
	auto zstd = find_zstd_offsets(*data);
	if (xz.empty() && zstd.empty())
		return fail(vmlinuz + " contains no XZ or zstd stream");
	std::string tmp = out + ".tmp." + std::to_string(getpid());
	// every candidate stream, XZ ones first, until one gives a complete ELF
	for (size_t i = 0; i < xz.size() + zstd.size(); i++) {
		sys::Fd o(open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
		if (!o)
			return fail("cannot create " + tmp + ": " + strerror(errno));
		bool written = true;
		if (i < xz.size()) {
			if (Status st = unxz_at(vmlinuz, xz[i], o.get()); !st) {
				unlink(tmp.c_str());
				return st;
			}
		} else {
			written = unzstd_at(*data, zstd[i - xz.size()], o.get());
		}
		o.reset();
		if (written && is_complete_elf(tmp)) {
			if (rename(tmp.c_str(), out.c_str()) != 0) {
				Error e = fail("cannot rename " + tmp + ": " + strerror(errno));
				unlink(tmp.c_str());
				return e;
			}
			return {};
		}
	}
	unlink(tmp.c_str());
	return fail("no XZ or zstd stream in " + vmlinuz + " decompresses to a complete ELF kernel");
}

} // namespace stap_pmu::kernel
