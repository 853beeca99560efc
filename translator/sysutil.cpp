// sysutil.cpp - small POSIX helpers.
#include "translator/sysutil.h"

#include <cerrno>
#include <ctime>
#include <unistd.h>

namespace stap_pmu::sys {

bool write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return false;
		}
		p += w;
		n -= static_cast<size_t>(w);
	}
	return true;
}

long long now_ms()
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return static_cast<long long>(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
}

void sleep_ms(int ms)
{
	struct timespec t = {ms / 1000, static_cast<long>(ms % 1000) * 1000000L};
	nanosleep(&t, nullptr);
}

} // namespace stap_pmu::sys
