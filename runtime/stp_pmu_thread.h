/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_pmu_thread.h - @pmu_thread("EVENT"): counters that count only while
 * the target process (_stp_target: stap-pmu -c CMD or -x PID) and the tasks
 * it creates run, read by the thread itself in its probe handlers. Without
 * a target (stp_pmu_thread_sys), every task's count comes from the CPU-wide
 * counters and the sched_switch tracepoint instead: stp_pmu_tasks.h.
 *
 * Encoding: the event is one of the fat table's events (STP_PMU_THREAD_EVENTS
 * marks it; stp_pmu.h creates no per-CPU counter for it). A task counter is
 * not tied to a CPU, so every online CPU's row must give it the same
 * encoding (one row on non-hybrid machines); otherwise init fails.
 *
 * Creation (module init, sleeps): one kernel counter per @pmu_thread event
 * for each thread of the target (cpu -1, task = the thread), pinned like
 * every stap-pmu counter, with
 *  - attr.inherit: at fork and clone, the perf core gives the new task a
 *    child event (perf_event_init_task() -> inherit_event() in
 *    kernel/events/core.c; kernel counters inherit like user ones). A
 *    child's ->parent is always the counter created here: inherit_event()
 *    links grandchildren to the original parent too. Threads and child
 *    processes of the target both inherit (a -c command run through sh
 *    counts in the shell's children).
 *  - attr.inherit_stat: the scheduler may swap the perf contexts of two
 *    tasks whose contexts are clones of each other (a thread and the thread
 *    it created) instead of switching events out and in; with inherit_stat
 *    perf_event_sync_stat() swaps the counts too, so each task's value
 *    stays its own.
 * With -c the loader forks the command and holds it on a pipe until the
 * module is running: the target has one thread and has not run yet. With
 * -x the target's existing threads are scanned, and scanned again, until a
 * pass finds none without counters (threads created later by a thread with
 * counters inherit them). A thread created during the scan by a thread that
 * had no counter yet, and made visible after the last pass, can be missed:
 * reading there is a script error that says so.
 *
 * Reading (any probe handler: interrupts off, may be NMI, never sleeps or
 * locks): under RCU, walk current's perf event context (the one holding
 * events of the counter's PMU: stp_task_perf_ctx() in stp_compat.h) for the
 * event that is one of ours or whose ->parent is one of ours. When it is
 * active on this CPU, pmu->read() folds the hardware value into
 * event->count (not while it has no counter, hw.state PERF_HES_UPTODATE or
 * hw.idx -1: at a context switch the event is ACTIVE on this CPU before
 * pmu->add() gives it one; stp_pmu_read_event()); the count is the
 * thread's value. This is what the perf core's perf_event_read_local()
 * does for a per-task event of current (not exported in 6.1, and it
 * refuses inherited events because it cannot sum the children; reading
 * current's own event needs no sum). Why the walk
 * is safe: events join and leave a context's event_list with
 * list_add_rcu()/list_del_rcu() under the context lock, events and contexts
 * are freed after an RCU grace period (call_rcu), and current's context
 * pointer only changes while current is being scheduled (the context swap
 * above happens in the switch from or to that task on its CPU) or exits,
 * neither of which can happen during a handler running on current with
 * interrupts off. An NMI that interrupts the context switch itself may see
 * the other task's count.
 * A read by a task that is not the target or one of its descendants created
 * after the module loaded is a script error naming its pid.
 *
 * Lifetime: the perf core holds a reference on each counter's task. Our
 * counters are released by stp_pmu_release() after the probes are
 * unregistered and the end probes ran; perf_event_release_kernel() also
 * removes and frees every child event of the tasks still alive. A target
 * that exits first leaves its counter in state EXIT, still ours to release
 * (its children are freed by the perf core as their tasks exit), so no
 * pointer here dangles.
 */
#ifndef STP_PMU_THREAD_H
#define STP_PMU_THREAD_H

#if STP_NEVENTS > 0 && defined(STP_PMU_THREAD_EVENTS)

static void stp_pmu_thread_status(struct seq_file *m)
{
	if (stp_pmu_thread_sys)
		stp_pmu_tasks_status(m);
}

/* passes over the target's threads before init gives up on new ones */
#define STP_PMU_THREAD_PASSES 16

/* the counters created at init for one thread of the target */
struct stp_pmu_thread_root {
	struct task_struct *task;		/* referenced during init only */
	pid_t tid;
	struct perf_event *ev[STP_NEVENTS];	/* NULL: not a @pmu_thread event */
};

/* [0, nroots) are read by handlers; [0, cap) are released */
static struct stp_pmu_thread_root *stp_pmu_thread_roots;
static unsigned int stp_pmu_thread_nroots, stp_pmu_thread_cap;
static pid_t stp_pmu_thread_tgid;		/* the target's process id */
/* per event: the PMU of its counters (selects current's context) */
static struct pmu *stp_pmu_thread_pmu[STP_NEVENTS];

static void stp_pmu_thread_release(void)
{
	struct stp_pmu_thread_root *r;
	unsigned int k;
	int i, n = 0;

	stp_pmu_tasks_release();
	stp_pmu_thread_nroots = 0;
	if (!stp_pmu_thread_roots)
		return;
	for (k = 0; k < stp_pmu_thread_cap; k++) {
		r = &stp_pmu_thread_roots[k];
		for (i = 0; i < STP_NEVENTS; i++) {
			if (!r->ev[i])
				continue;
			/* also frees the child events of live tasks */
			perf_event_release_kernel(r->ev[i]);
			r->ev[i] = NULL;
			n++;
		}
		if (r->task)
			put_task_struct(r->task);
		r->task = NULL;
	}
	kvfree(stp_pmu_thread_roots);
	stp_pmu_thread_roots = NULL;
	stp_pmu_thread_cap = 0;
	memset(stp_pmu_thread_pmu, 0, sizeof(stp_pmu_thread_pmu));
	stp_dbg("released %d per-thread counters\n", n);
}

/*
 * The encoding of every @pmu_thread event: the same in the row of every
 * online CPU (a task counter follows its task from CPU to CPU).
 */
static int stp_pmu_thread_attrs(struct perf_event_attr *attrs)
{
	char name0[STP_PMU_NAME_LEN], name[STP_PMU_NAME_LEN];
	struct perf_event_attr a;
	int cpu, cpu0 = -1, row, row0 = -1, i, rc = 0;

	cpus_read_lock();
	for_each_online_cpu(cpu) {
		row = per_cpu_ptr(stp_pmu_cpus, cpu)->row;
		if (row < 0)
			continue;
		for (i = 0; i < STP_NEVENTS; i++) {
			if (!stp_pmu_is_thread(i))
				continue;
			if (row0 < 0) {
				stp_pmu_fill_attr(row, i, &attrs[i]);
				continue;
			}
			stp_pmu_fill_attr(row, i, &a);
			if (!memcmp(&a, &attrs[i], sizeof(a)))
				continue;
			stp_err("@pmu_thread event %s: cpu%d (row %s) and cpu%d (row %s) encode it differently; a per-thread counter needs one encoding on every CPU\n",
				stp_pmu_event_name(i), cpu0,
				stp_pmu_row_name(row0, name0), cpu,
				stp_pmu_row_name(row, name));
			rc = -EINVAL;
			goto out;
		}
		if (row0 < 0) {
			row0 = row;
			cpu0 = cpu;
		}
	}
	if (row0 < 0) {
		stp_err("@pmu_thread: no online CPU has a PMU row\n");
		rc = -ENODEV;
	}
out:
	cpus_read_unlock();
	return rc;
}

/* the counters of one thread; -ESRCH: it has exited (nothing kept) */
static int stp_pmu_thread_create(struct stp_pmu_thread_root *r,
				 struct perf_event_attr *attrs)
{
	struct perf_event_attr *a;
	struct perf_event *e;
	int i, j, rc;

	for (i = 0; i < STP_NEVENTS; i++) {
		if (!stp_pmu_is_thread(i))
			continue;
		a = &attrs[i];
		e = stp_fail_errptr("per-thread counter", -ENOMEM,
			perf_event_create_kernel_counter(a, -1, r->task, NULL, NULL));
		if (IS_ERR(e)) {
			rc = PTR_ERR(e);
			goto err;
		}
		r->ev[i] = e;
		if (!stp_pmu_thread_pmu[i])
			stp_pmu_thread_pmu[i] = e->pmu;
		stp_dbg("tid %d: per-thread counter %s type=%u config=0x%llx\n",
			r->tid, stp_pmu_event_name(i), a->type, a->config);
	}
	return 0;

err:
	for (j = 0; j < i; j++) {
		if (r->ev[j])
			perf_event_release_kernel(r->ev[j]);
		r->ev[j] = NULL;
	}
	if (rc == -ESRCH)
		return rc;
	if (a->config1)
		stp_err("cannot create per-thread counter %s for tid %d of target %d (type=%u config=0x%llx config1=0x%llx): %s (%d)\n",
			stp_pmu_event_name(i), r->tid, _stp_target, a->type,
			a->config, a->config1, stp_pmu_errno_text(rc), rc);
	else
		stp_err("cannot create per-thread counter %s for tid %d of target %d (type=%u config=0x%llx): %s (%d)\n",
			stp_pmu_event_name(i), r->tid, _stp_target, a->type,
			a->config, stp_pmu_errno_text(rc), rc);
	return rc;
}

static bool stp_pmu_thread_known(struct task_struct *t, unsigned int n)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		if (stp_pmu_thread_roots[k].task == t)
			return true;
	return false;
}

/*
 * Room for n more threads: a larger array with the entries so far (no
 * handler reads it yet).
 */
static int stp_pmu_thread_grow(unsigned int used, unsigned int n)
{
	struct stp_pmu_thread_root *roots;

	if (used + n <= stp_pmu_thread_cap)
		return 0;
	roots = stp_fail_null("@pmu_thread thread table",
			      kvcalloc(used + n, sizeof(*roots), GFP_KERNEL));
	if (!roots) {
		stp_err("@pmu_thread: cannot allocate the table of %u threads\n",
			used + n);
		return -ENOMEM;
	}
	if (stp_pmu_thread_roots)
		memcpy(roots, stp_pmu_thread_roots, used * sizeof(*roots));
	kvfree(stp_pmu_thread_roots);
	stp_pmu_thread_roots = roots;
	stp_pmu_thread_cap = used + n;
	return 0;
}

/*
 * Counters for every thread of the target; called by stp_pmu_init() once
 * every CPU has its row, without the CPU hotplug lock (creating the first
 * task counter enables a static key, which takes it). Sleeps. On failure
 * the caller releases everything (stp_pmu_release()).
 */
static int stp_pmu_thread_init(void)
{
	struct perf_event_attr *attrs = NULL;
	struct task_struct *target, *t;
	unsigned int used = 0, found, k, pass, live = 0;
	struct pid *pid;
	int rc;

	if (stp_pmu_thread_sys)
		return stp_pmu_tasks_init();
	pid = find_get_pid(_stp_target);
	target = pid ? get_pid_task(pid, PIDTYPE_PID) : NULL;
	put_pid(pid);
	if (!target) {
		stp_err("@pmu_thread: target process %d not found\n", _stp_target);
		return -ESRCH;
	}
	stp_pmu_thread_tgid = task_tgid_nr(target);
	attrs = stp_fail_null("@pmu_thread attributes",
			      kcalloc(STP_NEVENTS, sizeof(*attrs), GFP_KERNEL));
	if (!attrs) {
		stp_err("@pmu_thread: cannot allocate the counter attributes\n");
		rc = -ENOMEM;
		goto out;
	}
	rc = stp_pmu_thread_attrs(attrs);
	if (rc)
		goto out;
	for (k = 0; k < STP_NEVENTS; k++) {
		if (!stp_pmu_is_thread(k))
			continue;
		attrs[k].pinned = 1;
		attrs[k].inherit = 1;
		attrs[k].inherit_stat = 1;
	}

	for (pass = 0; pass < STP_PMU_THREAD_PASSES; pass++) {
		rc = stp_pmu_thread_grow(used, get_nr_threads(target) + 1);
		if (rc)
			goto out;
		found = 0;
		rcu_read_lock();
		for_each_thread(target, t) {
			if (used + found >= stp_pmu_thread_cap)
				break;		/* the next pass has room */
			if (stp_pmu_thread_known(t, used + found))
				continue;
			get_task_struct(t);
			stp_pmu_thread_roots[used + found].task = t;
			stp_pmu_thread_roots[used + found].tid = task_pid_nr(t);
			found++;
		}
		rcu_read_unlock();
		if (!found)
			break;
		for (k = used; k < used + found; k++) {
			rc = stp_pmu_thread_create(&stp_pmu_thread_roots[k], attrs);
			if (rc == -ESRCH)
				continue;	/* exited meanwhile */
			if (rc)
				goto out;
			live++;
		}
		used += found;
	}
	if (pass == STP_PMU_THREAD_PASSES)
		stp_info("@pmu_thread: target %d kept creating threads during %d passes; threads created meanwhile may have no counter\n",
			 _stp_target, STP_PMU_THREAD_PASSES);
	if (!live) {
		stp_err("@pmu_thread: target process %d has exited\n", _stp_target);
		rc = -ESRCH;
		goto out;
	}
	/* the counters hold their tasks; the scan's references go */
	for (k = 0; k < used; k++) {
		put_task_struct(stp_pmu_thread_roots[k].task);
		stp_pmu_thread_roots[k].task = NULL;
	}
	stp_pmu_thread_nroots = used;
	stp_info("@pmu_thread: counters for %u thread%s of target %d\n", live,
		 live == 1 ? "" : "s", _stp_target);
	rc = 0;
out:
	kfree(attrs);
	put_task_struct(target);
	return rc;
}

/* current's event of @pmu_thread event idx, or NULL; under RCU */
static struct perf_event *stp_pmu_thread_find(int idx)
{
	struct perf_event_context *ctx;
	struct perf_event *e, *p;
	unsigned int k;

	ctx = stp_task_perf_ctx(current, stp_pmu_thread_pmu[idx]);
	if (!ctx)
		return NULL;
	list_for_each_entry_rcu(e, &ctx->event_list, event_entry) {
		p = READ_ONCE(e->parent);
		if (!p)
			p = e;
		for (k = 0; k < stp_pmu_thread_nroots; k++)
			if (stp_pmu_thread_roots[k].ev[idx] == p)
				return e;
	}
	return NULL;
}

static void stp_pmu_thread_fail(struct stp_context *c, int idx, bool found,
				int state)
{
	if (c->error)
		return;
	if (found)
		scnprintf(c->errmsg, sizeof(c->errmsg),
			  "@pmu_thread counter %s of thread %d is not counting (state %d: the PMU could not schedule it)",
			  stp_pmu_event_name(idx), task_pid_nr(current), state);
	else if (task_tgid_nr(current) == stp_pmu_thread_tgid)
		scnprintf(c->errmsg, sizeof(c->errmsg),
			  "@pmu_thread: thread %d of the target has no counter (created while the module loaded, or exiting)",
			  task_pid_nr(current));
	else
		scnprintf(c->errmsg, sizeof(c->errmsg),
			  "@pmu_thread read outside the target's threads and children (pid %d)",
			  task_tgid_nr(current));
	stp_error(c, c->errmsg);
}

/*
 * @pmu_thread: the value of event idx for the current thread. Lock-free,
 * NMI-safe, never sleeps.
 */
static s64 stp_pmu_thread_read(struct stp_context *c, int idx)
{
	int state = PERF_EVENT_STATE_OFF;
	struct perf_event *e = NULL;
	unsigned long flags;
	u64 v = 0;

	if (unlikely(idx < 0 || idx >= STP_NEVENTS || !stp_pmu_is_thread(idx) ||
		     (!stp_pmu_thread_sys && !stp_pmu_thread_pmu[idx]))) {
		stp_error(c, "invalid @pmu_thread event index");
		return 0;
	}
	if (stp_pmu_thread_sys)
		return stp_pmu_tasks_read(c, idx);
	local_irq_save(flags);
	rcu_read_lock();
	e = stp_pmu_thread_find(idx);
	if (e) {
		state = READ_ONCE(e->state);
		/*
		 * on this CPU (current's own, scheduled in) pmu->read, unless
		 * hw.state says the PMU is between del and add at this context
		 * switch: stp_pmu_read_event() (stp_pmu.h)
		 */
		if (state >= PERF_EVENT_STATE_INACTIVE)
			v = stp_pmu_read_event(e, false);
	}
	rcu_read_unlock();
	local_irq_restore(flags);
	if (likely(e && state >= PERF_EVENT_STATE_INACTIVE))
		return v;
	stp_pmu_thread_fail(c, idx, e != NULL, state);
	return 0;
}

#else /* no @pmu_thread events */

static inline int stp_pmu_thread_init(void)
{
	return 0;
}

static inline void stp_pmu_thread_release(void)
{
}

static inline void stp_pmu_thread_status(struct seq_file *m)
{
}

#endif

#endif /* STP_PMU_THREAD_H */
