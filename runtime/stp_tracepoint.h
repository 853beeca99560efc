/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_tracepoint.h - kernel.trace("subsystem:event") probes: the kernel's
 * static tracepoints.
 *
 * The generated file defines one probe function per tracepoint probe, with
 * a prototype ABI-compatible with the tracepoint's (void *__data, then each
 * argument as void *, bool or u8..s64, synthesized from the argument types
 * the translator read from DWARF). It copies the arguments into a u64 array
 * and runs the body through stp_run_probe_data() with the array as the
 * context's entry values, like every other handler (busy context, session
 * state, global trylock; nothing sleeps). The probe is its tracepoint's
 * __data.
 *
 * Registration finds each tracepoint by name among the kernel's own
 * (for_each_kernel_tracepoint(); tracepoints of modules are not searched)
 * and calls tracepoint_probe_register(). A tracepoint missing from the
 * running kernel fails the load with its name, unless the probe is
 * optional. Unregistration goes in reverse order and ends with
 * tracepoint_synchronize_unregister(): no probe function runs after it.
 *
 * Only compiled when the generated file defines STP_HAVE_TRACEPOINTS.
 */
#ifndef STP_TRACEPOINT_H
#define STP_TRACEPOINT_H

#ifdef STP_HAVE_TRACEPOINTS

struct stp_tp_lookup {
	struct stp_probe *probes;
	unsigned int n;
};

/* for_each_kernel_tracepoint() callback: fills in u.tp by name */
static void stp_tp_find(struct tracepoint *tp, void *priv)
{
	struct stp_tp_lookup *l = priv;
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		struct stp_probe *p = &l->probes[i];

		if (p->kind == STP_PROBE_TRACEPOINT && !p->u.tp &&
		    !strcmp(tp->name, p->tp_name))
			p->u.tp = tp;
	}
}

/* unregisters the registered tracepoint probes, last first; sleeps */
static void stp_tracepoints_unregister(struct stp_probe *probes, unsigned int n)
{
	bool any = false;
	unsigned int i;
	int rc;

	for (i = n; i-- > 0;) {
		struct stp_probe *p = &probes[i];

		if (p->kind != STP_PROBE_TRACEPOINT || !p->registered)
			continue;
		rc = tracepoint_probe_unregister(p->u.tp, p->tp_func, p);
		if (rc)
			stp_err("cannot unregister probe %s (%s): %s (%d)\n",
				p->name, p->loc, stp_errno_text(rc), rc);
		p->registered = false;
		any = true;
	}
	/* waits for probe functions still running on other CPUs */
	if (any)
		tracepoint_synchronize_unregister();
}

/*
 * Registers every tracepoint probe of the table. On failure nothing of
 * theirs stays registered. Sleeps.
 */
static int stp_tracepoints_register(struct stp_probe *probes, unsigned int n)
{
	struct stp_tp_lookup l = { .probes = probes, .n = n };
	unsigned int i;
	int rc;

	for (i = 0; i < n; i++)
		if (probes[i].kind == STP_PROBE_TRACEPOINT)
			probes[i].u.tp = NULL;
	for_each_kernel_tracepoint(stp_tp_find, &l);
	for (i = 0; i < n; i++) {
		struct stp_probe *p = &probes[i];

		if (p->kind != STP_PROBE_TRACEPOINT)
			continue;
		if (!p->u.tp) {
			rc = -ENOENT;
			if (p->optional) {
				stp_info("optional probe %s (%s) skipped: no tracepoint %s in the running kernel\n",
					 p->name, p->loc, p->tp_name);
				continue;
			}
			stp_err("cannot register probe %s (%s): no tracepoint %s in the running kernel (tracepoints of modules are not supported) (%d)\n",
				p->name, p->loc, p->tp_name, rc);
			goto err;
		}
		rc = stp_fail_rc("tracepoint probe", -ENOMEM,
				 tracepoint_probe_register(p->u.tp, p->tp_func, p));
		if (rc && p->optional) {
			stp_info("optional probe %s (%s) skipped: %s (%d)\n",
				 p->name, p->loc, stp_errno_text(rc), rc);
			continue;
		}
		if (rc) {
			stp_err("cannot register probe %s (%s) on tracepoint %s: %s (%d)\n",
				p->name, p->loc, p->tp_name, stp_errno_text(rc), rc);
			goto err;
		}
		p->registered = true;
	}
	return 0;

err:
	stp_tracepoints_unregister(probes, n);
	return rc;
}

#else /* !STP_HAVE_TRACEPOINTS */

static inline int stp_tracepoints_register(struct stp_probe *probes,
					   unsigned int n)
{
	return 0;
}

static inline void stp_tracepoints_unregister(struct stp_probe *probes,
					      unsigned int n)
{
}

#endif /* STP_HAVE_TRACEPOINTS */

#endif /* STP_TRACEPOINT_H */
