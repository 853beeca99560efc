// process.cpp - running a helper program to completion.
#include "translator/support/process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "translator/support/sysutil.h"

namespace stap_pmu::sys {

int run(const std::vector<std::string> &argv, int in_fd, int out_fd, int err_fd,
	const std::string &cwd, int timeout_s, std::string *why)
{
	if (argv.empty()) {
		if (why)
			*why = "empty command";
		return -1;
	}
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	int errp[2];
	if (pipe2(errp, O_CLOEXEC) < 0) {
		if (why)
			*why = std::string("pipe: ") + strerror(errno);
		if (devnull >= 0)
			close(devnull);
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		if (why)
			*why = std::string("fork: ") + strerror(errno);
		close(errp[0]);
		close(errp[1]);
		if (devnull >= 0)
			close(devnull);
		return -1;
	}
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		int fds[3] = {in_fd < 0 ? devnull : in_fd, out_fd < 0 ? devnull : out_fd,
			      err_fd < 0 ? devnull : err_fd};
		for (int i = 0; i < 3; i++) {
			if (fds[i] == i) {
				int fl = fcntl(i, F_GETFD);
				fcntl(i, F_SETFD, fl & ~FD_CLOEXEC);
			} else {
				dup2(fds[i], i);
			}
		}
		if (!cwd.empty() && chdir(cwd.c_str()) != 0) {
			int e = errno;
			(void)!write(errp[1], &e, sizeof e);
			_exit(127);
		}
		std::vector<char *> a;
		for (const auto &s : argv)
			a.push_back(const_cast<char *>(s.c_str()));
		a.push_back(nullptr);
		execvp(a[0], a.data());
		int e = errno;
		(void)!write(errp[1], &e, sizeof e);
		_exit(127);
	}
	close(errp[1]);
	if (devnull >= 0)
		close(devnull);
	int child_errno = 0;
	ssize_t n;
	do
		n = read(errp[0], &child_errno, sizeof child_errno);
	while (n < 0 && errno == EINTR);
	close(errp[0]);
	long long deadline = sys::now_ms() + (long long)timeout_s * 1000;
	int st = 0;
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR) {
			if (why)
				*why = std::string("waitpid: ") + strerror(errno);
			return -1;
		}
		if (sys::now_ms() >= deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
			}
			if (why)
				*why = argv[0] + " did not finish within " + std::to_string(timeout_s) + " s";
			return -1;
		}
		struct timespec t = {0, 10 * 1000000L};
		nanosleep(&t, nullptr);
	}
	if (n == (ssize_t)sizeof child_errno) {
		if (why)
			*why = "cannot run " + argv[0] + ": " + strerror(child_errno);
		return -1;
	}
	return st;
}


} // namespace stap_pmu::sys
