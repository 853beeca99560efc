// SPDX-License-Identifier: GPL-2.0
/*
 * sample_module.c - a hand-written "generated" module following
 * docs/runtime.md: the golden example of what the translator emits.
 * Build: ccflags-y += -I<repo>/runtime, obj-m += sample_module.o.
 *
 * The script it stands for (sample.stp):
 *
 *   global hits, ticks, t0, t0_cpu = -1, lat
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
 *   probe end {
 *   	printf("end: hits=%d ticks=%d\n", hits, ticks)
 *   	if (@count(lat))
 *   		printf("cpu-clock ns per getpid: count=%d min=%d avg=%d max=%d\n",
 *   		       @count(lat), @min(lat), @avg(lat), @max(lat))
 *   }
 */
#define STP_MODULE_NAME "sample_module"		/* == KBUILD_MODNAME */
#define STP_SCRIPT_HASH "0000000000000000000000000000000000000000"
#define STP_PMU_TARGETS "perf"
#define STP_NEVENTS 1

#include "stp_limits.h"

union stp_locals {
	struct {
		char l_name[STP_MAXSTRINGLEN];
	} p1;
	char unused;
};

#include "stp_runtime.h"

/* --- PMU tables --- */
static const struct stp_pmu_event stp_pmu_events_perf[STP_NEVENTS] = {
	{ .type = 1, .config = 0, .config1 = 0, .flags = 0 },	/* cpu-clock */
};

static const struct stp_pmu_row stp_pmu_rows[] = {
	{ "perf", NULL, 0, stp_pmu_events_perf },	/* nmatch 0: any CPU */
};

static const char *const stp_pmu_event_names[STP_NEVENTS] = {
	"perf::cpu-clock",
};

/* --- globals --- */
static s64 g_hits;
static s64 g_ticks;
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

static void stp_probe_4(struct stp_context *c)
{
	s64 n, lo, avg, hi;

	c->loc = "sample.stp:20:2";
	stp_printf(c, "end: hits=%lld ticks=%lld\n", g_hits, g_ticks);
	c->loc = "sample.stp:21:6";
	if (stp_stat_count(c, &g_lat)) {
		c->loc = "sample.stp:23:10";
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
	{ .kind = STP_PROBE_END, .name = "end",
	  .loc = "sample.stp:19:1", .body = stp_probe_4, .lock = 1 },
};

#include "stp_module.h"
