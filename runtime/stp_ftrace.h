/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_ftrace.h - entry probes through one ftrace_ops per module.
 *
 * A kprobe at a function's entry is itself an ftrace callback, armed with
 * one ftrace update (text patching on every CPU) per probe, and finds its
 * kprobe in a hash per hit. Here every entry probe on an ftrace-able
 * function (KPROBE, offset 0, address known: stp_probe_resolve(),
 * stp_probes.h) goes into one ftrace_ops: all their addresses in one filter
 * (ftrace_set_filter_ips), one register_ftrace_function, one update; the
 * callback finds the probes of the hit function by binary search over
 * their addresses. A function ftrace refuses (not in
 * available_filter_functions: notrace, inline copies, ...) is found by
 * halving the filter batch around it and stays a kprobe.
 *
 * The handler gives the bodies full pt_regs (FTRACE_OPS_FL_SAVE_REGS)
 * with the ip a kprobe pre_handler sees (ip + 1) while the probes run, the
 * original ip restored after (no IPMODIFY), as the kernel's kprobe ftrace
 * handler does. It takes no ftrace recursion lock: a hit recursing into
 * the handler (a function the handler's own path calls, probed) finds its
 * CPU's context busy and is counted as skipped; stp_run_probe_with() calls
 * nothing traceable before it has marked the context busy (interrupts go
 * off with the raw primitive, the irq-tracing hooks run after the mark).
 * When no body reads registers (target variables, register(), backtraces,
 * embedded C: the translator then defines STP_NO_ENTRY_REGS) the ops asks
 * for no pt_regs and the bodies run with c->regs NULL: the kernel's plain
 * ftrace trampoline saves only the argument registers, about half the work.
 *
 * Direct calls (STP_HAVE_FTRACE_DIRECT, stp_compat.h: x86-64, bodies that
 * read no registers): the sites call the module's own trampoline,
 * stp_ftrace_tramp, through register_ftrace_direct (one ops, one update,
 * like the ftrace_ops). It saves the argument registers and passes the
 * return address into the probed function to stp_ftrace_direct_handler,
 * which finds the site by the same search (none for one entry probe): no
 * ftrace trampoline, no ops callback. objtool gives the trampoline ORC data like any function of the
 * module, so stack traces through it unwind. Used when every site is a
 * vmlinux function (a module function's site can leave the filter while
 * registered, which a direct ops cannot follow); when the kernel refuses
 * (a site already has a direct call: a BPF trampoline, another module
 * attached first) the same sites go through the ftrace_ops.
 *
 * Module functions ("mod:func") get their address at load from a kprobe
 * registered disabled (stp_ftrace_resolve_modules). ftrace keeps an
 * unloaded module's addresses in an ops' filter (a module loaded there
 * later would be traced), so a module notifier takes the going module's
 * addresses out of the filter, or unregisters the ops when they are all
 * that is left (an empty filter traces every function). All of that is
 * compiled only when the translator saw a "mod:func" kprobe
 * (STP_HAVE_MODULE_SITES); without it such a probe, which has no address,
 * would stay a kprobe placed by name.
 *
 * Unload: unregister_ftrace_function() waits until no CPU runs the
 * callback (ftrace_shutdown: synchronize_rcu_tasks_rude, and
 * synchronize_rcu_tasks on preemptible kernels, for a module's ops), then
 * the filter is freed. The direct ops is unregistered the same way, and
 * the same waits cover a task preempted inside the trampoline.
 */
#ifndef STP_FTRACE_H
#define STP_FTRACE_H

/*
 * An entry probe's run. The translator defines STP_ENTRY_DISPATCH and,
 * after the bodies, stp_entry_dispatch(): a switch over its entry probes
 * (KPROBE at offset 0, the only ones that become sites) that names each
 * one's body, so that the body is inlined into the handler instead of
 * called through p->body; when the script has one entry probe also
 * STP_ENTRY_ONE and stp_entry_one(), which runs it. Without them
 * (hand-written modules) p->body is called. Their prototypes are in
 * stp_decls.h.
 */
#ifdef STP_ENTRY_DISPATCH
#define stp_entry_run(p) stp_entry_dispatch(p)
#if defined(STP_ENTRY_ONE) && defined(STP_NO_ENTRY_REGS)
/* the filter holds one site: the handlers need not know which was hit */
#define STP_FTRACE_ONE_SITE 1
#endif

/* a site whose probe the switch does not name (none should) */
#define stp_entry_run_other(p) stp_run_probe_data(p, NULL, STP_STATE_RUNNING, NULL)
#else
#define stp_entry_run(p) stp_run_probe_with(p, NULL, STP_STATE_RUNNING, NULL, NULL, 0)
#endif

#ifdef STP_HAVE_FTRACE_OPS

struct stp_ftrace_site {
	unsigned long addr;		/* the function's address */
	struct stp_probe *p;
	/* the first site of its address's group; the group's end (in its first site) */
	const struct stp_ftrace_site *first, *end;
};

/* sorted by addr; probes of one function are adjacent */
static struct stp_ftrace_site *stp_ftrace_sites;
static unsigned int stp_ftrace_nsites;
static bool stp_ftrace_registered;
static unsigned int stp_ftrace_live;	/* distinct addresses in the filter */
#ifdef STP_HAVE_MODULE_SITES
static bool *stp_ftrace_gone;		/* per site: its module went away */
static bool stp_ftrace_notifier_on;
#endif
static DEFINE_MUTEX(stp_ftrace_mutex);	/* registration vs the module notifier */
static bool stp_ftrace_direct;		/* the sites call stp_ftrace_tramp */

#ifndef STP_NO_ENTRY_REGS
/* the probes of the group s with full pt_regs, the ip a kprobe would show */
static __always_inline void stp_ftrace_run(const struct stp_ftrace_site *s,
					   unsigned long ip,
					   struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	const struct stp_ftrace_site *end = s->end;
	unsigned long orig_ip;

	if (unlikely(!regs))
		return;
	orig_ip = instruction_pointer(regs);
	instruction_pointer_set(regs, STP_FTRACE_HANDLER_IP(ip));
	for (; s < end; s++)
		stp_run_probe(s->p, regs, STP_STATE_RUNNING);
	instruction_pointer_set(regs, orig_ip);
}
#define STP_FTRACE_OPS_FLAGS FTRACE_OPS_FL_SAVE_REGS
#else
/*
 * no body reads registers (the translator's STP_NO_ENTRY_REGS): the ops
 * without FTRACE_OPS_FL_SAVE_REGS takes the kernel's cheaper trampoline
 * (x86-64 6.1: 33 instructions instead of 59), and c->regs is NULL
 */
static __always_inline void stp_ftrace_run(const struct stp_ftrace_site *s,
					   unsigned long ip,
					   struct ftrace_regs *fregs)
{
	const struct stp_ftrace_site *end = s->end;

	for (; s < end; s++)
		stp_entry_run(s->p);
}
#define STP_FTRACE_OPS_FLAGS 0
#endif

/*
 * runs the probes of the function whose ftrace site is ip, if it is one of
 * ours: the last site at or below ip by halving (no loop for one
 * function), then its address's group from the group's first site
 */
static __always_inline void stp_ftrace_hit(unsigned long ip,
					   struct ftrace_regs *fregs)
{
#ifdef STP_FTRACE_ONE_SITE
	/*
	 * the script's one entry probe: the filter holds its site alone (an
	 * empty filter is never registered), so every hit is its
	 */
	stp_entry_one();
#else
	const struct stp_ftrace_site *s = stp_ftrace_sites;
	unsigned int n = stp_ftrace_nsites, half;

	if (unlikely(!n))
		return;
	while (n > 1) {
		half = n / 2;
		if (s[half].addr <= ip)
			s += half;
		n -= half;
	}
	if (ip - s->addr >= STP_FTRACE_SITE_MAX)	/* also ip below it */
		return;
	stp_ftrace_run(s->first, ip, fregs);
#endif
}

#if defined(STP_HAVE_FTRACE_DIRECT) && defined(STP_NO_ENTRY_REGS)
/*
 * The ftrace_ops runs the entry probes only where the direct call was
 * refused: it calls the direct-call handler rather than compile a second
 * copy of the sites' runs (the bodies inlined into each)
 */
__visible noinline void notrace stp_ftrace_direct_handler(unsigned long ret);

static void notrace stp_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				       struct ftrace_ops *ops,
				       struct ftrace_regs *fregs)
{
	stp_ftrace_direct_handler(ip + MCOUNT_INSN_SIZE);
}
#else
static void notrace stp_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				       struct ftrace_ops *ops,
				       struct ftrace_regs *fregs)
{
	stp_ftrace_hit(ip, fregs);
}
#endif

static struct ftrace_ops stp_ftrace_ops = {
	.func = stp_ftrace_handler,
	.flags = STP_FTRACE_OPS_FLAGS,
};

#ifdef STP_HAVE_FTRACE_DIRECT
/* the filter of the sites while they are attached by the direct call */
static struct ftrace_ops stp_ftrace_direct_ops;

void stp_ftrace_tramp(void);

/*
 * Called at a probed function's ftrace site, before its prologue: the
 * return address on the stack points just past the site's call, every
 * argument register holds the function's argument. Saves those (and rax:
 * the vector-register count of a variadic call) around the handler, which
 * gets the return address (not when the script has one entry probe: its
 * site is the only one). The ORC unwinder follows the pushes (objtool);
 * with frame pointers, rbp makes the frame that unwinder needs.
 */
#ifdef CONFIG_FRAME_POINTER
#define STP_TRAMP_ENTER "	pushq %rbp\n	movq %rsp, %rbp\n"
#define STP_TRAMP_RET_ADDR "	movq 64(%rsp), %rdi\n"
#define STP_TRAMP_LEAVE "	leave\n"
#else
#define STP_TRAMP_ENTER ""
#define STP_TRAMP_RET_ADDR "	movq 56(%rsp), %rdi\n"
#define STP_TRAMP_LEAVE ""
#endif
#ifdef STP_FTRACE_ONE_SITE
#undef STP_TRAMP_RET_ADDR
#define STP_TRAMP_RET_ADDR ""
#endif
asm(
"	.pushsection .text, \"ax\", @progbits\n"
"	.type stp_ftrace_tramp, @function\n"
"stp_ftrace_tramp:\n"
	ASM_ENDBR
	STP_TRAMP_ENTER
	CALL_DEPTH_ACCOUNT
"	pushq %rdi\n"
"	pushq %rsi\n"
"	pushq %rdx\n"
"	pushq %rcx\n"
"	pushq %r8\n"
"	pushq %r9\n"
"	pushq %rax\n"
	STP_TRAMP_RET_ADDR
"	call stp_ftrace_direct_handler\n"
"	popq %rax\n"
"	popq %r9\n"
"	popq %r8\n"
"	popq %rcx\n"
"	popq %rdx\n"
"	popq %rsi\n"
"	popq %rdi\n"
	STP_TRAMP_LEAVE
	ASM_RET
"	.size stp_ftrace_tramp, .-stp_ftrace_tramp\n"
"	.popsection\n"
);

/* ret: the address after the site's call (its ip + MCOUNT_INSN_SIZE) */
__visible noinline void notrace stp_ftrace_direct_handler(unsigned long ret);
__visible noinline void notrace stp_ftrace_direct_handler(unsigned long ret)
{
	stp_ftrace_hit(ret - MCOUNT_INSN_SIZE, NULL);
}

#define STP_FTRACE_TRAMP ((unsigned long)stp_ftrace_tramp)
#endif

/*
 * the ops the filter is built in: the direct ops while the direct call is
 * to be tried, else the ftrace_ops
 */
static struct ftrace_ops *stp_ftrace_filter_ops = &stp_ftrace_ops;

#ifdef STP_HAVE_MODULE_SITES
/*
 * whether kallsyms' text for an address, "func+0xOFF/0xSIZE [mod]", names
 * the function sym ("mod:func") near its start (OFF: a kprobe sits past an
 * ENDBR); off: OFF
 */
static bool stp_ftrace_check_module_sym(const char *buf, const char *sym,
					unsigned long *off)
{
	const char *colon = strchr(sym, ':');
	size_t ml = colon - sym, fl = strlen(colon + 1);
	const char *br;

	if (strncmp(buf, colon + 1, fl) || buf[fl] != '+' ||
	    sscanf(buf + fl, "+%lx/", off) != 1 || *off >= STP_FTRACE_SITE_MAX)
		return false;
	br = strstr(buf + fl, " [");
	return br && !strncmp(br + 2, sym, ml) && br[2 + ml] == ']' &&
	       !br[3 + ml];
}

/*
 * The address of a module function ("mod:func", offset 0) the translator
 * cannot know (the module is placed at load): the kernel resolves the name
 * for a kprobe registered disabled (nothing is armed), the address is
 * checked the way stp_probe_resolve() checks vmlinux ones (kallsyms names
 * the function there, "func+0x0/... [mod]", after the kprobe's own
 * adjustment past an ENDBR is taken back), and the kprobes of all probes
 * are unregistered in one batch (one RCU wait). A probe whose name does
 * not resolve keeps addr 0: registered by name as a kprobe, which reports
 * why. Sleeps.
 */
static void stp_ftrace_resolve_modules(struct stp_probe *probes, unsigned int n)
{
	static char buf[KSYM_SYMBOL_LEN];	/* module init runs one at a time */
	struct kprobe *kps, **ptrs;
	unsigned int i, k = 0;
	unsigned long a, off;

	for (i = 0; i < n; i++)
		k += probes[i].kind == STP_PROBE_KPROBE && !probes[i].offset &&
		     !probes[i].addr && strchr(probes[i].symbol, ':');
	if (!k)
		return;
	kps = stp_fail_null("module address kprobes",
			    kcalloc(k, sizeof(*kps), GFP_KERNEL));
	ptrs = stp_fail_null("module address table",
			     kcalloc(k, sizeof(*ptrs), GFP_KERNEL));
	if (!kps || !ptrs)
		goto out;	/* by name, as kprobes */
	for (i = 0, k = 0; i < n; i++) {
		struct stp_probe *p = &probes[i];
		struct kprobe *kp = &kps[k];

		if (p->kind != STP_PROBE_KPROBE || p->offset || p->addr ||
		    !strchr(p->symbol, ':'))
			continue;
		kp->symbol_name = p->symbol;
		kp->flags = KPROBE_FLAG_DISABLED;
		if (stp_fail_rc("module address kprobe", -EINVAL,
				register_kprobe(kp)))
			continue;
		ptrs[k++] = kp;
		a = (unsigned long)kp->addr;
		sprint_symbol(buf, a);
		if (stp_ftrace_check_module_sym(buf, p->symbol, &off))
			p->addr = a - off;
	}
	if (k)
		unregister_kprobes(ptrs, k);
out:
	kfree(kps);
	kfree(ptrs);
}
#else
static inline void stp_ftrace_resolve_modules(struct stp_probe *probes,
					      unsigned int n) { }
#endif

static int stp_ftrace_site_cmp(const void *a, const void *b)
{
	unsigned long x = ((const struct stp_ftrace_site *)a)->addr;
	unsigned long y = ((const struct stp_ftrace_site *)b)->addr;

	return x < y ? -1 : x > y;
}

/*
 * adds the n addresses ips to the filter in one update where ftrace takes
 * them all (a failed ftrace_set_filter_ips changes nothing), else halves
 * the batch: ok[i] says whether ips[i] went in
 */
static void stp_ftrace_filter_add(unsigned long *ips, u8 *ok, unsigned int n)
{
	unsigned int h = n / 2;

	if (!n)
		return;
	if (!stp_fail_rc("ftrace filter", -EINVAL,
			 ftrace_set_filter_ips(stp_ftrace_filter_ops, ips, n, 0, 0))) {
		memset(ok, 1, n);
		return;
	}
	if (n == 1) {
		ok[0] = 0;
		return;
	}
	stp_ftrace_filter_add(ips, ok, h);
	stp_ftrace_filter_add(ips + h, ok + h, n - h);
}

/* each site's group (the sites of its address): its first site, its end */
static void stp_ftrace_group_sites(void)
{
	struct stp_ftrace_site *s = stp_ftrace_sites, *first = s;
	unsigned int i;

	for (i = 0; i < stp_ftrace_nsites; i++) {
		if (i && s[i].addr != s[i - 1].addr)
			first = &s[i];
		s[i].first = first;
		first->end = &s[i + 1];
	}
}

/*
 * the sites' distinct addresses into the filter; the probes of refused
 * ones leave the table (via_ftrace false: kprobes). Returns the number
 * refused, or -ENOMEM.
 */
static int stp_ftrace_filter_sites(void)
{
	unsigned int i, j, n = 0, bad = 0;
	unsigned long *ips;
	u8 *ok;

	ips = stp_fail_null("ftrace address list",
			    kcalloc(stp_ftrace_nsites, sizeof(*ips), GFP_KERNEL));
	ok = stp_fail_null("ftrace address flags",
			   kcalloc(stp_ftrace_nsites, sizeof(*ok), GFP_KERNEL));
	if (!ips || !ok) {
		stp_err("cannot allocate the ftrace filter of %u addresses\n",
			stp_ftrace_nsites);
		kfree(ips);
		kfree(ok);
		return -ENOMEM;
	}
	for (i = 0; i < stp_ftrace_nsites; i++)
		if (!n || ips[n - 1] != stp_ftrace_sites[i].addr)
			ips[n++] = stp_ftrace_sites[i].addr;
	stp_ftrace_filter_add(ips, ok, n);
	for (i = 0, j = 0, n = 0; i < stp_ftrace_nsites; i++) {
		struct stp_ftrace_site *s = &stp_ftrace_sites[i];

		while (ips[n] != s->addr)
			n++;
		if (ok[n]) {
			stp_ftrace_sites[j++] = *s;
			continue;
		}
		s->p->via_ftrace = false;
		bad++;
		stp_info("probe %s (%s): %s is not ftrace-able, through a kprobe\n",
			 s->p->name, s->p->loc, s->p->symbol);
	}
	stp_ftrace_nsites = j;
	stp_ftrace_group_sites();
	kfree(ips);
	kfree(ok);
	return bad;
}

#ifdef STP_HAVE_MODULE_SITES
/* whether p probes a function of the module named mod ("mod:func") */
static bool stp_ftrace_of_module(const struct stp_probe *p, const char *mod)
{
	size_t n = strlen(mod);

	return !strncmp(p->symbol, mod, n) && p->symbol[n] == ':';
}

/*
 * The module mod is going: its sites' addresses leave the filter, or the
 * ops is unregistered when nothing else is left in it. Under
 * stp_ftrace_mutex, registered; sleeps.
 */
static void stp_ftrace_drop_module(const char *mod)
{
	unsigned long *ips;
	unsigned int i, k = 0, m = 0;

	ips = stp_fail_null("module going table",
			    kcalloc(stp_ftrace_nsites, sizeof(*ips), GFP_KERNEL));
	for (i = 0; i < stp_ftrace_nsites; i++) {
		const struct stp_ftrace_site *s = &stp_ftrace_sites[i];

		if (stp_ftrace_gone[i] || !stp_ftrace_of_module(s->p, mod))
			continue;
		stp_ftrace_gone[i] = true;
		m++;
		if (ips && (!k || ips[k - 1] != s->addr))
			ips[k++] = s->addr;
	}
	if (!m)
		goto out;
	if (ips && k < stp_ftrace_live &&
	    !stp_fail_rc("ftrace filter removal", -EINVAL,
			 ftrace_set_filter_ips(&stp_ftrace_ops, ips, k, 1, 0))) {
		stp_ftrace_live -= k;
		goto out;
	}
	/* all that was left (or the filter could not change): no ops at all */
	unregister_ftrace_function(&stp_ftrace_ops);
	ftrace_free_filter(&stp_ftrace_ops);
	stp_ftrace_registered = false;
	stp_ftrace_live = 0;
out:
	kfree(ips);
}

static int stp_ftrace_module_event(struct notifier_block *nb,
				   unsigned long event, void *data)
{
	struct module *mod = data;

	if (event != MODULE_STATE_GOING)
		return NOTIFY_DONE;
	mutex_lock(&stp_ftrace_mutex);
	if (stp_ftrace_registered)
		stp_ftrace_drop_module(mod->name);
	mutex_unlock(&stp_ftrace_mutex);
	return NOTIFY_DONE;
}

static struct notifier_block stp_ftrace_module_nb = {
	.notifier_call = stp_ftrace_module_event,
};
#endif

/*
 * registers the ops (filter set) and, when a site is a module function,
 * the module notifier; 0 or the error of register_ftrace_function
 */
static int stp_ftrace_ops_register(void)
{
	unsigned int i;
	int rc;

	stp_ftrace_live = 0;
	for (i = 0; i < stp_ftrace_nsites; i++) {
		if (!i || stp_ftrace_sites[i].addr != stp_ftrace_sites[i - 1].addr)
			stp_ftrace_live++;
#ifdef STP_HAVE_MODULE_SITES
		if (strchr(stp_ftrace_sites[i].p->symbol, ':'))
			stp_ftrace_notifier_on = true;
#endif
	}
#ifdef STP_HAVE_MODULE_SITES
	if (stp_ftrace_notifier_on &&
	    (rc = stp_fail_rc("module notifier", -ENOMEM,
			      register_module_notifier(&stp_ftrace_module_nb)))) {
		stp_ftrace_notifier_on = false;
		return rc;
	}
#endif
	mutex_lock(&stp_ftrace_mutex);
	rc = stp_fail_rc("ftrace_ops", -EBUSY,
			 register_ftrace_function(&stp_ftrace_ops));
	stp_ftrace_registered = !rc;
	mutex_unlock(&stp_ftrace_mutex);
#ifdef STP_HAVE_MODULE_SITES
	if (rc && stp_ftrace_notifier_on) {
		unregister_module_notifier(&stp_ftrace_module_nb);
		stp_ftrace_notifier_on = false;
	}
#endif
	return rc;
}

#ifdef STP_HAVE_FTRACE_DIRECT
/*
 * attaches the sites in the direct ops' filter to stp_ftrace_tramp; on
 * failure the filter is freed. 0 or the kernel's error.
 */
static int stp_ftrace_direct_register(void)
{
	int rc;

	mutex_lock(&stp_ftrace_mutex);
	rc = stp_fail_rc("ftrace direct call", -EBUSY,
			 stp_register_ftrace_direct(&stp_ftrace_direct_ops,
						    STP_FTRACE_TRAMP));
	stp_ftrace_registered = stp_ftrace_direct = !rc;
	mutex_unlock(&stp_ftrace_mutex);
	if (rc) {
		stp_info("cannot attach the entry probes by a direct call (%d): through the ftrace_ops\n",
			 rc);
		ftrace_free_filter(&stp_ftrace_direct_ops);
	}
	return rc;
}

/*
 * the direct call is tried when every site is a vmlinux function and the
 * kernel takes that many in one registration (STP_FTRACE_DIRECT_MAX)
 */
static void stp_ftrace_choose_ops(void)
{
	stp_ftrace_filter_ops = &stp_ftrace_direct_ops;
	if (stp_ftrace_nsites > STP_FTRACE_DIRECT_MAX) {
		stp_info("%u entry probes: through the ftrace_ops (a direct call takes at most %u on this kernel)\n",
			 stp_ftrace_nsites, STP_FTRACE_DIRECT_MAX);
		stp_ftrace_filter_ops = &stp_ftrace_ops;
	}
#ifdef STP_HAVE_MODULE_SITES
	for (unsigned int i = 0; i < stp_ftrace_nsites; i++)
		if (strchr(stp_ftrace_sites[i].p->symbol, ':'))
			stp_ftrace_filter_ops = &stp_ftrace_ops;
#endif
}
#else
static inline int stp_ftrace_direct_register(void) { return -EOPNOTSUPP; }
static inline void stp_ftrace_choose_ops(void) { }
#endif

/*
 * Puts every entry probe with a known address on an ftrace-able function
 * into the ftrace_ops and registers it (one ftrace update); sets
 * via_ftrace of those. The others stay kprobes: when ftrace cannot be used
 * at all, every one (a message says why). Sleeps.
 */
static int stp_ftrace_register(struct stp_probe *probes, unsigned int n)
{
	unsigned int i, k = 0;
	int rc;

	stp_ftrace_resolve_modules(probes, n);
	for (i = 0; i < n; i++)
		k += probes[i].kind == STP_PROBE_KPROBE && !probes[i].offset &&
		     probes[i].addr;
	if (!k)
		return 0;
	stp_ftrace_sites = stp_fail_null("ftrace site table",
		kcalloc(k, sizeof(*stp_ftrace_sites), GFP_KERNEL));
	if (!stp_ftrace_sites) {
		stp_err("cannot allocate the table of %u ftrace entry probes\n", k);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		struct stp_probe *p = &probes[i];

		if (p->kind != STP_PROBE_KPROBE || p->offset || !p->addr)
			continue;
		p->via_ftrace = true;
		stp_ftrace_sites[stp_ftrace_nsites].addr = p->addr;
		stp_ftrace_sites[stp_ftrace_nsites++].p = p;
	}
	sort(stp_ftrace_sites, stp_ftrace_nsites, sizeof(*stp_ftrace_sites),
	     stp_ftrace_site_cmp, NULL);
	stp_ftrace_choose_ops();
	rc = stp_ftrace_filter_sites();
	if (rc < 0)
		goto err;
	if (!stp_ftrace_nsites) {	/* an empty filter would trace everything */
		ftrace_free_filter(stp_ftrace_filter_ops);
		return 0;
	}
#ifdef STP_HAVE_MODULE_SITES
	stp_ftrace_gone = stp_fail_null("ftrace module table",
					kcalloc(stp_ftrace_nsites,
						sizeof(*stp_ftrace_gone),
						GFP_KERNEL));
	if (!stp_ftrace_gone) {
		stp_err("cannot allocate the ftrace table of %u entry probes\n",
			stp_ftrace_nsites);
		ftrace_free_filter(stp_ftrace_filter_ops);
		rc = -ENOMEM;
		goto err;
	}
#endif
	if (stp_ftrace_filter_ops != &stp_ftrace_ops) {
		if (!stp_ftrace_direct_register())
			goto registered;
		/* the same sites (ftrace took them all once) in the ftrace_ops */
		stp_ftrace_filter_ops = &stp_ftrace_ops;
		rc = stp_ftrace_filter_sites();
		if (rc < 0)
			goto err;
		if (!stp_ftrace_nsites) {
			ftrace_free_filter(&stp_ftrace_ops);
			return 0;
		}
	}
	rc = stp_ftrace_ops_register();
	if (rc) {
		stp_info("cannot register the ftrace_ops (%d): entry probes through kprobes\n",
			 rc);
		ftrace_free_filter(&stp_ftrace_ops);
		goto err;
	}
registered:
	for (i = 0; i < stp_ftrace_nsites; i++)
		stp_ftrace_sites[i].p->registered = true;
	return 0;

err:
	for (i = 0; i < stp_ftrace_nsites; i++)
		stp_ftrace_sites[i].p->via_ftrace = false;
	stp_ftrace_nsites = 0;
	return rc == -ENOMEM ? rc : 0;
}

/* waits until no CPU runs the callback; sleeps */
static void stp_ftrace_unregister(void)
{
	unsigned int i;

	mutex_lock(&stp_ftrace_mutex);
	if (stp_ftrace_registered && stp_ftrace_direct) {
#ifdef STP_HAVE_FTRACE_DIRECT
		stp_unregister_ftrace_direct(&stp_ftrace_direct_ops,
					     STP_FTRACE_TRAMP);
#endif
		stp_ftrace_direct = false;
	} else if (stp_ftrace_registered) {
		unregister_ftrace_function(&stp_ftrace_ops);
		ftrace_free_filter(&stp_ftrace_ops);
	}
	stp_ftrace_registered = false;
	mutex_unlock(&stp_ftrace_mutex);
#ifdef STP_HAVE_MODULE_SITES
	/* after the mutex: a running callback may wait for it */
	if (stp_ftrace_notifier_on) {
		unregister_module_notifier(&stp_ftrace_module_nb);
		stp_ftrace_notifier_on = false;
	}
#endif
	for (i = 0; i < stp_ftrace_nsites; i++)
		stp_ftrace_sites[i].p->registered = false;
}

static void stp_ftrace_free(void)
{
#ifdef STP_HAVE_MODULE_SITES
	kfree(stp_ftrace_gone);
	stp_ftrace_gone = NULL;
#endif
	kfree(stp_ftrace_sites);
	stp_ftrace_sites = NULL;
	stp_ftrace_nsites = 0;
}

static inline unsigned int stp_ftrace_count(void)
{
	return stp_ftrace_nsites;
}

/* how the entry sites are attached, for the load's message */
static inline const char *stp_ftrace_mechanism(void)
{
	return stp_ftrace_direct ? "direct calls" : "ftrace_ops";
}

#else /* !STP_HAVE_FTRACE_OPS: every entry probe is a kprobe */

static inline int stp_ftrace_register(struct stp_probe *probes, unsigned int n)
{
	return 0;
}

static inline void stp_ftrace_unregister(void) { }
static inline void stp_ftrace_free(void) { }
static inline unsigned int stp_ftrace_count(void) { return 0; }
static inline const char *stp_ftrace_mechanism(void) { return "ftrace_ops"; }

#endif /* STP_HAVE_FTRACE_OPS */
#endif /* STP_FTRACE_H */
