// SPDX-License-Identifier: GPL-2.0
/*
 * uprobe_runtime_module.c - a hand-written "generated" module that runs the
 * user-space probe runtime (runtime/stp_uprobes.h) against the guest's
 * pmu-workload, whatever the translator's process provider does:
 * tests/guest/uprobe-runtime.sh builds it with the file offset and address
 * of the workload's syscall() (read from its symbol table) and checks the
 * totals its end probe prints. It stands for:
 *
 *   probe process(WL).function("syscall") {      # uprobe, DWARF-less locations
 *   	if ($nr != NR) next; hits++
 *   	if (return address in the text) raok++     # x86: a user stack read
 *   }
 *   probe process(WL).function("syscall").return {
 *   	if (@entry($nr) != NR) next; rets++
 *   	if ($return == @entry(pid()) && $return == pid()) retok++
 *   }
 *   probe process(WL).begin { begins++ }
 *   probe process(WL).end { ends++ }
 *   probe process(WL).function("syscall") {      # a bad user pointer
 *   	try { x = $bad->p } catch { faults++ }
 *   }
 *   probe end { printf("totals: ...") }
 *
 * WL, OFF (file offset) and VA (link-time address) come from -D.
 */
#define STP_MODULE_NAME "uprobe_runtime_module"
#define STP_SCRIPT_HASH "0000000000000000000000000000000000000000"
#define STP_PMU_TARGETS "perf"
#define STP_VERSION "0.0-sample"
#define STP_NEVENTS 0
#define STP_HAVE_UPROBES 1
#include "stp_limits.h"
union stp_locals { char unused; };
#include "stp_runtime.h"

#ifdef CONFIG_ARM64
#define NR 172
#define NRREG 0
#define RA_LOC .lkind = STP_LOC_REG, .reg = 30
#else
#define NR 39
#define NRREG 5
#define RA_LOC .lkind = STP_LOC_MEM, .reg = 7
#endif
static s64 g_hits, g_rets, g_retok, g_begins, g_ends, g_raok, g_entok;

static void stp_probe_0(struct stp_context *c)
{
	s64 nr, ra;

	c->loc = "u:1";
	nr = stp_tvar_get(c, 0);
	ra = stp_tvar_get(c, 1);
	if (unlikely(c->error))
		return;
	if (nr != NR)
		return;
	g_hits++;
	if (ra >= TEXT_START && ra < TEXT_END)
		g_raok++;
	if (g_hits == 1)
		stp_printf(c, "first entry: nr=%lld bias=%lld\n", nr, (s64)c->entry[0]);
}

static u64 stp_entry_1(struct stp_context *c, s64 *vals)
{
	vals[0] = stp_pid();
	return 0;	/* the mask of the values that raised an error: none */
}

static void stp_probe_1(struct stp_context *c)
{
	s64 r, nr;

	c->loc = "u:2";
	r = stp_tvar_get(c, 0);
	nr = stp_tvar_get(c, 1);
	if (unlikely(c->error))
		return;
	if (nr != NR)
		return;
	g_rets++;
	if (r == (s64)c->entry[2 + 2 + 0] && r == stp_pid())
		g_retok++;
}

static void stp_probe_2(struct stp_context *c) { g_begins++; stp_printf(c, "begin pid ok=%d\n", stp_pid() > 0); }
static void stp_probe_3(struct stp_context *c) { g_ends++; stp_printf(c, "end of process\n"); }
static void stp_probe_4(struct stp_context *c)
{
	stp_printf(c, "totals: hits=%lld raok=%lld rets=%lld retok=%lld begins=%lld ends=%lld faults=%lld\n",
		   g_hits, g_raok, g_rets, g_retok, g_begins, g_ends, g_entok);
}
static void stp_probe_5(struct stp_context *c)
{
	s64 bad;

	c->loc = "u:5";
	bad = stp_tvar_get(c, 0);
	if (c->error) {
		g_entok++;
		c->error = 0;	/* as try/catch does */
		return;
	}
	stp_printf(c, "unexpected %lld\n", bad);
}

static const struct stp_tvar stp_tvars_0[] = {
	{ .base = STP_TVAR_LOC, .lkind = STP_LOC_REG, .reg = NRREG, .size = 8, .is_signed = 1, .user = 1 },
	{ .base = STP_TVAR_LOC, RA_LOC, .size = 8, .user = 1 },
};
static const struct stp_tvar stp_tvars_1[] = {
	{ .base = STP_TVAR_RETURN, .size = 8, .is_signed = 1, .user = 1 },
	{ .base = STP_TVAR_LOC, .lkind = STP_LOC_REG, .reg = NRREG, .size = 8, .is_signed = 1, .at_entry = 1, .user = 1 },
};
static const struct stp_tvar stp_tvars_5[] = {
	/* a bad pointer: memory at 16 */
	{ .base = STP_TVAR_LOC, .lkind = STP_LOC_CONST, .loff = 16, .size = 8, .nderef = 1, .deref_last = 1, .off = { 0 }, .user = 1 },
};

/* one lock for all the globals (every body takes it) */
static DEFINE_RAW_SPINLOCK(g_lock);
static raw_spinlock_t *const stp_locks[] = { &g_lock };

static struct stp_probe stp_probes[] = {
	{ .kind = STP_PROBE_UPROBE, .path = WL, .uoffset = OFF, .uvaddr = VA,
	  .tvars = stp_tvars_0, .ntvars = 2, .name = "process.function(syscall)", .loc = "u:1",
	  .body = stp_probe_0, .locks = stp_locks, .nlocks = 1 },
	{ .kind = STP_PROBE_URETPROBE, .path = WL, .uoffset = OFF, .uvaddr = VA,
	  .tvars = stp_tvars_1, .ntvars = 2, .entry_fn = stp_entry_1, .nentry = 1,
	  .name = "process.function(syscall).return", .loc = "u:2", .body = stp_probe_1, .locks = stp_locks, .nlocks = 1 },
	{ .kind = STP_PROBE_PROCESS_BEGIN, .path = WL, .name = "process(wl).begin", .loc = "u:3",
	  .body = stp_probe_2, .locks = stp_locks, .nlocks = 1 },
	{ .kind = STP_PROBE_PROCESS_END, .path = WL, .name = "process(wl).end", .loc = "u:4",
	  .body = stp_probe_3, .locks = stp_locks, .nlocks = 1 },
	{ .kind = STP_PROBE_END, .name = "end", .loc = "u:6", .body = stp_probe_4, .locks = stp_locks, .nlocks = 1 },
	{ .kind = STP_PROBE_UPROBE, .path = WL, .uoffset = OFF, .uvaddr = VA,
	  .tvars = stp_tvars_5, .ntvars = 1, .name = "process.function(syscall) bad", .loc = "u:5",
	  .body = stp_probe_5, .locks = stp_locks, .nlocks = 1 },
};
#include "stp_module.h"
