// file.cpp - owning file descriptors, temporary directories, whole-file reads.
#include "translator/support/file.h"

#include <fcntl.h>
#include <sys/stat.h>
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
	Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
	if (fd.get() < 0)
		return std::nullopt;
	auto read_some = [&fd](char *p, size_t n) {
		ssize_t r;
		do
			r = read(fd.get(), p, n);
		while (r < 0 && errno == EINTR);
		return r;
	};
	// a regular file's size sizes the string once (the limit is a cap, not
	// a size to allocate up front); pipes and /proc files grow it
	struct stat st;
	size_t want = fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0
			      ? std::min(static_cast<size_t>(st.st_size), limit)
			      : std::min<size_t>(limit, 64 * 1024);
	std::string s(want, '\0');
	size_t got = 0;
	while (got < limit) {
		if (got == s.size()) {
			// full: a small read first, so that a file that did not
			// grow costs no reallocation
			char more[4096];
			ssize_t n = read_some(more, std::min(sizeof more, limit - got));
			if (n <= 0)
				break;
			s.resize(std::min(limit, std::max(s.size() * 2, got + static_cast<size_t>(n))));
			std::memcpy(s.data() + got, more, static_cast<size_t>(n));
			got += static_cast<size_t>(n);
			continue;
		}
		ssize_t n = read_some(s.data() + got, s.size() - got);
		if (n < 0 && got == 0)
			return std::nullopt; // a directory, say
		if (n <= 0)
			break;
		got += static_cast<size_t>(n);
	}
	s.resize(got);
	return s;
}

} // namespace stap_pmu::sys
