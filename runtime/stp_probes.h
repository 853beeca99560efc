/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_probes.h - probe handlers, kprobe/kretprobe registration, hrtimers,
 * begin/end probes.
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
#ifndef STP_PROBES_H
#define STP_PROBES_H

#include <linux/math64.h>
#include <linux/random.h>

/* arrays handed to unregister_k(ret)probes(), allocated at registration */
static struct kprobe **stp_kprobe_ptrs;
static struct kretprobe **stp_kretprobe_ptrs;

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
 * entry (target variables saved there); false when it could not run (the
 * call is then not measured)
 */
static __maybe_unused bool stp_run_entry_fn(const struct stp_probe *p,
					    struct pt_regs *regs, u64 *data)
{
	s64 *vals = (s64 *)&data[p->ntvars + 2];
	struct stp_context *c;
	unsigned long flags;
	bool ran = false;
	int level;

	memset(vals, 0, p->nentry * sizeof(*vals));
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
	p->entry_fn(c, vals);
	ran = !c->error;
	if (unlikely(c->error))
		stp_report_error(c);
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

#include "stp_ftrace.h"

/* texts for the errors register_k(ret)probe() returns */
static const char *stp_probe_errno_text(int err)
{
	switch (-err) {
	case ENOENT:
		return "no such function in the kernel or a loaded module";
	case EINVAL:
		return "cannot probe there (blacklisted, notrace or not code?)";
	case EILSEQ:
		return "offset is not at an instruction boundary";
	case EBUSY:
		return "probe point busy (ftrace IPMODIFY user such as livepatch?)";
	case EEXIST:
		return "probe point already registered";
	default:
		return stp_errno_text(err);
	}
}

static u64 stp_probes_nmissed(void)
{
	struct stp_probe *p;
	unsigned int i;
	u64 n = 0;

	for (i = 0; i < stp_session.nprobes; i++) {
		p = &stp_session.probes[i];
		if (stp_kind_compiled(STP_PROBE_KPROBE) &&
		    p->kind == STP_PROBE_KPROBE && !p->via_ftrace)
			n += READ_ONCE(p->u.kp.nmissed);
		else if (stp_kind_compiled(STP_PROBE_KRETPROBE) &&
			 p->kind == STP_PROBE_KRETPROBE)
			n += READ_ONCE(p->u.rp.nmissed) +
			     READ_ONCE(p->u.rp.kp.nmissed);
	}
	return n;
}

/*
 * unregisters every registered tracepoint, the ftrace_ops, kprobes and
 * kretprobes (each batch with one wait for running handlers); sleeps
 */
static void stp_probes_unregister(void)
{
	struct stp_probe *p;
	unsigned int i, nk = 0, nr = 0;

	stp_tracepoints_unregister(stp_session.probes, stp_session.nprobes);
	if (!stp_kind_compiled(STP_PROBE_KPROBE) &&
	    !stp_kind_compiled(STP_PROBE_KRETPROBE))
		return;
	stp_ftrace_unregister();
	if (!stp_kprobe_ptrs || !stp_kretprobe_ptrs)
		return;
	for (i = 0; i < stp_session.nprobes; i++) {
		p = &stp_session.probes[i];
		if (!p->registered || p->via_ftrace)
			continue;
		if (p->kind == STP_PROBE_KPROBE)
			stp_kprobe_ptrs[nk++] = &p->u.kp;
		else if (p->kind == STP_PROBE_KRETPROBE)
			stp_kretprobe_ptrs[nr++] = &p->u.rp;
	}
	/* both wait until no handler of theirs runs any more */
	if (nk)
		unregister_kprobes(stp_kprobe_ptrs, nk);
	if (nr)
		unregister_kretprobes(stp_kretprobe_ptrs, nr);
	for (i = 0; i < stp_session.nprobes; i++) {
		p = &stp_session.probes[i];
		if (p->kind == STP_PROBE_KPROBE || p->kind == STP_PROBE_KRETPROBE)
			p->registered = false;
	}
}

static void stp_probes_free(void)
{
	stp_ftrace_free();
	kfree(stp_kprobe_ptrs);
	stp_kprobe_ptrs = NULL;
	kfree(stp_kretprobe_ptrs);
	stp_kretprobe_ptrs = NULL;
}

static int stp_probe_check(const struct stp_probe *p)
{
	if (!p->body) {
		stp_err("probe %s (%s) has no body\n", p->name, p->loc);
		return -EINVAL;
	}
	if ((unsigned int)p->kind < 32 && !stp_kind_compiled(p->kind)) {
		stp_err("probe %s (%s): the module was built without probes of kind %d\n",
			p->name, p->loc, p->kind);
		return -EINVAL;
	}
	switch (p->kind) {
	case STP_PROBE_BEGIN:
	case STP_PROBE_END:
	case STP_PROBE_ERROR:
	case STP_PROBE_NEVER:
	case STP_PROBE_PROCFS_READ:
	case STP_PROBE_PROCFS_WRITE:
		return 0;
	case STP_PROBE_KPROBE:
	case STP_PROBE_KRETPROBE:
		if (!p->symbol) {
			stp_err("probe %s (%s) has no symbol\n", p->name, p->loc);
			return -EINVAL;
		}
#ifndef STP_HAVE_KRET_ENTRY
		if (p->kind == STP_PROBE_KRETPROBE && (p->ntvars || p->entry_fn)) {
			stp_err("probe %s (%s) saves values at entry, but the module has no entry handler (STP_HAVE_KRET_ENTRY)\n",
				p->name, p->loc);
			return -EINVAL;
		}
#endif
		return 0;
	case STP_PROBE_PERF:
		/* stp_pmu_init() checked the event and created the counters */
		if (p->event >= 0 && p->event < STP_NEVENTS &&
		    (p->sample_period || p->sample_freq))
			return 0;
		stp_err("probe %s (%s) has no sampling event\n", p->name, p->loc);
		return -EINVAL;
	case STP_PROBE_TRACEPOINT:
		if (p->tp_name && p->tp_func)
			return 0;
		stp_err("probe %s (%s) has no tracepoint\n", p->name, p->loc);
		return -EINVAL;
	case STP_PROBE_UPROBE:
	case STP_PROBE_URETPROBE:
		if (p->path)
			return 0;
		stp_err("probe %s (%s) has no file\n", p->name, p->loc);
		return -EINVAL;
	case STP_PROBE_PROCESS_BEGIN:
	case STP_PROBE_PROCESS_END:
		return 0;	/* registered by stp_uprobes.h */
	case STP_PROBE_TIMER:
		if (p->period_ns >= STP_MINTIMER_NS)
			return 0;
		stp_err("probe %s (%s): period %llu ns is below the minimum %u ns\n",
			p->name, p->loc, p->period_ns,
			(unsigned int)STP_MINTIMER_NS);
		return -EINVAL;
	}
	stp_err("probe %s (%s) has unknown kind %d\n", p->name, p->loc,
		p->kind);
	return -EINVAL;
}

/*
 * The address of p's kernel symbol from the translator's distance to
 * register_kprobe, if kallsyms names it exactly there ("sym+0x0/", or the
 * alias kallsyms shows first there, sym_shown): 0 otherwise (no distance,
 * another build of the kernel), and the kprobe is then placed by name. Saves register_kprobe()'s name lookup (a linear
 * kallsyms scan before 6.2) and gives the ftrace_ops its address.
 */
static unsigned long stp_probe_resolve(const struct stp_probe *p)
{
	static char buf[KSYM_SYMBOL_LEN];	/* module init runs one at a time */
	const char *name = p->sym_shown ? p->sym_shown : p->symbol;
	unsigned long a;
	size_t n;

	if (!p->has_sym_delta)
		return 0;
	a = (unsigned long)&register_kprobe + (unsigned long)p->sym_delta;
	sprint_symbol(buf, a);
	n = strlen(name);
	if (strncmp(buf, name, n) || strncmp(buf + n, "+0x0/", 5))
		return 0;
	return a;
}

/* (re)initializes p's kprobe or kretprobe for registration */
static void stp_probe_fill(struct stp_probe *p)
{
	struct kprobe *kp;

	if (p->kind == STP_PROBE_KPROBE ||
	    !stp_kind_compiled(STP_PROBE_KRETPROBE)) {
		memset(&p->u.kp, 0, sizeof(p->u.kp));
		kp = &p->u.kp;
		kp->pre_handler = stp_kprobe_handler;
	} else {
		memset(&p->u.rp, 0, sizeof(p->u.rp));
		kp = &p->u.rp.kp;
		p->u.rp.handler = stp_kretprobe_handler;
		p->u.rp.maxactive = p->maxactive;
#ifdef STP_HAVE_KRET_ENTRY
		if (p->ntvars || p->entry_fn) {
			/* values, fault mask, (unused), @entry values */
			p->u.rp.entry_handler = stp_kretprobe_entry;
			p->u.rp.data_size = (p->ntvars + 2 + p->nentry) *
					    sizeof(u64);
		}
#endif
	}
	if (p->addr)
		kp->addr = (kprobe_opcode_t *)p->addr;
	else
		kp->symbol_name = p->symbol;
	kp->offset = p->offset;
}

static int stp_probe_register_one(struct stp_probe *p)
{
	int rc;

	stp_probe_fill(p);
	if (p->kind == STP_PROBE_KPROBE ||
	    !stp_kind_compiled(STP_PROBE_KRETPROBE))
		rc = stp_fail_rc("kprobe", -EINVAL, register_kprobe(&p->u.kp));
	else
		rc = stp_fail_rc("kretprobe", -EINVAL,
				 register_kretprobe(&p->u.rp));
	if (rc && p->optional) {
		stp_info("optional probe %s (%s) skipped: %s (%d)\n", p->name,
			 p->loc, stp_probe_errno_text(rc), rc);
		return 0;
	}
	if (rc) {
		stp_err("cannot register probe %s (%s) at %s+%u: %s (%d)\n",
			p->name, p->loc, p->symbol, p->offset,
			stp_probe_errno_text(rc), rc);
		return rc;
	}
	p->registered = true;
	return 0;
}

/*
 * Registers the probes of one kind (KPROBE: those not in the ftrace_ops)
 * with one register_k(ret)probes() call: one wait for RCU instead of one
 * per probe. When the batch fails (it then leaves nothing registered),
 * one at a time, for the failing probe's message and optional probes.
 * ptrs: room for every probe of the kind (a kretprobe array is passed as
 * its own type).
 */
static int stp_kprobes_register_batch(struct stp_probe *probes, unsigned int n,
				      enum stp_probe_kind kind, void *ptrs)
{
	struct kprobe **kps = ptrs;
	struct kretprobe **rps = ptrs;
	unsigned int i, k = 0;
	int batch, rc;

	if (!stp_kind_compiled(kind))
		return 0;

	for (i = 0; i < n; i++) {
		struct stp_probe *p = &probes[i];

		if (p->kind != kind || p->via_ftrace)
			continue;
		stp_probe_fill(p);
		if (kind == STP_PROBE_KPROBE)
			kps[k++] = &p->u.kp;
		else
			rps[k++] = &p->u.rp;
	}
	if (!k)
		return 0;
	batch = kind == STP_PROBE_KPROBE ?
		stp_fail_rc("kprobe batch", -EINVAL, register_kprobes(kps, k)) :
		stp_fail_rc("kretprobe batch", -EINVAL,
			    register_kretprobes(rps, k));
	for (i = 0; i < n; i++) {
		struct stp_probe *p = &probes[i];

		if (p->kind != kind || p->via_ftrace)
			continue;
		if (!batch)
			p->registered = true;
		else if ((rc = stp_probe_register_one(p)))
			return rc;
	}
	return 0;
}

/*
 * Checks the probe table and registers its kprobes, kretprobes and
 * tracepoints. On failure nothing stays registered. Handlers return at
 * once until the state is RUNNING. Sleeps.
 */
static int stp_probes_register(struct stp_probe *probes, unsigned int n)
{
	unsigned int i, nk = 0, nr = 0;
	int rc;

	stp_session.probes = probes;
	stp_session.nprobes = n;
	for (i = 0; i < n; i++) {
		rc = stp_probe_check(&probes[i]);
		if (rc)
			goto err;
		nk += probes[i].kind == STP_PROBE_KPROBE;
		nr += probes[i].kind == STP_PROBE_KRETPROBE;
	}
	stp_kprobe_ptrs = stp_fail_null("kprobe table",
		kcalloc(max(nk, 1U), sizeof(*stp_kprobe_ptrs), GFP_KERNEL));
	stp_kretprobe_ptrs = stp_fail_null("kretprobe table",
		kcalloc(max(nr, 1U), sizeof(*stp_kretprobe_ptrs), GFP_KERNEL));
	if (!stp_kprobe_ptrs || !stp_kretprobe_ptrs) {
		stp_err("cannot allocate the probe tables\n");
		rc = -ENOMEM;
		goto err_free;
	}
	for (i = 0; i < n; i++)
		if (probes[i].kind == STP_PROBE_KPROBE ||
		    probes[i].kind == STP_PROBE_KRETPROBE)
			probes[i].addr = stp_probe_resolve(&probes[i]);
	rc = stp_kind_compiled(STP_PROBE_KPROBE) ?
		stp_ftrace_register(probes, n) : 0;
	if (rc)
		goto err_unregister;
	rc = stp_kprobes_register_batch(probes, n, STP_PROBE_KPROBE,
					stp_kprobe_ptrs);
	if (!rc)
		rc = stp_kprobes_register_batch(probes, n, STP_PROBE_KRETPROBE,
						stp_kretprobe_ptrs);
	if (rc)
		goto err_unregister;
	if (nk || nr)		/* -v shows it: each probe's mechanism */
		stp_info("probes: %u entry through %s, %u kprobes, %u kretprobes\n",
			 stp_ftrace_count(), stp_ftrace_mechanism(),
			 nk - stp_ftrace_count(), nr);
	rc = stp_tracepoints_register(probes, n);
	if (rc)
		goto err_unregister;
	return 0;

err_unregister:
	stp_probes_unregister();
err_free:
	stp_probes_free();
err:
	stp_session.probes = NULL;
	stp_session.nprobes = 0;
	return rc;
}

static void stp_timers_start(void)
{
	struct stp_probe *p;
	unsigned int i;

	if (!stp_kind_compiled(STP_PROBE_TIMER))
		return;
	for (i = 0; i < stp_session.nprobes; i++) {
		p = &stp_session.probes[i];
		if (p->kind != STP_PROBE_TIMER)
			continue;
		stp_hrtimer_setup(&p->u.timer, stp_timer_handler,
				  CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		hrtimer_start(&p->u.timer, ns_to_ktime(stp_timer_period(p)),
			      HRTIMER_MODE_REL_HARD);
		p->registered = true;
	}
}

/* waits for running timer handlers */
static void stp_timers_stop(void)
{
	struct stp_probe *p;
	unsigned int i;

	if (!stp_kind_compiled(STP_PROBE_TIMER))
		return;
	for (i = 0; i < stp_session.nprobes; i++) {
		p = &stp_session.probes[i];
		if (p->kind != STP_PROBE_TIMER || !p->registered)
			continue;
		hrtimer_cancel(&p->u.timer);
		p->registered = false;
	}
}

/* begin (in STARTING) or end (in STOPPING) probes, in table order */
static void stp_run_probes_of_kind(enum stp_probe_kind kind, int run_state)
{
	unsigned int i;

	for (i = 0; i < stp_session.nprobes; i++)
		if (stp_session.probes[i].kind == kind)
			stp_run_probe(&stp_session.probes[i], NULL, run_state);
}

#endif /* STP_PROBES_H */
