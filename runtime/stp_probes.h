/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_probes.h - probe handlers, kprobe/kretprobe registration, hrtimers,
 * begin/end probes.
 *
 * Every handler goes through stp_run_probe(): interrupts off, this CPU's
 * context (busy: a re-entry, the hit is skipped and counted), the session
 * state check, the bounded global trylock, the body.
 *
 * NMI: perf overflow handlers of hardware events (and a kprobe hit in NMI
 * context) go through the same path: the busy context catches re-entry on
 * this CPU, the global lock is tried once (a failure skips the hit and
 * counts it), output try-locks once and counts what it drops.
 */
#ifndef STP_PROBES_H
#define STP_PROBES_H

/* arrays handed to unregister_k(ret)probes(), allocated at registration */
static struct kprobe **stp_kprobe_ptrs;
static struct kretprobe **stp_kretprobe_ptrs;

/*
 * The holder runs one bounded probe body with interrupts off, and a CPU never
 * waits for itself (a busy context skips the hit before locking), so waiting
 * is safe. The budget (STP_MAXTRYLOCK rounds of a short spin and
 * STP_TRYLOCKDELAY us, about 1 s by default) is long because under
 * virtualization the holder's vCPU can be descheduled by the host.
 */
static bool stp_lock_global(void)
{
	int i, j;

	/* an NMI never waits: the holder may be what it interrupted */
	if (in_nmi())
		return raw_spin_trylock(&stp_session.lock);

	for (i = 0; i < STP_MAXTRYLOCK; i++) {
		for (j = 0; j < 64; j++) {
			if (raw_spin_trylock(&stp_session.lock))
				return true;
			cpu_relax();
		}
		udelay(STP_TRYLOCKDELAY);
	}
	return false;
}

/*
 * runs p->body on this CPU if the session is in state run_state; entry:
 * the values a kretprobe saved at function entry (NULL otherwise)
 */
static void stp_run_probe_data(const struct stp_probe *p, struct pt_regs *regs,
			       int run_state, const u64 *entry)
{
	struct stp_context *c;
	unsigned long flags;

	local_irq_save(flags);
	if (stp_state() != run_state)
		goto out;
	c = __this_cpu_read(stp_contexts);
	if (unlikely(atomic_inc_return(&c->busy) != 1)) {
		stp_count_skipped();
		goto out_busy;
	}
	if (p->lock && unlikely(!stp_lock_global())) {
		stp_count_skipped();
		goto out_busy;
	}
	c->probe = p;
	c->loc = p->loc;
	c->regs = regs;
	c->entry = entry;
	c->error = 0;
	c->nesting = 0;
	c->actions = 0;
	p->body(c);
	if (unlikely(c->error))
		stp_report_error(c);
	c->probe = NULL;
	c->regs = NULL;
	c->entry = NULL;
	if (p->lock)
		raw_spin_unlock(&stp_session.lock);
out_busy:
	atomic_dec(&c->busy);
out:
	local_irq_restore(flags);
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
				   p->ntvars ? (const u64 *)ri->data : NULL);
	}
	return 0;
}

/* kretprobes with target variables: argument values saved at entry */
static int stp_kretprobe_entry(struct kretprobe_instance *ri,
			       struct pt_regs *regs)
{
	struct kretprobe *rp = stp_get_kretprobe(ri);

	if (likely(rp))
		stp_tvar_save_entry(container_of(rp, struct stp_probe, u.rp),
				    regs, (u64 *)ri->data);
	return 0;
}

static enum hrtimer_restart stp_timer_handler(struct hrtimer *t)
{
	struct stp_probe *p = container_of(t, struct stp_probe, u.timer);

	stp_run_probe(p, NULL, STP_STATE_RUNNING);
	if (stp_state() >= STP_STATE_EXIT_REQUESTED)
		return HRTIMER_NORESTART;
	hrtimer_forward_now(t, ns_to_ktime(p->period_ns));
	return HRTIMER_RESTART;
}

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
	u64 n = 0;
	unsigned int i;

	for (i = 0; i < stp_session.nprobes; i++) {
		p = &stp_session.probes[i];
		if (p->kind == STP_PROBE_KPROBE)
			n += READ_ONCE(p->u.kp.nmissed);
		else if (p->kind == STP_PROBE_KRETPROBE)
			n += READ_ONCE(p->u.rp.nmissed) +
			     READ_ONCE(p->u.rp.kp.nmissed);
	}
	return n;
}

/* unregisters every registered kprobe and kretprobe; sleeps */
static void stp_probes_unregister(void)
{
	struct stp_probe *p;
	unsigned int i, nk = 0, nr = 0;

	if (!stp_kprobe_ptrs || !stp_kretprobe_ptrs)
		return;
	for (i = 0; i < stp_session.nprobes; i++) {
		p = &stp_session.probes[i];
		if (!p->registered)
			continue;
		if (p->kind == STP_PROBE_KPROBE)
			stp_kprobe_ptrs[nk++] = &p->u.kp;
		else if (p->kind == STP_PROBE_KRETPROBE)
			stp_kretprobe_ptrs[nr++] = &p->u.rp;
	}
	/* both wait until no handler of theirs runs any more */
	unregister_kprobes(stp_kprobe_ptrs, nk);
	unregister_kretprobes(stp_kretprobe_ptrs, nr);
	for (i = 0; i < stp_session.nprobes; i++) {
		p = &stp_session.probes[i];
		if (p->kind == STP_PROBE_KPROBE || p->kind == STP_PROBE_KRETPROBE)
			p->registered = false;
	}
}

static void stp_probes_free(void)
{
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
	switch (p->kind) {
	case STP_PROBE_BEGIN:
	case STP_PROBE_END:
	case STP_PROBE_ERROR:
		return 0;
	case STP_PROBE_KPROBE:
	case STP_PROBE_KRETPROBE:
		if (p->symbol)
			return 0;
		stp_err("probe %s (%s) has no symbol\n", p->name, p->loc);
		return -EINVAL;
	case STP_PROBE_PERF:
		/* stp_pmu_init() checked the event and created the counters */
		if (p->event >= 0 && p->event < STP_NEVENTS &&
		    (p->sample_period || p->sample_freq))
			return 0;
		stp_err("probe %s (%s) has no sampling event\n", p->name, p->loc);
		return -EINVAL;
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

static int stp_probe_register_one(struct stp_probe *p)
{
	int rc;

	if (p->kind == STP_PROBE_KPROBE) {
		p->u.kp.symbol_name = p->symbol;
		p->u.kp.offset = p->offset;
		p->u.kp.pre_handler = stp_kprobe_handler;
		rc = register_kprobe(&p->u.kp);
	} else {
		p->u.rp.kp.symbol_name = p->symbol;
		p->u.rp.handler = stp_kretprobe_handler;
		if (p->ntvars) {
			p->u.rp.entry_handler = stp_kretprobe_entry;
			p->u.rp.data_size = (p->ntvars + 1) * sizeof(u64);
		}
		rc = register_kretprobe(&p->u.rp);
	}
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
 * Checks the probe table and registers its kprobes and kretprobes. On
 * failure nothing stays registered. Handlers return at once until the
 * state is RUNNING. Sleeps.
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
	stp_kprobe_ptrs = kcalloc(max(nk, 1U), sizeof(*stp_kprobe_ptrs),
				  GFP_KERNEL);
	stp_kretprobe_ptrs = kcalloc(max(nr, 1U), sizeof(*stp_kretprobe_ptrs),
				     GFP_KERNEL);
	if (!stp_kprobe_ptrs || !stp_kretprobe_ptrs) {
		stp_err("cannot allocate the probe tables\n");
		rc = -ENOMEM;
		goto err_free;
	}
	for (i = 0; i < n; i++) {
		if (probes[i].kind != STP_PROBE_KPROBE &&
		    probes[i].kind != STP_PROBE_KRETPROBE)
			continue;
		rc = stp_probe_register_one(&probes[i]);
		if (rc)
			goto err_unregister;
	}
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

	for (i = 0; i < stp_session.nprobes; i++) {
		p = &stp_session.probes[i];
		if (p->kind != STP_PROBE_TIMER)
			continue;
		stp_hrtimer_setup(&p->u.timer, stp_timer_handler,
				  CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		hrtimer_start(&p->u.timer, ns_to_ktime(p->period_ns),
			      HRTIMER_MODE_REL_HARD);
		p->registered = true;
	}
}

/* waits for running timer handlers */
static void stp_timers_stop(void)
{
	struct stp_probe *p;
	unsigned int i;

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
