/* uprobe-target - a user program for stap-pmu's user-space probe tests
 * (process("...").function/.return/.mark in QEMU guests, issue 15).
 *
 *   uprobe-target [-m] [-g] MODE [ARG...]
 *     params N        calls each parameter function N times (values below)
 *     marks N         fires each SDT marker N times (utarget:guarded only
 *                     while its semaphore is nonzero: a probe on it is attached)
 *     loop N REPS     loop_fn(0), loop_fn(N), loop_fn(2N), loop_fn(4N), REPS
 *                     times each: per-call instruction counts of a fixed loop
 *                     (the first count absorbs first-call page faults)
 *     recurse D       depth(D): D+1 nested calls, depth(k) returns k
 *     work N MS       calls work_fn(i) for i = 1..N, one every MS milliseconds
 *                     (a process that exits mid-run when the script outlives it)
 *     all N           params N, marks N, recurse 3
 *     chain           main -> chain_a(1) -> chain_b(2) -> chain_c(3), prints
 *                     "chain: 11" (user backtraces: ubacktrace() on chain_c)
 *   -m  at the end, prints "uprobes-mapping: yes" or "uprobes-mapping: no":
 *       whether /proc/self/maps has the "[uprobes]" area (the kernel maps it
 *       in a process that hit a uprobe; none after the probes are gone)
 *   -g  at the end, prints "guarded: K", how many times the semaphore let
 *       utarget:guarded fire
 *
 * The values the tests expect (tests/guest/cases/uprobe_*.case):
 *   int_kinds(s8=-5, u8=200, s16=-30000, u16=60000, s32=-2000000000,
 *             u32=4000000000, s64=-9000000000000000000, u64=18000000000000000000)
 *             (x86-64: s64 and u64, the 7th and 8th, are passed on the stack)
 *   eight_ints(101, 102, ..., 108)  (x86-64: 107 and 108 on the stack)
 *   str_arg("hello uprobes")
 *   struct_arg(&{x = 42, y = -7000000000, name = "origin"})
 *   double_arg(2.5)                 (scripts reading $d are refused)
 *   loclist_local(n = 5)            its local k = 3 * n + 1 = 16 lives in a
 *                                   DWARF location list (see the comment there)
 *   markers: utarget:zero (no argument)
 *            utarget:one (-7 as int)
 *            utarget:three (-3 as signed char, 65000 as unsigned short,
 *                           -5000000000 as long long)
 *            utarget:six (i as int: 1..N, -100 as short, 250 as unsigned char,
 *                         123456789012 as long long, 4000000000 as unsigned,
 *                         -1 as long)
 *            utarget:guarded (i: 1..N), semaphore utarget_guarded_semaphore
 *
 * Built with -g -O2 (guest/CMakeLists.txt): dynamically linked on x86-64
 * (uprobe-target) with a stripped copy (uprobe-target-stripped: no symbols,
 * no DWARF), statically on arm64. The probed functions are noipa so that
 * -O2 keeps them as real functions with their declared parameters (no
 * inlining, no cloned .isra/.constprop variants).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/sdt.h>

#define PROBED __attribute__((noipa))

/* utarget:guarded has a semaphore, SystemTap's convention: an unsigned short
 * PROVIDER_NAME_semaphore in section .probes, its address in the marker's
 * note (uprobe_register_refctr() increments it while a probe is attached);
 * the marker fires only while it is nonzero. The other markers have none
 * (their notes hold 0). sdt.h picks the note's semaphore word when a marker
 * expands, through _SDT_SEMAPHORE, redefined around that one marker below
 * (what _SDT_HAS_SEMAPHORES would do for every marker of the file). */
unsigned short utarget_guarded_semaphore __attribute__((used, section(".probes")));

struct point {
	int x;
	long long y;
	const char *name;
};

/* results go to a volatile sink so that -O2 keeps every call */
static volatile long long sink;

PROBED long long int_kinds(signed char s8, unsigned char u8, short s16, unsigned short u16,
			   int s32, unsigned int u32, long long s64, unsigned long long u64)
{
	return s8 + u8 + s16 + u16 + s32 + (long long)u32 + s64 + (long long)(u64 >> 1);
}

PROBED long eight_ints(int a, int b, int c, int d, int e, int f, int g, int h)
{
	return (long)a * b + c * d + e * f + g * h;
}

PROBED size_t str_arg(const char *s)
{
	return strlen(s);
}

PROBED long long struct_arg(const struct point *p)
{
	return p->x + p->y + (long long)strlen(p->name);
}

PROBED double double_arg(double d)
{
	return d * 2;
}

PROBED long long step(long long v)
{
	return v ^ (v >> 2);
}

/* k = 3 * n + 1 is a location list at -O2 (readelf --debug-dump=info,loc):
 * from the entry it is computed from n's register (DW_OP_breg, DW_OP_stack_value),
 * across the calls to step() it lives in a callee-saved register. */
PROBED long long loclist_local(long long n)
{
	long long k = 3 * n + 1;
	long long acc = 0;

	for (long long i = 0; i < k; i++)
		acc += step(i + k);
	return acc + k;
}

/* A fixed loop: its instruction count grows by the same amount per iteration. */
PROBED unsigned long loop_fn(unsigned long count)
{
	unsigned long v = 1;

	for (unsigned long i = 0; i < count; i++) {
		v = v * 6364136223846793005UL + 1442695040888963407UL;
		__asm__ volatile("" : "+r"(v));
	}
	return v;
}

/* Real recursion: the call goes through a volatile pointer, or -O2 folds
 * depth(k - 1) + 1 into a loop (here, into "return k"). */
PROBED unsigned int depth(unsigned int k);
static unsigned int (*volatile depth_call)(unsigned int) = depth;

PROBED unsigned int depth(unsigned int k)
{
	if (k == 0)
		return 0;
	return depth_call(k - 1) + 1;
}

/* A call chain for user backtraces: main -> chain_a -> chain_b -> chain_c,
 * none a tail call (each adds to its callee's result). Built without
 * -fno-omit-frame-pointer, as Debian builds: the unwinder needs the CFI. */
PROBED int chain_c(int n)
{
	__asm__ volatile("" : "+r"(n));
	return n * 3;
}

PROBED int chain_b(int n)
{
	return chain_c(n + 1) + 1;
}

PROBED int chain_a(int n)
{
	return chain_b(n + 1) + 1;
}

PROBED int work_fn(int i)
{
	return i * 2;
}

static void usage(const char *msg)
{
	if (msg)
		fprintf(stderr, "uprobe-target: %s\n", msg);
	fprintf(stderr, "usage: uprobe-target [-m] [-g] params N | marks N | loop N REPS |"
			" recurse D | work N MS | all N | chain\n");
	exit(2);
}

static long long count_arg(char **argv, int i, int argc, long long max)
{
	char *end;
	long long v;

	if (i >= argc)
		usage("missing a count");
	if (argv[i][0] < '0' || argv[i][0] > '9')
		usage("expected a non-negative decimal number");
	v = strtoll(argv[i], &end, 10);
	if (*end || v > max)
		usage("count out of range");
	return v;
}

static void run_params(long long n)
{
	struct point p = { 42, -7000000000LL, "origin" };

	for (long long i = 0; i < n; i++) {
		sink = int_kinds(-5, 200, -30000, 60000, -2000000000, 4000000000U,
				 -9000000000000000000LL, 18000000000000000000ULL);
		sink = eight_ints(101, 102, 103, 104, 105, 106, 107, 108);
		sink = (long long)str_arg("hello uprobes");
		sink = struct_arg(&p);
		sink = (long long)double_arg(2.5);
		sink = loclist_local(5);
	}
}

static long long guarded_fired;

#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR p##_##n##_semaphore)
static void guarded(int i)
{
	if (*(volatile unsigned short *)&utarget_guarded_semaphore) {
		guarded_fired++;
		STAP_PROBE1(utarget, guarded, i);
	}
}
#undef _SDT_SEMAPHORE
#define _SDT_SEMAPHORE(p, n) _SDT_ASM_1(_SDT_ASM_ADDR 0)

/* read through volatiles: the marker arguments are registers and memory
 * operands, not only immediates (utarget:one's -7 stays an immediate) */
static volatile signed char m_c = -3;
static volatile unsigned short m_us = 65000;
static volatile long long m_big = -5000000000LL;
static volatile short m_s = -100;
static volatile unsigned char m_uc = 250;
static volatile long long m_ll = 123456789012LL;
static volatile unsigned int m_u = 4000000000U;
static volatile long m_l = -1;

static void run_marks(long long n)
{
	for (int i = 1; i <= n; i++) {
		signed char c = m_c;
		unsigned short us = m_us;
		long long big = m_big;
		short s = m_s;
		unsigned char uc = m_uc;
		long long ll = m_ll;
		unsigned int u = m_u;
		long l = m_l;

		STAP_PROBE(utarget, zero);
		STAP_PROBE1(utarget, one, -7);
		STAP_PROBE3(utarget, three, c, us, big);
		STAP_PROBE6(utarget, six, i, s, uc, ll, u, l);
		guarded(i);
	}
}

static void run_loop(long long n, long long reps)
{
	unsigned long counts[] = { 0, (unsigned long)n, 2 * (unsigned long)n, 4 * (unsigned long)n };

	for (unsigned c = 0; c < sizeof(counts) / sizeof(counts[0]); c++)
		for (long long r = 0; r < reps; r++)
			sink = (long long)loop_fn(counts[c]);
}

static void run_work(long long n, long long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	for (int i = 1; i <= n; i++) {
		sink = work_fn(i);
		nanosleep(&ts, NULL);
	}
}

static int has_uprobes_mapping(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int found = 0;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (strstr(line, "[uprobes]"))
			found = 1;
	fclose(f);
	return found;
}

static int run_mode(int argc, char **argv, int i)
{
	const char *mode = argv[i];

	if (!strcmp(mode, "params")) {
		run_params(count_arg(argv, i + 1, argc, 1000000));
	} else if (!strcmp(mode, "marks")) {
		run_marks(count_arg(argv, i + 1, argc, 1000000));
	} else if (!strcmp(mode, "loop")) {
		run_loop(count_arg(argv, i + 1, argc, 100000000),
			 count_arg(argv, i + 2, argc, 1000000));
	} else if (!strcmp(mode, "recurse")) {
		sink = depth((unsigned int)count_arg(argv, i + 1, argc, 10000));
	} else if (!strcmp(mode, "work")) {
		run_work(count_arg(argv, i + 1, argc, 1000000), count_arg(argv, i + 2, argc, 60000));
	} else if (!strcmp(mode, "all")) {
		long long n = count_arg(argv, i + 1, argc, 1000000);

		run_params(n);
		run_marks(n);
		sink = depth(3);
	} else {
		fprintf(stderr, "uprobe-target: unknown mode '%s'\n", mode);
		usage(NULL);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int show_maps = 0, show_guarded = 0, i = 1;

	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-m"))
			show_maps = 1;
		else if (!strcmp(argv[i], "-g"))
			show_guarded = 1;
		else
			usage("unknown option");
	}
	if (i >= argc)
		usage(NULL);
	if (!strcmp(argv[i], "chain")) {	/* called from main itself */
		sink = chain_a(1);
		printf("chain: %lld\n", sink);
		return 0;
	}
	run_mode(argc, argv, i);
	if (show_guarded)
		printf("guarded: %lld\n", guarded_fired);
	if (show_maps) {
		int m = has_uprobes_mapping();

		printf("uprobes-mapping: %s\n", m < 0 ? "unknown" : m ? "yes" : "no");
	}
	return 0;
}
