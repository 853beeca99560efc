/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_pmu.h - per-CPU counters, CPU hotplug and the lock-free read used by
 * @pmu. The table format is in stp_pmu_table.h, the choice of a row per CPU
 * in stp_pmu_match.h, direct counter reads in stp_pmu_read.h; per-task
 * (@pmu_thread) counters in stp_pmu_tasks.h and stp_pmu_thread.h; the
 * set-up at init and the teardown in stp_pmu_setup.h; the sampling
 * overflow handler with the other probe handlers (stp_handlers.h).
 *
 * A module carries a "fat table": rows of (CPU match list, one encoding per
 * script event), in the compact layout pmu/fat_emit.cpp writes (shared
 * encodings, rows without pointers, packed match entries, front-coded row
 * names; docs/runtime.md). At init every online CPU identifies itself
 * (CPUID, read on that CPU through on_each_cpu), picks the first row that
 * matches it and gets one pinned counter per event with that row's
 * encoding.
 *
 * Sampling events (perf.event("E").sample(N) / .hz(F) probes) are events of
 * the same table whose per-CPU counter is created with sample_period or
 * freq/sample_freq and an overflow handler that runs the probe body with
 * the interrupted registers. For hardware events the handler runs in NMI
 * context: the paths it reaches are NMI-safe (stp_run_probe tries the
 * globals' locks once in NMI, output try-locks once and counts what it drops,
 * stp_pmu_read is lock-free).
 *
 * Reads (stp_pmu_read) are lock-free and NMI-safe, with interrupts off:
 * when the event is active and started (hw.state 0) on this CPU in a
 * hardware counter the runtime can read (x86: rdpmc of hw.event_base_rdpmc;
 * arm64 PMUv3: PMCCNTR_EL0 or PMEVCNTR<n>_EL0), the value is event->count
 * plus the masked difference between the counter and hw.prev_count, i.e.
 * what pmu->read() would fold in, without writing anything. A stopped
 * event whose count is up to date (PERF_HES_UPTODATE: its counter may
 * already be another event's, x86 reassigns counters between stop and
 * start), and a core PMU event without a counter (hw.idx -1), read
 * event->count alone. Otherwise (software events, chained or precise
 * events, an event not on this CPU) pmu->read() folds the hardware value
 * into event->count, then the count is read. perf_event_read_local() is
 * not exported in 6.1.
 *
 * CPU hotplug: a dynamic cpuhp state (AP_ONLINE_DYN) creates the counters
 * of a CPU that comes online (its callback runs on that CPU: it reads its
 * own CPUID/MIDR and picks its row) and releases them when it goes offline.
 * The hotplug itself is never refused. @pmu on a CPU without counters (its
 * callback has not run yet or has released them, no row, a refused
 * counter) reads 0 and counts a per-CPU "unavailable" read, which the
 * status file reports (-D STP_PMU_STRICT: a script error, as a counter in
 * error state always is).
 */
#ifndef STP_PMU_H
#define STP_PMU_H

#if STP_NEVENTS > 0

/*
 * @pmu_thread events (STP_PMU_THREAD_EVENTS: a flag per event) get per-task
 * counters from stp_pmu_thread.h instead of per-CPU ones.
 */
#ifdef STP_PMU_THREAD_EVENTS
static const u8 stp_pmu_thread_event[STP_NEVENTS] = STP_PMU_THREAD_EVENTS;
#define stp_pmu_is_thread(i) (stp_pmu_thread_event[i])
#else
#define stp_pmu_is_thread(i) 0
#endif
/*
 * Without a target (_stp_target <= 0), @pmu_thread is system-wide: its
 * events get per-CPU counters like @pmu's, and stp_pmu_tasks.h keeps each
 * task's count across context switches (tstart below).
 */
static bool stp_pmu_thread_sys;

struct stp_pmu_cpu {
	int row;			/* index in stp_pmu_tab.rows, -1: none */
	struct perf_event *ev[STP_NEVENTS];
	bool fast[STP_NEVENTS];		/* direct counter reads allowed */
	/* ev[i] when stp_pmu_read() may read it inline, else NULL */
	struct perf_event *ev_inline[STP_NEVENTS];
	/* system-wide @pmu_thread: the counter at the last context switch */
	u64 tstart[STP_NEVENTS];
};

static struct stp_pmu_cpu __percpu *stp_pmu_cpus;
static int stp_pmu_hp_state = -1;		/* dynamic cpuhp state, < 0: none */
/* per event: the perf probe sampling it (NULL: a counting @pmu event) */
static struct stp_probe *stp_pmu_sampler[STP_NEVENTS];

/* ---- creating and releasing counters ---- */

/*
 * Releases one CPU's counters. Each pointer is cleared first: a handler
 * that interrupts this on that CPU (hotplug teardown runs on the CPU going
 * offline) sees NULL, never a counter being freed.
 */
static int stp_pmu_release_cpu(int cpu)
{
	struct stp_pmu_cpu *pc = per_cpu_ptr(stp_pmu_cpus, cpu);
	struct perf_event *e;
	int i, n = 0;

	for (i = 0; i < STP_NEVENTS; i++) {
		e = pc->ev[i];
		if (!e)
			continue;
		WRITE_ONCE(pc->ev_inline[i], NULL);
		WRITE_ONCE(pc->ev[i], NULL);
		pc->fast[i] = false;
		perf_event_release_kernel(e);
		n++;
	}
	pc->row = -1;
	return n;
}

static int stp_pmu_create_cpu(int cpu, int row)
{
	struct stp_pmu_cpu *pc = per_cpu_ptr(stp_pmu_cpus, cpu);
	char name[STP_PMU_NAME_LEN];
	struct perf_event_attr attr;
	struct stp_probe *sp;
	struct perf_event *e;
	int i, rc;

	pc->row = row;
	for (i = 0; i < STP_NEVENTS; i++) {
		if (stp_pmu_is_thread(i) && !stp_pmu_thread_sys)
			continue;	/* a per-task counter */
		stp_pmu_fill_attr(row, i, &attr);
		stp_pmu_core_type_attr(cpu, row, &attr);	/* hybrid E-cores */
		/* pinned: a counter that cannot be scheduled is an error */
		attr.pinned = 1;
		sp = stp_pmu_sampler[i];
		if (sp && sp->sample_freq) {
			attr.freq = 1;
			attr.sample_freq = sp->sample_freq;
		} else if (sp) {
			attr.sample_period = sp->sample_period;
		}

		e = stp_fail_errptr("counter", -ENOMEM,
			perf_event_create_kernel_counter(&attr, cpu, NULL,
				sp ? stp_pmu_overflow : NULL, sp));
		if (IS_ERR(e)) {
			rc = PTR_ERR(e);
			goto err;
		}
		/* @pmu never reads a sampling event */
		pc->fast[i] = !sp && STP_PMU_DIRECT_READ && stp_pmu_fast_ok(e);
		pc->tstart[i] = 0;	/* a new counter starts at 0 */
		WRITE_ONCE(pc->ev[i], e); /* released by stp_pmu_release_cpu() */
		/* a pinned event that cannot get a counter is put in error state */
		if (READ_ONCE(e->state) == PERF_EVENT_STATE_ERROR) {
			rc = -EBUSY;
			goto err;
		}
		if (pc->fast[i] && stp_pmu_inline_ok(e))
			WRITE_ONCE(pc->ev_inline[i], e);
		stp_dbg("cpu%d: counter %s row %s type=%u config=0x%llx%s%s\n", cpu,
			stp_pmu_event_name(i), stp_pmu_row_name(row, name),
			attr.type, attr.config,
			pc->fast[i] ? " (direct reads)" : "",
			sp ? " (sampling)" : "");
	}
	return 0;

err:
	if (attr.config1)
		stp_err("cpu%d: cannot create %s %s for row %s (type=%u config=0x%llx config1=0x%llx): %s (%d)\n",
			cpu, sp ? "sampling counter" : "counter",
			stp_pmu_event_name(i), stp_pmu_row_name(row, name),
			attr.type, attr.config, attr.config1,
			stp_pmu_errno_text(rc), rc);
	else
		stp_err("cpu%d: cannot create %s %s for row %s (type=%u config=0x%llx): %s (%d)\n",
			cpu, sp ? "sampling counter" : "counter",
			stp_pmu_event_name(i), stp_pmu_row_name(row, name),
			attr.type, attr.config, stp_pmu_errno_text(rc), rc);
	return rc;
}

/* ---- CPU hotplug ---- */

static void stp_cpu_ident_one(void *info)
{
	stp_cpu_ident_fill(info);
	((struct stp_cpu_ident *)info)->valid = true;
}

/* runs on the CPU coming online (cpuhp thread); never refuses it */
static int stp_pmu_cpu_online(unsigned int cpu)
{
	struct stp_cpu_ident id = {};
	char cpudesc[96], name[STP_PMU_NAME_LEN];
	int row;

	if (smp_call_function_single(cpu, stp_cpu_ident_one, &id, 1) ||
	    !id.valid) {
		stp_err("cpu%u: cannot read its CPU identification; no counters there\n",
			cpu);
		return 0;
	}
	row = stp_pmu_pick_row(&id);
	if (row < 0) {
		stp_pmu_no_row(cpu, &id);
		return 0;
	}
	stp_cpu_ident_describe(&id, cpudesc, sizeof(cpudesc));
	stp_info("cpu%u: online: %s selects PMU row %s\n", cpu, cpudesc,
		 stp_pmu_row_name(row, name));
	if (stp_pmu_create_cpu(cpu, row))
		stp_pmu_release_cpu(cpu);
	return 0;
}

/* runs on the CPU going offline */
static int stp_pmu_cpu_offline(unsigned int cpu)
{
	int n = stp_pmu_release_cpu(cpu);

	stp_info("cpu%u: offline: released %d counters\n", cpu, n);
	return 0;
}

/*
 * Reads of @pmu on a CPU whose counters are not there: after the CPU came
 * online and before its hotplug callback created them, after the offline
 * callback released them, or on a CPU that came online with no row or a
 * refused counter. Such a read returns 0 and is counted here, per CPU
 * (only its CPU writes its count; this_cpu_inc is NMI-safe), for the
 * status file ("pmu_unavailable"). Module-static: counts outlive
 * stp_pmu_release(), which runs before the loader reads the status.
 */
static DEFINE_PER_CPU(u64, stp_pmu_unavail);

/*
 * The value of e on this CPU: interrupts off, e not in error state.
 * hw.state decides whether the hardware may be read (docs/runtime.md,
 * "Counter reads"): PERF_HES_UPTODATE means the PMU stopped the event and
 * folded its counter into count, and the counter hw.idx names may already
 * belong to another event (x86 reassigns counters between stop and start):
 * count is the value, neither rdpmc nor pmu->read may touch the hardware.
 * The direct read needs hw.state 0 (started: hw.idx, prev_count and the
 * counter agree); any other state goes through pmu->read, except a core
 * PMU event without a counter (hw.idx -1: its x86 and arm64 event_init set
 * that, and arm64's del; a per-task event at its first pmu->add() is ACTIVE
 * with hw.state 0 and no counter): count.
 */
static __always_inline u64 stp_pmu_read_event(struct perf_event *e, bool fast)
{
	unsigned int hs;
	u64 v;

	if (e->oncpu != smp_processor_id())
		return local64_read(&e->count);
	hs = READ_ONCE(e->hw.state);
	if (likely(!hs)) {
		if (fast && READ_ONCE(e->state) == PERF_EVENT_STATE_ACTIVE &&
		    stp_pmu_read_fast(e, &v))
			return v;
	} else if (hs & PERF_HES_UPTODATE) {
		return local64_read(&e->count);
	}
	if (READ_ONCE(e->hw.idx) < 0 && e->pmu->task_ctx_nr == perf_hw_context)
		return local64_read(&e->count);
	e->pmu->read(e);
	return local64_read(&e->count);
}

/*
 * @pmu when the inline read cannot serve it: no counter on this CPU (0,
 * counted in stp_pmu_unavail; with -D STP_PMU_STRICT a script error), a
 * counter in error state (the PMU could not schedule it: an error), or
 * stp_pmu_read_event()'s full checks. Out of line: each @pmu inlines only
 * stp_pmu_read()'s fast path.
 */
static noinline s64 stp_pmu_read_slow(struct stp_context *c, int idx)
{
	struct stp_pmu_cpu *pc = this_cpu_ptr(stp_pmu_cpus);
	struct perf_event *e = READ_ONCE(pc->ev[idx]);

	if (unlikely(!e)) {
#ifdef STP_PMU_STRICT
		stp_error(c, "no usable @pmu counter on this CPU");
#else
		this_cpu_inc(stp_pmu_unavail);
#endif
		return 0;
	}
	if (unlikely(READ_ONCE(e->state) == PERF_EVENT_STATE_ERROR)) {
		stp_error(c, "no usable @pmu counter on this CPU");
		return 0;
	}
	return stp_pmu_read_event(e, pc->fast[idx]);
}

/*
 * @pmu: this CPU's value of event idx. Lock-free and NMI-safe, never
 * sleeps. Only probe bodies call it (stp_run_probe_with, stp_run_entry_fn),
 * and they run with interrupts off: nothing but an NMI runs on this CPU
 * during the read, and this_cpu_ptr is stable.
 *
 * Inline, the read of an event stp_pmu_read_fast() can read directly
 * (ev_inline: arm64 PMUv3 events of 32 bits): hw.state 0 and hw.idx naming
 * a counter. That is stp_pmu_read_event()'s direct read without its
 * oncpu and ACTIVE checks, which it implies for an event bound to this
 * CPU: the perf core sets oncpu and ACTIVE before pmu->add() and clears
 * them after pmu->del(); armpmu_add() gives the event its idx, disables
 * that counter, sets hw.state STOPPED|UPTODATE and starts it (hw.state 0),
 * armpmu_del() stops it (STOPPED|UPTODATE) and sets idx -1; an event never
 * added (INACTIVE, ERROR) has idx -1. (One window, the full checks' too: an
 * event's first armpmu_add() has hw.state 0 between setting idx and setting
 * STOPPED|UPTODATE, so a probe on the driver's disable callback would read
 * the counter before it is programmed; docs/reliability.md.) Everything
 * else goes to stp_pmu_read_slow().
 */
static __always_inline s64 stp_pmu_read(struct stp_context *c, int idx)
{
	struct perf_event *e;
	u64 v;

	if (unlikely(idx < 0 || idx >= STP_NEVENTS)) {
		stp_error(c, "invalid @pmu event index");
		return 0;
	}
	lockdep_assert_irqs_disabled();
	e = READ_ONCE(this_cpu_ptr(stp_pmu_cpus)->ev_inline[idx]);
	if (likely(e && !READ_ONCE(e->hw.state) &&
		   stp_pmu_read_fast_as(e, &v, true)))
		return v;
	return stp_pmu_read_slow(c, idx);
}

#endif /* STP_NEVENTS > 0 */

#endif /* STP_PMU_H */
