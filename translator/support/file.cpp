// file.cpp - owning file descriptors, temporary directories, whole-file reads.
#include "translator/support/file.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace stap_pmu::sys {

void Fd::reset(int fd)
{
	if (fd_ >= 0)
		close(fd_);
	fd_ = fd;
}

Fd Fd::open(const std::string &path, int flags, unsigned mode)
{
	return Fd(::open(path.c_str(), flags | O_CLOEXEC, (mode_t)mode));
}

Result<TempDir> TempDir::create_in(const std::string &parent, const std::string &prefix)
{
	std::string dir = parent;
	if (dir.empty()) {
		const char *t = getenv("TMPDIR");
		dir = t && *t ? t : "/tmp";
	}
	std::string tmpl = dir + "/" + prefix + "XXXXXX";
	if (!mkdtemp(tmpl.data()))
		return fail("cannot create a temp dir in " + dir + ": " + strerror(errno));
	return TempDir(tmpl);
}

Result<TempDir> TempDir::create(const std::string &prefix)
{
	std::error_code ec;
	std::filesystem::path tmp = std::filesystem::temp_directory_path(ec); // $TMPDIR, else /tmp
	if (ec) {
		const char *env = getenv("TMPDIR");
		return fail("cannot create a temporary directory: " + ec.message() +
			    (env ? " (TMPDIR=" + std::string(env) + ")" : ""));
	}
	std::string tmpl = (tmp / (prefix + "XXXXXX")).string();
	if (!mkdtemp(tmpl.data()))
		return fail("cannot create a temporary directory: " + std::string(strerror(errno)) +
			    " (in " + tmp.string() + ")");
	return TempDir(tmpl);
}

TempDir &TempDir::operator=(TempDir &&o) noexcept
{
	if (this != &o) {
		this->~TempDir();
		path_ = std::exchange(o.path_, "");
	}
	return *this;
}

TempDir::~TempDir()
{
	if (path_.empty())
		return;
	std::error_code ec;
	std::filesystem::remove_all(path_, ec);
}

std::optional<std::string> read_file(const std::string &path, size_t limit)
{
	std::ifstream f(path, std::ios::binary);
	if (!f)
		return std::nullopt;
	// in chunks: the limit is a cap, not a size to allocate up front
	std::string s;
	char buf[64 * 1024];
	while (s.size() < limit && f) {
		f.read(buf, (std::streamsize)std::min(sizeof buf, limit - s.size()));
		s.append(buf, (size_t)f.gcount());
	}
	return s;
}

} // namespace stap_pmu::sys
