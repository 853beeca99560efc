// prog.c - a user program whose ELF and DWARF userinfo's unit tests read
// (built by tests/unit/CMakeLists.txt at -O0 and -O2, stripped, and for
// arm64): functions with parameters of several kinds (ints, a struct by
// pointer, a struct by value, a double, a seventh argument passed on the
// stack), a local, and SDT markers (guarded.c has one with a semaphore).
#include <sys/sdt.h>
#include <stdio.h>
#include <stdlib.h>

struct point {
	int x;
	long y;
	struct point *next;
	int v[4];
};

long global_count;

__attribute__((noinline)) int add_ints(int a, int b)
{
	int sum = a + b;
	global_count += sum;
	return sum;
}

// another name of the same code, as glibc's malloc is __libc_malloc
int add_alias(int a, int b) __attribute__((alias("add_ints")));

__attribute__((noinline)) long seven(long a1, long a2, long a3, long a4, long a5, long a6,
				     long a7)
{
	return a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

__attribute__((noinline)) int walk(struct point *p)
{
	int n = 0;
	while (p) {
		n += p->x;
		p = p->next;
	}
	return n;
}

__attribute__((noinline)) double scale(double f, int k)
{
	return f * k;
}

__attribute__((noinline)) void by_value(struct point pt)
{
	global_count += pt.x + pt.v[2];
}

void guarded(int n);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	struct point q = {2, 20, NULL, {0, 0, 7, 0}};
	struct point p = {1, 10, &q, {0, 0, 5, 0}};
	char tag[8] = "demo";
	STAP_PROBE2(demo, start, n, &p);
	STAP_PROBE3(demo, three, (long)n, (signed char)-1, global_count);
	for (int i = 0; i < n; i++)
		add_alias(i, n);
	printf("%s %ld %d %g\n", tag, seven(1, 2, 3, 4, 5, 6, n), walk(&p), scale(1.5, n));
	by_value(p);
	guarded(n);
	return 0;
}
