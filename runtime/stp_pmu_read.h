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

#elif defined(CONFIG_ARM64)

static void stp_pmu_arch_init(void)
{
}

/*
 * PMUv3: hw.idx names the cycle counter PMCCNTR_EL0 or an event counter
 * PMEVCNTR<n>_EL0, numbered differently before and since 6.12
 * (STP_ARMV8_CYCLE_IDX, STP_ARMV8_EVCNTR in stp_compat.h). Counters are 32
 * bits unless the event has ARMPMU_EVT_64BIT; a 64-bit event on an event
 * counter is a chained pair (or a biased PMUv3p5 long counter): those keep
 * pmu->read, as do other arm64 PMUs (Apple's).
 */
static bool stp_pmu_fast_ok(struct perf_event *e)
{
	return e->pmu->task_ctx_nr == perf_hw_context &&
	       !strncmp(to_arm_pmu(e->pmu)->name, "armv8", 5);
}

#define STP_EVCNTR(n) case n: return read_sysreg(pmevcntr##n##_el0)

static __always_inline u64 stp_arm_read_evcntr(int n)
{
	switch (n) {
	STP_EVCNTR(0); STP_EVCNTR(1); STP_EVCNTR(2); STP_EVCNTR(3);
	STP_EVCNTR(4); STP_EVCNTR(5); STP_EVCNTR(6); STP_EVCNTR(7);
	STP_EVCNTR(8); STP_EVCNTR(9); STP_EVCNTR(10); STP_EVCNTR(11);
	STP_EVCNTR(12); STP_EVCNTR(13); STP_EVCNTR(14); STP_EVCNTR(15);
	STP_EVCNTR(16); STP_EVCNTR(17); STP_EVCNTR(18); STP_EVCNTR(19);
	STP_EVCNTR(20); STP_EVCNTR(21); STP_EVCNTR(22); STP_EVCNTR(23);
	STP_EVCNTR(24); STP_EVCNTR(25); STP_EVCNTR(26); STP_EVCNTR(27);
	STP_EVCNTR(28); STP_EVCNTR(29); STP_EVCNTR(30);
	}
	return 0;
}

static __always_inline bool stp_pmu_read_hw(struct perf_event *e, u64 *raw,
					    u64 *mask)
{
	int idx = READ_ONCE(e->hw.idx);
	unsigned long wide = e->hw.flags & (ARMPMU_EVT_64BIT | STP_ARMPMU_EVT_47BIT);
	int n;

	if (idx == STP_ARMV8_CYCLE_IDX) {
		/* 32-bit events here are biased: the mask drops the bias */
		*raw = read_sysreg(pmccntr_el0);
		*mask = wide ? ~0ULL : 0xffffffffULL;
		return true;
	}
	n = idx < 0 ? -1 : STP_ARMV8_EVCNTR(idx);
	if (n < 0 || n > 30 || wide)
		return false;
	*raw = stp_arm_read_evcntr(n);
	*mask = 0xffffffffULL;
	return true;
}

#endif

/*
 * What pmu->read() would fold into event->count, without writing: count +
 * ((counter - prev_count) & width). prev_count is read again: an overflow
 * interrupt or NMI between the reads moved it and the read is redone.
 * Interrupts are off; the event is active on this CPU.
 */
static __always_inline bool stp_pmu_read_fast(struct perf_event *e, u64 *v)
{
	u64 prev, count, raw, mask;
	int tries = 0;

	do {
		if (unlikely(++tries > 4))
			return false;
		prev = local64_read(&e->hw.prev_count);
		barrier();
		count = local64_read(&e->count);
		if (!stp_pmu_read_hw(e, &raw, &mask))
			return false;
		barrier();
	} while (unlikely(local64_read(&e->hw.prev_count) != prev));
	*v = count + ((raw - prev) & mask);
	return true;
}

#endif /* STP_NEVENTS > 0 */

#endif /* STP_PMU_READ_H */
