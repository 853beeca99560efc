// SPDX-License-Identifier: GPL-2.0
/*
 * stp_testmod.c - the test kernel module of stap-pmu's probe tests.
 *
 * Writing a number N to /proc/stp_testmod runs one round N times:
 *   stp_tm_add(i, 2 * i)           returns 3 * i
 *   stp_tm_rec_fill(&rec, i)           rec.id = 1000 + i, rec.val = i * i,
 *                                  rec.name = "rec<i>", returns rec.val
 *   stp_tm_f1(i), stp_tm_f2(i), stp_tm_f3(i)   return i + 1, i + 2, i + 3
 *   stp_tm_other(i)                not matched by stp_tm_f*
 *   stp_tm_null(NULL)              a NULL struct pointer, returns -1
 * Writing "null" calls only stp_tm_null(NULL). The functions are noinline
 * and not static, so they have symbols, DWARF and kprobes.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/uaccess.h>

struct stp_tm_rec {
	int id;
	long val;
	struct stp_tm_rec *next;
	char name[16];
};

static volatile long stp_tm_sink;

noinline int stp_tm_add(int a, int b)
{
	stp_tm_sink += a;
	return a + b;
}

noinline long stp_tm_rec_fill(struct stp_tm_rec *r, int i)
{
	r->id = 1000 + i;
	r->val = (long)i * i;
	r->next = NULL;
	snprintf(r->name, sizeof(r->name), "rec%d", i);
	stp_tm_sink += r->val;
	return r->val;
}

noinline long stp_tm_f1(long x)
{
	stp_tm_sink += x;
	return x + 1;
}

noinline long stp_tm_f2(long x)
{
	stp_tm_sink += x;
	return x + 2;
}

noinline long stp_tm_f3(long x)
{
	stp_tm_sink += x;
	return x + 3;
}

noinline long stp_tm_other(long x)
{
	stp_tm_sink += x;
	return x;
}

noinline int stp_tm_null(struct stp_tm_rec *r)
{
	stp_tm_sink++;
	return r ? r->id : -1;
}

/*
 * Arrays to index: writing "arr" to /proc/stp_testmod calls only
 * stp_tm_arr_fill(&arr, 7), which sets vals[k] = 10 * n + k (70..73),
 * recs[k].id = 100 + k, recs[k].name = "r<k>", ptrs[0] = &recs[1],
 * ptrs[1] = NULL, grid[i][j] = 10 * i + j, and returns n.
 */
struct stp_tm_arr {
	int vals[4];
	struct stp_tm_rec recs[2];
	struct stp_tm_rec *ptrs[2];
	short grid[2][3];
};

noinline long stp_tm_arr_fill(struct stp_tm_arr *a, int n)
{
	int k, j;

	memset(a, 0, sizeof(*a));
	for (k = 0; k < 4; k++)
		a->vals[k] = 10 * n + k;
	for (k = 0; k < 2; k++) {
		a->recs[k].id = 100 + k;
		snprintf(a->recs[k].name, sizeof(a->recs[k].name), "r%d", k);
		for (j = 0; j < 3; j++)
			a->grid[k][j] = 10 * k + j;
	}
	a->ptrs[0] = &a->recs[1];
	a->ptrs[1] = NULL;
	stp_tm_sink += a->vals[3];
	return n;
}

/*
 * Locals, statements and a stack-passed argument: writing "loc" calls
 * stp_tm_locals(5, &rec), whose loop leaves sum = 1, 5, 14, 30, 55 after
 * each k = 1..5 and sets rec.val = 55 (returned), and
 * stp_tm_seven(1, 2, 3, 4, 5, 6, 77, 88, 99), whose seventh to ninth
 * arguments x86-64 passes on the stack (arm64: the ninth; returns 285).
 */
noinline long stp_tm_locals(int n, struct stp_tm_rec *r)
{
	long sum = 0;
	int k;

	for (k = 1; k <= n; k++) {
		sum += (long)k * k;
		stp_tm_sink += sum; /* STP_TM_LOOP_LINE */
	}
	r->val = sum; /* STP_TM_DONE_LINE */
	return sum;
}

noinline long stp_tm_seven(long a, long b, long c, long d, long e, long f,
			   long g, long h, long i)
{
	stp_tm_sink += g + h + i;
	return a + b + c + d + e + f + g + h + i;
}

/*
 * Writing "nt N" calls stp_tm_notrace(i) for i = 1..N: a notrace function,
 * not in available_filter_functions, which an entry probe reaches only
 * through a kprobe (runtime/stp_ftrace.h). (Added after the functions whose
 * line numbers the tests name.)
 */
noinline notrace long stp_tm_notrace(long x)
{
	stp_tm_sink += x;
	return x * 2;
}

static void stp_tm_round(int i)
{
	struct stp_tm_rec rec;

	stp_tm_add(i, 2 * i);
	stp_tm_rec_fill(&rec, i);
	stp_tm_f1(i);
	stp_tm_f2(i);
	stp_tm_f3(i);
	stp_tm_other(i);
	stp_tm_null(NULL);
}

static ssize_t stp_tm_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *off)
{
	char buf[16];
	int n, i;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sysfs_streq(buf, "null")) {
		stp_tm_null(NULL);
		return len;
	}
	if (sysfs_streq(buf, "arr")) {
		struct stp_tm_arr arr;

		stp_tm_arr_fill(&arr, 7);
		return len;
	}
	if (sysfs_streq(buf, "loc")) {
		struct stp_tm_rec rec;

		stp_tm_locals(5, &rec);
		stp_tm_seven(1, 2, 3, 4, 5, 6, 77, 88, 99);
		return len;
	}
	if (!strncmp(buf, "nt ", 3)) {
		if (kstrtoint(strim(buf + 3), 10, &n) || n < 0 || n > 1000000)
			return -EINVAL;
		for (i = 1; i <= n; i++)
			stp_tm_notrace(i);
		return len;
	}
	if (kstrtoint(strim(buf), 10, &n) || n < 0 || n > 1000000)
		return -EINVAL;
	for (i = 1; i <= n; i++)
		stp_tm_round(i);
	return len;
}

static const struct proc_ops stp_tm_ops = {
	.proc_write = stp_tm_write,
};

static int __init stp_tm_init(void)
{
	if (!proc_create("stp_testmod", 0200, NULL, &stp_tm_ops))
		return -ENOMEM;
	return 0;
}

static void __exit stp_tm_exit(void)
{
	remove_proc_entry("stp_testmod", NULL);
}

module_init(stp_tm_init);
module_exit(stp_tm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stap-pmu test module: known parameters, returns and calls");
