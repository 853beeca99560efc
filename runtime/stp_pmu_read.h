/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_pmu_read.h - reading a hardware counter directly, without pmu->read():
 * x86 rdpmc of the event's counter, arm64 PMUv3 PMCCNTR_EL0/PMEVCNTR<n>_EL0.
 * Used by stp_pmu_read_event() (stp_pmu.h) with interrupts off, for an event
 * active and started on this CPU (hw.state 0: hw.idx, prev_count and the
 * counter agree; docs/runtime.md "Reads that interrupt the PMU rescheduling
 * counters"); any doubt returns false and the caller falls back to
 * pmu->read().
 */
#ifndef STP_PMU_READ_H
#define STP_PMU_READ_H

#if STP_NEVENTS > 0

#if defined(CONFIG_X86)

/* counter widths (x86_pmu.cntval_bits is not exported): CPUID leaf 0xA */
static u32 stp_x86_gp_bits, stp_x86_fixed_bits;

static void stp_pmu_arch_init(void)
{
	u32 eax, ebx, ecx, edx;

	if (boot_cpu_data.x86_vendor == X86_VENDOR_AMD ||
	    boot_cpu_data.x86_vendor == X86_VENDOR_HYGON) {
		stp_x86_gp_bits = 48;
		return;
	}
	if (boot_cpu_data.x86_vendor != X86_VENDOR_INTEL ||
	    boot_cpu_data.cpuid_level < 0xa)
		return;
	cpuid(0xa, &eax, &ebx, &ecx, &edx);
	if (!(eax & 0xff))
		return;		/* no architectural PMU (TCG guests) */
	stp_x86_gp_bits = (eax >> 16) & 0xff;
	if ((eax & 0xff) > 1)
		stp_x86_fixed_bits = (edx >> 5) & 0xff;
}

/* the core PMU's plain counting events; precise and sampling ones (PEBS
 * auto-reload) keep pmu->read */
static bool stp_pmu_fast_ok(struct perf_event *e)
{
	return e->pmu->task_ctx_nr == perf_hw_context && stp_x86_gp_bits &&
	       !e->attr.precise_ip && !is_sampling_event(e);
}

/* rdpmc of the counter the event holds now: raw value and width mask */
static __always_inline bool stp_pmu_read_hw(struct perf_event *e, u64 *raw,
					    u64 *mask)
{
	int idx = READ_ONCE(e->hw.idx);
	u32 bits;

	if (idx < 0)
		return false;
	if (idx < INTEL_PMC_IDX_FIXED)
		bits = stp_x86_gp_bits;
	else if (idx < INTEL_PMC_IDX_FIXED + 8)
		bits = stp_x86_fixed_bits;
	else
		return false;	/* BTS, LBR, topdown metrics */
	if (!bits || bits > 64)
		return false;
	rdpmcl(e->hw.event_base_rdpmc, *raw);
	*mask = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
	return true;
}

/*
 * No inline read on x86 (stp_pmu_read() in stp_pmu.h): every read takes
 * stp_pmu_read_event()'s checks, as no guest here can run rdpmc to measure
 * or test a shorter path (TCG has no x86 PMU).
 */
static bool stp_pmu_inline_ok(struct perf_event *e)
{
	return false;
}

static __always_inline bool stp_pmu_read_hw_inline(struct perf_event *e,
						   u64 *raw, u64 *mask)
{
	return stp_pmu_read_hw(e, raw, mask);
}

#elif defined(CONFIG_ARM64)

static void stp_pmu_arch_init(void)
{
}

/*
 * PMUv3: hw.idx names the cycle counter PMCCNTR_EL0 or an event counter
 * PMEVCNTR<n>_EL0, numbered differently before and since 6.12
 * (STP_ARMV8_CYCLE_IDX, STP_ARMV8_EVCNTR_IDX in stp_compat.h). Counters are 32
 * bits unless the event has ARMPMU_EVT_64BIT; a 64-bit event on an event
 * counter is a chained pair (or a biased PMUv3p5 long counter): those keep
 * pmu->read, as do other arm64 PMUs (Apple's).
 */
static bool stp_pmu_fast_ok(struct perf_event *e)
{
	return e->pmu->task_ctx_nr == perf_hw_context &&
	       !strncmp(to_arm_pmu(e->pmu)->name, "armv8", 5);
}

/*
 * The inline read of stp_pmu_read() (stp_pmu.h, ev_inline): only events
 * without the wide flags, whose counter is 32 bits wherever it is.
 */
static bool stp_pmu_inline_ok(struct perf_event *e)
{
	return !(e->hw.flags & (ARMPMU_EVT_64BIT | STP_ARMPMU_EVT_47BIT));
}

#define STP_EVCNTR(n)						\
	case STP_ARMV8_EVCNTR_IDX(n):				\
		*raw = read_sysreg(pmevcntr##n##_el0);		\
		return true

/*
 * The counter that hw.idx names, read with one mrs of its own register
 * (never through PMSELR_EL0 + PMXEVCNTR_EL0: the selector is the driver's,
 * and a probe inside the driver's select-then-read would change it under
 * the driver); false when idx names no counter (-1: none yet, or no
 * longer). One switch on idx itself: a jump table, no arithmetic first.
 */
static __always_inline bool stp_arm_read_idx(int idx, u64 *raw)
{
	switch (idx) {
	case STP_ARMV8_CYCLE_IDX:
		*raw = read_sysreg(pmccntr_el0);
		return true;
	STP_EVCNTR(0); STP_EVCNTR(1); STP_EVCNTR(2); STP_EVCNTR(3);
	STP_EVCNTR(4); STP_EVCNTR(5); STP_EVCNTR(6); STP_EVCNTR(7);
	STP_EVCNTR(8); STP_EVCNTR(9); STP_EVCNTR(10); STP_EVCNTR(11);
	STP_EVCNTR(12); STP_EVCNTR(13); STP_EVCNTR(14); STP_EVCNTR(15);
	STP_EVCNTR(16); STP_EVCNTR(17); STP_EVCNTR(18); STP_EVCNTR(19);
	STP_EVCNTR(20); STP_EVCNTR(21); STP_EVCNTR(22); STP_EVCNTR(23);
	STP_EVCNTR(24); STP_EVCNTR(25); STP_EVCNTR(26); STP_EVCNTR(27);
	STP_EVCNTR(28); STP_EVCNTR(29); STP_EVCNTR(30);
	}
	return false;
}

/* an event stp_pmu_inline_ok() accepted: 32 bits on any counter */
static __always_inline bool stp_pmu_read_hw_inline(struct perf_event *e,
						   u64 *raw, u64 *mask)
{
	/* 32-bit events on the cycle counter are biased: the mask drops it */
	*mask = 0xffffffffULL;
	return stp_arm_read_idx(READ_ONCE(e->hw.idx), raw);
}

static __always_inline bool stp_pmu_read_hw(struct perf_event *e, u64 *raw,
					    u64 *mask)
{
	if (likely(stp_pmu_inline_ok(e)))
		return stp_pmu_read_hw_inline(e, raw, mask);
	/* a wide event on an event counter is a chained pair (or a biased
	 * PMUv3p5 long counter): pmu->read */
	if (READ_ONCE(e->hw.idx) != STP_ARMV8_CYCLE_IDX)
		return false;
	*raw = read_sysreg(pmccntr_el0);
	*mask = ~0ULL;
	return true;
}

#endif

/*
 * Whether an interrupt that the read does not mask can move prev_count
 * under it: on x86 the PMU interrupt is an NMI, on arm64 only with
 * pseudo-NMIs (ARM64_PSEUDO_NMI; Debian's arm64 kernels have none). Without
 * one, interrupts off keep prev_count and count still for the whole read.
 */
#if defined(CONFIG_X86) || defined(CONFIG_ARM64_PSEUDO_NMI)
#define STP_PMU_NMI_UPDATES 1
#else
#define STP_PMU_NMI_UPDATES 0
#endif

/*
 * What pmu->read() would fold into event->count, without writing: count +
 * ((counter - prev_count) & width). Where an NMI can update the event
 * (STP_PMU_NMI_UPDATES), prev_count is read again: an overflow NMI between
 * the reads moved it and the read is redone. Interrupts are off; the event
 * is active on this CPU. inl (a constant): the event passed
 * stp_pmu_inline_ok(), which spares the width checks.
 */
static __always_inline bool stp_pmu_read_fast_as(struct perf_event *e, u64 *v,
						 bool inl)
{
	u64 prev, count, raw, mask;
	int tries = 0;

	do {
		if (unlikely(++tries > 4))
			return false;
		prev = local64_read(&e->hw.prev_count);
		barrier();
		count = local64_read(&e->count);
		if (!(inl ? stp_pmu_read_hw_inline(e, &raw, &mask) :
			    stp_pmu_read_hw(e, &raw, &mask)))
			return false;
		barrier();
	} while (STP_PMU_NMI_UPDATES &&
		 unlikely(local64_read(&e->hw.prev_count) != prev));
	*v = count + ((raw - prev) & mask);
	return true;
}

static __always_inline bool stp_pmu_read_fast(struct perf_event *e, u64 *v)
{
	return stp_pmu_read_fast_as(e, v, false);
}

#endif /* STP_NEVENTS > 0 */

#endif /* STP_PMU_READ_H */
