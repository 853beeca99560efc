/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_handlers.h - running a probe, and the handlers of the kernel's probe
 * kinds: kprobe, kretprobe (with its entry handler), hrtimer and the perf
 * sampling overflow. ftrace entry probes (stp_ftrace.h), tracepoints
 * (stp_tracepoint.h), user probes (stp_uprobes.h) and procfs files
 * (stp_procfs.h) have handlers of their own on the same path; the probe
 * table is checked and registered in stp_probes.h.
 *
 * Every handler goes through stp_run_probe(): interrupts off, this CPU's
 * context (busy: a re-entry, the hit is skipped and counted), the session
 * state check, the bounded global trylock, the body.
 *
 * NMI: perf overflow handlers of hardware events (and a probe hit in NMI
 * context) go through the same path with the CPU's NMI context
 * (stp_this_context()), so they run even over a body on their CPU: each
 * global's lock is tried once (a failure skips the hit and counts it), a
 * body touching per-CPU globals is skipped over a running body (its
 * updates are not atomic against it: stp_nmi_may_run), and output goes to
 * the CPU's nested ring without locks (stp_output.h).
 */
#ifndef STP_HANDLERS_H
#define STP_HANDLERS_H

/*
 * Each shared global has its own lock (generated next to the global); a
 * probe body holds the locks of the globals it and its callees touch
 * (p->locks, in the globals' declaration order, so two bodies never wait
 * for each other in opposite orders). Bodies on disjoint globals run in
 * parallel; per-CPU globals and scalar statistics take none.
 *
 * The holder runs one bounded probe body with interrupts off, and a CPU never
 * waits for itself (a busy context skips the hit before locking), so waiting
 * is safe. The budget (STP_MAXTRYLOCK rounds of a short spin and
 * STP_TRYLOCKDELAY us, about 1 s by default) is long because under
 * virtualization the holder's vCPU can be descheduled by the host.
 */
#ifndef STP_NO_PROBE_LOCKS
static noinline bool stp_lock_wait(raw_spinlock_t *l)
{
	int i, j;

	/* an NMI never waits: the holder may be what it interrupted */
	if (in_nmi())
		return false;

	for (i = 0; i < STP_MAXTRYLOCK; i++) {
		for (j = 0; j < 64; j++) {
			if (raw_spin_trylock(l))
				return true;
			cpu_relax();
		}
		udelay(STP_TRYLOCKDELAY);
	}
	return false;
}
#endif

/*
 * In NMI: false (the hit is skipped) when p touches per-CPU globals and a
 * body runs below on this CPU, which may be updating the same copy
 * (stp_stat_add, or __this_cpu_add outside x86, are not single
 * instructions). Outside NMI bodies never nest.
 */
static __always_inline bool stp_nmi_may_run(const struct stp_probe *p,
					    int level)
{
	return !level || !p->percpu ||
	       !atomic_read(&__this_cpu_read(stp_contexts[0])->busy);
}

#ifdef STP_NO_PROBE_LOCKS
/* no probe takes a lock (the translator's STP_NO_PROBE_LOCKS) */
static __always_inline bool stp_lock_probe(const struct stp_probe *p)
{
	return true;
}

static __always_inline void stp_unlock_probe(const struct stp_probe *p)
{
}
#else
/*
 * the probe's locks; the uncontended case inline in every caller (the probe
 * path, @entry's entry function, ...), the wait out of line. False (none
 * held) when one of them could not be had.
 */
static __always_inline bool stp_lock_probe(const struct stp_probe *p)
{
	unsigned int i;

	for (i = 0; i < p->nlocks; i++) {
		if (likely(raw_spin_trylock(p->locks[i])) ||
		    stp_lock_wait(p->locks[i]))
			continue;
		while (i--)
			raw_spin_unlock(p->locks[i]);
		return false;
	}
	return true;
}

static __always_inline void stp_unlock_probe(const struct stp_probe *p)
{
	unsigned int i = p->nlocks;

	while (i--)
		raw_spin_unlock(p->locks[i]);
}
#endif /* STP_NO_PROBE_LOCKS */

#ifndef STP_NO_OVERLOAD
/*
 * SystemTap's overload check, per CPU, in get_cycles() ticks (cheap: rdtsc,
 * CNTVCT_EL0), with the limits given in ns and converted at load. Sampled:
 * one hit in STP_OVERLOAD_SAMPLE (c->ovl_left counts down; the first hit of
 * a CPU is one) is timed from after the globals' locks to the end of its
 * output, and STP_OVERLOAD_SAMPLE times its time, at most the time since
 * the previous timed hit ended, adds up in c->ovl_sum; the
 * first timed hit that ends STP_OVERLOAD_INTERVAL or more after the
 * interval began checks the sum against STP_OVERLOAD_THRESHOLD, then starts
 * a new interval. The other hits pay one decrement, no clock read. Only
 * probes of the running session count (begin, end and error probes run
 * once). Without a known cycle rate the ticks are local_clock() ns.
 */
static u64 stp_ovl_hz;			/* get_cycles() ticks per second, 0: ns */
static u64 stp_ovl_interval = STP_OVERLOAD_INTERVAL;	/* in ticks */
static u64 stp_ovl_threshold = STP_OVERLOAD_THRESHOLD;

static u64 stp_ns_to_ticks(u64 ns, u64 hz)
{
	return div_u64(ns, NSEC_PER_SEC) * hz +
	       div64_u64((ns % NSEC_PER_SEC) * hz, NSEC_PER_SEC);
}

static u64 stp_ticks_to_ns(u64 t)
{
	if (!stp_ovl_hz)
		return t;
	return div64_u64(t, stp_ovl_hz) * NSEC_PER_SEC +
	       div64_u64((t % stp_ovl_hz) * NSEC_PER_SEC, stp_ovl_hz);
}

/* at load, before any probe runs */
static void stp_overload_init(void)
{
	u64 hz = stp_cycles_per_sec();

	if (!hz || hz > 16ULL * NSEC_PER_SEC)	/* keeps the conversions in 64 bits */
		return;
	stp_ovl_hz = hz;
	stp_ovl_interval = stp_ns_to_ticks(STP_OVERLOAD_INTERVAL, hz);
	stp_ovl_threshold = stp_ns_to_ticks(STP_OVERLOAD_THRESHOLD, hz);
}

static inline u64 stp_overload_now(void)
{
	return likely(stp_ovl_hz) ? (u64)get_cycles() : local_clock();
}

static noinline void stp_overload_check(struct stp_context *c,
					const struct stp_probe *p,
			       u64 start)
{
	u64 now = stp_overload_now();
	u64 interval = now - c->ovl_base;
	int n;

	/*
	 * the hit stands for the STP_OVERLOAD_SAMPLE hits since the last timed
	 * one, which took no longer than the time since it ended (a body slowed
	 * once, e.g. a vCPU descheduled, is not counted 16 times); the first
	 * timed hit of a CPU stands for itself
	 */
	if (unlikely(!c->ovl_last))
		c->ovl_last = start;
	c->ovl_left = STP_OVERLOAD_SAMPLE - 1;
	c->ovl_sum += min((now - start) * STP_OVERLOAD_SAMPLE, now - c->ovl_last);
	c->ovl_last = now;
	if (interval < stp_ovl_interval)
		return;
	if (unlikely(c->ovl_sum > stp_ovl_threshold)) {
		atomic_inc(&stp_session.errors);
		atomic_set(&stp_session.exit_code, 1);
		n = scnprintf(c->printbuf, sizeof(c->printbuf),
			      "ERROR: probe overhead exceeded threshold: %llu ns in probes during %llu ns on cpu%d (limit %llu ns per %llu ns; -D STP_OVERLOAD_THRESHOLD=NS, STP_OVERLOAD_INTERVAL=NS, STP_NO_OVERLOAD) near %s at %s\n",
			      stp_ticks_to_ns(c->ovl_sum), stp_ticks_to_ns(interval),
			      smp_processor_id(), (u64)STP_OVERLOAD_THRESHOLD,
			      (u64)STP_OVERLOAD_INTERVAL, p->name, p->loc);
		stp_output_record(p, STP_REC_ERROR, c->printbuf, n);
		stp_request_exit();
	}
	c->ovl_base = now;
	c->ovl_sum = 0;
}
#else
static inline void stp_overload_init(void) { }
#endif

/*
 * The rest of a run, out of line, for the hits that do more than run the
 * body: one timed for the overload check one hit in STP_OVERLOAD_SAMPLE
 * (body non-NULL: it runs here between two clock reads), or one whose
 * body (already run) left an error to report or output to write, or that
 * is timed on every hit (STP_OVERLOAD_SAMPLE 1: timed, start read before
 * the body). Ends the run as stp_run_probe_body() does. Its callers call
 * it last, so the hit path keeps no register across a call.
 */
static noinline void stp_run_probe_rest(struct stp_context *c,
					const struct stp_probe *p,
					void (*body)(struct stp_context *c),
					u64 start, bool timed,
					unsigned long flags)
{
#ifndef STP_NO_OVERLOAD
	if (body) {
		start = stp_overload_now();
		body(c);
	}
#endif
	if (unlikely(c->error))
		stp_report_error(c);
	if (c->outlen)
		stp_output_flush(c);
#ifndef STP_NO_OVERLOAD
	if (timed)
		stp_overload_check(c, p, start);
#endif
	stp_unlock_probe(p);
	stp_irq_trace_on(flags);
	atomic_dec(&c->busy);
	raw_local_irq_restore(flags);
}

/*
 * runs p's body (p->body, or the function itself named by the caller,
 * which the compiler can then inline) on this CPU if the session is in
 * state run_state; entry: the values a kretprobe saved at function
 * entry, or a tracepoint's arguments (NULL otherwise); pvalue: a procfs
 * probe's $value buffer of pvalue_size bytes (stp_procfs.h; NULL
 * otherwise). The body's prints become one output record (or more when
 * they exceed STP_PRINT_BUFSIZE), written before the locks are released.
 * Inlined into each caller (the per-hit path: no call, and the constant
 * arguments of a caller fold).
 */
static __always_inline void
stp_run_probe_body(const struct stp_probe *p,
		   void (*body)(struct stp_context *c), struct pt_regs *regs,
		   int run_state, const u64 *entry, char *pvalue,
		   u32 pvalue_size)
{
	struct stp_context *c;
	unsigned long flags;
	u64 start = 0;
	bool timed = false;

	raw_local_irq_save(flags);	/* nothing traceable until busy */
	if (stp_state() != run_state)
		goto out;
	/* one preempt_count test; the NMI context's checks off the path */
	if (likely(!stp_ctx_level())) {
		c = __this_cpu_read(stp_contexts[0]);
		if (unlikely(atomic_inc_return(&c->busy) != 1))
			goto skip;
	} else {
		c = __this_cpu_read(stp_contexts[1]);
		if (unlikely(atomic_inc_return(&c->busy) != 1 ||
			     !stp_nmi_may_run(p, 1)))
			goto skip;
	}
	stp_irq_trace_off(flags);
	if (unlikely(!stp_lock_probe(p))) {
		stp_count_skipped();
		goto out_trace;
	}
	c->probe = p;
	c->loc = NULL;		/* the probe's until a statement sets its own */
#ifndef STP_NO_ENTRY_REGS	/* else no body reads them (stp_tvar.h) */
	c->regs = regs;
	c->entry = entry;
#endif
#ifdef STP_HAVE_PROCFS	/* only scripts with procfs probes pay these stores */
	c->pvalue = pvalue;
	c->pvalue_size = pvalue_size;
#endif
	c->error = 0;
	c->nesting = 0;
	c->actions = 0;
	c->outlen = 0;
#ifndef STP_NO_OVERLOAD
	if (run_state == STP_STATE_RUNNING && unlikely(--c->ovl_left < 0)) {
		if (STP_OVERLOAD_SAMPLE > 1) {
			stp_run_probe_rest(c, p, body, 0, true, flags);
			return;
		}
		timed = true;
		start = stp_overload_now();
	}
#endif
	body(c);
	if (unlikely(c->error || c->outlen || timed)) {
		stp_run_probe_rest(c, p, NULL, start, timed, flags);
		return;
	}
	/* c->probe, regs, entry stay: only a body reads them, after its own stores */
	stp_unlock_probe(p);
out_trace:
	stp_irq_trace_on(flags);
out_busy:
	atomic_dec(&c->busy);
out:
	raw_local_irq_restore(flags);
	return;
skip:
	stp_count_skipped();
	goto out_busy;
}

static __always_inline void stp_run_probe_with(const struct stp_probe *p,
					       struct pt_regs *regs,
					       int run_state, const u64 *entry,
					       char *pvalue, u32 pvalue_size)
{
	stp_run_probe_body(p, p->body, regs, run_state, entry, pvalue,
			   pvalue_size);
}

/*
 * stp_run_probe_with() is inlined where a caller gains from it (the ftrace
 * handler: constant arguments, no call); the other handlers share this copy
 */
static noinline void stp_run_probe_data(const struct stp_probe *p,
					struct pt_regs *regs, int run_state,
					const u64 *entry)
{
	stp_run_probe_with(p, regs, run_state, entry, NULL, 0);
}

static void stp_run_probe(const struct stp_probe *p, struct pt_regs *regs,
			  int run_state)
{
	stp_run_probe_data(p, regs, run_state, NULL);
}

static int stp_kprobe_handler(struct kprobe *kp, struct pt_regs *regs)
{
	stp_run_probe(container_of(kp, struct stp_probe, u.kp), regs,
		      STP_STATE_RUNNING);
	return 0;
}

static int stp_kretprobe_handler(struct kretprobe_instance *ri,
				 struct pt_regs *regs)
{
	struct kretprobe *rp = stp_get_kretprobe(ri);

	/* NULL once unregistered: the instance outlived its kretprobe */
	if (likely(rp)) {
		const struct stp_probe *p = container_of(rp, struct stp_probe, u.rp);

		stp_run_probe_data(p, regs, STP_STATE_RUNNING,
				   p->ntvars || p->entry_fn ?
				   (const u64 *)ri->data : NULL);
	}
	return 0;
}

/*
 * @entry(expr) of a .return probe (kretprobe or uretprobe): entry_fn
 * computes the values into data[ntvars + 2 ...] like a probe body (busy
 * context, the globals' locks it takes), with data as the context's
 * entry (target variables saved there), and after them the mask of those
 * that raised an error: reported only when the return body reads one
 * (stp_entry_value). False when it could not run (the call is then not
 * measured).
 */
static __maybe_unused bool stp_run_entry_fn(const struct stp_probe *p,
					    struct pt_regs *regs, u64 *data)
{
	s64 *vals = (s64 *)&data[p->ntvars + 2];
	struct stp_context *c;
	unsigned long flags;
	bool ran = false;
	int level;

	memset(vals, 0, (p->nentry + 1) * sizeof(*vals));
	raw_local_irq_save(flags);	/* as stp_run_probe_with() */
	level = stp_ctx_level();
	c = __this_cpu_read(stp_contexts[level]);
	if (unlikely(atomic_inc_return(&c->busy) != 1 ||
		     !stp_nmi_may_run(p, level)))
		goto out_busy;
	stp_irq_trace_off(flags);
	if (unlikely(!stp_lock_probe(p)))
		goto out_trace;
	c->probe = p;
	c->loc = p->loc;
	c->regs = regs;
	c->entry = data;
	c->error = 0;
	c->nesting = 0;
	c->actions = 0;
	c->outlen = 0;
	vals[p->nentry] = p->entry_fn(c, vals);
	ran = true;
	stp_output_flush(c);
	stp_unlock_probe(p);
out_trace:
	stp_irq_trace_on(flags);
out_busy:
	atomic_dec(&c->busy);
	raw_local_irq_restore(flags);
	if (!ran)
		stp_count_skipped();
	return ran;
}

/* @entry(expr) value i of the running .return probe's call (its entry_fn's) */
static __maybe_unused s64 stp_entry_value(struct stp_context *c, unsigned int i)
{
	const struct stp_probe *p = c->probe;

	if (!p || (p->kind != STP_PROBE_URETPROBE &&
		   p->kind != STP_PROBE_KRETPROBE) || !c->entry ||
	    i >= p->nentry) {
		stp_error(c, "entry value not saved");
		return 0;
	}
	if (unlikely(c->entry[p->ntvars + 2 + p->nentry] & (1ULL << min(i, 63U)))) {
		stp_error(c, "@entry(...) raised an error when the function was entered");
		return 0;
	}
	return (s64)c->entry[p->ntvars + 2 + i];
}

#ifdef STP_HAVE_KRET_ENTRY
/*
 * kretprobes with target variables or @entry(expr): argument and location
 * values saved at entry, then the @entry values; non-zero (the kernel then
 * drops this call's instance: no return probe) when entry_fn could not run.
 * Compiled when the translator saw such a kretprobe (STP_HAVE_KRET_ENTRY).
 */
static int stp_kretprobe_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct kretprobe *rp = stp_get_kretprobe(ri);
	const struct stp_probe *p;

	if (unlikely(!rp))
		return 0;
	p = container_of(rp, struct stp_probe, u.rp);
	stp_tvar_save_entry(p, regs, (u64 *)ri->data);
	if (p->entry_fn && (stp_state() != STP_STATE_RUNNING ||
			    !stp_run_entry_fn(p, regs, (u64 *)ri->data)))
		return 1;
	return 0;
}
#endif

/* the next period of a timer: period_ns, +- up to randomize_ns */
static u64 stp_timer_period(const struct stp_probe *p)
{
	u64 span;

	if (!p->randomize_ns)
		return p->period_ns;
	span = 2 * p->randomize_ns + 1;
	/* a uniform value in [0, span) without division */
	return p->period_ns - p->randomize_ns +
	       mul_u64_u32_shr(span, get_random_u32(), 32);
}

static enum hrtimer_restart stp_timer_handler(struct hrtimer *t)
{
	struct stp_probe *p = container_of(t, struct stp_probe, u.timer);

	stp_run_probe(p, NULL, STP_STATE_RUNNING);
	if (stp_state() >= STP_STATE_EXIT_REQUESTED)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(stp_timer_period(p)));
	return HRTIMER_RESTART;
}

#if STP_NEVENTS > 0
/*
 * Overflow handler of a sampling counter: NMI context for hardware events
 * on x86 (and arm64 with pseudo-NMIs), interrupt context otherwise. The
 * probe body sees the interrupted registers.
 */
static void stp_pmu_overflow(struct perf_event *e, struct perf_sample_data *data,
			     struct pt_regs *regs)
{
	stp_run_probe(e->overflow_handler_context, regs, STP_STATE_RUNNING);
}
#endif

#endif /* STP_HANDLERS_H */
