/* pmu-workload - deterministic workloads for stap-pmu tests (static, runs in guests).
 *
 *   pmu-workload getpid N   N raw getpid system calls, exactly N (syscall(SYS_getpid))
 *   pmu-workload read N     N one-byte read()s from /dev/zero
 *   pmu-workload writev N   N writev()s of two buffers (10 and 20 bytes) to /dev/null
 *   pmu-workload spin MS    busy loop for MS milliseconds of CLOCK_MONOTONIC
 *   pmu-workload nanosleep N US
 *                           N raw nanosleep system calls (syscall(SYS_nanosleep),
 *                           not glibc's nanosleep(), which is clock_nanosleep),
 *                           each asleep for US microseconds; a call a signal
 *                           interrupts is made again for the rest of its time
 *   pmu-workload signal N   sends itself SIGUSR1 N times (kill), each handled
 *   pmu-workload fault N    writes to N fresh anonymous pages: N write page faults
 *   pmu-workload mmap N LEN N pairs of an anonymous private mmap of LEN bytes
 *                           (LEN as given, not rounded) and its munmap of LEN
 *   pmu-workload cow N      maps N pages (N * page size bytes, private anonymous),
 *                           reads then writes each (a write fault on the zero
 *                           page: N copy-on-write faults), then forks a child
 *                           that writes each again (N copy-on-write faults of
 *                           pages it shares with its parent), and waits for it
 *   pmu-workload brk N      N raw brk calls that each grow the heap by 3 pages
 *                           past the page-aligned start, then one that gives
 *                           them back
 *   pmu-workload tcp N      brings lo up; a TCP client connected to a server on
 *                           127.0.0.1:47001 sends N messages of 100 bytes (send),
 *                           the server receives each with one recv(MSG_WAITALL);
 *                           then the three sockets are closed
 *   pmu-workload udp N      brings lo up; N datagrams of 100 bytes sent (sendto)
 *                           from one socket to another on 127.0.0.1:47002, each
 *                           received with one recvfrom
 *   pmu-workload udpdrop N  brings lo up; N datagrams of 100 bytes sent (sendto)
 *                           from one socket to another on 127.0.0.1:47005; a
 *                           send that fails with EPERM (a netfilter hook dropped
 *                           it) is not an error; then the datagrams that
 *                           arrived are read without waiting
 *   pmu-workload tcp6 N, udp6 N
 *                           the same over IPv6, on [::1]:47003 and [::1]:47004
 *   pmu-workload phases SLEEP_MS SPIN_MS
 *                           per-thread counting phases, each bracketed by raw getpid
 *                           calls (guest.pmu_thread_task_clock):
 *                           1. a child process starts spinning (getpid, spin
 *                              SLEEP_MS + 300, getpid); once it runs: getpid,
 *                              sleep SLEEP_MS, getpid, wait for the child;
 *                           2. a thread: getpid, spin SPIN_MS, getpid; joined;
 *                              getpid;
 *                           3. spin SPIN_MS, getpid.
 *                           So the process calls getpid 4 times, its thread 2
 *                           and its child 2 (getpid 1-2: asleep while the child
 *                           spins; 2-3: waiting; 3-4: busy).
 *
 * Built static with -O2 -g: user-space probe tests read do_getpid's $n.
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
#include <pthread.h>
#include <signal.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "pmu-workload: %s\n", msg);
	fprintf(stderr, "usage: pmu-workload getpid N | read N | spin MS | signal N | fault N |"
			" tcp N | udp N | tcp6 N | udp6 N | phases SLEEP_MS SPIN_MS | nanosleep N US | mmap N LEN |"
			" brk N | cow N\n");
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

/* A real function taking the count (noipa: -O2 neither inlines it nor
 * clones it with other parameters), so that
 * process("pmu-workload").function("do_getpid") reads $n (built with -g). */
__attribute__((noipa)) int do_getpid(long long n)
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

static volatile sig_atomic_t handled;

static void on_usr1(int sig)
{
	(void)sig;
	handled++;
}

static int do_signal(long long n)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	if (sigaction(SIGUSR1, &sa, NULL) < 0) {
		fprintf(stderr, "pmu-workload: sigaction: %s\n", strerror(errno));
		return 1;
	}
	for (long long i = 0; i < n; i++)
		kill(getpid(), SIGUSR1);
	return 0;
}

static int do_fault(long long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, (size_t)(n ? n : 1) * page, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "pmu-workload: mmap: %s\n", strerror(errno));
		return 1;
	}
	/* no transparent huge pages: one fault per page */
	madvise(p, (size_t)(n ? n : 1) * page, MADV_NOHUGEPAGE);
	for (long long i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
	return 0;
}

static int fail(const char *what)
{
	fprintf(stderr, "pmu-workload: %s: %s\n", what, strerror(errno));
	return 1;
}

static int do_writev(long long n)
{
	static char a[10], b[20];
	struct iovec v[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return fail("open /dev/null");
	for (long long i = 0; i < n; i++)
		if (writev(fd, v, 2) != (ssize_t)(sizeof(a) + sizeof(b))) {
			close(fd);
			return fail("writev /dev/null");
		}
	close(fd);
	return 0;
}

static int do_mmap(long long n, long long len)
{
	for (long long i = 0; i < n; i++) {
		void *p = mmap(NULL, (size_t)len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return fail("mmap");
		if (munmap(p, (size_t)len))
			return fail("munmap");
	}
	return 0;
}

static int do_cow(long long n)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(n ? n : 1) * page;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int st;
	pid_t child;

	if (p == MAP_FAILED)
		return fail("mmap");
	madvise(p, len, MADV_NOHUGEPAGE);
	for (long long i = 0; i < n; i++)
		(void)((volatile char *)p)[i * page];
	for (long long i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
	child = fork();
	if (child < 0)
		return fail("fork");
	if (child == 0) {
		for (long long i = 0; i < n; i++)
			((volatile char *)p)[i * page] = 2;
		_exit(0);
	}
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st))
		return fail("the child");
	return 0;
}

/* The raw system call (glibc's brk() keeps its own idea of the break). The
 * kernel extends the heap from the page-aligned old break to the page-aligned
 * new one: starting at a page boundary, each call maps exactly 3 pages. */
static int do_brk(long long n)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned long start = (unsigned long)syscall(SYS_brk, 0);
	unsigned long base = (start + page - 1) & ~(unsigned long)(page - 1);

	for (long long i = 1; i <= n; i++) {
		unsigned long want = base + (unsigned long)(i * 3 * page);

		if ((unsigned long)syscall(SYS_brk, want) != want)
			return fail("brk");
	}
	syscall(SYS_brk, start);
	return 0;
}

/* A guest's init does not configure networking: lo starts down. */
static int loopback_up(void)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return fail("socket");
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) {
		close(s);
		return fail("SIOCGIFFLAGS lo");
	}
	if (!(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) {
			close(s);
			return fail("SIOCSIFFLAGS lo");
		}
	}
	close(s);
	return 0;
}

/* The loopback address of family (AF_INET 127.0.0.1, AF_INET6 ::1) and port
 * in *a; returns its length. */
static socklen_t loopback(int family, int port, struct sockaddr_storage *a)
{
	memset(a, 0, sizeof(*a));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)a;

		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		a6->sin6_addr = in6addr_loopback;
		return sizeof(*a6);
	}
	struct sockaddr_in *a4 = (struct sockaddr_in *)a;

	a4->sin_family = AF_INET;
	a4->sin_port = htons(port);
	a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sizeof(*a4);
}

static int do_tcp(long long n, int family, int port)
{
	struct sockaddr_storage a;
	socklen_t alen = loopback(family, port, &a);
	char buf[100];
	int one = 1, l, c, s;

	if (loopback_up())
		return 1;
	l = socket(family, SOCK_STREAM, 0);
	if (l < 0)
		return fail("socket");
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&a, alen) < 0 || listen(l, 1) < 0)
		return fail("bind/listen on the loopback address");
	c = socket(family, SOCK_STREAM, 0);
	if (c < 0)
		return fail("socket");
	if (connect(c, (struct sockaddr *)&a, alen) < 0)
		return fail("connect");
	s = accept(l, NULL, NULL);
	if (s < 0)
		return fail("accept");
	memset(buf, 'x', sizeof(buf));
	for (long long i = 0; i < n; i++) {
		if (send(c, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf))
			return fail("send");
		if (recv(s, buf, sizeof(buf), MSG_WAITALL) != (ssize_t)sizeof(buf))
			return fail("recv");
	}
	close(s);
	close(c);
	close(l);
	return 0;
}

/* dropping: datagrams may be dropped on the way (netfilter probes): a send
 * that fails with EPERM is no error, and those that arrived are read after
 * the sends, without waiting */
static int do_udp(long long n, int family, int port, int dropping)
{
	struct sockaddr_storage a;
	socklen_t alen = loopback(family, port, &a);
	char buf[100];
	int r, s;

	if (loopback_up())
		return 1;
	r = socket(family, SOCK_DGRAM, 0);
	s = socket(family, SOCK_DGRAM, 0);
	if (r < 0 || s < 0)
		return fail("socket");
	if (bind(r, (struct sockaddr *)&a, alen) < 0)
		return fail("bind on the loopback address");
	memset(buf, 'u', sizeof(buf));
	for (long long i = 0; i < n; i++) {
		if (sendto(s, buf, sizeof(buf), 0, (struct sockaddr *)&a, alen) !=
		    (ssize_t)sizeof(buf) && !(dropping && errno == EPERM))
			return fail("sendto");
		if (!dropping &&
		    recvfrom(r, buf, sizeof(buf), 0, NULL, NULL) != (ssize_t)sizeof(buf))
			return fail("recvfrom");
	}
	while (dropping && recvfrom(r, buf, sizeof(buf), MSG_DONTWAIT, NULL, NULL) > 0)
		;
	close(s);
	close(r);
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

static void *phases_thread(void *arg)
{
	syscall(SYS_getpid);
	do_spin(*(long long *)arg);
	syscall(SYS_getpid);
	return NULL;
}

static int do_phases(long long sleep_ms, long long spin_ms)
{
	struct timespec ts = { sleep_ms / 1000, (sleep_ms % 1000) * 1000000L };
	int p[2], st, err;
	pthread_t th;
	pid_t child;
	char c = 0;

	if (pipe(p) < 0) {
		fprintf(stderr, "pmu-workload: pipe: %s\n", strerror(errno));
		return 1;
	}
	child = fork();
	if (child < 0) {
		fprintf(stderr, "pmu-workload: fork: %s\n", strerror(errno));
		return 1;
	}
	if (child == 0) {
		syscall(SYS_getpid);
		(void)!write(p[1], &c, 1);
		do_spin(sleep_ms + 300);
		syscall(SYS_getpid);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1) {
		fprintf(stderr, "pmu-workload: the child did not start\n");
		return 1;
	}
	close(p[0]);
	/* 1. asleep while the child spins */
	syscall(SYS_getpid);
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	syscall(SYS_getpid);
	if (waitpid(child, &st, 0) != child || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "pmu-workload: the child failed\n");
		return 1;
	}
	/* 2. a thread spins while this one waits */
	err = pthread_create(&th, NULL, phases_thread, &spin_ms);
	if (err) {
		fprintf(stderr, "pmu-workload: pthread_create: %s\n", strerror(err));
		return 1;
	}
	pthread_join(th, NULL);
	syscall(SYS_getpid);
	/* 3. busy */
	do_spin(spin_ms);
	syscall(SYS_getpid);
	return 0;
}

/* n raw nanosleep calls of us microseconds each (EINTR: the rest, again) */
static int do_nanosleep(long long n, long long us)
{
	for (long long i = 0; i < n; i++) {
		struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

		while (syscall(SYS_nanosleep, &ts, &ts) < 0) {
			if (errno != EINTR) {
				fprintf(stderr, "pmu-workload: nanosleep: %s\n", strerror(errno));
				return 1;
			}
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "nanosleep") == 0) {
		long long n = parse_count(argv[2]), us = parse_count(argv[3]);

		if (us > 60000000)
			usage("nanosleep: at most 60000000 us per call");
		return do_nanosleep(n, us);
	}
	if (argc == 4 && strcmp(argv[1], "phases") == 0) {
		long long sleep_ms = parse_count(argv[2]), spin_ms = parse_count(argv[3]);

		if (sleep_ms > 60000 || spin_ms > 60000)
			usage("phases: at most 60000 ms each");
		return do_phases(sleep_ms, spin_ms);
	}
	if (argc == 4 && strcmp(argv[1], "mmap") == 0) {
		long long n = parse_count(argv[2]), len = parse_count(argv[3]);

		if (len < 1 || len > (1LL << 30))
			usage("mmap: LEN from 1 to 1073741824 bytes");
		return do_mmap(n, len);
	}
	if (argc >= 2 && strcmp(argv[1], "nanosleep") == 0)
		usage("nanosleep: expected N and US");
	if (argc >= 2 && strcmp(argv[1], "mmap") == 0)
		usage("mmap: expected N and LEN");
	if (argc != 3)
		usage(argc < 2 ? NULL : "expected exactly one argument after the mode");
	long long n = parse_count(argv[2]);
	if (strcmp(argv[1], "getpid") == 0)
		return do_getpid(n);
	if (strcmp(argv[1], "read") == 0)
		return do_read(n);
	if (strcmp(argv[1], "writev") == 0)
		return do_writev(n);
	if (strcmp(argv[1], "signal") == 0)
		return do_signal(n);
	if (strcmp(argv[1], "fault") == 0) {
		if (n > 1000000)
			usage("fault: at most 1000000 pages");
		return do_fault(n);
	}
	if (strcmp(argv[1], "cow") == 0) {
		if (n > 100000)
			usage("cow: at most 100000 pages");
		return do_cow(n);
	}
	if (strcmp(argv[1], "brk") == 0) {
		if (n > 100000)
			usage("brk: at most 100000 calls");
		return do_brk(n);
	}
	if (strcmp(argv[1], "tcp") == 0)
		return do_tcp(n, AF_INET, 47001);
	if (strcmp(argv[1], "udp") == 0)
		return do_udp(n, AF_INET, 47002, 0);
	if (strcmp(argv[1], "udpdrop") == 0)
		return do_udp(n, AF_INET, 47005, 1);
	if (strcmp(argv[1], "tcp6") == 0)
		return do_tcp(n, AF_INET6, 47003);
	if (strcmp(argv[1], "udp6") == 0)
		return do_udp(n, AF_INET6, 47004, 0);
	if (strcmp(argv[1], "spin") == 0) {
		if (n > 86400000LL)
			usage("spin: at most 86400000 ms");
		return do_spin(n);
	}
	fprintf(stderr, "pmu-workload: unknown mode '%s'\n", argv[1]);
	usage(NULL);
	return 2;
}
