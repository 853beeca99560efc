// SPDX-License-Identifier: GPL-2.0
/*
 * sample_module.c - a hand-written "generated" module following
 * docs/runtime.md: the golden example of what the translator emits.
 * Build: ccflags-y += -I<repo>/runtime, obj-m += sample_module.o.
 *
 * The script it stands for (sample.stp):
 *
 *   global hits, ticks, samples, t0, t0_cpu = -1, lat
 *
 *   probe begin { printf("begin: target=%d\n", target()) }
 *
 *   probe kprobe.function("__x64_sys_getpid") {
 *   	if (pid() != target()) next
 *   	hits++
 *   	if (hits == 1) printf("first hit: %s pid=%d\n", execname(), pid())
 *   	t0 = @pmu("perf::cpu-clock"); t0_cpu = cpu()
 *   }
 *
 *   probe kretprobe.function("__x64_sys_getpid") {
 *   	if (pid() != target() || t0_cpu != cpu()) next
 *   	lat <<< @pmu("perf::cpu-clock") - t0
 *   	t0_cpu = -1
 *   }
 *
 *   probe timer.ms(10) { ticks++ }
 *
 *   probe perf.event("perf::cpu-clock").sample(1000000) { samples++ }
 *
 *   probe end {
 *   	printf("end: hits=%d ticks=%d samples=%d\n", hits, ticks, samples)
 *   	if (@count(lat))
 *   		printf("cpu-clock ns per getpid: count=%d min=%d avg=%d max=%d\n",
 *   		       @count(lat), @min(lat), @avg(lat), @max(lat))
 *   }
 */
#define STP_MODULE_NAME "sample_module"		/* == KBUILD_MODNAME */
#define STP_SCRIPT_HASH "0000000000000000000000000000000000000000"
#define STP_PMU_TARGETS "perf"
#define STP_VERSION "0.0-sample"
#define STP_NEVENTS 2		/* @pmu cpu-clock, the sampling cpu-clock */

#include "stp_limits.h"

union stp_locals {
	struct {
		char l_name[STP_MAXSTRINGLEN];
	} p1;
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
		{ 0, 0, 1, STP_EXCL_HV },	/* type 1 config 0: cpu-clock */
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
static s64 g_ticks;
static s64 g_samples;
static s64 g_t0;
static s64 g_t0_cpu = -1;
static struct stp_stat g_lat;

/* --- probe bodies --- */
static void stp_probe_0(struct stp_context *c)
{
	c->loc = "sample.stp:3:17";
	stp_printf(c, "begin: target=%lld\n", stp_target());
}

static void stp_probe_1(struct stp_context *c)
{
	if (stp_pid() != stp_target())
		return;
	g_hits++;
	if (g_hits == 1) {
		stp_strlcpy(c->l.p1.l_name, stp_execname(c));
		stp_printf(c, "first hit: %s pid=%lld\n", c->l.p1.l_name,
			   stp_pid());
	}
	c->loc = "sample.stp:8:7";
	g_t0 = stp_pmu_read(c, 0);
	if (unlikely(c->error))
		return;
	g_t0_cpu = stp_cpu();
}

static void stp_probe_2(struct stp_context *c)
{
	s64 v;

	if (stp_pid() != stp_target() || g_t0_cpu != stp_cpu())
		return;
	c->loc = "sample.stp:13:10";
	v = stp_pmu_read(c, 0);
	if (unlikely(c->error))
		return;
	stp_stat_add(&g_lat, v - g_t0);
	g_t0_cpu = -1;
}

static void stp_probe_3(struct stp_context *c)
{
	g_ticks++;
}

static void stp_probe_5(struct stp_context *c)
{
	g_samples++;
}

static void stp_probe_4(struct stp_context *c)
{
	s64 n, lo, avg, hi;

	c->loc = "sample.stp:22:2";
	stp_printf(c, "end: hits=%lld ticks=%lld samples=%lld\n", g_hits,
		   g_ticks, g_samples);
	c->loc = "sample.stp:23:6";
	if (stp_stat_count(c, &g_lat)) {
		c->loc = "sample.stp:25:10";
		n = stp_stat_count(c, &g_lat);
		lo = stp_stat_min(c, &g_lat);
		if (unlikely(c->error))
			return;
		avg = stp_stat_avg(c, &g_lat);
		if (unlikely(c->error))
			return;
		hi = stp_stat_max(c, &g_lat);
		if (unlikely(c->error))
			return;
		stp_printf(c, "cpu-clock ns per getpid: count=%lld min=%lld avg=%lld max=%lld\n",
			   n, lo, avg, hi);
	}
}

/* --- probe table --- */
static struct stp_probe stp_probes[] = {
	{ .kind = STP_PROBE_BEGIN, .name = "begin",
	  .loc = "sample.stp:3:1", .body = stp_probe_0, .lock = 1 },
	{ .kind = STP_PROBE_KPROBE, .symbol = "__x64_sys_getpid",
	  .name = "kprobe.function(\"__x64_sys_getpid\")",
	  .loc = "sample.stp:5:1", .body = stp_probe_1, .lock = 1 },
	{ .kind = STP_PROBE_KRETPROBE, .symbol = "__x64_sys_getpid",
	  .name = "kretprobe.function(\"__x64_sys_getpid\")",
	  .loc = "sample.stp:11:1", .body = stp_probe_2, .lock = 1 },
	{ .kind = STP_PROBE_TIMER, .period_ns = 10000000,
	  .name = "timer.ms(10)", .loc = "sample.stp:17:1",
	  .body = stp_probe_3, .lock = 1 },
	{ .kind = STP_PROBE_PERF, .event = 1, .sample_period = 1000000,
	  .name = "perf.event(\"perf::cpu-clock\").sample(1000000)",
	  .loc = "sample.stp:19:1", .body = stp_probe_5, .lock = 1 },
	{ .kind = STP_PROBE_END, .name = "end",
	  .loc = "sample.stp:21:1", .body = stp_probe_4, .lock = 1 },
};

#include "stp_module.h"
