// process.h - running a helper program (cpio, gzip, xz, sign-file, make).
#pragma once

#include <string>
#include <vector>

namespace stap_pmu::sys {

// fork+exec argv (PATH search) with the given fds (-1: /dev/null) and cwd; waits at
// most timeout_s (then SIGKILL). Returns the wait status, or -1 with *why set.
int run(const std::vector<std::string> &argv, int in_fd, int out_fd, int err_fd,
	const std::string &cwd, int timeout_s, std::string *why);

} // namespace stap_pmu::sys
