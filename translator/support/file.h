// file.h - owning file descriptors, temporary directories, whole-file reads.
// libc and libstdc++ only (the static guest loader links support/).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include "translator/support/result.h"

namespace stap_pmu::sys {

// An owning file descriptor: closed when it goes out of scope.
class Fd {
public:
	Fd() = default;
	explicit Fd(int fd) : fd_(fd) {}
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;
	Fd(Fd &&o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
	Fd &operator=(Fd &&o) noexcept
	{
		if (this != &o)
			reset(std::exchange(o.fd_, -1));
		return *this;
	}
	~Fd() { reset(); }

	// open(2) with O_CLOEXEC added; an invalid Fd (errno set) on failure.
	static Fd open(const std::string &path, int flags, unsigned mode = 0644);

	int get() const { return fd_; }
	bool valid() const { return fd_ >= 0; }
	explicit operator bool() const { return valid(); }
	int release() { return std::exchange(fd_, -1); }
	void reset(int fd = -1);

private:
	int fd_ = -1;
};

// A private directory $TMPDIR/PREFIXXXXXXX, removed with everything in it
// when the object goes out of scope unless keep() was called.
class TempDir {
public:
	// Creates it; the error names the directory it was to be made in.
	static Result<TempDir> create(const std::string &prefix);
	// The same in parent ("" : $TMPDIR, else /tmp); the error is
	// "cannot create a temp dir in PARENT: REASON".
	static Result<TempDir> create_in(const std::string &parent, const std::string &prefix);
	TempDir(const TempDir &) = delete;
	TempDir &operator=(const TempDir &) = delete;
	TempDir(TempDir &&o) noexcept : path_(std::exchange(o.path_, "")) {}
	TempDir &operator=(TempDir &&o) noexcept;
	~TempDir();

	const std::string &path() const { return path_; }
	// Leaves the directory in place (for -k / --keep-tmpdir); returns its path.
	std::string keep() { return std::exchange(path_, ""); }

private:
	explicit TempDir(std::string path) : path_(std::move(path)) {}
	std::string path_;
};

// At most limit bytes of the file at path; nothing when it cannot be opened.
std::optional<std::string> read_file(const std::string &path, size_t limit = 64u << 20);

} // namespace stap_pmu::sys
