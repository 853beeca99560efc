/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_limits.h - limits of a generated module, each overridable with -D
 * (the translator emits those #defines before this header).
 *
 * Generated code includes this header BEFORE defining union stp_locals,
 * because the locals use s64 and STP_MAXSTRINGLEN; stp_runtime.h includes
 * it again (include guard).
 */
#ifndef STP_LIMITS_H
#define STP_LIMITS_H

/* the kernel headers first, in one order for every build (stp_kernel.h) */
#include "stp_kernel.h"

#ifndef STP_MODULE_NAME
#define STP_MODULE_NAME KBUILD_MODNAME
#endif

#ifndef STP_SCRIPT_HASH
#define STP_SCRIPT_HASH "unknown"
#endif

#ifndef STP_PMU_TARGETS
#define STP_PMU_TARGETS ""
#endif

#ifndef STP_NEVENTS
#define STP_NEVENTS 0
#endif

/* bytes of a script string, including the terminating NUL */
#ifndef STP_MAXSTRINGLEN
#define STP_MAXSTRINGLEN 512
#endif

/* statements per probe hit (counted per block entered by generated code) */
#ifndef STP_MAXACTION
#define STP_MAXACTION 1000
#endif

/* rounds of trying to take a global's lock before a hit is skipped */
#ifndef STP_MAXTRYLOCK
#define STP_MAXTRYLOCK 100000
#endif

/* microseconds between two rounds of trying to take a global's lock */
#ifndef STP_TRYLOCKDELAY
#define STP_TRYLOCKDELAY 10
#endif

/* depth of script function calls */
#ifndef STP_MAXNESTING
#define STP_MAXNESTING 10
#endif

/* bytes of each CPU's output buffer (stp_output.h; at least 4096) */
#ifndef STP_BUFSIZE
#define STP_BUFSIZE (256 * 1024)
#endif

/* bytes of each CPU's second buffer, for a writer (an NMI) that interrupts
 * a write on its CPU */
#ifndef STP_NESTED_BUFSIZE
#define STP_NESTED_BUFSIZE (STP_BUFSIZE / 4)
#endif

/* bytes one printf can produce (longer output is truncated) */
#ifndef STP_MAXPRINTLEN
#define STP_MAXPRINTLEN 2048
#endif

/* bytes of a probe hit's output collected before it becomes one record
 * (more output makes more records); at least STP_MAXPRINTLEN */
#ifndef STP_PRINT_BUFSIZE
#if STP_MAXPRINTLEN > 8192
#define STP_PRINT_BUFSIZE STP_MAXPRINTLEN
#else
#define STP_PRINT_BUFSIZE 8192
#endif
#endif

/*
 * Overload: a CPU that spent more than STP_OVERLOAD_THRESHOLD ns in probe
 * handlers during an interval of at least STP_OVERLOAD_INTERVAL ns stops the
 * script ("probe overhead exceeded threshold"). SystemTap's names and
 * defaults (50 %), in nanoseconds instead of cycles (stp_handlers.h measures
 * get_cycles() ticks and converts the limits at load).
 * -D STP_NO_OVERLOAD (or SystemTap's STAP_NO_OVERLOAD) turns it off.
 */
#ifndef STP_OVERLOAD_INTERVAL
#define STP_OVERLOAD_INTERVAL 1000000000ULL
#endif
#ifndef STP_OVERLOAD_THRESHOLD
#define STP_OVERLOAD_THRESHOLD 500000000ULL
#endif
/*
 * Overload timing is sampled: one hit in STP_OVERLOAD_SAMPLE (per CPU) reads
 * the clock before and after its body and counts STP_OVERLOAD_SAMPLE times
 * its time; the others pay one decrement. 1: every hit timed (SystemTap).
 */
#ifndef STP_OVERLOAD_SAMPLE
#define STP_OVERLOAD_SAMPLE 16
#endif
#if STP_OVERLOAD_SAMPLE < 1 || STP_OVERLOAD_SAMPLE > 65536
#error "STP_OVERLOAD_SAMPLE (one hit in N timed for the overload check) must be 1 to 65536"
#endif
#if defined(STAP_NO_OVERLOAD) && !defined(STP_NO_OVERLOAD)
#define STP_NO_OVERLOAD 1
#endif

/* entries of an array declared without a size */
#ifndef STP_MAXMAPENTRIES
#define STP_MAXMAPENTRIES 2048
#endif

/* keys of an array: 8, or 9 (SystemTap's most, which the translator
 * refuses beyond) when the script has a 9-key array: the generated code
 * builds a struct stp_key for each array access, and one of 9 slots is
 * zeroed with a memset call whose cost varies (arm64, guest.example_llc_per_call) */
#ifndef STP_MAXKEYS
#define STP_MAXKEYS 8
#endif

/* histogram buckets of the largest @hist_* in the script (set by it) */
#ifndef STP_HIST_MAX
#define STP_HIST_MAX 1
#endif

/* shortest timer period accepted, in nanoseconds */
#ifndef STP_MINTIMER_NS
#define STP_MINTIMER_NS 100000
#endif

/* 1: @pmu reads an active hardware counter directly (rdpmc, PMEVCNTR);
 * 0: always through pmu->read (for comparison and benchmarks) */
#ifndef STP_PMU_DIRECT_READ
#define STP_PMU_DIRECT_READ 1
#endif

#endif /* STP_LIMITS_H */
