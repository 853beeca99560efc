/* modtime - time module load and unload in a guest.
 *   modtime load FILE.ko [PARAMS]   finit_module, prints elapsed and idle time
 *   modtime unload NAME             delete_module, same
 *   modtime run CMD [ARGS]          runs CMD and waits for it, same
 * Elapsed is CLOCK_MONOTONIC; under `-icount shift=0` busy virtual time is
 * guest instructions, and idle time (the CPU waiting, e.g. for RCU grace
 * periods) also advances the clock, so idle is printed as well:
 * instructions ~= elapsed - idle. Idle comes from /proc/timer_list (each
 * CPU's idle_sleeptime and iowait_sleeptime, nanoseconds; a CPU idle at
 * the moment of reading misses its current period, which on the one-CPU
 * bench guest is never the case: the reader runs), else /proc/stat
 * (USER_HZ ticks: 10 ms, 10 M instructions). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* idle + iowait of all CPUs, nanoseconds, from /proc/timer_list; -1 if absent */
static long long timer_list_idle_ns(void)
{
	FILE *f = fopen("/proc/timer_list", "r");
	char line[256];
	unsigned long long v;
	long long sum = 0;
	int n = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " .idle_sleeptime : %llu nsecs", &v) == 1 ||
		    sscanf(line, " .iowait_sleeptime : %llu nsecs", &v) == 1) {
			sum += (long long)v;
			n++;
		}
	fclose(f);
	return n ? sum : -1;
}

/* the same from /proc/stat, in USER_HZ ticks */
static long long proc_stat_idle_ns(void)
{
	unsigned long long v[8] = {0};
	FILE *f = fopen("/proc/stat", "r");
	long hz = sysconf(_SC_CLK_TCK);

	if (!f)
		return 0;
	if (fscanf(f, "cpu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4]) != 5)
		v[3] = v[4] = 0;
	fclose(f);
	return (long long)((v[3] + v[4]) * (1000000000ULL / (unsigned long long)hz));
}

static long long idle_ns(void)
{
	long long t = timer_list_idle_ns();

	return t >= 0 ? t : proc_stat_idle_ns();
}

int main(int argc, char **argv)
{
	long long t0, t1, i0, i1;
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: modtime load FILE.ko [PARAMS] | unload NAME | run CMD [ARGS]\n");
		return 2;
	}
	if (strcmp(argv[1], "load") == 0) {
		int fd = open(argv[2], O_RDONLY | O_CLOEXEC);

		if (fd < 0) {
			fprintf(stderr, "modtime: %s: %s\n", argv[2], strerror(errno));
			return 1;
		}
		i0 = idle_ns();
		t0 = mono_ns();
		rc = (int)syscall(SYS_finit_module, fd, argc > 3 ? argv[3] : "", 0);
		t1 = mono_ns();
		i1 = idle_ns();
		close(fd);
	} else if (strcmp(argv[1], "unload") == 0) {
		i0 = idle_ns();
		t0 = mono_ns();
		rc = (int)syscall(SYS_delete_module, argv[2], O_NONBLOCK);
		t1 = mono_ns();
		i1 = idle_ns();
	} else if (strcmp(argv[1], "run") == 0) {
		pid_t pid;
		int st;

		i0 = idle_ns();
		t0 = mono_ns();
		pid = fork();
		if (pid == 0) {
			execvp(argv[2], argv + 2);
			fprintf(stderr, "modtime: %s: %s\n", argv[2], strerror(errno));
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) < 0)
			st = -1;
		t1 = mono_ns();
		i1 = idle_ns();
		rc = (st == 0) ? 0 : -1;
		if (rc)
			errno = ECHILD;
	} else {
		fprintf(stderr, "modtime: unknown action %s\n", argv[1]);
		return 2;
	}
	if (rc != 0) {
		fprintf(stderr, "modtime: %s %s: %s\n", argv[1], argv[2], strerror(errno));
		return 1;
	}
	printf("MODTIME %s %s%s%s elapsed_ns=%lld idle_ns=%lld\n", argv[1], argv[2],
	       argc > 3 && strcmp(argv[1], "run") == 0 ? " " : "",
	       argc > 3 && strcmp(argv[1], "run") == 0 ? argv[argc - 1] : "", t1 - t0, i1 - i0);
	return 0;
}
