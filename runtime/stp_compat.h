/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_compat.h - the only place that tests LINUX_VERSION_CODE (the kernel
 * headers are stp_kernel.h). Everything else uses the wrappers defined here.
 *
 * Built and run by the tests on Debian's 6.1 and 6.12 lines (6.12's
 * PREEMPT_RT flavour and arm64 builds included). The branches
 * for other kernels follow the kernel's API history (proc_ops 5.6,
 * get_kretprobe 5.11, task_struct's __state 5.14, hrtimer_setup 6.13) but
 * no test builds them.
 */
#ifndef STP_COMPAT_H
#define STP_COMPAT_H

#include "stp_kernel.h"

#if LINUX_VERSION_CODE < KERNEL_VERSION(5, 4, 0)
#error "stap-pmu runtime: kernels older than 5.4 are not supported"
#endif

/* procfs operations: struct proc_ops since 5.6, file_operations before */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 6, 0)
#define STP_PROC_OPS(name, open_fn, read_fn, write_fn, release_fn)	\
	static const struct proc_ops name = {				\
		.proc_open = (open_fn),					\
		.proc_read = (read_fn),					\
		.proc_write = (write_fn),				\
		.proc_release = (release_fn),				\
		.proc_lseek = noop_llseek,				\
	}
#else
#define STP_PROC_OPS(name, open_fn, read_fn, write_fn, release_fn)	\
	static const struct file_operations name = {			\
		.owner = THIS_MODULE,					\
		.open = (open_fn),					\
		.read = (read_fn),					\
		.write = (write_fn),					\
		.release = (release_fn),				\
		.llseek = noop_llseek,					\
	}
#endif

/* a /proc entry's data: pde_data() since 5.17, PDE_DATA() before */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 17, 0)
#define stp_pde_data(inode) pde_data(inode)
#else
#define stp_pde_data(inode) PDE_DATA(inode)
#endif

/* the kretprobe of an instance: get_kretprobe() since 5.11 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
#define stp_get_kretprobe(ri) get_kretprobe(ri)
#else
#define stp_get_kretprobe(ri) ((ri)->rp)
#endif

/* hrtimer_setup() since 6.13; hrtimer_init() + .function before */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define stp_hrtimer_setup(t, fn, clock, mode) hrtimer_setup(t, fn, clock, mode)
#else
static inline void stp_hrtimer_setup(struct hrtimer *t,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(t, clock, mode);
	t->function = fn;
}
#endif

/*
 * The perf event context of task t that holds events of PMU pmu, read
 * under RCU: one context per task since 6.2 (perf_event_ctxp), one per
 * context type before (perf_event_ctxp[pmu->task_ctx_nr]: hardware or
 * software). Its event_list is RCU-safe in both.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define stp_task_perf_ctx(t, pmu) rcu_dereference((t)->perf_event_ctxp)
#else
#define stp_task_perf_ctx(t, pmu) \
	rcu_dereference((t)->perf_event_ctxp[(pmu)->task_ctx_nr])
#endif

/*
 * A probe on the sched_switch tracepoint (its prototype gained prev_state
 * in 5.18): STP_SCHED_SWITCH_PROBE(name) starts the definition of
 * void name(void *data, bool preempt, struct task_struct *prev,
 * struct task_struct *next[, unsigned int prev_state]).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0)
#define STP_SCHED_SWITCH_PROBE(name) \
	void name(void *data, bool preempt, struct task_struct *prev, \
		  struct task_struct *next, unsigned int prev_state)
#else
#define STP_SCHED_SWITCH_PROBE(name) \
	void name(void *data, bool preempt, struct task_struct *prev, \
		  struct task_struct *next)
#endif

/*
 * arm64 PMU counter width flags of struct hw_perf_event.flags
 * (include/linux/perf/arm_pmu.h): ARMPMU_EVT_64BIT since 4.x,
 * ARMPMU_EVT_47BIT since 5.18 (Apple M1), 63-bit PMUv3p5 handling in the
 * driver's own bias. Without 64BIT/47BIT a counter is 32 bits wide.
 */
#ifdef CONFIG_ARM64
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 18, 0)
#define STP_ARMPMU_EVT_47BIT ARMPMU_EVT_47BIT
#else
#define STP_ARMPMU_EVT_47BIT 0
#endif
#endif

/*
 * arm64 PMUv3: which counter an active event's hw.idx names
 * (drivers/perf/arm_pmuv3.c). Up to 6.11 idx 0 is the cycle counter
 * PMCCNTR_EL0 and idx n >= 1 is PMEVCNTR<n-1>_EL0; since 6.12 the driver
 * uses the counter number itself: idx n < 31 is PMEVCNTR<n>_EL0, the cycle
 * counter is ARMV8_PMU_CYCLE_IDX (31) and the instruction counter
 * (FEAT_PMUv3_ICNTR) 32. STP_ARMV8_EVCNTR_IDX(n) is the idx of
 * PMEVCNTR<n>_EL0.
 */
#ifdef CONFIG_ARM64
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define STP_ARMV8_CYCLE_IDX ARMV8_PMU_CYCLE_IDX
#define STP_ARMV8_EVCNTR_IDX(n) (n)
#else
#define STP_ARMV8_CYCLE_IDX 0
#define STP_ARMV8_EVCNTR_IDX(n) ((n) + 1)
#endif
#endif

/*
 * arm64: a kernel return address without its pointer authentication code
 * (stp_backtrace.h): ptrauth_strip_kernel_insn_pac() since 6.4,
 * ptrauth_strip_insn_pac() before.
 */
#ifdef CONFIG_ARM64
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 4, 0)
#define stp_strip_pac(lr) ptrauth_strip_kernel_insn_pac(lr)
#else
#define stp_strip_pac(lr) ptrauth_strip_insn_pac(lr)
#endif
#endif

/*
 * The return address that a kretprobe (or another rethook user) of the
 * current task saved when it replaced the link register of the call whose
 * caller's frame pointer is fp (arm64 saves x30 and x29 at the function's
 * entry), or 0: current->rethooks where kretprobes use rethook,
 * current->kretprobe_instances since 5.11 (a global hash before: 0). Reads
 * a list only this task changes; at most 64 entries.
 */
static inline unsigned long stp_kretprobe_saved_ret(unsigned long fp)
{
#if defined(CONFIG_KRETPROBE_ON_RETHOOK)
	struct llist_node *n = READ_ONCE(current->rethooks.first);
	const struct rethook_node *rh;
	int i;

	for (i = 0; n && i < 64; i++, n = READ_ONCE(n->next)) {
		rh = container_of(n, struct rethook_node, llist);
		if (rh->frame == fp)
			return rh->ret_addr;
	}
#elif defined(CONFIG_KRETPROBES) && LINUX_VERSION_CODE >= KERNEL_VERSION(5, 11, 0)
	struct llist_node *n = READ_ONCE(current->kretprobe_instances.first);
	const struct kretprobe_instance *ri;
	int i;

	for (i = 0; n && i < 64; i++, n = READ_ONCE(n->next)) {
		ri = container_of(n, struct kretprobe_instance, llist);
		if ((unsigned long)ri->fp == fp)
			return (unsigned long)ri->ret_addr;
	}
#endif
	return 0;
}

/*
 * uprobes (stp_uprobes.h). Up to 6.11 uprobe_register() and
 * uprobe_register_refctr() return an errno and uprobe_unregister(inode,
 * offset, consumer) waits for the consumer's running handlers; since 6.12
 * uprobe_register(inode, offset, ref_ctr_offset, consumer) returns the
 * struct uprobe (or an ERR_PTR), uprobe_unregister_nosync(uprobe,
 * consumer) removes it and uprobe_unregister_sync() (once, after all of
 * them) waits for running handlers. Since 6.13 the handlers take a
 * __u64 *data (session consumers). The handle is NULL before 6.12.
 * STP_UPROBE_HANDLER(name) / STP_URETPROBE_HANDLER(name) declare a
 * handler of the running kernel's signature with self, (func,) regs.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
#define STP_UPROBE_HANDLER(name) \
	int name(struct uprobe_consumer *self, struct pt_regs *regs, __u64 *data)
#define STP_URETPROBE_HANDLER(name) \
	int name(struct uprobe_consumer *self, unsigned long func, \
		 struct pt_regs *regs, __u64 *data)
#else
#define STP_UPROBE_HANDLER(name) \
	int name(struct uprobe_consumer *self, struct pt_regs *regs)
#define STP_URETPROBE_HANDLER(name) \
	int name(struct uprobe_consumer *self, unsigned long func, \
		 struct pt_regs *regs)
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
static inline int stp_uprobe_register(struct inode *inode, loff_t offset,
				      loff_t ref_ctr_offset,
				      struct uprobe_consumer *uc, void **handle)
{
	struct uprobe *u = uprobe_register(inode, offset, ref_ctr_offset, uc);

	if (IS_ERR(u))
		return PTR_ERR(u);
	*handle = u;
	return 0;
}

static inline void stp_uprobe_unregister_nosync(struct inode *inode,
						loff_t offset,
						struct uprobe_consumer *uc,
						void *handle)
{
	uprobe_unregister_nosync(handle, uc);
}

static inline void stp_uprobe_unregister_sync(void)
{
	uprobe_unregister_sync();
}
#else
static inline int stp_uprobe_register(struct inode *inode, loff_t offset,
				      loff_t ref_ctr_offset,
				      struct uprobe_consumer *uc, void **handle)
{
	*handle = NULL;
	if (ref_ctr_offset)
		return uprobe_register_refctr(inode, offset, ref_ctr_offset, uc);
	return uprobe_register(inode, offset, uc);
}

/* waits for the consumer's running handlers itself */
static inline void stp_uprobe_unregister_nosync(struct inode *inode,
						loff_t offset,
						struct uprobe_consumer *uc,
						void *handle)
{
	uprobe_unregister(inode, offset, uc);
}

static inline void stp_uprobe_unregister_sync(void)
{
}
#endif

/*
 * Ticks per second of get_cycles(): the TSC's rate on x86 (tsc_khz), the
 * generic timer's on arm64 (CNTFRQ_EL0); 0 when unknown.
 */
static inline u64 stp_cycles_per_sec(void)
{
#if defined(CONFIG_X86)
	return boot_cpu_has(X86_FEATURE_TSC) ? (u64)tsc_khz * 1000 : 0;
#elif defined(CONFIG_ARM64)
	return arch_timer_get_cntfrq();
#else
	return 0;
#endif
}

/*
 * Entry probes through one ftrace_ops (stp_ftrace.h): x86-64 kernels with
 * DYNAMIC_FTRACE_WITH_REGS (6.1 and 6.12 alike), where the callback gets
 * the full pt_regs a kprobe handler would (FTRACE_OPS_FL_SAVE_REGS,
 * ftrace_get_regs()). arm64 keeps kprobes at entry: 6.2+ has only
 * WITH_ARGS (no full pt_regs) and its backtraces start from a BRK kprobe's
 * exception frame (stp_backtrace.h). -D STP_NO_FTRACE_OPS forces kprobes.
 */
#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS) && \
	!defined(STP_NO_FTRACE_OPS)
#define STP_HAVE_FTRACE_OPS 1
/*
 * the ip a kprobe's pre_handler sees at a function's ftrace site (x86:
 * just past the int3 it emulates): handlers see the same through ftrace
 */
#define STP_FTRACE_HANDLER_IP(ip) ((ip) + sizeof(kprobe_opcode_t))
/* the ftrace site is at most this far into a function (x86 IBT: ENDBR64 first) */
#define STP_FTRACE_SITE_MAX 16
#endif

/*
 * Entry probes through a direct call (stp_ftrace.h): the ftrace site calls
 * the module's own trampoline instead of the ftrace trampoline and an ops
 * callback. x86-64 kernels with DYNAMIC_FTRACE_WITH_DIRECT_CALLS (Debian's
 * 6.1 and 6.12), for scripts whose bodies read no registers
 * (STP_NO_ENTRY_REGS: the trampoline saves only the argument registers).
 * 6.5 renamed register_ftrace_direct_multi() to register_ftrace_direct()
 * (the old single-address register_ftrace_direct went) and gave the
 * unregister call a free-the-filter flag. -D STP_NO_FTRACE_DIRECT keeps
 * the ftrace_ops.
 */
#if defined(STP_HAVE_FTRACE_OPS) && defined(STP_NO_ENTRY_REGS) && \
	defined(CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS) && \
	!defined(STP_NO_FTRACE_DIRECT)
#define STP_HAVE_FTRACE_DIRECT 1

static inline int stp_register_ftrace_direct(struct ftrace_ops *ops,
					     unsigned long addr)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	return register_ftrace_direct(ops, addr);
#else
	return register_ftrace_direct_multi(ops, addr);
#endif
}

/*
 * The most sites one direct registration takes. Before 6.5 the kernel
 * adds them to its table of direct calls one at a time, growing the table
 * (to twice the size) whenever it holds more than 64 << k entries, and
 * frees only the last table a registration replaced: growing twice in one
 * registration leaks the table before (kmemleak, 6.1.192, 695 sites). The
 * thresholds are at least 64 apart, so 64 sites grow it at most once
 * whatever it held before; more go through the ftrace_ops. 6.5 on builds
 * the new table once per registration.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define STP_FTRACE_DIRECT_MAX UINT_MAX
#else
#define STP_FTRACE_DIRECT_MAX 64
#endif

/* also frees the ops' filter */
static inline void stp_unregister_ftrace_direct(struct ftrace_ops *ops,
						unsigned long addr)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	unregister_ftrace_direct(ops, addr, true);
#else
	unregister_ftrace_direct_multi(ops, addr);
	ftrace_free_filter(ops);
#endif
}

/* return-stack depth accounting of a call (6.2+, call depth tracking) */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define CALL_DEPTH_ACCOUNT ""
#endif
#endif

/* task_struct's scheduler state: __state (unsigned) since 5.14, long state before */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 14, 0)
#define STP_TASK_STATE_MEMBER __state
#define STP_TASK_STATE_SIGNED 0
#else
#define STP_TASK_STATE_MEMBER state
#define STP_TASK_STATE_SIGNED 1
#endif

/* the CPU a task runs on, in the task_struct: thread_info.cpu since 5.16 */
#if defined(CONFIG_SMP) && defined(CONFIG_THREAD_INFO_IN_TASK)
#if LINUX_VERSION_CODE >= KERNEL_VERSION(5, 16, 0)
#define STP_TASK_CPU_MEMBER thread_info.cpu
#else
#define STP_TASK_CPU_MEMBER cpu
#endif
#endif

#endif /* STP_COMPAT_H */
