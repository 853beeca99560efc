/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_runtime.h - everything a generated module's probe bodies use.
 * See docs/runtime.md for the contract with the translator.
 *
 * The generated file includes stp_limits.h, defines union stp_locals,
 * includes this header, emits its tables and bodies, then includes
 * stp_module.h.
 */
#ifndef STP_RUNTIME_H
#define STP_RUNTIME_H

#include "stp_compat.h"
#include "stp_limits.h"
#include "stp_fault.h"
#include "stp_context.h"
#include "stp_output.h"
#include "stp_builtins.h"
#include "stp_stat.h"
#include "stp_string.h"
#include "stp_map.h"
#include "stp_pmu.h"
#include "stp_pmu_thread.h"
#include "stp_tvar.h"
#include "stp_uaccess.h"
#include "stp_task.h"
#include "stp_tracepoint.h"
#include "stp_backtrace.h"
#include "stp_probes.h"
#include "stp_uprobes.h"
#include "stp_procfs.h"

#endif /* STP_RUNTIME_H */
