// SPDX-License-Identifier: GPL-2.0
/*
 * sample_module.c - a hand-written "generated" module following
 * docs/runtime.md: the golden example of what the translator emits.
 * Build: ccflags-y += -I<repo>/runtime, obj-m += sample_module.o.
 *
 * The script it stands for: tests/runtime/sample_module.stp, whose
 * translation runtime.sample_module_matches compares with this file (the
 * runtime calls and macros both use, the probe table's kinds, names and
 * locks), so this example cannot drift from what the translator emits.
 */
#define STP_MODULE_NAME "sample_module"		/* == KBUILD_MODNAME */
#define STP_SCRIPT_HASH "0000000000000000000000000000000000000000"
#define STP_PMU_TARGETS "perf"
#define STP_VERSION "0.0-sample"
#define STP_NEVENTS 2		/* @pmu cpu-clock, the sampling cpu-clock */
#define STP_HIST_MAX 1		/* statistics without a histogram */
/* the kinds of probe the table holds: registration code of others is dead */
#define STP_PROBE_KINDS ((1U << STP_PROBE_BEGIN) | (1U << STP_PROBE_END) | \
			 (1U << STP_PROBE_KPROBE) | (1U << STP_PROBE_KRETPROBE) | \
			 (1U << STP_PROBE_PERF) | (1U << STP_PROBE_TIMER))
#define STP_NO_ENTRY_REGS 1	/* no body reads the probed registers */
#define STP_OVERLOAD_SAMPLE 1	/* counters read: every hit timed */
#define STP_ENTRY_DISPATCH 1	/* stp_entry_dispatch() follows the probe table */
#define STP_ENTRY_ONE 1		/* one entry probe: stp_entry_one() */

#include "stp_limits.h"

union stp_locals {
	char unused;
};

#include "stp_runtime.h"

/* --- PMU tables (no match entries: the generic row only) --- */
static const struct {
	struct stp_pmu_event enc[1];
	u8 vec[1][STP_NEVENTS];
	struct stp_pmu_row rows[1];
	char row_names[6];
	char event_names[32];
} stp_pmu_data = {
	.enc = {
		{ 0, 0, 1, STP_EXCL_HV | STP_EXCL_GUEST },	/* type 1 config 0: cpu-clock */
	},
	.vec = {
		{ 0, 0 },
	},
	.rows = {
		{ 0, 0, STP_CORE_ANY, 0 },	/* perf: any CPU */
	},
	.row_names = "\001per\346",	/* last byte | 0x80 */
	.event_names = "perf::cpu-clock\000perf::cpu-clock",
};

static int stp_pmu_init_tables(struct stp_probe *probes, unsigned int nprobes)
{
	stp_pmu_tab.enc = stp_pmu_data.enc;
	stp_pmu_tab.vec8 = &stp_pmu_data.vec[0][0];
	stp_pmu_tab.rows = stp_pmu_data.rows;
	stp_pmu_tab.nrows = ARRAY_SIZE(stp_pmu_data.rows);
	stp_pmu_tab.row_names = stp_pmu_data.row_names;
	stp_pmu_tab.event_names = stp_pmu_data.event_names;
	return stp_pmu_init(probes, nprobes);
}

/* --- globals --- */
static s64 g_hits;
static s64 g_t0;
static s64 g_t0_cpu = -1;

/* one lock per shared global a body takes (stp_probes.h) */
static DEFINE_RAW_SPINLOCK(g_hits_lock);
static DEFINE_RAW_SPINLOCK(g_t0_lock);
static DEFINE_RAW_SPINLOCK(g_t0_cpu_lock);

/*
 * ticks, samples: per-CPU numbers (only ++ in the timer and sampling
 * probes, read in end: sema/storage.cpp), summed when read
 */
static DEFINE_PER_CPU(u64, g_ticks);
static u64 g_ticks_base;
static DEFINE_PER_CPU(u64, g_samples);
static u64 g_samples_base;

static s64 stp_pcpu_get_ticks(void)
{
	return stp_pcpu_sum(&g_ticks, &g_ticks_base);
}

static s64 stp_pcpu_get_samples(void)
{
	return stp_pcpu_sum(&g_samples, &g_samples_base);
}

/* assignments (none in this script: begin, end and error probes only) */
static __maybe_unused s64 stp_pcpu_set_ticks(s64 v)
{
	return stp_pcpu_store(&g_ticks, &g_ticks_base, v);
}

/* lat: a per-CPU statistic (no histogram), merged into c->agg on read */
static const struct stp_hdesc stp_hd_lat = { .kind = STP_HIST_NONE, .nb = 0 };
struct stp_pcs_lat {
	struct stp_stat s;
	s64 h[1];
};
static DEFINE_PER_CPU(struct stp_pcs_lat, g_lat);

static void stp_add_lat(s64 v)
{
	struct stp_pcs_lat *p = this_cpu_ptr(&g_lat);

	/* min and max kept (@min, @max read), no sum of squares (no @variance) */
	stp_stat_addh_kept(&p->s, p->h, &stp_hd_lat, v, 1, 0);
}

static const struct stp_stat *stp_agg_lat(struct stp_context *c)
{
	int cpu;

	stp_stat_agg_reset(c, 0);
	for_each_possible_cpu(cpu) {
		struct stp_pcs_lat *p = per_cpu_ptr(&g_lat, cpu);

		stp_stat_merge(&c->agg, c->agg_hist, &p->s, p->h, 0);
	}
	return &c->agg;
}

/* --- probe bodies --- */
static void stp_probe_0(struct stp_context *c)
{
	if (STP_MAXACTION < 1) {	/* one statement, no loop: at most 1 action */
		c->loc = "sample_module.stp:6:13";
		if (unlikely(stp_actions(c, 1)))
			return;
	}
	stp_printf(c, "begin: target=%lld\n", stp_target());
}

static void stp_probe_1(struct stp_context *c)
{
	c->loc = "sample_module.stp:8:43";
	if (unlikely(stp_actions(c, 5)))
		return;
	if (stp_pid() != stp_target())
		return;
	g_hits++;
	if (g_hits == 1)
		stp_printf(c, "first hit: %s pid=%lld\n", stp_execname(c),
			   stp_pid());
	c->loc = "sample_module.stp:12:7";
	g_t0 = stp_pmu_read(c, 0);
	if (unlikely(c->error))
		return;
	g_t0_cpu = stp_cpu();
}

static void stp_probe_2(struct stp_context *c)
{
	s64 v;

	c->loc = "sample_module.stp:15:50";
	if (unlikely(stp_actions(c, 3)))
		return;
	if (stp_pid() != stp_target() || g_t0_cpu != stp_cpu())
		return;
	c->loc = "sample_module.stp:17:9";
	v = stp_pmu_read(c, 0);
	if (unlikely(c->error))
		return;
	stp_add_lat(v - g_t0);
	g_t0_cpu = -1;
}

static void stp_probe_3(struct stp_context *c)
{
	if (STP_MAXACTION < 1) {	/* one statement, no loop: at most 1 action */
		c->loc = "sample_module.stp:21:20";
		if (unlikely(stp_actions(c, 1)))
			return;
	}
	__this_cpu_add(g_ticks, 1);
}

static void stp_probe_4(struct stp_context *c)
{
	if (STP_MAXACTION < 1) {	/* one statement, no loop: at most 1 action */
		c->loc = "sample_module.stp:23:53";
		if (unlikely(stp_actions(c, 1)))
			return;
	}
	__this_cpu_add(g_samples, 1);
}

static void stp_probe_5(struct stp_context *c)
{
	s64 n, lo, avg, hi;

	c->loc = "sample_module.stp:25:11";
	if (unlikely(stp_actions(c, 2)))
		return;
	stp_printf(c, "end: hits=%lld ticks=%lld samples=%lld\n", g_hits,
		   stp_pcpu_get_ticks(), stp_pcpu_get_samples());
	if (stp_stat_count(c, stp_agg_lat(c))) {
		c->loc = "sample_module.stp:28:3";
		if (unlikely(stp_actions(c, 1)))
			return;
		n = stp_stat_count(c, stp_agg_lat(c));
		lo = stp_stat_min(c, stp_agg_lat(c));
		if (unlikely(c->error))
			return;
		avg = stp_stat_avg(c, stp_agg_lat(c));
		if (unlikely(c->error))
			return;
		hi = stp_stat_max(c, stp_agg_lat(c));
		if (unlikely(c->error))
			return;
		stp_printf(c, "cpu-clock ns per getpid: count=%lld min=%lld avg=%lld max=%lld\n",
			   n, lo, avg, hi);
	}
}

/*
 * --- probe table (begin takes no lock: it touches no global; the timer
 * and the sampler only add to per-CPU numbers; the others hold the locks
 * of the shared globals they touch, in declaration order; .percpu: the
 * body touches per-CPU storage, so in NMI it never runs over a body on its
 * CPU) ---
 */
static raw_spinlock_t *const stp_locks_1[] = { &g_hits_lock, &g_t0_lock, &g_t0_cpu_lock };
static raw_spinlock_t *const stp_locks_2[] = { &g_t0_lock, &g_t0_cpu_lock };
static raw_spinlock_t *const stp_locks_5[] = { &g_hits_lock };

static struct stp_probe stp_probes[] = {
	{ .kind = STP_PROBE_BEGIN, .name = "begin",
	  .loc = "sample_module.stp:6:7", .body = stp_probe_0 },
	{ .kind = STP_PROBE_KPROBE, .symbol = "__x64_sys_getpid",
	  .name = "kprobe.function(\"__x64_sys_getpid\")",
	  .loc = "sample_module.stp:8:7", .body = stp_probe_1,
	  .locks = stp_locks_1, .nlocks = 3 },
	{ .kind = STP_PROBE_KRETPROBE, .symbol = "__x64_sys_getpid",
	  .name = "kprobe.function(\"__x64_sys_getpid\").return",
	  .loc = "sample_module.stp:15:7", .body = stp_probe_2,
	  .locks = stp_locks_2, .nlocks = 2, .percpu = 1 },
	{ .kind = STP_PROBE_TIMER, .period_ns = 10000000,
	  .name = "timer.ms(10)", .loc = "sample_module.stp:21:7",
	  .body = stp_probe_3, .percpu = 1 },
	{ .kind = STP_PROBE_PERF, .event = 1, .sample_period = 1000000,
	  .name = "perf.event(\"perf::cpu-clock\").sample(1000000)",
	  .loc = "sample_module.stp:23:7", .body = stp_probe_4, .percpu = 1 },
	{ .kind = STP_PROBE_END, .name = "end",
	  .loc = "sample_module.stp:25:7", .body = stp_probe_5,
	  .locks = stp_locks_5, .nlocks = 1, .percpu = 1 },
};

/*
 * The entry probes' runs naming their bodies, which the ftrace entry
 * handlers inline; the one entry probe also alone.
 */
static __always_inline void stp_entry_dispatch(const struct stp_probe *p)
{
	switch (p - stp_probes) {
	case 1:
		stp_run_probe_body(&stp_probes[1], stp_probe_1, NULL,
				   STP_STATE_RUNNING, NULL, NULL, 0);
		break;
	default:
		stp_entry_run_other(p);
	}
}

static __always_inline void stp_entry_one(void)
{
	stp_run_probe_body(&stp_probes[1], stp_probe_1, NULL,
			   STP_STATE_RUNNING, NULL, NULL, 0);
}

#include "stp_module.h"
