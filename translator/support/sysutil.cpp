// sysutil.cpp - small POSIX helpers.
#include "translator/support/sysutil.h"

#include <cerrno>
#include <ctime>
#include <unistd.h>

namespace stap_pmu::sys {

long read_some(int fd, void *buf, size_t n)
{
	ssize_t r;
	do
		r = read(fd, buf, n);
	while (r < 0 && errno == EINTR);
	return r;
}

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

bool parse_u64(std::string_view s, uint64_t &out)
{
	if (s.empty())
		return false;
	uint64_t v = 0;
	for (char c : s) {
		if (c < '0' || c > '9')
			return false;
		uint64_t d = (uint64_t)(c - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	out = v;
	return true;
}

} // namespace stap_pmu::sys
