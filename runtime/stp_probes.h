/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_probes.h - the probe table: each probe checked against what the
 * module was built with, resolved and registered (kprobes and kretprobes in
 * batches, entry probes through stp_ftrace.h, tracepoints through
 * stp_tracepoint.h, user probes through stp_uprobes.h and stp_uprocess.h),
 * hrtimers started and stopped, begin/end/error probes run; and the whole
 * table unregistered at stop. The handlers are in stp_handlers.h.
 */
#ifndef STP_PROBES_H
#define STP_PROBES_H

/* arrays handed to unregister_k(ret)probes(), allocated at registration */
static struct kprobe **stp_kprobe_ptrs;
static struct kretprobe **stp_kretprobe_ptrs;

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

	stp_netfilter_unregister(stp_session.probes, stp_session.nprobes);
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
	case STP_PROBE_NETFILTER:
		return 0;
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
			p->u.rp.data_size = stp_entry_words(p) * sizeof(u64);
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
	if (!rc)
		rc = stp_netfilter_register(probes, n);
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

/* --- user probes (stp_uprobes.h, stp_uprocess.h) --- */

#ifdef STP_HAVE_UPROBES

/* unregisters every registered user probe; sleeps until none runs */
static void stp_uprobes_unregister(struct stp_probe *probes, unsigned int n)
{
	bool any = false;
	unsigned int i;

	stp_uprocess_unregister(probes, n);
	for (i = n; i-- > 0;) {
		struct stp_probe *p = &probes[i];

		if (!stp_is_uprobe(p) || !p->registered)
			continue;
		stp_uprobe_unregister_nosync(p->u.up.inode, p->uoffset,
					     &p->u.up.uc, p->u.up.handle);
		any = true;
	}
	if (any)
		stp_uprobe_unregister_sync();
	for (i = 0; i < n; i++) {
		struct stp_probe *p = &probes[i];

		if (!stp_is_uprobe(p) || !p->registered)
			continue;
		if (p->u.up.entries && atomic64_read(&p->u.up.entries->full))
			stp_info("probe %s (%s): %lld calls not measured: the entry table was full (-D STP_UENTRY_SLOTS=N)\n",
				 p->name, p->loc,
				 (long long)atomic64_read(&p->u.up.entries->full));
		stp_uprobe_release(p);
		p->registered = false;
	}
}

/*
 * Registers every user probe of the table. On failure nothing of theirs
 * stays registered. Handlers return at once until the state is RUNNING.
 * Sleeps.
 */
static int stp_uprobes_register(struct stp_probe *probes, unsigned int n)
{
	unsigned int i;
	int rc;

	for (i = 0; i < n; i++) {
		if (!stp_is_uprobe(&probes[i]))
			continue;
		rc = stp_uprobe_register_one(&probes[i]);
		if (rc)
			goto err;
	}
	rc = stp_uprocess_register(probes, n);
	if (rc)
		goto err;
	return 0;

err:
	stp_uprobes_unregister(probes, n);
	return rc;
}

#else /* !STP_HAVE_UPROBES */

static inline int stp_uprobes_register(struct stp_probe *probes, unsigned int n)
{
	return 0;
}

static inline void stp_uprobes_unregister(struct stp_probe *probes,
					  unsigned int n)
{
}

#endif /* STP_HAVE_UPROBES */

#endif /* STP_PROBES_H */
