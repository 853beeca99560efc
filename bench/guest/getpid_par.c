/* getpid_par K N TAG - K processes, process i pinned to CPU i, each making N
 * raw getpid() system calls, all released at once; prints the CLOCK_MONOTONIC
 * nanoseconds from the release to the moment the last of them finished its
 * loop, and that time per call (over all K*N calls).
 *
 * Under QEMU `-icount shift=0` with several vCPUs (single-threaded TCG, the
 * vCPUs run in turn) the virtual clock advances by one nanosecond for every
 * instruction any vCPU executes, so the figure is the guest instructions of
 * all vCPUs together per call: with K = 4, a probe that makes the CPUs wait
 * for each other (spinning on a shared lock) costs more per call than with
 * K = 1. The children spin on a shared flag before the release and record
 * their own end time, so neither fork nor exit is in the measured interval.
 * Static; runs in guests. */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_PROCS 64

struct shared {
	volatile int ready;
	volatile int go;
	volatile long long end_ns[MAX_PROCS];
};

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0) {
		perror("getpid_par: sched_setaffinity");
		_exit(3);
	}
}

static void child(struct shared *sh, int i, long n)
{
	pin(i);
	__sync_fetch_and_add(&sh->ready, 1);
	while (!sh->go)
		;
	for (long j = 0; j < n; j++)
		syscall(SYS_getpid);
	sh->end_ns[i] = mono_ns();
	_exit(0);
}

int main(int argc, char **argv)
{
	int k = argc > 1 ? atoi(argv[1]) : 0;
	long n = argc > 2 ? strtol(argv[2], NULL, 10) : 0;
	const char *tag = argc > 3 ? argv[3] : "-";
	long long start, last = 0;
	struct shared *sh;
	int failed = 0;

	if (k <= 0 || k > MAX_PROCS || n <= 0) {
		fprintf(stderr, "usage: getpid_par K(1..%d) N [TAG]\n", MAX_PROCS);
		return 2;
	}
	if (k > sysconf(_SC_NPROCESSORS_ONLN)) {
		fprintf(stderr, "getpid_par: %d processes but %ld CPUs online\n", k,
			sysconf(_SC_NPROCESSORS_ONLN));
		return 2;
	}
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED) {
		perror("getpid_par: mmap");
		return 1;
	}
	for (int i = 0; i < k; i++) {
		pid_t p = fork();

		if (p < 0) {
			perror("getpid_par: fork");
			return 1;
		}
		if (p == 0)
			child(sh, i, n);
	}
	while (sh->ready < k)
		usleep(1000);
	start = mono_ns();
	sh->go = 1;
	for (int i = 0; i < k; i++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed = 1;
	}
	if (failed) {
		fprintf(stderr, "getpid_par: a child failed\n");
		return 1;
	}
	for (int i = 0; i < k; i++)
		if (sh->end_ns[i] > last)
			last = sh->end_ns[i];
	printf("BENCH %s k=%d n=%ld ns=%lld per_call=%.2f\n", tag, k, n, last - start,
	       (double)(last - start) / ((double)n * k));
	return 0;
}
