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
 * The handler does what the kernel's kprobe ftrace handler does
 * (arch/x86/kernel/kprobes/ftrace.c): ftrace_test_recursion_trylock (which
 * also disables preemption), full pt_regs (FTRACE_OPS_FL_SAVE_REGS) with
 * the ip a kprobe pre_handler sees (ip + 1) while the probes run, the
 * original ip restored after (no IPMODIFY). A recursive hit is counted in
 * stp_ftrace_missed, as a kprobe counts nmissed.
 *
 * Unload: unregister_ftrace_function() waits until no CPU runs the
 * callback (ftrace_shutdown: synchronize_rcu_tasks_rude, and
 * synchronize_rcu_tasks on preemptible kernels, for a module's ops), then
 * the filter is freed.
 */
#ifndef STP_FTRACE_H
#define STP_FTRACE_H

#include <linux/sort.h>

#ifdef STP_HAVE_FTRACE_OPS

struct stp_ftrace_site {
	unsigned long addr;		/* the function's address */
	struct stp_probe *p;
};

/* sorted by addr; probes of one function are adjacent */
static struct stp_ftrace_site *stp_ftrace_sites;
static unsigned int stp_ftrace_nsites;
static bool stp_ftrace_registered;
static atomic64_t stp_ftrace_missed = ATOMIC64_INIT(0);

/* the first site of the function whose ftrace site is ip, or NULL */
static __always_inline const struct stp_ftrace_site *
stp_ftrace_find(unsigned long ip)
{
	const struct stp_ftrace_site *s = stp_ftrace_sites;
	unsigned int lo = 0, hi = stp_ftrace_nsites, mid;
	unsigned long a;

	while (lo < hi) {		/* lo: the first site above ip */
		mid = (lo + hi) / 2;
		if (s[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || ip - s[lo - 1].addr >= STP_FTRACE_SITE_MAX)
		return NULL;
	a = s[--lo].addr;
	while (lo && s[lo - 1].addr == a)
		lo--;
	return &s[lo];
}

static void notrace stp_ftrace_handler(unsigned long ip, unsigned long parent_ip,
				       struct ftrace_ops *ops,
				       struct ftrace_regs *fregs)
{
	struct pt_regs *regs = ftrace_get_regs(fregs);
	const struct stp_ftrace_site *s, *end;
	unsigned long orig_ip, a;
	int bit;

	bit = ftrace_test_recursion_trylock(ip, parent_ip);
	if (bit < 0) {
		atomic64_inc(&stp_ftrace_missed);
		return;
	}
	s = stp_ftrace_find(ip);
	if (likely(s && regs)) {
		end = stp_ftrace_sites + stp_ftrace_nsites;
		orig_ip = instruction_pointer(regs);
		instruction_pointer_set(regs, STP_FTRACE_HANDLER_IP(ip));
		for (a = s->addr; s < end && s->addr == a; s++)
			stp_run_probe(s->p, regs, STP_STATE_RUNNING);
		instruction_pointer_set(regs, orig_ip);
	}
	ftrace_test_recursion_unlock(bit);
}

static struct ftrace_ops stp_ftrace_ops = {
	.func = stp_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS,
};

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
			 ftrace_set_filter_ips(&stp_ftrace_ops, ips, n, 0, 0))) {
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
	kfree(ips);
	kfree(ok);
	return bad;
}

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
	rc = stp_ftrace_filter_sites();
	if (rc < 0)
		goto err;
	if (!stp_ftrace_nsites) {	/* an empty filter would trace everything */
		ftrace_free_filter(&stp_ftrace_ops);
		return 0;
	}
	rc = stp_fail_rc("ftrace_ops", -EBUSY,
			 register_ftrace_function(&stp_ftrace_ops));
	if (rc) {
		stp_info("cannot register the ftrace_ops (%d): entry probes through kprobes\n",
			 rc);
		ftrace_free_filter(&stp_ftrace_ops);
		goto err;
	}
	stp_ftrace_registered = true;
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

	if (!stp_ftrace_registered)
		return;
	unregister_ftrace_function(&stp_ftrace_ops);
	ftrace_free_filter(&stp_ftrace_ops);
	stp_ftrace_registered = false;
	for (i = 0; i < stp_ftrace_nsites; i++)
		stp_ftrace_sites[i].p->registered = false;
}

static void stp_ftrace_free(void)
{
	kfree(stp_ftrace_sites);
	stp_ftrace_sites = NULL;
	stp_ftrace_nsites = 0;
}

static inline u64 stp_ftrace_nmissed(void)
{
	return atomic64_read(&stp_ftrace_missed);
}

static inline unsigned int stp_ftrace_count(void)
{
	return stp_ftrace_nsites;
}

#else /* !STP_HAVE_FTRACE_OPS: every entry probe is a kprobe */

static inline int stp_ftrace_register(struct stp_probe *probes, unsigned int n)
{
	return 0;
}

static inline void stp_ftrace_unregister(void) { }
static inline void stp_ftrace_free(void) { }
static inline u64 stp_ftrace_nmissed(void) { return 0; }
static inline unsigned int stp_ftrace_count(void) { return 0; }

#endif /* STP_HAVE_FTRACE_OPS */
#endif /* STP_FTRACE_H */
