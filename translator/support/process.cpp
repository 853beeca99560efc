// process.cpp - the one fork/exec: Child, and run() on top of it.
#include "translator/support/process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "translator/support/signals.h"
#include "translator/support/sysutil.h"

namespace stap_pmu::sys {

namespace {

// Everything the child needs, made before fork: it allocates nothing.
struct Prepared {
	std::vector<char *> argv;
	const char *file = nullptr;
	std::string fail_msg; // exec_error_prefix + "cannot run FILE: " ("" : none)
	int fds[3] = {Spawn::kInherit, Spawn::kInherit, Spawn::kInherit};
	int hold = -1;        // read end of the hold pipe
	int exec_err = -1;    // write end of the errno pipe
};

const std::string &program_name(const Spawn &s)
{
	return s.file.empty() ? s.argv[0] : s.file;
}

void write_errno(int fd, int e)
{
	(void)!write(fd, &e, sizeof e);
}

// The three standard fds; an fd already in place keeps its number but
// loses close-on-exec.
void wire_fds(const Prepared &p)
{
	for (int i = 0; i < 3; i++) {
		if (p.fds[i] == Spawn::kInherit)
			continue;
		if (p.fds[i] == i)
			fcntl(i, F_SETFD, fcntl(i, F_GETFD) & ~FD_CLOEXEC);
		else
			dup2(p.fds[i], i);
	}
}

[[noreturn]] void child_main(const Spawn &s, const Prepared &p)
{
	if (s.new_group)
		setpgid(0, 0);
	if (s.default_signals) {
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
	}
	wire_fds(p);
	if (p.hold >= 0) {
		char go = 0;
		ssize_t r;
		do
			r = read(p.hold, &go, 1);
		while (r < 0 && errno == EINTR);
		if (r != 1 || go != 'g')
			_exit(0); // released without a go: never run the program
		close(p.hold);
	}
	if (!s.cwd.empty() && chdir(s.cwd.c_str()) != 0) {
		write_errno(p.exec_err, errno);
		_exit(127);
	}
	execvp(p.file, p.argv.data());
	int e = errno;
	write_errno(p.exec_err, e);
	if (!p.fail_msg.empty()) {
		std::string m = p.fail_msg + strerror(e) + "\n";
		(void)!write(STDERR_FILENO, m.data(), m.size());
	}
	_exit(e == ENOENT ? 127 : 126);
}

// Reads the errno a failed exec wrote; 0 after a good exec (EOF). Blocks
// until one of the two when the child still runs.
int read_exec_errno(Fd &fd)
{
	if (!fd)
		return 0;
	int e = 0;
	ssize_t n = read_some(fd.get(), &e, sizeof e);
	fd.reset();
	return n == (ssize_t)sizeof e ? e : 0;
}

Result<Fd> pipe_pair(Fd &write_end)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return fail(std::string("pipe: ") + strerror(errno));
	write_end = Fd(p[1]);
	return Fd(p[0]);
}

} // namespace

Result<Child> Child::start(const Spawn &s)
{
	if (s.argv.empty())
		return fail("empty command");
	Prepared p;
	for (const auto &a : s.argv)
		p.argv.push_back(const_cast<char *>(a.c_str()));
	p.argv.push_back(nullptr);
	p.file = program_name(s).c_str();
	if (!s.exec_error_prefix.empty())
		p.fail_msg = s.exec_error_prefix + "cannot run " + program_name(s) + ": ";
	Fd devnull;
	if (s.in == Spawn::kNull || s.out == Spawn::kNull || s.err == Spawn::kNull)
		devnull = Fd(open("/dev/null", O_RDWR | O_CLOEXEC));
	int want[3] = {s.in, s.out, s.err};
	for (int i = 0; i < 3; i++)
		p.fds[i] = want[i] == Spawn::kNull ? devnull.get() : want[i];

	Fd err_w, hold_w;
	auto err_r = pipe_pair(err_w);
	if (!err_r)
		return err_r.error();
	Result<Fd> hold_r = Fd();
	if (s.held && !(hold_r = pipe_pair(hold_w)))
		return hold_r.error();
	p.exec_err = err_w.get();
	p.hold = hold_r->get();

	pid_t pid = fork();
	if (pid < 0)
		return fail(std::string("fork: ") + strerror(errno));
	if (pid == 0) {
		hold_w.reset();
		err_r->reset();
		child_main(s, p);
	}
	if (s.new_group)
		setpgid(pid, pid);
	Child c;
	c.pid_ = pid;
	c.hold_ = std::move(hold_w);
	c.exec_err_ = std::move(*err_r);
	err_w.reset();
	hold_r->reset();
	if (!s.held) {
		c.exec_errno_ = read_exec_errno(c.exec_err_);
		if (c.exec_errno_) {
			c.wait();
			return fail("cannot run " + program_name(s) + ": " + strerror(c.exec_errno_));
		}
	}
	return c;
}

Child::Child(Child &&o) noexcept
	: pid_(std::exchange(o.pid_, -1)), status_(o.status_), hold_(std::move(o.hold_)),
	  exec_err_(std::move(o.exec_err_)), exec_errno_(o.exec_errno_)
{
}

Child &Child::operator=(Child &&o) noexcept
{
	if (this != &o) {
		this->~Child();
		pid_ = std::exchange(o.pid_, -1);
		status_ = o.status_;
		hold_ = std::move(o.hold_);
		exec_err_ = std::move(o.exec_err_);
		exec_errno_ = o.exec_errno_;
	}
	return *this;
}

Child::~Child()
{
	if (pid_ > 0 && !status_) {
		kill(SIGKILL);
		wait();
	}
}

void Child::release(bool run)
{
	if (!hold_)
		return;
	if (run)
		write_all(hold_.get(), "g", 1);
	hold_.reset();
}

void Child::reaped(int status)
{
	status_ = status;
	if (exec_err_) // not read yet (a held child)
		exec_errno_ = read_exec_errno(exec_err_);
}

std::optional<int> Child::poll()
{
	if (pid_ <= 0 || status_)
		return status_;
	int st = 0;
	pid_t r;
	do
		r = waitpid(pid_, &st, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == pid_ || r < 0) // r < 0: not ours to wait for any more (ECHILD)
		reaped(r < 0 ? 0 : st);
	return status_;
}

std::optional<int> Child::wait_for(long long timeout_ms, int poll_ms)
{
	long long deadline = now_ms() + timeout_ms;
	for (;;) {
		if (auto st = poll())
			return st;
		if (now_ms() >= deadline)
			return std::nullopt;
		sleep_ms(poll_ms);
	}
}

int Child::wait()
{
	if (pid_ <= 0 || status_)
		return status_.value_or(0);
	int st = 0;
	pid_t r;
	do
		r = waitpid(pid_, &st, 0);
	while (r < 0 && errno == EINTR);
	reaped(r < 0 ? 0 : st);
	return *status_;
}

void Child::kill(int sig) const
{
	if (pid_ > 0 && !status_)
		::kill(pid_, sig);
}

Result<int> run(const Spawn &spec, int timeout_s)
{
	auto c = Child::start(spec);
	if (!c)
		return c.error();
	if (auto st = c->wait_for((long long)timeout_s * 1000))
		return *st;
	c->kill(SIGKILL);
	c->wait();
	return fail(spec.argv[0] + " did not finish within " + std::to_string(timeout_s) + " s");
}

namespace {

// The process groups of the Captured alive now, killed all at once when a
// SIGINT or SIGTERM ends the wait of one of them.
std::vector<pid_t> &live_groups()
{
	static std::vector<pid_t> groups;
	return groups;
}

void forget_group(pid_t pid)
{
	auto &g = live_groups();
	g.erase(std::remove(g.begin(), g.end(), pid), g.end());
}

void kill_live_groups()
{
	for (pid_t pid : live_groups())
		::kill(-pid, SIGKILL);
	for (pid_t pid : live_groups()) {
		pid_t r;
		do
			r = waitpid(pid, nullptr, 0);
		while (r < 0 && errno == EINTR);
	}
	live_groups().clear();
}

// The milliseconds left until deadline (< 0: none), at most cap.
int time_left(long long deadline, int cap)
{
	if (deadline < 0)
		return cap;
	return (int)std::clamp(deadline - now_ms(), 0LL, (long long)cap);
}

} // namespace

Result<Captured> Captured::start(Spawn spec)
{
	Fd w;
	auto r = pipe_pair(w);
	if (!r)
		return r.error();
	spec.out = w.get();
	spec.new_group = true;
	auto c = Child::start(spec);
	if (!c)
		return c.error();
	live_groups().push_back(c->pid());
	return Captured(std::move(*c), std::move(*r));
}

Captured &Captured::operator=(Captured &&o) noexcept
{
	if (this != &o) {
		kill_group();
		child_ = std::move(o.child_);
		out_ = std::move(o.out_);
	}
	return *this;
}

Captured::~Captured() { kill_group(); }

void Captured::kill_group()
{
	pid_t pid = child_.pid();
	if (pid <= 0)
		return;
	if (!child_.poll()) // the leader not reaped yet: the group is still its
		::kill(-pid, SIGKILL);
	child_.wait();
	forget_group(pid);
}

Result<Captured::Output> Captured::finish(long long timeout_ms)
{
	Output o;
	const long long deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	int sig = 0;
	std::optional<int> status;
	{
		SignalScope stop(SignalScope::kCatchStop);
		char buf[4096];
		while (!(sig = stop.caught()) && time_left(deadline, 1) > 0) {
			if (!out_) {
				if ((status = child_.poll()))
					break;
				sleep_ms(time_left(deadline, 10));
				continue;
			}
			struct pollfd pfd = {out_.get(), POLLIN, 0};
			if (::poll(&pfd, 1, time_left(deadline, 1000)) <= 0)
				continue;
			ssize_t n = read(out_.get(), buf, sizeof buf);
			if (n > 0)
				o.out.append(buf, (size_t)n);
			else if (n == 0 || errno != EINTR)
				out_.reset();
		}
	}
	if (sig) {
		kill_live_groups();
		raise(sig);
		return fail(std::string("interrupted by ") + strsignal(sig));
	}
	if (!status) {
		kill_group();
		return fail("did not finish within " + std::to_string(timeout_ms) + " ms");
	}
	forget_group(child_.pid());
	o.status = *status;
	return o;
}

std::string describe_wait(int st)
{
	if (WIFEXITED(st))
		return "exited with status " + std::to_string(WEXITSTATUS(st));
	if (WIFSIGNALED(st))
		return std::string("was killed by signal ") + strsignal(WTERMSIG(st));
	return "ended";
}

} // namespace stap_pmu::sys
