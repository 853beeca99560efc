/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_context.h - session state, probe descriptors and the per-CPU probe
 * context.
 *
 * Generated code defines union stp_locals before including stp_runtime.h.
 */
#ifndef STP_CONTEXT_H
#define STP_CONTEXT_H

/* kernel log lines always name the module: "<module>: ..." */
#define stp_err(fmt, ...) pr_err(STP_MODULE_NAME ": " fmt, ##__VA_ARGS__)
#define stp_info(fmt, ...) pr_info(STP_MODULE_NAME ": " fmt, ##__VA_ARGS__)
#define stp_dbg(fmt, ...) pr_debug(STP_MODULE_NAME ": " fmt, ##__VA_ARGS__)

/* session states, in the order they are entered */
enum stp_state {
	STP_STATE_STARTING,
	STP_STATE_RUNNING,
	STP_STATE_EXIT_REQUESTED,	/* exit() or a script error */
	STP_STATE_STOPPING,
	STP_STATE_STOPPED,
};

static const char *const stp_state_names[] = {
	[STP_STATE_STARTING] = "starting",
	[STP_STATE_RUNNING] = "running",
	[STP_STATE_EXIT_REQUESTED] = "exit-requested",
	[STP_STATE_STOPPING] = "stopping",
	[STP_STATE_STOPPED] = "stopped",
};

enum stp_probe_kind {
	STP_PROBE_BEGIN,
	STP_PROBE_END,
	STP_PROBE_KPROBE,
	STP_PROBE_KRETPROBE,
	STP_PROBE_TIMER,
	STP_PROBE_ERROR,		/* run instead of end after script errors */
	STP_PROBE_PERF,			/* overflow of a sampling counter (stp_handlers.h) */
	STP_PROBE_TRACEPOINT,		/* a kernel tracepoint (stp_tracepoint.h) */
	STP_PROBE_NEVER,		/* probe never: compiled, never registered */
	STP_PROBE_PROCFS_READ,		/* a /proc/<module>/ file read (stp_procfs.h) */
	STP_PROBE_PROCFS_WRITE,		/* a /proc/<module>/ file written */
	STP_PROBE_UPROBE,		/* a user-space instruction (stp_uprobes.h) */
	STP_PROBE_URETPROBE,		/* a user-space function's return */
	STP_PROBE_PROCESS_BEGIN,	/* exec of a process (of path, or any) */
	STP_PROBE_PROCESS_END,		/* exit of a process's last thread */
	STP_PROBE_NETFILTER,		/* a netfilter hook (stp_netfilter.h) */
};

/*
 * The kinds of probe the generated table holds, a bit per enum
 * stp_probe_kind (the translator defines STP_PROBE_KINDS; unset: all).
 * Registration code of the other kinds is dead, and gcc drops it with the
 * handlers only it names; stp_probe_check() refuses a probe of a kind the
 * module was built without.
 */
#ifndef STP_PROBE_KINDS
#define STP_PROBE_KINDS (~0U)
#endif
#define stp_kind_compiled(kind) ((STP_PROBE_KINDS >> (kind)) & 1)

struct stp_uentry_table;		/* URETPROBE: entry values (stp_uprobes.h) */

struct stp_context;

/* a statistics aggregate (histogram buckets, when collected, follow it) */
struct stp_stat {
	s64 count;
	s64 sum;
	s64 min;
	s64 max;
	s64 sumsq;			/* for @variance (wraps on overflow) */
};

/*
 * One resolved probe point. Generated code initializes the public fields
 * with designated initializers; the rest belongs to the runtime.
 */
struct stp_tvar;

struct stp_probe {
	/* public */
	enum stp_probe_kind kind;
	const char *symbol;		/* KPROBE, KRETPROBE */
	unsigned int offset;		/* KPROBE: bytes into symbol (0: entry) */
	/* KPROBE, KRETPROBE of a kernel symbol the translator found once in
	 * the target's symbol table: its address minus register_kprobe's
	 * there (KASLR moves both alike); checked against kallsyms at load */
	long long sym_delta;
	int has_sym_delta;
	const char *sym_shown;		/* the name kallsyms gives that address
					   when another alias comes first (NULL: symbol) */
	u64 period_ns;			/* TIMER */
	u64 randomize_ns;		/* TIMER: each period +- up to this */
	const char *name;		/* probe point as written, for messages */
	const char *loc;		/* file:line:col of the probe */
	void (*body)(struct stp_context *c);
	raw_spinlock_t *const *locks;	/* the globals' locks body holds */
	unsigned int nlocks;
	int percpu;			/* the body touches per-CPU globals (scalar
					   statistics, per-CPU numbers): in NMI it
					   never runs over a body on its CPU */
	int optional;			/* a kprobe that cannot be registered is skipped */
	int event;			/* PERF: index of its sampling event */
	u64 sample_period;		/* PERF: events per sample, or */
	u64 sample_freq;		/* PERF: samples per second */
	const struct stp_tvar *tvars;	/* KPROBE, KRETPROBE, TRACEPOINT: target variables */
	unsigned int ntvars;
	const char *tp_name;		/* TRACEPOINT: its name ("sched_switch") */
	void *tp_func;			/* TRACEPOINT: the generated probe function */
	unsigned int tp_nargs;		/* TRACEPOINT: arguments */
	const char *tp_argnames;	/* TRACEPOINT: their names, NUL separated */
	const struct stp_tvar *parms;	/* KPROBE with DWARF: $$parms registers */
	unsigned int nparms;
	const char *parm_names;		/* their names, NUL separated */
	u64 parm_ptrmask;		/* $$parms: bit i, argument i is a pointer
					   (printed hashed unless -g) */
	unsigned char ret_shown;	/* KRETPROBE with a prototype, $$return:
					   0 void, 1 a value, 2 a pointer (hashed) */
	int maxactive;			/* KRETPROBE: .maxactive(N), 0 the default */
	const char *path;		/* UPROBE, URETPROBE: the ELF file probed;
					   PROCESS_BEGIN/END: its program (NULL: any) */
	u64 uoffset;			/* UPROBE, URETPROBE: file offset of the instruction */
	u64 uvaddr;			/* its link-time address (load bias: ip - uvaddr) */
	u64 semaphore;			/* SDT semaphore's file offset (0: none) */
	/* KRETPROBE, URETPROBE: @entry(expr) of other than a target
	 * variable: nentry values entry_fn computes at entry, read at return
	 * as c->entry[ntvars + 2 + i], then a word whose bit i (63: i >= 63)
	 * says value i raised an error at entry, raised again only when the
	 * return body reads it (stp_run_entry_fn(), stp_handlers.h); entry_fn
	 * returns that mask */
	u64 (*entry_fn)(struct stp_context *c, s64 *vals);
	unsigned int nentry;
	int nf_hook;			/* NETFILTER: hook number, */
	int nf_pf;			/* protocol family */
	int nf_priority;		/* and priority */

	/* runtime-private */
	union {
		struct kprobe kp;
		struct kretprobe rp;
		struct hrtimer timer;
		struct tracepoint *tp;
#ifdef STP_HAVE_NETFILTER
		struct nf_hook_ops nfo;
#endif
#ifdef STP_HAVE_UPROBES
		struct {
			struct uprobe_consumer uc;
			struct inode *inode;	/* igrab()bed at registration */
			void *handle;		/* 6.12+: the struct uprobe */
			struct stp_uentry_table *entries; /* URETPROBE */
		} up;
#endif
	} u;
	bool registered;
	unsigned long addr;		/* KPROBE, KRETPROBE: the symbol's address
					   (0: resolved by name at registration) */
	bool via_ftrace;		/* KPROBE: in the ftrace_ops (stp_ftrace.h) */
};

/*
 * The u64 words of a KRETPROBE's or URETPROBE's per-call data: the saved
 * target variables, their fault mask, the load bias, then with @entry
 * values those and their error mask.
 */
static inline unsigned int stp_entry_words(const struct stp_probe *p)
{
	return p->ntvars + 2 + (p->nentry ? p->nentry + 1 : 0);
}

/* per-CPU context of the probe body running on that CPU */
struct stp_context {
	atomic_t busy;			/* > 1: re-entered, the hit is skipped */
	const struct stp_probe *probe;
	const char *loc;		/* updated by generated code (NULL: the
					   probe's own location) */
	struct pt_regs *regs;		/* NULL for begin, end; neither it nor
					   entry is set under STP_NO_ENTRY_REGS */
	const u64 *entry;		/* kretprobe: values saved at entry;
					 * tracepoint: its arguments; uprobe:
					 * the load bias; uretprobe: values
					 * saved at entry (stp_uprobes.h) */

#ifdef STP_HAVE_PROCFS
	char *pvalue;			/* procfs probes: $value (NULL otherwise) */
	u32 pvalue_size;		/* its buffer's size */
#endif
	int error;			/* non-zero after stp_error() */
	int nesting;			/* script function call depth */
	long actions;			/* statements run (MAXACTION) */
	const char *errloc;		/* c->loc when the error was raised */
	char errmsg[STP_MAXSTRINGLEN];	/* message of the pending error */
	char execname[TASK_COMM_LEN];	/* stp_execname() */
	char printbuf[STP_MAXPRINTLEN];	/* error message scratch */
	u32 outlen;			/* bytes in outbuf */
	char outbuf[STP_PRINT_BUFSIZE];	/* this hit's output: one record */
	u64 ovl_base;			/* overload: start of the interval */
	u64 ovl_sum;			/* ticks in handlers since ovl_base */
	u64 ovl_last;			/* end of the last timed hit (0: none) */
	int ovl_left;			/* hits before the next timed one */
	s64 dummy_long;			/* target of a store into a full array */
	char dummy_str[STP_MAXSTRINGLEN];
	struct stp_stat agg;		/* a per-CPU statistic merged for reading */
	s64 agg_hist[STP_HIST_MAX];
	union stp_locals l;
#ifdef STP_HAVE_REGEX
	struct stp_regex_state regex;	/* =~: the last match, the matcher's scratch */
#endif
#ifdef STP_HAVE_FRAMES
	union stp_frame frames[STP_MAXNESTING]; /* script function frames */
#endif
};

/* what the whole module shares */
struct stp_session {
	atomic_t state;			/* enum stp_state */
	atomic_t exit_code;
	atomic64_t skipped;		/* hits not run: busy context, a lock */
	atomic_t errors;		/* script errors */
	bool init_done;			/* module init has returned success */
	bool stopped;			/* stop sequence done */
	struct mutex ctl_mutex;		/* serializes the stop sequence */
	struct stp_probe *probes;	/* the generated probe table */
	unsigned int nprobes;
};

static struct stp_session stp_session = {
	.state = ATOMIC_INIT(STP_STATE_STARTING),
	.ctl_mutex = __MUTEX_INITIALIZER(stp_session.ctl_mutex),
};

/*
 * Two contexts per CPU: [0] for bodies in task, softirq and hardirq
 * context (they run with interrupts off, so they never nest), [1] for
 * bodies in NMI context, which may interrupt a body of [0] on their CPU
 * (NMIs do not nest). stp_ctx_level() picks one; per-CPU scratch a body
 * uses (backtraces, tokenize()) is indexed the same way.
 */
#define STP_CTX_LEVELS 2
static DEFINE_PER_CPU(struct stp_context *, stp_contexts[STP_CTX_LEVELS]);

static __always_inline int stp_ctx_level(void)
{
	return in_nmi() ? 1 : 0;
}

/* this CPU's context for the current (NMI or other) context */
static __always_inline struct stp_context *stp_this_context(void)
{
	return __this_cpu_read(stp_contexts[stp_ctx_level()]);
}

static inline int stp_state(void)
{
	return atomic_read(&stp_session.state);
}

static inline const char *stp_state_name(int state)
{
	if (state < 0 || state >= ARRAY_SIZE(stp_state_names))
		return "unknown";
	return stp_state_names[state];
}

/* RUNNING or STARTING -> EXIT_REQUESTED; later states are left alone */
static inline void stp_request_exit(void)
{
	if (atomic_cmpxchg(&stp_session.state, STP_STATE_RUNNING,
			   STP_STATE_EXIT_REQUESTED) == STP_STATE_RUNNING)
		return;
	atomic_cmpxchg(&stp_session.state, STP_STATE_STARTING,
		       STP_STATE_EXIT_REQUESTED);
}

/*
 * Interrupts off around a probe body in two steps: the raw primitive
 * first, the irq-tracing hooks (lockdep's and the irqsoff tracer's,
 * traceable functions where CONFIG_TRACE_IRQFLAGS has them) only once the
 * body's context is marked busy. A hook that is itself probed then finds
 * the context busy and is skipped, where it would otherwise recurse into
 * the handler without end: the ftrace entry handlers take no recursion
 * lock (stp_ftrace.h). stp_irq_trace_on() before the mark is dropped,
 * raw_local_irq_restore() after.
 */
static __always_inline void stp_irq_trace_off(unsigned long flags)
{
	if (!raw_irqs_disabled_flags(flags))
		trace_hardirqs_off();
}

static __always_inline void stp_irq_trace_on(unsigned long flags)
{
	if (!raw_irqs_disabled_flags(flags))
		trace_hardirqs_on();
}

static inline void stp_count_skipped(void)
{
	atomic64_inc(&stp_session.skipped);
}

static void stp_contexts_free(void)
{
	int cpu, l;

	for_each_possible_cpu(cpu)
		for (l = 0; l < STP_CTX_LEVELS; l++) {
			kvfree(per_cpu(stp_contexts[l], cpu));
			per_cpu(stp_contexts[l], cpu) = NULL;
		}
}

/* the contexts of every possible CPU, on that CPU's node (sleeps) */
static int stp_contexts_alloc(void)
{
	struct stp_context *c;
	int cpu, l;

	for_each_possible_cpu(cpu)
		for (l = 0; l < STP_CTX_LEVELS; l++) {
			c = stp_fail_null("probe context",
					  kvzalloc_node(sizeof(*c), GFP_KERNEL,
							cpu_to_node(cpu)));
			if (!c)
				goto err_free;
			per_cpu(stp_contexts[l], cpu) = c;
		}
	return 0;

err_free:
	stp_err("cannot allocate %zu bytes of probe context for cpu%d\n",
		sizeof(*c), cpu);
	stp_contexts_free();
	return -ENOMEM;
}

#endif /* STP_CONTEXT_H */
