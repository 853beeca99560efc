/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_pmu_tasks.h - system-wide @pmu_thread("EVENT"): without a target
 * (no -c/-x), every task's own count of the event, from the CPU-wide
 * counters stp_pmu.h creates and the sched_switch tracepoint, with no perf
 * event per task. With a target, stp_pmu_thread.h's per-task counters are
 * used instead (stp_pmu_thread_sys false).
 *
 * Counting: each CPU has its counter of the event (stp_pmu_create_cpu()
 * creates one for @pmu_thread events too in this mode) and tstart, the
 * counter's value at the last context switch on that CPU. At each switch
 * (sched_switch, interrupts off, on that CPU) the handler reads the
 * counter, adds now - tstart to the outgoing task's accumulated count and
 * sets tstart = now. A read by current is then
 *     acc(current) + (counter now - tstart on this CPU)
 * which is exact across sleep, preemption and migration: the slice since
 * the task was switched in is on this CPU's counter, every earlier slice
 * is in acc. What runs between the tracepoint and the actual switch is
 * the incoming task's. A task's count starts when the module loads (or at
 * its first switch-in after that).
 *
 * Storage, preallocated at init (nothing allocates in a handler): an
 * open-addressed table of STP_PMU_THREAD_SLOTS slots (a power of 2; -D to
 * change it) keyed by task_struct pointer, probed linearly over at most
 * STP_PMU_THREAD_PROBE slots from the pointer's hash. A slot's key is NULL
 * (never used), a task, FREEING or FREE (a tombstone: claimable, but does
 * not end a lookup). Only the task's own CPU touches its slot: the switch
 * handler claims one (cmpxchg from NULL or FREE) when the outgoing task
 * has none, and sched_process_exit (run by the exiting task) marks it
 * FREEING, zeroes acc and marks it FREE, so a claimed slot's acc is 0. The
 * key is never reused while its task lives, and a task_struct address can
 * only come back for a new task after the old one's exit released its
 * slot. A task that switches out while exiting (PF_EXITING) claims
 * nothing.
 *
 * A task without a slot reads the counter since its last switch-in (acc
 * 0): a task that has not been switched out since the module loaded (its
 * exact count since the load), or one past sched_process_exit. When a
 * switch finds no free slot in the window, the loss is counted
 * (pmu_thread_full in the status file, a warning at the end) and from
 * then on a read by a task without a slot is a script error, never a
 * silently short value.
 *
 * Readers (any probe handler) run with interrupts off: the lock-free
 * lookup and this CPU's counter and tstart. Only an NMI (a perf overflow
 * probe) can interrupt the switch handler between its update of acc and
 * of tstart; its read of the outgoing task may then count the last slice
 * twice.
 *
 * Lifetime: the tracepoint probes are registered after the CPU counters
 * exist and unregistered (tracepoint_synchronize_unregister()) before the
 * table and the counters are freed; stp_pmu_release() does both in that
 * order, after the script's probes are gone.
 */
#ifndef STP_PMU_TASKS_H
#define STP_PMU_TASKS_H

#if STP_NEVENTS > 0 && defined(STP_PMU_THREAD_EVENTS)

#ifndef STP_PMU_THREAD_SLOTS
#define STP_PMU_THREAD_SLOTS 4096
#endif
#if STP_PMU_THREAD_SLOTS < 64 || (STP_PMU_THREAD_SLOTS & (STP_PMU_THREAD_SLOTS - 1))
#error "STP_PMU_THREAD_SLOTS must be a power of 2, at least 64"
#endif
#define STP_PMU_THREAD_BITS ilog2(STP_PMU_THREAD_SLOTS)
/* slots a lookup or a claim probes from a task's hash */
#define STP_PMU_THREAD_PROBE 64

#define STP_TSLOT_FREEING ((struct task_struct *)1UL)
#define STP_TSLOT_FREE ((struct task_struct *)2UL)

struct stp_pmu_tslot {
	struct task_struct *task;
	u64 acc[STP_NEVENTS];	/* counts of the task's finished slices */
};

static struct stp_pmu_tslot *stp_pmu_tslots;
static struct tracepoint *stp_pmu_tp_switch, *stp_pmu_tp_exit;
static bool stp_pmu_tp_switch_on, stp_pmu_tp_exit_on;
/* switches whose outgoing task found no slot; module-static: the status
 * file is read after stp_pmu_release() */
static atomic64_t stp_pmu_tslots_full = ATOMIC64_INIT(0);
static atomic_t stp_pmu_tslots_used = ATOMIC_INIT(0);

/* the k-th slot of t's probe sequence */
static inline struct stp_pmu_tslot *stp_pmu_tslot_at(struct task_struct *t,
						    unsigned int k)
{
	unsigned int h = hash_ptr(t, STP_PMU_THREAD_BITS);

	return &stp_pmu_tslots[(h + k) & (STP_PMU_THREAD_SLOTS - 1)];
}

/* t's slot, or NULL; interrupts off */
static struct stp_pmu_tslot *stp_pmu_tslot_find(struct task_struct *t)
{
	struct task_struct *key;
	unsigned int k;

	for (k = 0; k < STP_PMU_THREAD_PROBE; k++) {
		key = READ_ONCE(stp_pmu_tslot_at(t, k)->task);
		if (key == t)
			return stp_pmu_tslot_at(t, k);
		if (!key)
			return NULL;
	}
	return NULL;
}

/* claims a slot for t (which has none): its acc is 0; NULL when full */
static struct stp_pmu_tslot *stp_pmu_tslot_claim(struct task_struct *t)
{
	struct task_struct *key;
	struct stp_pmu_tslot *s;
	unsigned int k;

	for (k = 0; k < STP_PMU_THREAD_PROBE; k++) {
		s = stp_pmu_tslot_at(t, k);
		key = READ_ONCE(s->task);
		if ((key == NULL || key == STP_TSLOT_FREE) &&
		    cmpxchg(&s->task, key, t) == key) {
			atomic_inc(&stp_pmu_tslots_used);
			return s;
		}
	}
	atomic64_inc(&stp_pmu_tslots_full);
	return NULL;
}

/* sched_switch: prev's slice on this CPU goes to prev's slot */
static STP_SCHED_SWITCH_PROBE(stp_pmu_tasks_switch)
{
	struct stp_pmu_cpu *pc = this_cpu_ptr(stp_pmu_cpus);
	struct stp_pmu_tslot *s = stp_pmu_tslot_find(prev);
	struct perf_event *e;
	u64 now;
	int i;

	if (!s && !(prev->flags & PF_EXITING))
		s = stp_pmu_tslot_claim(prev);
	for (i = 0; i < STP_NEVENTS; i++) {
		if (!stp_pmu_is_thread(i))
			continue;
		e = READ_ONCE(pc->ev[i]);
		if (!e || READ_ONCE(e->state) == PERF_EVENT_STATE_ERROR)
			continue;
		now = stp_pmu_read_event(e, pc->fast[i]);
		if (s)
			s->acc[i] += now - pc->tstart[i];
		barrier();
		pc->tstart[i] = now;
	}
}

/* sched_process_exit, run by the exiting task t: its slot is free again */
static void stp_pmu_tasks_exit(void *data, struct task_struct *t)
{
	struct stp_pmu_tslot *s;
	unsigned long flags;

	local_irq_save(flags);
	s = stp_pmu_tslot_find(t);
	if (s) {
		WRITE_ONCE(s->task, STP_TSLOT_FREEING);
		memset(s->acc, 0, sizeof(s->acc));
		smp_wmb();	/* a claim on another CPU sees acc 0 */
		WRITE_ONCE(s->task, STP_TSLOT_FREE);
		atomic_dec(&stp_pmu_tslots_used);
	}
	local_irq_restore(flags);
}

static void stp_pmu_tasks_tp_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_switch"))
		stp_pmu_tp_switch = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		stp_pmu_tp_exit = tp;
}

/* unregisters the tracepoint probes, then frees the table; sleeps */
static void stp_pmu_tasks_release(void)
{
	long long full = atomic64_read(&stp_pmu_tslots_full);

	if (stp_pmu_tp_switch_on)
		tracepoint_probe_unregister(stp_pmu_tp_switch,
					    (void *)stp_pmu_tasks_switch, NULL);
	if (stp_pmu_tp_exit_on)
		tracepoint_probe_unregister(stp_pmu_tp_exit,
					    (void *)stp_pmu_tasks_exit, NULL);
	if (stp_pmu_tp_switch_on || stp_pmu_tp_exit_on)
		tracepoint_synchronize_unregister();
	stp_pmu_tp_switch_on = stp_pmu_tp_exit_on = false;
	if (stp_pmu_tslots && full)
		stp_info("@pmu_thread: %lld context switches found no free task slot (-D STP_PMU_THREAD_SLOTS=N, now %d)\n",
			 full, STP_PMU_THREAD_SLOTS);
	kvfree(stp_pmu_tslots);
	stp_pmu_tslots = NULL;
}

static int stp_pmu_tasks_tp_register(struct tracepoint *tp, void *fn,
				     const char *name, bool *on)
{
	int rc = tp ? stp_fail_rc("@pmu_thread tracepoint probe", -ENOMEM,
				  tracepoint_probe_register(tp, fn, NULL)) :
		     -ENOENT;

	if (rc) {
		stp_err("@pmu_thread: cannot register on tracepoint %s: %s (%d)\n",
			name, stp_errno_text(rc), rc);
		return rc;
	}
	*on = true;
	return 0;
}

/*
 * The table and the tracepoint probes; after stp_pmu_init() created the
 * CPU counters. Sleeps. On failure the caller releases everything.
 */
static int stp_pmu_tasks_init(void)
{
	int rc;

	stp_pmu_tslots = stp_fail_null("@pmu_thread task slots",
		kvcalloc(STP_PMU_THREAD_SLOTS, sizeof(*stp_pmu_tslots), GFP_KERNEL));
	if (!stp_pmu_tslots) {
		stp_err("@pmu_thread: cannot allocate %d task slots\n",
			STP_PMU_THREAD_SLOTS);
		return -ENOMEM;
	}
	for_each_kernel_tracepoint(stp_pmu_tasks_tp_find, NULL);
	rc = stp_pmu_tasks_tp_register(stp_pmu_tp_exit,
				       (void *)stp_pmu_tasks_exit,
				       "sched_process_exit", &stp_pmu_tp_exit_on);
	if (!rc)
		rc = stp_pmu_tasks_tp_register(stp_pmu_tp_switch,
					       (void *)stp_pmu_tasks_switch,
					       "sched_switch",
					       &stp_pmu_tp_switch_on);
	if (rc)
		return rc;
	stp_info("@pmu_thread: system-wide, %d task slots\n",
		 STP_PMU_THREAD_SLOTS);
	return 0;
}

/* @pmu_thread without a target: current's count of event idx */
static s64 stp_pmu_tasks_read(struct stp_context *c, int idx)
{
	struct stp_pmu_tslot *s;
	struct stp_pmu_cpu *pc;
	struct perf_event *e;
	unsigned long flags;
	int bad = 0;
	u64 v = 0;

	local_irq_save(flags);
	pc = this_cpu_ptr(stp_pmu_cpus);
	e = READ_ONCE(pc->ev[idx]);
	s = stp_pmu_tslot_find(current);
	if (s)
		v = s->acc[idx];
	else if (atomic64_read(&stp_pmu_tslots_full))
		bad = 2;
	if (unlikely(!e)) {
#ifdef STP_PMU_STRICT
		bad = 1;
#else
		this_cpu_inc(stp_pmu_unavail);
#endif
	} else if (unlikely(READ_ONCE(e->state) == PERF_EVENT_STATE_ERROR)) {
		bad = 1;
	} else {
		v += stp_pmu_read_event(e, pc->fast[idx]) - pc->tstart[idx];
	}
	local_irq_restore(flags);
	if (likely(!bad))
		return v;
	if (bad == 2)
		stp_error(c, "@pmu_thread: this task has no slot: the task table was full (-D STP_PMU_THREAD_SLOTS=N)");
	else
		stp_error(c, "no usable @pmu counter on this CPU");
	return 0;
}

static void stp_pmu_tasks_status(struct seq_file *m)
{
	seq_printf(m, "pmu_thread_slots %d\npmu_thread_full %lld\n",
		   atomic_read(&stp_pmu_tslots_used),
		   (long long)atomic64_read(&stp_pmu_tslots_full));
}

#endif /* STP_NEVENTS > 0 && STP_PMU_THREAD_EVENTS */

#endif /* STP_PMU_TASKS_H */
