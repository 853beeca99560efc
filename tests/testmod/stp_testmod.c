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

/*
 * x86: writing "nmi N" raises N rounds of NMIs (an NMI IPI to every online
 * CPU, the writer's own included, then a wait until each CPU handled its
 * one) whose handler calls stp_tm_nmi_hit(seq) in NMI context; reading
 * /proc/stp_testmod reports the totals (stp_tm_nmi_show). "busy N" calls
 * stp_tm_busy(1..N). (Included here, not above: the probe tests name lines
 * of the functions above.)
 */
#include <linux/sched.h>
#include <linux/seq_file.h>
#if defined(CONFIG_X86) && defined(CONFIG_X86_LOCAL_APIC)
#define STP_TM_NMI 1
#include <asm/apic.h>
#include <asm/nmi.h>
#endif

#ifdef STP_TM_NMI
/*
 * NMIs of our own. A CPU's pending count is the NMIs sent to it and not yet
 * handled (0 or 1: a round waits for every CPU before the next one, so two
 * NMIs never merge into one latched NMI). The handler claims an NMI only
 * when its CPU has one pending, so other NMI_LOCAL users (perf) keep theirs.
 */
static DEFINE_PER_CPU(atomic_t, stp_tm_nmi_pending);
static DEFINE_PER_CPU(long, stp_tm_nmi_seq);	/* our NMIs handled here */
static DEFINE_PER_CPU(long, stp_tm_nmi_inprobe);	/* ... inside a busy probe */
static DEFINE_PER_CPU(int, stp_tm_in_busy);	/* a "busy" call running here */
static long stp_tm_nmi_rounds, stp_tm_nmi_lost;
static DEFINE_MUTEX(stp_tm_nmi_mutex);
static bool stp_tm_nmi_registered;

noinline long stp_tm_nmi_hit(long seq)
{
	stp_tm_sink += seq;
	return seq;
}

/*
 * A probe on stp_tm_busy runs in the task, with interrupts off (the probe
 * handler's own local_irq_save): an NMI that finds a busy call running on
 * its CPU, interrupts off and no hard or soft interrupt below it (the NMI's
 * own HARDIRQ_OFFSET aside) interrupted that probe's handler.
 */
static bool stp_tm_nmi_in_probe(struct pt_regs *regs)
{
	return __this_cpu_read(stp_tm_in_busy) &&
	       !(regs->flags & X86_EFLAGS_IF) &&
	       (preempt_count() & (SOFTIRQ_MASK | HARDIRQ_MASK)) == HARDIRQ_OFFSET;
}

static int stp_tm_nmi(unsigned int cmd, struct pt_regs *regs)
{
	atomic_t *pending = this_cpu_ptr(&stp_tm_nmi_pending);

	if (atomic_read(pending) <= 0)
		return NMI_DONE;
	if (stp_tm_nmi_in_probe(regs))
		__this_cpu_inc(stp_tm_nmi_inprobe);
	stp_tm_nmi_hit(__this_cpu_inc_return(stp_tm_nmi_seq));
	atomic_dec(pending);
	return NMI_HANDLED;
}

/* one round: an NMI IPI to every online CPU, then wait until each handled it */
static void stp_tm_nmi_round(void)
{
	unsigned long deadline;
	atomic_t *p;
	int cpu;

	for_each_online_cpu(cpu)
		atomic_inc(per_cpu_ptr(&stp_tm_nmi_pending, cpu));
	apic->send_IPI_mask(cpu_online_mask, NMI_VECTOR);
	deadline = jiffies + 2 * HZ;
	for_each_online_cpu(cpu) {
		p = per_cpu_ptr(&stp_tm_nmi_pending, cpu);
		while (atomic_read(p) > 0 && time_before(jiffies, deadline))
			cond_resched();
		/* never delivered in 2 s: counted, and not waited for again */
		stp_tm_nmi_lost += atomic_xchg(p, 0);
	}
	stp_tm_nmi_rounds++;
}

static void stp_tm_nmi_rounds_run(int n)
{
	int i;

	mutex_lock(&stp_tm_nmi_mutex);
	for (i = 0; i < n; i++)
		stp_tm_nmi_round();
	mutex_unlock(&stp_tm_nmi_mutex);
}

/*
 * "nmi rounds R cpus C handled H lost L in_probe P" (H: NMIs our handler
 * took, each calling stp_tm_nmi_hit; P: of those, NMIs that interrupted a
 * probe handler of stp_tm_busy), then per CPU "cpuN handled H in_probe P".
 */
static int stp_tm_nmi_show(struct seq_file *m, void *v)
{
	long handled = 0, inprobe = 0;
	int cpu;

	mutex_lock(&stp_tm_nmi_mutex);
	for_each_online_cpu(cpu) {
		handled += per_cpu(stp_tm_nmi_seq, cpu);
		inprobe += per_cpu(stp_tm_nmi_inprobe, cpu);
	}
	seq_printf(m, "nmi rounds %ld cpus %u handled %ld lost %ld in_probe %ld\n",
		   stp_tm_nmi_rounds, num_online_cpus(), handled,
		   stp_tm_nmi_lost, inprobe);
	for_each_online_cpu(cpu)
		seq_printf(m, "cpu%d handled %ld in_probe %ld\n", cpu,
			   per_cpu(stp_tm_nmi_seq, cpu),
			   per_cpu(stp_tm_nmi_inprobe, cpu));
	mutex_unlock(&stp_tm_nmi_mutex);
	return 0;
}

static int stp_tm_nmi_init(void)
{
	int ret = register_nmi_handler(NMI_LOCAL, stp_tm_nmi, 0, "stp_testmod");

	stp_tm_nmi_registered = !ret;
	return ret;
}

static void stp_tm_nmi_exit(void)
{
	/* waits for a running handler (synchronize_rcu) */
	if (stp_tm_nmi_registered)
		unregister_nmi_handler(NMI_LOCAL, "stp_testmod");
}
#endif /* STP_TM_NMI */

/* "busy N": stp_tm_busy(1..N), each call marked for the NMI handler */
noinline long stp_tm_busy(long i)
{
	stp_tm_sink += i;
	return i;
}

static void stp_tm_busy_run(int n)
{
	int i;

	for (i = 1; i <= n; i++) {
		preempt_disable();
#ifdef STP_TM_NMI
		__this_cpu_write(stp_tm_in_busy, 1);
#endif
		stp_tm_busy(i);
#ifdef STP_TM_NMI
		__this_cpu_write(stp_tm_in_busy, 0);
#endif
		preempt_enable();
		cond_resched();
	}
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
	if (sscanf(buf, "busy %d", &n) == 1) {
		if (n < 0 || n > 1000000)
			return -EINVAL;
		stp_tm_busy_run(n);
		return len;
	}
	if (sscanf(buf, "nmi %d", &n) == 1) {
#ifdef STP_TM_NMI
		if (n < 0 || n > 100000)
			return -EINVAL;
		stp_tm_nmi_rounds_run(n);
		return len;
#else
		return -EOPNOTSUPP;
#endif
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

static int stp_tm_open(struct inode *inode, struct file *file)
{
	if (!(file->f_mode & FMODE_READ))
		return 0;
#ifdef STP_TM_NMI
	return single_open(file, stp_tm_nmi_show, NULL);
#else
	return -EOPNOTSUPP;
#endif
}

static int stp_tm_release(struct inode *inode, struct file *file)
{
	if (file->f_mode & FMODE_READ)
		return single_release(inode, file);
	return 0;
}

static const struct proc_ops stp_tm_ops = {
	.proc_open = stp_tm_open,
	.proc_read = seq_read,
	.proc_write = stp_tm_write,
	.proc_release = stp_tm_release,
};

static int __init stp_tm_init(void)
{
	int ret = 0;

#ifdef STP_TM_NMI
	ret = stp_tm_nmi_init();
	if (ret)
		return ret;
#endif
	if (!proc_create("stp_testmod", 0600, NULL, &stp_tm_ops)) {
#ifdef STP_TM_NMI
		stp_tm_nmi_exit();
#endif
		return -ENOMEM;
	}
	return ret;
}

static void __exit stp_tm_exit(void)
{
	/* no writer is left once the file is gone: no round sends NMIs */
	remove_proc_entry("stp_testmod", NULL);
#ifdef STP_TM_NMI
	stp_tm_nmi_exit();
#endif
}

module_init(stp_tm_init);
module_exit(stp_tm_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stap-pmu test module: known parameters, returns and calls");
