/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_netfilter.h - netfilter.hook("NF_INET_...").pf("NFPROTO_...") probes:
 * netfilter hooks on the initial network namespace.
 *
 * Each probe is one struct nf_hook_ops (hook, protocol family, priority
 * from the translator) whose priv is the probe. The hook function runs the
 * body through stp_run_probe_data() like every other handler (busy
 * context, session state, global trylock; nothing sleeps) with the hook's
 * arguments as the context's entry values: [0] the skb, [1] the
 * nf_hook_state (the target variables $skb, $hooknum, $in, ... read them as
 * a tracepoint's arguments), [2] the verdict, NF_ACCEPT unless a body run
 * in guru mode sets $verdict (stp_nf_verdict()). Only NF_DROP and
 * NF_ACCEPT are returned to netfilter: any other value accepts the packet
 * (NF_STOLEN, NF_QUEUE or NF_REPEAT from a probe that does not own the
 * packet would leak or loop it).
 *
 * Registration calls nf_register_net_hook(&init_net, ...) per probe and
 * unregisters the ones done when one fails. Unregistration goes in
 * reverse order and ends with synchronize_net(): no hook function runs
 * after it.
 *
 * Only compiled when the generated file defines STP_HAVE_NETFILTER.
 */
#ifndef STP_NETFILTER_H
#define STP_NETFILTER_H

#ifdef STP_HAVE_NETFILTER

static unsigned int stp_nf_hook(void *priv, struct sk_buff *skb,
				const struct nf_hook_state *state)
{
	u64 args[3] = { (unsigned long)skb, (unsigned long)state, NF_ACCEPT };

	stp_run_probe_data(priv, NULL, STP_STATE_RUNNING, args);
	return args[2] == NF_DROP ? NF_DROP : NF_ACCEPT;
}

/* $verdict of the running netfilter probe, in its hook's argument array */
static __maybe_unused s64 *stp_nf_verdict(struct stp_context *c)
{
	if (unlikely(!c->entry || c->probe->kind != STP_PROBE_NETFILTER))
		return &c->dummy_long;
	return (s64 *)&c->entry[2];
}

/* unregisters the registered netfilter probes, last first; sleeps */
static void stp_netfilter_unregister(struct stp_probe *probes, unsigned int n)
{
	bool any = false;
	unsigned int i;

	for (i = n; i-- > 0;) {
		struct stp_probe *p = &probes[i];

		if (p->kind != STP_PROBE_NETFILTER || !p->registered)
			continue;
		nf_unregister_net_hook(&init_net, &p->u.nfo);
		p->registered = false;
		any = true;
	}
	/* waits for hook functions still running on other CPUs */
	if (any)
		synchronize_net();
}

/*
 * Registers every netfilter probe of the table. On failure nothing of
 * theirs stays registered. Sleeps.
 */
static int stp_netfilter_register(struct stp_probe *probes, unsigned int n)
{
	unsigned int i;
	int rc;

	for (i = 0; i < n; i++) {
		struct stp_probe *p = &probes[i];

		if (p->kind != STP_PROBE_NETFILTER)
			continue;
		memset(&p->u.nfo, 0, sizeof(p->u.nfo));
		p->u.nfo.hook = stp_nf_hook;
		p->u.nfo.priv = p;
		p->u.nfo.pf = p->nf_pf;
		p->u.nfo.hooknum = p->nf_hook;
		p->u.nfo.priority = p->nf_priority;
		rc = stp_fail_rc("netfilter hook", -ENOMEM,
				 nf_register_net_hook(&init_net, &p->u.nfo));
		if (rc) {
			stp_err("cannot register probe %s (%s): nf_register_net_hook: %s (%d)\n",
				p->name, p->loc, stp_errno_text(rc), rc);
			stp_netfilter_unregister(probes, n);
			return rc;
		}
		p->registered = true;
	}
	return 0;
}

#else /* !STP_HAVE_NETFILTER */

static inline int stp_netfilter_register(struct stp_probe *probes,
					 unsigned int n)
{
	return 0;
}

static inline void stp_netfilter_unregister(struct stp_probe *probes,
					    unsigned int n)
{
}

#endif /* STP_HAVE_NETFILTER */

#endif /* STP_NETFILTER_H */
