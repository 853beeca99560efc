/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_uprocess.h - process.begin/.end and process("PATH").begin/.end,
 * included by stp_uprobes.h (STP_HAVE_UPROBES).
 *
 * begin: the sched_process_exec tracepoint, in the task that exec'ed, once
 * its new program is mapped: every process.begin probe, and each
 * process("PATH").begin whose PATH's inode is the new program's
 * (mm->exe_file).
 * end: sched_process_exit of a thread group's last thread (its
 * signal->live reached 0). The task has dropped its mm by then, so the
 * processes running each PATH of a process("PATH").end are tracked in a
 * table of (tgid, start time, mask of those probes): filled at load from
 * the running processes, updated at each exec and at each fork of a
 * tracked process, emptied at exit. A full table (STP_MAXUPROCS) skips
 * the process and counts it.
 *
 * Both are scoped to the target's process tree under -c/-x. Probe bodies
 * run through stp_run_probe_data() without registers.
 */
#ifndef STP_UPROCESS_H
#define STP_UPROCESS_H

#ifdef STP_HAVE_UPROBES

struct stp_uproc {
	pid_t tgid;			/* 0: free */
	u64 start;			/* the group leader's start_time */
	u64 mask;			/* bit i: the i-th process("PATH").end */
};

static struct stp_uproc *stp_uprocs;	/* NULL: nothing tracked */
static DEFINE_RAW_SPINLOCK(stp_uprocs_lock);
static atomic64_t stp_uprocs_full;
static struct tracepoint *stp_uproc_tp_exec, *stp_uproc_tp_fork,
			 *stp_uproc_tp_exit;

static inline bool stp_is_path_end(const struct stp_probe *p)
{
	return p->kind == STP_PROBE_PROCESS_END && p->path;
}

/* the inode of t's program; t is current or task_lock()ed; under RCU */
static struct inode *stp_task_exe_inode(struct task_struct *t)
{
	struct file *f;

	if (!t->mm || (t->flags & PF_KTHREAD))
		return NULL;
	f = rcu_dereference(t->mm->exe_file);
	return f ? file_inode(f) : NULL;
}

/* the process("PATH").end probes whose PATH is inode's program */
static u64 stp_uproc_mask(struct inode *inode)
{
	unsigned int i, bit = 0;
	u64 mask = 0;

	for (i = 0; inode && i < stp_session.nprobes; i++) {
		const struct stp_probe *p = &stp_session.probes[i];

		if (!stp_is_path_end(p))
			continue;
		if (p->u.up.inode == inode)
			mask |= 1ULL << bit;
		bit++;
	}
	return mask;
}

/* sets (mask 0: forgets) the entry of process (tgid, start) */
static void stp_uproc_set(pid_t tgid, u64 start, u64 mask)
{
	struct stp_uproc *e, *free = NULL;
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&stp_uprocs_lock, flags);
	for (i = 0; i < STP_MAXUPROCS; i++) {
		e = &stp_uprocs[i];
		if (e->tgid == tgid) {
			e->start = start;
			e->mask = mask;
			if (!mask)
				e->tgid = 0;
			goto out;
		}
		if (!e->tgid && !free)
			free = e;
	}
	if (!mask)
		goto out;
	if (!free) {
		atomic64_inc(&stp_uprocs_full);
		goto out;
	}
	free->tgid = tgid;
	free->start = start;
	free->mask = mask;
out:
	raw_spin_unlock_irqrestore(&stp_uprocs_lock, flags);
}

/* the mask of process (tgid, start), forgotten when take */
static u64 stp_uproc_get(pid_t tgid, u64 start, bool take)
{
	unsigned long flags;
	unsigned int i;
	u64 mask = 0;

	raw_spin_lock_irqsave(&stp_uprocs_lock, flags);
	for (i = 0; i < STP_MAXUPROCS; i++) {
		struct stp_uproc *e = &stp_uprocs[i];

		if (e->tgid != tgid)
			continue;
		if (e->start == start)
			mask = e->mask;
		if (take)
			e->tgid = 0;
		break;
	}
	raw_spin_unlock_irqrestore(&stp_uprocs_lock, flags);
	return mask;
}

/* runs the process probes of kind: those of any process, and those of a
 * PATH that match (begin: inode is PATH's; end: the bit in mask is set) */
static void stp_uproc_fire(enum stp_probe_kind kind, struct inode *inode,
			   u64 mask)
{
	unsigned int i, bit = 0;

	if (!stp_in_target_tree(current))
		return;
	for (i = 0; i < stp_session.nprobes; i++) {
		const struct stp_probe *p = &stp_session.probes[i];
		bool match;

		if (p->kind != kind || !p->registered)
			continue;
		if (!p->path)
			match = true;
		else if (kind == STP_PROBE_PROCESS_BEGIN)
			match = inode && p->u.up.inode == inode;
		else
			match = mask & (1ULL << bit++);
		if (match)
			stp_run_probe_data(p, NULL, STP_STATE_RUNNING, NULL);
	}
}

static void stp_uproc_exec(void *data, struct task_struct *t, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	struct inode *inode;

	rcu_read_lock();
	inode = stp_task_exe_inode(current);
	rcu_read_unlock();
	if (stp_uprocs)
		stp_uproc_set(current->tgid, current->group_leader->start_time,
			      stp_uproc_mask(inode));
	stp_uproc_fire(STP_PROBE_PROCESS_BEGIN, inode, 0);
}

static void stp_uproc_fork(void *data, struct task_struct *parent,
			   struct task_struct *child)
{
	u64 mask;

	if (child->pid != child->tgid)	/* a new thread, not a process */
		return;
	mask = stp_uproc_get(parent->tgid, parent->group_leader->start_time, false);
	if (mask)
		stp_uproc_set(child->tgid, child->start_time, mask);
}

static void stp_uproc_exit(void *data, struct task_struct *t)
{
	u64 mask = 0;

	if (atomic_read(&current->signal->live))	/* other threads live on */
		return;
	if (stp_uprocs)
		mask = stp_uproc_get(current->tgid,
				     current->group_leader->start_time, true);
	stp_uproc_fire(STP_PROBE_PROCESS_END, NULL, mask);
}

/* the processes running a PATH of a process("PATH").end, at load */
static void stp_uproc_scan(void)
{
	struct task_struct *t;
	u64 mask;

	rcu_read_lock();
	for_each_process(t) {
		task_lock(t);
		mask = stp_uproc_mask(stp_task_exe_inode(t));
		task_unlock(t);
		if (mask)
			stp_uproc_set(t->tgid, t->start_time, mask);
	}
	rcu_read_unlock();
}

static void stp_uproc_tp_find(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "sched_process_exec"))
		stp_uproc_tp_exec = tp;
	else if (!strcmp(tp->name, "sched_process_fork"))
		stp_uproc_tp_fork = tp;
	else if (!strcmp(tp->name, "sched_process_exit"))
		stp_uproc_tp_exit = tp;
}

/* unregisters the tracepoint probes and frees the table; sleeps */
static void stp_uprocess_unregister(struct stp_probe *probes, unsigned int n)
{
	bool any = false;
	unsigned int i;

	if (stp_uproc_tp_exec && !tracepoint_probe_unregister(stp_uproc_tp_exec,
						(void *)stp_uproc_exec, NULL))
		any = true;
	if (stp_uproc_tp_fork && !tracepoint_probe_unregister(stp_uproc_tp_fork,
						(void *)stp_uproc_fork, NULL))
		any = true;
	if (stp_uproc_tp_exit && !tracepoint_probe_unregister(stp_uproc_tp_exit,
						(void *)stp_uproc_exit, NULL))
		any = true;
	stp_uproc_tp_exec = stp_uproc_tp_fork = stp_uproc_tp_exit = NULL;
	if (any)
		tracepoint_synchronize_unregister();
	if (atomic64_read(&stp_uprocs_full))
		stp_info("%lld processes not tracked for process(\"PATH\").end: the table was full (-D STP_MAXUPROCS=N)\n",
			 (long long)atomic64_read(&stp_uprocs_full));
	kvfree(stp_uprocs);
	stp_uprocs = NULL;
	for (i = 0; i < n; i++) {
		struct stp_probe *p = &probes[i];

		if (!stp_is_process_probe(p) || !p->registered)
			continue;
		stp_uprobe_release(p);
		p->registered = false;
	}
}

/* one tracepoint probe; -ENOENT when the running kernel lacks it */
static int stp_uproc_tp_register(struct tracepoint **tp, void *fn,
				 const char *name)
{
	int rc = -ENOENT;

	if (*tp)
		rc = stp_fail_rc("process tracepoint probe", -ENOMEM,
				 tracepoint_probe_register(*tp, fn, NULL));
	if (rc) {
		stp_err("cannot register process probes on tracepoint %s: %s (%d)\n",
			name, stp_errno_text(rc), rc);
		*tp = NULL;
	}
	return rc;
}

/* the PATHs' inodes, the table, the tracepoint probes; sleeps */
static int stp_uprocess_register(struct stp_probe *probes, unsigned int n)
{
	struct tracepoint *exec = NULL, *fork = NULL, *exit = NULL;
	unsigned int i, nbegin = 0, nend = 0, npath = 0;
	struct inode *inode;
	int rc;

	for (i = 0; i < n; i++) {
		struct stp_probe *p = &probes[i];

		if (!stp_is_process_probe(p))
			continue;
		nbegin += p->kind == STP_PROBE_PROCESS_BEGIN;
		nend += p->kind == STP_PROBE_PROCESS_END;
		npath += stp_is_path_end(p);
		memset(&p->u.up, 0, sizeof(p->u.up));
		if (p->path) {
			inode = stp_path_inode(p->path);
			if (IS_ERR(inode)) {
				rc = PTR_ERR(inode);
				stp_err("cannot register probe %s (%s): %s: %s (%d)\n",
					p->name, p->loc, p->path,
					stp_uprobe_errno_text(rc), rc);
				return rc;
			}
			p->u.up.inode = inode;
		}
		p->registered = true;
	}
	if (!nbegin && !nend)
		return 0;
	if (npath > 64) {
		stp_err("more than 64 process(\"PATH\").end probes\n");
		return -E2BIG;
	}
	if (npath) {
		stp_uprocs = stp_fail_null("process table",
			kvcalloc(STP_MAXUPROCS, sizeof(*stp_uprocs), GFP_KERNEL));
		if (!stp_uprocs) {
			stp_err("cannot allocate the table of %d processes\n",
				STP_MAXUPROCS);
			return -ENOMEM;
		}
	}
	for_each_kernel_tracepoint(stp_uproc_tp_find, NULL);
	swap(exec, stp_uproc_tp_exec);
	swap(fork, stp_uproc_tp_fork);
	swap(exit, stp_uproc_tp_exit);
	if (nbegin || npath) {
		stp_uproc_tp_exec = exec;
		rc = stp_uproc_tp_register(&stp_uproc_tp_exec, (void *)stp_uproc_exec,
					   "sched_process_exec");
		if (rc)
			return rc;
	}
	if (npath) {
		stp_uproc_tp_fork = fork;
		rc = stp_uproc_tp_register(&stp_uproc_tp_fork, (void *)stp_uproc_fork,
					   "sched_process_fork");
		if (rc)
			return rc;
	}
	if (nend) {
		stp_uproc_tp_exit = exit;
		rc = stp_uproc_tp_register(&stp_uproc_tp_exit, (void *)stp_uproc_exit,
					   "sched_process_exit");
		if (rc)
			return rc;
	}
	/* after the exec and fork probes: no process escapes both */
	if (npath)
		stp_uproc_scan();
	return 0;
}

#endif /* STP_HAVE_UPROBES */

#endif /* STP_UPROCESS_H */
