/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_runtime.h - everything a generated module's probe bodies use, in
 * layers. See docs/runtime.md for the contract with the translator.
 *
 * The generated file includes stp_limits.h, defines union stp_locals,
 * includes this header, emits its tables and bodies, then includes
 * stp_module.h (module init and exit, which use those tables).
 *
 * The layers below come in this one order, and each header uses only what
 * the headers before it define: no header includes another (but for the
 * kernel's headers, which stp_kernel.h holds, at the bottom), and the only
 * prototypes that cross layers are in stp_decls.h.
 * tests/runtime/layers.sh fails when a header uses a function defined in
 * a later one. A new header is added here, in the layer of its concern.
 */
#ifndef STP_RUNTIME_H
#define STP_RUNTIME_H

/* 1. the build: the kernel's headers and version wrappers, the limits, fault injection */
#include "stp_limits.h"			/* includes stp_kernel.h */
#include "stp_compat.h"
#include "stp_fault.h"

/* 2. the session and the per-CPU probe context (a regex match is kept there) */
#ifdef STP_HAVE_REGEX
#include "stp_regex.h"
#endif
#include "stp_context.h"
#include "stp_decls.h"

/* 3. the output transport */
#include "stp_output.h"

/* 4. what probe bodies call */
#include "stp_builtins.h"
#include "stp_stat.h"
#include "stp_string.h"
#include "stp_map.h"
#include "stp_tvar.h"
#include "stp_uaccess.h"
#include "stp_task.h"
#include "stp_usym.h"
#include "stp_backtrace.h"
#include "stp_ubacktrace.h"

/* 5. running a probe, and the handlers of each probe kind */
#include "stp_handlers.h"
#include "stp_ftrace.h"
#include "stp_tracepoint.h"
#include "stp_netfilter.h"
#include "stp_uprobes.h"
#include "stp_uprocess.h"
#include "stp_procfs.h"

/* 6. counters: the fat table, a row per CPU, reads; per-task counters; set-up
 *    (a sampling counter runs its probe through stp_handlers.h) */
#include "stp_pmu_table.h"
#include "stp_pmu_match.h"
#include "stp_pmu_read.h"
#include "stp_pmu.h"
#include "stp_pmu_tasks.h"
#include "stp_pmu_thread.h"
#include "stp_pmu_setup.h"

/* 7. the probe table registered and unregistered */
#include "stp_probes.h"

/* 8. the session's control: stop, /proc/<module>/{status,control} */
#include "stp_control.h"

#endif /* STP_RUNTIME_H */
