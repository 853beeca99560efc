/*
 * shim.h - just enough of the kernel for runtime/stp_pmu_table.h and
 * runtime/stp_pmu_match.h to compile as a user-space program, so that
 * pmu_runtime_match_test.cpp runs the runtime's row choice on the tables
 * pmu/fat_emit.cpp writes. CPUID comes from asm/processor.h here, which
 * answers from fake_cpu; perf_event_create_kernel_counter gives a PMU whose
 * type is fake_generic_pmu_type.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CONFIG_X86 1
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#define BIT(n) (1UL << (n))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define min_t(t, a, b) ({ t a_ = (a), b_ = (b); a_ < b_ ? a_ : b_; })	/* once each, as the kernel's */
#define smp_processor_id() 0

static int scnprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!len)
		return 0;
	va_start(ap, fmt);
	n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	return n < 0 ? 0 : (size_t)n >= len ? (int)len - 1 : n;
}

static size_t strscpy(char *d, const char *s, size_t n)
{
	snprintf(d, n, "%s", s);
	return strlen(d);
}

#define stp_err(...) fprintf(stdout, "error: " __VA_ARGS__)
/* the fault injection wrappers: without STP_FAULT_INJECT each is its call */
#include "stp_fault.h"
static const char *stp_errno_text(int err) { (void)err; return "?"; }

struct pmu { int type; };
struct perf_event { struct pmu *pmu; };
static struct pmu fake_pmu;
static struct perf_event fake_event = { &fake_pmu };
static int fake_generic_pmu_type = -1;	/* -1: no PMU (-ENOENT) */
#define IS_ERR(p) ((p) == NULL)
static struct perf_event *perf_event_create_kernel_counter(struct perf_event_attr *a, int cpu,
							   void *task, void *cb, void *ctx)
{
	(void)cpu, (void)task, (void)cb, (void)ctx;
	if (fake_generic_pmu_type < 0 || a->type != PERF_TYPE_HARDWARE)
		return NULL;
	fake_pmu.type = fake_generic_pmu_type;
	return &fake_event;
}
static void perf_event_release_kernel(struct perf_event *e) { (void)e; }

struct stp_probe;
static int stp_pmu_init(struct stp_probe *p, unsigned int n) { (void)p, (void)n; return 0; }

/* the kernel's headers that stp_kernel.h would give the runtime */
#include <asm/processor.h>
