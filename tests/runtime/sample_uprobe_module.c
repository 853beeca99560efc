// SPDX-License-Identifier: GPL-2.0
/*
 * sample_uprobe_module.c - a hand-written "generated" module with
 * user-space probes (runtime/stp_uprobes.h, docs/runtime.md "User-space
 * probes"): the golden example of what the translator emits for them.
 * Build: ccflags-y += -I<repo>/runtime, obj-m += sample_uprobe_module.o.
 *
 * The script it stands for (offsets and locations as the translator
 * would read them from the binary's ELF and DWARF):
 *
 *   global calls, t0
 *
 *   probe process("/usr/bin/pmu-workload").function("do_getpid") {
 *   	calls++
 *   	printf("n=%d s=%s\n", $n, user_string($name))
 *   }
 *
 *   probe process("/usr/bin/pmu-workload").function("do_getpid").return {
 *   	printf("return %d n=%d count=%d ns=%d\n", $return, @entry($n), $cfg->count,
 *   	       gettimeofday_ns() - @entry(gettimeofday_ns()))
 *   }
 *
 *   probe process("/usr/bin/pmu-workload").mark("loop") { printf("%d\n", $arg1) }
 *
 *   probe process.begin { t0++ }
 *   probe process("/usr/bin/pmu-workload").end { printf("end %d\n", pid()) }
 */
#define STP_MODULE_NAME "sample_uprobe_module"	/* == KBUILD_MODNAME */
#define STP_SCRIPT_HASH "0000000000000000000000000000000000000000"
#define STP_PMU_TARGETS "perf"
#define STP_VERSION "0.0-sample"
#define STP_NEVENTS 0
#define STP_HAVE_UPROBES 1

#include "stp_limits.h"

union stp_locals {
	struct {
		char t0[STP_MAXSTRINGLEN];
	} p0;
	char unused;
};

#include "stp_runtime.h"

/* --- globals --- */
static s64 g_calls;
static s64 g_t0;

/* --- probe bodies --- */
static void stp_probe_0(struct stp_context *c)
{
	s64 n;

	g_calls++;
	c->loc = "usample.stp:5:2";
	n = stp_tvar_get(c, 0);
	if (unlikely(c->error))
		return;
	stp_user_string_n(c, c->l.p0.t0, stp_tvar_get(c, 1), STP_MAXSTRINGLEN, NULL);
	if (unlikely(c->error))
		return;
	stp_printf(c, "n=%lld s=%s\n", n, c->l.p0.t0);
}

/* @entry(gettimeofday_ns()) of probe 1, at entry */
static u64 stp_entry_1(struct stp_context *c, s64 *vals)
{
	c->loc = "usample.stp:10:28";
	vals[0] = stp_gettimeofday_ns();
	return 0;	/* the mask of the values that raised an error: none */
}

static void stp_probe_1(struct stp_context *c)
{
	s64 r, n, count;

	c->loc = "usample.stp:9:2";
	r = stp_tvar_get(c, 0);
	n = stp_tvar_get(c, 1);
	count = stp_tvar_get(c, 2);
	if (unlikely(c->error))
		return;
	stp_printf(c, "return %lld n=%lld count=%lld ns=%lld\n", r, n, count,
		   stp_gettimeofday_ns() - (s64)c->entry[3 + 2 + 0]);
}

static void stp_probe_2(struct stp_context *c)
{
	s64 a;

	c->loc = "usample.stp:12:52";
	a = stp_tvar_get(c, 0);
	if (unlikely(c->error))
		return;
	stp_printf(c, "%lld\n", a);
}

static void stp_probe_3(struct stp_context *c)
{
	g_t0++;
}

static void stp_probe_4(struct stp_context *c)
{
	stp_printf(c, "end %lld\n", stp_pid());
}

/* --- target variables --- */
static const struct stp_tvar stp_tvars_0[] = {
	/* $n: in a register (DWARF 5: rdi / x5) */
	{ .base = STP_TVAR_LOC, .lkind = STP_LOC_REG, .reg = 5, .size = 4,
	  .is_signed = 1, .user = 1 },
	/* $name: a stack slot at rbp - 24 */
	{ .base = STP_TVAR_LOC, .lkind = STP_LOC_MEM, .reg = 6, .loff = -24LL,
	  .size = 8, .user = 1 },
};

static const struct stp_tvar stp_tvars_1[] = {
	{ .base = STP_TVAR_RETURN, .size = 8, .is_signed = 1, .user = 1 },
	/* @entry($n): saved at entry */
	{ .base = STP_TVAR_LOC, .lkind = STP_LOC_REG, .reg = 5, .size = 4,
	  .is_signed = 1, .at_entry = 1, .user = 1 },
	/* $cfg->count: a static pointer, then a member, read at return */
	{ .base = STP_TVAR_LOC, .lkind = STP_LOC_STATIC, .loff = 0x4010LL,
	  .size = 4, .nderef = 1, .deref_last = 1, .off = { 8 }, .user = 1 },
};

static const struct stp_tvar stp_tvars_2[] = {
	/* $arg1: "-4@%edi" */
	{ .base = STP_TVAR_LOC, .lkind = STP_LOC_REG, .reg = 5, .size = 4,
	  .is_signed = 1, .user = 1 },
};

/* --- probe table --- */
/* one lock for all the globals (every body takes it) */
static DEFINE_RAW_SPINLOCK(g_lock);
static raw_spinlock_t *const stp_locks[] = { &g_lock };

static struct stp_probe stp_probes[] = {
	{ .kind = STP_PROBE_UPROBE, .path = "/usr/bin/pmu-workload",
	  .uoffset = 0x1234ULL, .uvaddr = 0x1234ULL,
	  .tvars = stp_tvars_0, .ntvars = 2,
	  .name = "process(\"/usr/bin/pmu-workload\").function(\"do_getpid\")",
	  .loc = "usample.stp:4:1", .body = stp_probe_0, .locks = stp_locks, .nlocks = 1 },
	{ .kind = STP_PROBE_URETPROBE, .path = "/usr/bin/pmu-workload",
	  .uoffset = 0x1230ULL, .uvaddr = 0x1230ULL,
	  .tvars = stp_tvars_1, .ntvars = 3, .ret_shown = 1,
	  .entry_fn = stp_entry_1, .nentry = 1,
	  .name = "process(\"/usr/bin/pmu-workload\").function(\"do_getpid\").return",
	  .loc = "usample.stp:8:1", .body = stp_probe_1, .locks = stp_locks, .nlocks = 1 },
	{ .kind = STP_PROBE_UPROBE, .path = "/usr/bin/pmu-workload",
	  .uoffset = 0x1300ULL, .uvaddr = 0x1300ULL, .semaphore = 0x3020ULL,
	  .tvars = stp_tvars_2, .ntvars = 1,
	  .name = "process(\"/usr/bin/pmu-workload\").mark(\"loop\")",
	  .loc = "usample.stp:12:1", .body = stp_probe_2, .locks = stp_locks, .nlocks = 1 },
	{ .kind = STP_PROBE_PROCESS_BEGIN, .name = "process.begin",
	  .loc = "usample.stp:14:1", .body = stp_probe_3, .locks = stp_locks, .nlocks = 1 },
	{ .kind = STP_PROBE_PROCESS_END, .path = "/usr/bin/pmu-workload",
	  .name = "process(\"/usr/bin/pmu-workload\").end",
	  .loc = "usample.stp:15:1", .body = stp_probe_4, .locks = stp_locks, .nlocks = 1 },
};

#include "stp_module.h"
