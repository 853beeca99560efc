/* pmu-workload - deterministic workloads for stap-pmu tests (static, runs in guests).
 *
 *   pmu-workload getpid N   N raw getpid system calls, exactly N (syscall(SYS_getpid))
 *   pmu-workload read N     N one-byte read()s from /dev/zero
 *   pmu-workload spin MS    busy loop for MS milliseconds of CLOCK_MONOTONIC
 *
 * Prints nothing on success (so that script output stays exact). Usage errors:
 * a message and exit status 2; run-time errors: a message and exit status 1.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "pmu-workload: %s\n", msg);
	fprintf(stderr, "usage: pmu-workload getpid N | read N | spin MS\n");
	exit(2);
}

/* Strict non-negative decimal; rejects signs, spaces, trailing junk, overflow. */
static long long parse_count(const char *s)
{
	char *end;
	long long v;

	if (!s || *s < '0' || *s > '9')
		usage("expected a non-negative decimal number");
	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || *end != '\0')
		usage("expected a non-negative decimal number");
	return v;
}

static int do_getpid(long long n)
{
	for (long long i = 0; i < n; i++)
		syscall(SYS_getpid);
	return 0;
}

static int do_read(long long n)
{
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	char c;

	if (fd < 0) {
		fprintf(stderr, "pmu-workload: cannot open /dev/zero: %s\n", strerror(errno));
		return 1;
	}
	for (long long i = 0; i < n; i++) {
		ssize_t r = read(fd, &c, 1);
		if (r != 1) {
			fprintf(stderr, "pmu-workload: read /dev/zero: %s\n",
				r < 0 ? strerror(errno) : "short read");
			close(fd);
			return 1;
		}
	}
	close(fd);
	return 0;
}

static long long now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static int do_spin(long long ms)
{
	long long end = now_ns() + ms * 1000000LL;
	volatile unsigned long sink = 0;

	while (now_ns() < end)
		for (int i = 0; i < 1000; i++)
			sink += i;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		usage(argc < 2 ? NULL : "expected exactly one argument after the mode");
	long long n = parse_count(argv[2]);
	if (strcmp(argv[1], "getpid") == 0)
		return do_getpid(n);
	if (strcmp(argv[1], "read") == 0)
		return do_read(n);
	if (strcmp(argv[1], "spin") == 0) {
		if (n > 86400000LL)
			usage("spin: at most 86400000 ms");
		return do_spin(n);
	}
	fprintf(stderr, "pmu-workload: unknown mode '%s'\n", argv[1]);
	usage(NULL);
	return 2;
}
