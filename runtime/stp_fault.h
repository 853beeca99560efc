/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_fault.h - the runtime's own fault injection (docs/reliability.md,
 * "Injected failures"). Debian's kernels have no CONFIG_FAULT_INJECTION,
 * so every allocation and registration of module init and of the CPU
 * hotplug callbacks goes through one of these wrappers:
 *
 *   stp_fail_null(site, expr)         a pointer; NULL when injected
 *   stp_fail_rc(site, err, expr)      an errno return; err when injected
 *   stp_fail_errptr(site, err, expr)  an ERR_PTR return; ERR_PTR(err)
 *
 * site is a string naming what the call makes ("output ring", "kprobe").
 * err is what the kernel call itself returns for that failure (-ENOMEM for
 * an allocation, -EINVAL for a refused registration, ...): the unwind sees
 * what it would see from the kernel.
 *
 * Without -D STP_FAULT_INJECT each wrapper is its expression and nothing
 * else. With it, every call through a wrapper counts one site (in the order
 * the code reaches them) and the STP_FAIL_NTH-th one fails instead of
 * running: -D STP_FAIL_NTH=N, or the module parameter stp_fail_nth=N at
 * load, or written to /sys/module/NAME/parameters/stp_fail_nth later (the
 * hotplug callbacks); 0, the default, injects nothing. stp_fail_count=K
 * (default 1) fails K sites in a row from the N-th: a failure the runtime
 * tolerates (a kprobe batch is retried one probe at a time) and then one
 * in its fallback. Each injection is
 * one kernel log line "NAME: fault injected: site N (SITE)";
 * /sys/module/NAME/parameters/stp_fail_seen is the number of sites
 * reached so far. tests/guest/faultinj.sh loads a module with N = 1, 2, ...
 * until N passes the number of sites, so every site fails once;
 * tests/runtime/fault-sites.sh fails when an allocation or registration
 * call in runtime/ is not wrapped.
 */
#ifndef STP_FAULT_H
#define STP_FAULT_H

#ifdef STP_FAULT_INJECT

#ifndef STP_FAIL_NTH
#define STP_FAIL_NTH 0
#endif

static int stp_fail_nth = STP_FAIL_NTH;
module_param(stp_fail_nth, int, 0644);
MODULE_PARM_DESC(stp_fail_nth, "fault injection: the n-th site fails (0: none)");

static int stp_fail_count = 1;
module_param(stp_fail_count, int, 0644);
MODULE_PARM_DESC(stp_fail_count, "fault injection: how many sites fail from the n-th on");

static atomic_t stp_fail_seen_count = ATOMIC_INIT(0);

static int stp_fail_seen_get(char *buf, const struct kernel_param *kp)
{
	return sprintf(buf, "%d\n", atomic_read(&stp_fail_seen_count));
}

static const struct kernel_param_ops stp_fail_seen_ops = {
	.get = stp_fail_seen_get,
};
module_param_cb(stp_fail_seen, &stp_fail_seen_ops, NULL, 0444);
MODULE_PARM_DESC(stp_fail_seen, "fault injection: sites reached so far");

/* counts one site; true when it is the one that fails */
static noinline bool stp_fail_now(const char *site)
{
	int n = atomic_inc_return(&stp_fail_seen_count);
	int nth = READ_ONCE(stp_fail_nth);

	if (nth <= 0 || n < nth || n - nth >= READ_ONCE(stp_fail_count))
		return false;
	pr_err("%s: fault injected: site %d (%s)\n", STP_MODULE_NAME, n, site);
	return true;
}

#define stp_fail_null(site, expr) (stp_fail_now(site) ? NULL : (expr))
#define stp_fail_rc(site, err, expr) (stp_fail_now(site) ? (err) : (expr))
#define stp_fail_errptr(site, err, expr) \
	(stp_fail_now(site) ? ERR_PTR(err) : (expr))

#else /* !STP_FAULT_INJECT: each wrapper is its expression */

#define stp_fail_null(site, expr) (expr)
#define stp_fail_rc(site, err, expr) (expr)
#define stp_fail_errptr(site, err, expr) (expr)

#endif /* STP_FAULT_INJECT */
#endif /* STP_FAULT_H */
