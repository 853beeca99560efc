// Unit tests for translator/support/process.{h,cpp} (Child, run, Captured), signals.h
// (SignalScope), the TempDir/Fd additions of file.h and read_file.
#include "translator/support/file.h"
#include "translator/support/process.h"
#include "translator/support/signals.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <string>
#include <thread>

using namespace stap_pmu;

namespace {

// Everything written to the read end until EOF.
std::string slurp(int fd)
{
	std::string s;
	char buf[256];
	ssize_t r;
	while ((r = read(fd, buf, sizeof buf)) > 0)
		s.append(buf, (size_t)r);
	return s;
}

struct Pipe {
	sys::Fd r, w;
	Pipe()
	{
		int p[2];
		EXPECT_EQ(pipe2(p, O_CLOEXEC), 0);
		r = sys::Fd(p[0]);
		w = sys::Fd(p[1]);
	}
};

sys::Spawn shell(const std::string &script)
{
	sys::Spawn s;
	s.argv = {"sh", "-c", script};
	return s;
}

} // namespace

TEST(Process, RunReturnsTheWaitStatus)
{
	auto st = sys::run(shell("exit 3"), 10);
	ASSERT_TRUE(st) << st.error().what;
	EXPECT_TRUE(WIFEXITED(*st));
	EXPECT_EQ(WEXITSTATUS(*st), 3);
	EXPECT_EQ(sys::describe_wait(*st), "exited with status 3");
}

TEST(Process, RunWiresFdsAndCwd)
{
	Pipe p;
	sys::Spawn s = shell("pwd; echo err >&2");
	s.out = p.w.get();
	s.err = p.w.get();
	s.cwd = "/";
	auto st = sys::run(s, 10);
	p.w.reset();
	ASSERT_TRUE(st);
	EXPECT_EQ(*st, 0);
	EXPECT_EQ(slurp(p.r.get()), "/\nerr\n");
}

TEST(Process, RunReportsAMissingProgram)
{
	sys::Spawn s;
	s.argv = {"stap-pmu-no-such-program"};
	auto st = sys::run(s, 10);
	ASSERT_FALSE(st);
	EXPECT_EQ(st.error().what, "cannot run stap-pmu-no-such-program: No such file or directory");
	s.argv = {"true"};
	auto ok = sys::run(s, 10);
	ASSERT_TRUE(ok);
	EXPECT_EQ(*ok, 0);
}

TEST(Process, RunKillsWhatOverstaysItsTimeout)
{
	sys::Spawn s;
	s.argv = {"sleep", "30"};
	auto st = sys::run(s, 1);
	ASSERT_FALSE(st);
	EXPECT_EQ(st.error().what, "sleep did not finish within 1 s");
}

TEST(Process, HeldChildRunsOnlyWhenReleased)
{
	for (bool go : {false, true}) {
		Pipe p;
		sys::Spawn s = shell("echo ran");
		s.out = p.w.get();
		s.held = true;
		auto c = sys::Child::start(s);
		ASSERT_TRUE(c);
		p.w.reset();
		c->release(go);
		int st = c->wait();
		EXPECT_EQ(slurp(p.r.get()), go ? "ran\n" : "");
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		EXPECT_EQ(c->exec_errno(), 0);
	}
}

TEST(Process, HeldChildReportsAFailedExec)
{
	Pipe p;
	sys::Spawn s;
	s.argv = {"stap-pmu-no-such-program", "x"};
	s.err = p.w.get();
	s.held = true;
	s.exec_error_prefix = "stap-pmu: error: ";
	auto c = sys::Child::start(s);
	ASSERT_TRUE(c); // held: the exec has not been tried yet
	p.w.reset();
	c->release(true);
	int st = c->wait();
	EXPECT_EQ(slurp(p.r.get()),
		  "stap-pmu: error: cannot run stap-pmu-no-such-program: No such file or directory\n");
	EXPECT_EQ(WEXITSTATUS(st), 127);
	EXPECT_EQ(c->exec_errno(), ENOENT);
}

TEST(Process, WaitForTimesOutAndDestructionKills)
{
	pid_t pid;
	{
		sys::Spawn s;
		s.argv = {"sleep", "30"};
		auto c = sys::Child::start(s);
		ASSERT_TRUE(c);
		pid = c->pid();
		EXPECT_FALSE(c->wait_for(50));
		EXPECT_FALSE(c->poll());
		EXPECT_EQ(::kill(pid, 0), 0);
	}
	EXPECT_EQ(::kill(pid, 0), -1); // killed and reaped
	EXPECT_EQ(errno, ESRCH);
}

TEST(Process, NewProcessGroup)
{
	Pipe p;
	sys::Spawn s = shell("ps -o pgid= -p $$ 2>/dev/null || cut -d' ' -f5 /proc/$$/stat");
	s.out = p.w.get();
	s.new_group = true;
	auto c = sys::Child::start(s);
	ASSERT_TRUE(c);
	p.w.reset();
	pid_t pid = c->pid();
	c->wait();
	EXPECT_EQ(std::stol(slurp(p.r.get())), (long)pid);
}

namespace {

// A script that starts a sleeping grandchild, writes its pid to pidfile and
// sleeps itself.
sys::Spawn sleeper(const std::string &pidfile)
{
	return shell("sleep 300 & echo $! > " + pidfile + "; echo started; wait");
}

pid_t read_pid(const std::string &pidfile)
{
	for (int i = 0; i < 500; i++) {
		auto t = sys::read_file(pidfile);
		if (t && !t->empty() && t->back() == '\n')
			return (pid_t)std::stol(*t);
		usleep(10000);
	}
	return -1;
}

// Gone, or a zombie waiting for init: no longer running.
bool ended(pid_t pid)
{
	for (int i = 0; i < 500; i++) {
		auto st = sys::read_file("/proc/" + std::to_string(pid) + "/stat");
		if (!st)
			return true;
		size_t paren = st->rfind(')');
		if (paren != std::string::npos && paren + 2 < st->size() && (*st)[paren + 2] == 'Z')
			return true;
		usleep(10000);
	}
	return false;
}

// the child reaped by its Captured (no zombie left to us), the grandchild killed
void expect_reaped_and_killed(pid_t child, pid_t grandchild)
{
	errno = 0;
	EXPECT_EQ(waitpid(child, nullptr, WNOHANG), -1);
	EXPECT_EQ(errno, ECHILD);
	EXPECT_TRUE(ended(grandchild));
}

} // namespace

TEST(Captured, ReadsTheOutputAndTheStatus)
{
	auto c = sys::Captured::start(shell("echo out; echo err >&2; exit 4"));
	ASSERT_TRUE(c);
	auto o = c->finish();
	ASSERT_TRUE(o);
	EXPECT_EQ(o->out, "out\n");
	EXPECT_TRUE(WIFEXITED(o->status));
	EXPECT_EQ(WEXITSTATUS(o->status), 4);
}

TEST(Captured, TimeoutKillsTheChildAndItsGrandchild)
{
	auto dir = sys::TempDir::create("stap-pmu-test-");
	ASSERT_TRUE(dir);
	const std::string pidfile = dir->path() + "/pid";
	auto c = sys::Captured::start(sleeper(pidfile));
	ASSERT_TRUE(c);
	pid_t child = c->pid();
	pid_t grandchild = read_pid(pidfile);
	ASSERT_GT(grandchild, 0);
	auto o = c->finish(300);
	ASSERT_FALSE(o);
	EXPECT_EQ(o.error().what, "did not finish within 300 ms");
	expect_reaped_and_killed(child, grandchild);
}

TEST(Captured, DestructorKillsTheChildAndItsGrandchild)
{
	auto dir = sys::TempDir::create("stap-pmu-test-");
	ASSERT_TRUE(dir);
	const std::string pidfile = dir->path() + "/pid";
	pid_t child, grandchild;
	{
		auto c = sys::Captured::start(sleeper(pidfile));
		ASSERT_TRUE(c);
		child = c->pid();
		grandchild = read_pid(pidfile);
		ASSERT_GT(grandchild, 0);
	}
	expect_reaped_and_killed(child, grandchild);
}

// SIGTERM while a process of ours waits for its Captured: every Captured's
// group is killed and the process ends by that signal.
TEST(Captured, StopSignalKillsEveryGroupAndEndsUs)
{
	auto dir = sys::TempDir::create("stap-pmu-test-");
	ASSERT_TRUE(dir);
	const std::string first = dir->path() + "/first", second = dir->path() + "/second";
	pid_t owner = fork();
	ASSERT_GE(owner, 0);
	if (owner == 0) {
		auto a = sys::Captured::start(sleeper(first));
		auto b = sys::Captured::start(sleeper(second));
		if (a && b)
			(void)b->finish();
		_exit(0);
	}
	pid_t g1 = read_pid(first), g2 = read_pid(second);
	ASSERT_GT(g1, 0);
	ASSERT_GT(g2, 0);
	usleep(100000); // into finish()
	kill(owner, SIGTERM);
	int st = 0;
	ASSERT_EQ(waitpid(owner, &st, 0), owner);
	EXPECT_TRUE(WIFSIGNALED(st));
	EXPECT_EQ(WIFSIGNALED(st) ? WTERMSIG(st) : 0, SIGTERM);
	EXPECT_TRUE(ended(g1));
	EXPECT_TRUE(ended(g2));
}

namespace {
void (*disposition(int sig))(int)
{
	struct sigaction a = {};
	sigaction(sig, nullptr, &a);
	return a.sa_handler;
}
} // namespace

TEST(Signals, ScopeCatchesAndRestores)
{
	ASSERT_EQ(disposition(SIGINT), SIG_DFL);
	ASSERT_EQ(disposition(SIGPIPE), SIG_DFL);
	{
		sys::SignalScope pipe_only(sys::SignalScope::kIgnorePipe);
		EXPECT_EQ(disposition(SIGPIPE), SIG_IGN);
		EXPECT_EQ(disposition(SIGINT), SIG_DFL);
		sys::SignalScope stop(sys::SignalScope::kCatchStop);
		EXPECT_EQ(stop.caught(), 0);
		raise(SIGTERM);
		EXPECT_EQ(stop.caught(), SIGTERM);
		stop.clear();
		EXPECT_EQ(stop.caught(), 0);
		raise(SIGINT);
		EXPECT_EQ(stop.caught(), SIGINT);
	}
	EXPECT_EQ(disposition(SIGINT), SIG_DFL);
	EXPECT_EQ(disposition(SIGTERM), SIG_DFL);
	EXPECT_EQ(disposition(SIGPIPE), SIG_DFL);
}

TEST(TempDirIn, CreatesRemovesAndKeeps)
{
	std::string path;
	{
		auto d = sys::TempDir::create_in(testing::TempDir(), "process_test.");
		ASSERT_TRUE(d) << d.error().what;
		path = d->path();
		EXPECT_EQ(path.rfind(testing::TempDir(), 0), 0u);
		sys::Fd f = sys::Fd::open(path + "/f", O_WRONLY | O_CREAT);
		EXPECT_TRUE(f);
	}
	EXPECT_NE(access(path.c_str(), F_OK), 0);
	{
		auto d = sys::TempDir::create_in(testing::TempDir(), "process_test.");
		ASSERT_TRUE(d);
		path = d->keep();
	}
	EXPECT_EQ(access(path.c_str(), F_OK), 0);
	rmdir(path.c_str());
	auto bad = sys::TempDir::create_in("/nonexistent-stap-pmu", "x.");
	ASSERT_FALSE(bad);
	EXPECT_EQ(bad.error().what,
		  "cannot create a temp dir in /nonexistent-stap-pmu: No such file or directory");
}

// read_file reads in chunks up to its limit: a file several chunks long
// comes back whole and byte for byte, a limit cuts it exactly, a missing
// file is nothing.
TEST(File, ReadFileWholeAndCutAtTheLimit)
{
	auto dir = sys::TempDir::create("stap-pmu-readfile.");
	ASSERT_TRUE(dir.ok());
	std::string path = dir->path() + "/f", data;
	for (int i = 0; i < 200000; i++)
		data += static_cast<char>('a' + i % 26);
	{
		sys::Fd fd(open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
		ASSERT_TRUE(fd.valid());
		ASSERT_EQ(write(fd.get(), data.data(), data.size()), (ssize_t)data.size());
	}
	auto whole = sys::read_file(path);
	ASSERT_TRUE(whole.has_value());
	EXPECT_EQ(*whole, data);
	auto cut = sys::read_file(path, 70001);
	ASSERT_TRUE(cut.has_value());
	EXPECT_EQ(*cut, data.substr(0, 70001));
	EXPECT_FALSE(sys::read_file(dir->path() + "/missing").has_value());
}

// A file whose size stat does not give (a pipe, /proc) is read until its end
// or the limit, however many times the string must grow; a directory, which
// opens but cannot be read, is nothing.
TEST(File, ReadFileOfUnknownSize)
{
	auto dir = sys::TempDir::create("stap-pmu-readfile.");
	ASSERT_TRUE(dir.ok());
	std::string fifo = dir->path() + "/fifo", data;
	for (int i = 0; i < 300000; i++)
		data += static_cast<char>('a' + i % 23);
	ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
	auto feed = [&] {
		sys::Fd fd(open(fifo.c_str(), O_WRONLY | O_CLOEXEC));
		for (size_t at = 0; at < data.size();) {
			ssize_t n = write(fd.get(), data.data() + at, std::min<size_t>(5000, data.size() - at));
			if (n <= 0)
				return;
			at += static_cast<size_t>(n);
		}
	};
	std::thread writer(feed);
	auto whole = sys::read_file(fifo);
	writer.join();
	ASSERT_TRUE(whole.has_value());
	EXPECT_EQ(*whole, data);
	// cut at a limit: a second reader (opened first, read only afterwards)
	// keeps the pipe open for the writer's rest once read_file has gone
	sys::Fd drain(open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
	ASSERT_TRUE(drain.valid());
	std::atomic<bool> fed{false};
	std::thread writer2([&] {
		feed();
		fed = true;
	});
	auto cut = sys::read_file(fifo, 100003);
	char sink[65536];
	while (!fed)
		if (read(drain.get(), sink, sizeof sink) <= 0)
			usleep(1000);
	writer2.join();
	ASSERT_TRUE(cut.has_value());
	EXPECT_EQ(*cut, data.substr(0, 100003));
	auto status = sys::read_file("/proc/self/status");
	ASSERT_TRUE(status.has_value());
	EXPECT_EQ(status->rfind("Name:\t", 0), 0u) << *status;
	EXPECT_FALSE(sys::read_file(dir->path()).has_value());
}
