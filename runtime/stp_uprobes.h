/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_uprobes.h - user-space probes: process("PATH").function, .statement,
 * .mark (uprobes), .return (uretprobes), and process.begin/.end.
 *
 * Each uprobe point names an ELF file (p->path) and the file offset of the
 * probed instruction (p->uoffset, with its link-time address p->uvaddr and
 * an SDT semaphore's file offset p->semaphore). Registration looks the
 * path up (kern_path), holds its inode (igrab; iput at unregistration) and
 * registers a uprobe_consumer on (inode, offset): the kernel places the
 * breakpoint in every process that maps the file, now and later.
 *
 * Handlers run in the probed task's context; they go through
 * stp_run_probe_data() like kprobes (interrupts off, busy context, global
 * trylock; nothing sleeps). A uprobe's context entry is the binary's load
 * bias (ip - uvaddr), which static variables need.
 *
 * -c CMD / -x PID (_stp_target > 0): user probes fire only in the target's
 * process tree (the target or a descendant of it), as SystemTap's do;
 * otherwise in every process.
 *
 * uretprobes: the handler at function entry saves the probe's location
 * variables ($param, @entry(...)) and the load bias in a slot of the
 * probe's entry table; the return handler finds the slot by (thread, stack
 * pointer at return), runs the body with the slot as the context's entry,
 * and frees it. See docs/runtime.md "User-space probes".
 *
 * process.begin / process("PATH").begin: sched_process_exec, after the
 * new program is mapped (PATH: the program's inode is PATH's).
 * process.end / process("PATH").end: sched_process_exit of a thread
 * group's last thread. The exiting task has no mm any more, so which
 * processes run PATH is tracked: processes found at load, each exec and
 * each fork of a tracked process (a bounded table; a full one skips and
 * counts).
 *
 * Only compiled when the generated file defines STP_HAVE_UPROBES.
 */
#ifndef STP_UPROBES_H
#define STP_UPROBES_H

#ifdef STP_HAVE_UPROBES

/* slots of one uretprobe's entry table (a power of two) */
#ifndef STP_UENTRY_SLOTS
#define STP_UENTRY_SLOTS 1024
#endif
/* slots an entry or a return looks at, from its hash on */
#define STP_UENTRY_WINDOW 16
/* processes tracked for process("PATH").end */
#ifndef STP_MAXUPROCS
#define STP_MAXUPROCS 1024
#endif

/* stack pointer at return minus stack pointer at the entry breakpoint */
#ifdef CONFIG_X86_64
#define STP_URET_SP_ADJ 8	/* ret pops the return address */
#else
#define STP_URET_SP_ADJ 0	/* arm64: the return address is in x30 */
#endif

/* whether t is the target process or one of its descendants (no target: all) */
static bool stp_in_target_tree(struct task_struct *t)
{
	bool in = false;
	int depth;

	if (_stp_target <= 0)
		return true;
	rcu_read_lock();
	for (depth = 0; depth < 512; depth++) {
		if (task_tgid_nr(t) == _stp_target) {
			in = true;
			break;
		}
		if (task_pid_nr(t) <= 1)
			break;
		t = rcu_dereference(t->real_parent);
	}
	rcu_read_unlock();
	return in;
}

/* ---- uretprobe entry tables ---- */

enum { STP_UE_FREE, STP_UE_BUSY, STP_UE_READY };

struct stp_uentry_slot {
	atomic_t state;			/* STP_UE_* */
	pid_t pid;			/* the thread, */
	u64 start;			/* with its start_time */
	unsigned long sp;		/* stack pointer the return will have */
	u64 data[];			/* ntvars values, fault mask, load bias */
};

struct stp_uentry_table {
	unsigned int slot_size;		/* bytes of one slot */
	atomic64_t full;		/* entries not saved: no free slot */
	char slots[];
};

static inline struct stp_uentry_slot *stp_uentry_at(struct stp_uentry_table *t,
						    unsigned int i)
{
	return (struct stp_uentry_slot *)(t->slots +
		(size_t)(i & (STP_UENTRY_SLOTS - 1)) * t->slot_size);
}

static inline unsigned int stp_uentry_hash(pid_t pid, unsigned long sp)
{
	return hash_64(((u64)pid << 40) ^ (u64)sp, ilog2(STP_UENTRY_SLOTS));
}

static struct stp_uentry_table *stp_uentry_alloc(const struct stp_probe *p)
{
	size_t slot = ALIGN(sizeof(struct stp_uentry_slot) +
			    stp_entry_words(p) * sizeof(u64), sizeof(u64));
	struct stp_uentry_table *t;

	BUILD_BUG_ON(!is_power_of_2(STP_UENTRY_SLOTS));
	t = stp_fail_null("uretprobe entry table",
			  kvzalloc(sizeof(*t) + slot * STP_UENTRY_SLOTS, GFP_KERNEL));
	if (t)
		t->slot_size = slot;
	return t;
}

/*
 * Whether a saved slot is stale: its thread has exited (a call that never
 * returned), or it is this thread's at a stack pointer the new entry's
 * frame has reused (a call left by longjmp). Runs under RCU.
 */
static bool stp_uentry_stale(struct stp_uentry_slot *s, unsigned long sp)
{
	struct task_struct *t;

	if (s->pid == current->pid && s->start == current->start_time)
		return s->sp <= sp;
	t = pid_task(find_pid_ns(s->pid, &init_pid_ns), PIDTYPE_PID);
	return !t || t->start_time != s->start;
}

/*
 * A slot for the entry of the current thread whose return will have stack
 * pointer sp, marked busy; NULL when the window has none free (counted).
 */
static struct stp_uentry_slot *stp_uentry_claim(struct stp_uentry_table *t,
						unsigned long sp)
{
	unsigned int h = stp_uentry_hash(current->pid, sp), i;
	struct stp_uentry_slot *s;

	for (i = 0; i < STP_UENTRY_WINDOW; i++) {
		s = stp_uentry_at(t, h + i);
		if (atomic_cmpxchg(&s->state, STP_UE_FREE, STP_UE_BUSY) == STP_UE_FREE)
			goto claimed;
	}
	rcu_read_lock();
	for (i = 0; i < STP_UENTRY_WINDOW; i++) {
		s = stp_uentry_at(t, h + i);
		if (atomic_read(&s->state) != STP_UE_READY || !stp_uentry_stale(s, sp) ||
		    atomic_cmpxchg(&s->state, STP_UE_READY, STP_UE_BUSY) != STP_UE_READY)
			continue;
		/* judged on fields read before it was ours: again, now stable */
		if (stp_uentry_stale(s, sp)) {
			rcu_read_unlock();
			goto claimed;
		}
		atomic_set_release(&s->state, STP_UE_READY);
	}
	rcu_read_unlock();
	atomic64_inc(&t->full);
	return NULL;

claimed:
	s->pid = current->pid;
	s->start = current->start_time;
	s->sp = sp;
	return s;
}

/* the current thread's saved slot for a return at stack pointer sp, busy */
static struct stp_uentry_slot *stp_uentry_take(struct stp_uentry_table *t,
					       unsigned long sp)
{
	unsigned int h = stp_uentry_hash(current->pid, sp), i;
	struct stp_uentry_slot *s;

	for (i = 0; i < STP_UENTRY_WINDOW; i++) {
		s = stp_uentry_at(t, h + i);
		if (atomic_read(&s->state) != STP_UE_READY || s->pid != current->pid ||
		    s->sp != sp || s->start != current->start_time)
			continue;
		if (atomic_cmpxchg(&s->state, STP_UE_READY, STP_UE_BUSY) == STP_UE_READY)
			return s;
	}
	return NULL;
}

/* ---- handlers ---- */

static STP_UPROBE_HANDLER(stp_uprobe_handler)
{
	const struct stp_probe *p = container_of(self, struct stp_probe, u.up.uc);
	u64 bias;

	if (stp_state() != STP_STATE_RUNNING || !stp_in_target_tree(current))
		return 0;
	/* the handler sees ip at the probed instruction */
	bias = instruction_pointer(regs) - p->uvaddr;
	stp_run_probe_data(p, regs, STP_STATE_RUNNING, &bias);
	return 0;
}

/* uretprobes with location variables or @entry(expr): saves them at entry */
static STP_UPROBE_HANDLER(stp_uretprobe_entry)
{
	const struct stp_probe *p = container_of(self, struct stp_probe, u.up.uc);
	struct stp_uentry_table *t = p->u.up.entries;
	struct stp_uentry_slot *s;
	u64 bias;

	if (!t || stp_state() != STP_STATE_RUNNING || !stp_in_target_tree(current))
		return 0;
	s = stp_uentry_claim(t, user_stack_pointer(regs) + STP_URET_SP_ADJ);
	if (!s) {
		stp_count_skipped();
		return 0;
	}
	bias = instruction_pointer(regs) - p->uvaddr;
	stp_tvar_save_entry_bias(p, regs, s->data, bias);
	s->data[p->ntvars + 1] = bias;
	if (p->entry_fn && !stp_run_entry_fn(p, regs, s->data)) {
		atomic_set_release(&s->state, STP_UE_FREE);
		return 0;
	}
	atomic_set_release(&s->state, STP_UE_READY);
	return 0;
}

static STP_URETPROBE_HANDLER(stp_uretprobe_handler)
{
	const struct stp_probe *p = container_of(self, struct stp_probe, u.up.uc);
	struct stp_uentry_table *t = p->u.up.entries;
	struct stp_uentry_slot *s;

	if (!stp_in_target_tree(current))
		return 0;
	if (!t) {
		stp_run_probe_data(p, regs, STP_STATE_RUNNING, NULL);
		return 0;
	}
	/* an entry not saved (table full, or before the session ran): skipped */
	s = stp_uentry_take(t, user_stack_pointer(regs));
	if (!s)
		return 0;
	stp_run_probe_data(p, regs, STP_STATE_RUNNING, s->data);
	atomic_set_release(&s->state, STP_UE_FREE);
	return 0;
}

/* ---- registration ---- */

static inline bool stp_is_uprobe(const struct stp_probe *p)
{
	return p->kind == STP_PROBE_UPROBE || p->kind == STP_PROBE_URETPROBE;
}

static inline bool stp_is_process_probe(const struct stp_probe *p)
{
	return p->kind == STP_PROBE_PROCESS_BEGIN || p->kind == STP_PROBE_PROCESS_END;
}

/* texts for the errors of kern_path() and uprobe_register() */
static const char *stp_uprobe_errno_text(int err)
{
	switch (-err) {
	case ENOENT:
		return "no such file";
	case EINVAL:
		return "offset beyond the file, or not a regular file";
	case EEXIST:
		return "probe point already registered";
	default:
		return stp_errno_text(err);
	}
}

/* the inode of path, held; an errno on failure */
static struct inode *stp_path_inode(const char *name)
{
	struct path path;
	struct inode *inode;
	int rc;

	rc = kern_path(name, LOOKUP_FOLLOW, &path);
	if (rc)
		return ERR_PTR(rc);
	inode = d_backing_inode(path.dentry);
	if (!S_ISREG(inode->i_mode))
		inode = ERR_PTR(-EINVAL);
	else
		inode = igrab(inode);
	path_put(&path);
	return inode ? inode : ERR_PTR(-ENOENT);
}

static void stp_uprobe_release(struct stp_probe *p)
{
	if (p->u.up.inode)
		iput(p->u.up.inode);
	p->u.up.inode = NULL;
	kvfree(p->u.up.entries);
	p->u.up.entries = NULL;
}

/* registers one uprobe or uretprobe; 0 also for a skipped optional one */
static int stp_uprobe_register_one(struct stp_probe *p)
{
	struct inode *inode;
	int rc;

	memset(&p->u.up, 0, sizeof(p->u.up));
	inode = stp_path_inode(p->path);
	if (IS_ERR(inode)) {
		rc = PTR_ERR(inode);
		goto fail;
	}
	p->u.up.inode = inode;
	if (p->kind == STP_PROBE_URETPROBE) {
		p->u.up.uc.ret_handler = stp_uretprobe_handler;
		if (p->ntvars || p->entry_fn) {
			p->u.up.entries = stp_uentry_alloc(p);
			if (!p->u.up.entries) {
				rc = -ENOMEM;
				goto fail;
			}
			p->u.up.uc.handler = stp_uretprobe_entry;
		}
	} else {
		p->u.up.uc.handler = stp_uprobe_handler;
	}
	rc = stp_fail_rc("uprobe", -EINVAL,
			 stp_uprobe_register(inode, p->uoffset, p->semaphore,
					     &p->u.up.uc, &p->u.up.handle));
	if (rc)
		goto fail;
	p->registered = true;
	return 0;

fail:
	stp_uprobe_release(p);
	if (p->optional) {
		stp_info("optional probe %s (%s) skipped: %s: %s (%d)\n", p->name,
			 p->loc, p->path, stp_uprobe_errno_text(rc), rc);
		return 0;
	}
	stp_err("cannot register probe %s (%s) at %s+0x%llx: %s (%d)\n",
		p->name, p->loc, p->path, p->uoffset, stp_uprobe_errno_text(rc), rc);
	return rc;
}

#endif /* STP_HAVE_UPROBES */

#endif /* STP_UPROBES_H */
