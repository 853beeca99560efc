// process.h - the one fork/exec of stap-pmu: helper programs run to the end
// (cpio, gzip, xz, sign-file), QEMU, the -c command held until the module
// runs. libc only: the static guest loader links it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "translator/support/file.h"
#include "translator/support/result.h"

namespace stap_pmu::sys {

// What to start and how to wire it up.
struct Spawn {
	static constexpr int kNull = -1;    // the fd is /dev/null
	static constexpr int kInherit = -2; // the child keeps ours

	std::vector<std::string> argv;
	std::string file;       // program to exec ("" : argv[0]); PATH is searched without a '/'
	int in = kNull, out = kNull, err = kNull;
	std::string cwd;        // "" : ours
	bool new_group = false; // its own process group (a terminal Ctrl-C reaches only us)
	bool default_signals = true; // SIGINT, SIGTERM and SIGPIPE back to SIG_DFL
	// Held start: the child waits before exec until release(); release(false)
	// ends it (status 0) without running the program.
	bool held = false;
	// When exec fails the child writes this + "cannot run FILE: REASON\n" on
	// its stderr ("" : nothing; the parent reports). It exits 127 (not found) or 126.
	std::string exec_error_prefix;
};

// A child process. Destroying one that still runs kills it (SIGKILL) and reaps it.
class Child {
public:
	// Forks and execs. Unless held, returns once the exec succeeded, and
	// an error "cannot run FILE: REASON" when it failed.
	static Result<Child> start(const Spawn &spec);

	Child(const Child &) = delete;
	Child &operator=(const Child &) = delete;
	Child(Child &&o) noexcept;
	Child &operator=(Child &&o) noexcept;
	~Child();

	pid_t pid() const { return pid_; }
	// Held start: lets the child exec (run) or end without it (!run). Once only.
	void release(bool run);
	// The wait status once the child has ended (does not block).
	std::optional<int> poll();
	// Waits at most timeout_ms (checking every poll_ms); nothing when it still runs.
	std::optional<int> wait_for(long long timeout_ms, int poll_ms = 10);
	// Waits for the end.
	int wait();
	void kill(int sig) const;
	// After the end: the errno of a failed exec, 0 when the program ran (or a
	// held child was never released to run it).
	int exec_errno() const { return exec_errno_; }

private:
	Child() = default;
	void reaped(int status);

	pid_t pid_ = -1;
	std::optional<int> status_;
	Fd hold_;     // write end: one byte 'g' = exec, closed without it = do not
	Fd exec_err_; // read end: the child writes errno here when exec fails
	int exec_errno_ = 0;
};

// A program whose standard output is read back (its stderr is what spec
// says), run in its own process group. The whole group is killed (SIGKILL)
// and the program reaped when the object is destroyed, when finish() times
// out, and when a SIGINT or SIGTERM arrives while finish() waits: then every
// Captured still alive is killed and the signal is raised again once
// SignalScope has put back the dispositions from before.
class Captured {
public:
	struct Output {
		int status = -1; // wait status
		std::string out;
	};
	// spec.out and spec.new_group are set here.
	static Result<Captured> start(Spawn spec);

	Captured(Captured &&) noexcept = default;
	Captured &operator=(Captured &&o) noexcept;
	~Captured();

	pid_t pid() const { return child_.pid(); }
	// Reads the output to its end and waits for the program: an error when
	// timeout_ms (< 0: none) passed first.
	Result<Output> finish(long long timeout_ms = -1);

private:
	Captured(Child c, Fd out) : child_(std::move(c)), out_(std::move(out)) {}
	void kill_group();

	Child child_;
	Fd out_;
};

// Runs spec (not held) to the end: its wait status, or an error when it
// could not start or did not finish within timeout_s (it is killed then).
Result<int> run(const Spawn &spec, int timeout_s);

// "exited with status N", "was killed by signal NAME", "ended".
std::string describe_wait(int status);

} // namespace stap_pmu::sys
