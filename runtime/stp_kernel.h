/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_kernel.h - every kernel header the runtime uses, and nothing else.
 *
 * The first header a generated module includes (stp_limits.h), so a
 * module sees the kernel's declarations in the same order whether it is
 * built by make or by a replay of kbuild's commands, where this header is
 * precompiled once per kernel build tree and architecture
 * (translator/builder/kbuild_replay.h, docs/runtime.md). It must stay
 * independent of the script: no STP_* macro may decide what it includes
 * (the precompiled copy is shared by every module of that kernel), only
 * the kernel's configuration and which headers the kernel has.
 */
#ifndef STP_KERNEL_H
#define STP_KERNEL_H

#include <linux/version.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/types.h>
#include <linux/errno.h>
#include <linux/err.h>
#include <linux/atomic.h>
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/smp.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/hardirq.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/sched/clock.h>
#include <linux/sched/loadavg.h>
#include <linux/pid.h>
#include <linux/cred.h>
#include <linux/rcupdate.h>
#include <linux/string.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/mm.h>
#include <linux/uaccess.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/kprobes.h>
#include <linux/tracepoint.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/timekeeping.h>
#include <linux/delay.h>
#include <linux/math64.h>
#include <linux/perf_event.h>
#include <linux/cpuhotplug.h>
#include <linux/cpu.h>
#include <linux/timex.h>
#include <linux/uprobes.h>
#include <linux/namei.h>
#include <linux/path.h>
#include <linux/fs.h>
#include <linux/binfmts.h>
#include <linux/kallsyms.h>
#include <linux/stacktrace.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/sort.h>
#include <linux/hash.h>
#include <linux/netfilter.h>
#include <linux/netdevice.h>

/* va_list: <linux/stdarg.h> since 5.15, the compiler's header before */
#if __has_include(<linux/stdarg.h>)
#include <linux/stdarg.h>
#else
#include <stdarg.h>
#endif

#ifdef CONFIG_X86
#include <asm/processor.h>
#include <asm/unwind.h>
#endif

#if defined(CONFIG_X86_64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_REGS)
#include <linux/ftrace.h>
#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
#include <asm/ftrace.h>
#include <asm/ibt.h>
#include <asm/linkage.h>
#include <asm/nospec-branch.h>
#endif
#endif

#ifdef CONFIG_ARM64
#include <linux/perf/arm_pmu.h>
#include <asm/sysreg.h>
#include <asm/cputype.h>
#include <asm/pointer_auth.h>
/* the PMUv3 driver's header, since 6.12 */
#if __has_include(<linux/perf/arm_pmuv3.h>)
#include <linux/perf/arm_pmuv3.h>
#endif
#endif

#endif /* STP_KERNEL_H */
