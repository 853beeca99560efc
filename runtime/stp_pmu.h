/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_pmu.h - PMU tables, CPU identification, per-CPU counters and the
 * lock-free read used by @pmu.
 *
 * A module carries a "fat table": rows of (CPU match list, one encoding per
 * script event), in the compact layout pmu/fat_emit.cpp writes (shared
 * encodings, rows without pointers, packed match entries, front-coded row
 * names; docs/runtime.md). At init every online CPU identifies itself
 * (CPUID, read on that CPU through on_each_cpu), picks the first row that
 * matches it and gets one pinned counter per event with that row's
 * encoding.
 *
 * Sampling events (perf.event("E").sample(N) / .hz(F) probes) are events of
 * the same table whose per-CPU counter is created with sample_period or
 * freq/sample_freq and an overflow handler that runs the probe body with
 * the interrupted registers. For hardware events the handler runs in NMI
 * context: the paths it reaches are NMI-safe (stp_run_probe tries the
 * global lock once in NMI, output try-locks once and counts what it drops,
 * stp_pmu_read is lock-free).
 *
 * Reads (stp_pmu_read) are lock-free and NMI-safe, with interrupts off:
 * when the event is active on this CPU in a hardware counter the runtime
 * can read (x86: rdpmc of hw.event_base_rdpmc; arm64 PMUv3: PMCCNTR_EL0 or
 * PMEVCNTR<n>_EL0), the value is event->count plus the masked difference
 * between the counter and hw.prev_count, i.e. what pmu->read() would fold
 * in, without writing anything. Otherwise (software events, chained or
 * precise events, an event not on this CPU) pmu->read() folds the hardware
 * value into event->count, then the count is read. perf_event_read_local()
 * is not exported in 6.1.
 *
 * CPU hotplug: a dynamic cpuhp state (AP_ONLINE_DYN) creates the counters
 * of a CPU that comes online (its callback runs on that CPU: it reads its
 * own CPUID/MIDR and picks its row) and releases them when it goes offline.
 * A CPU without counters (no row, a refused counter) makes @pmu a script
 * error there; the hotplug itself is never refused.
 */
#ifndef STP_PMU_H
#define STP_PMU_H

#define STP_VENDOR_INTEL	1
#define STP_VENDOR_AMD		2
#define STP_VENDOR_ARM		3	/* any arm64 CPU: family = MIDR implementer,
					 * model = part, stepping = variant << 4 | revision */

/* stp_pmu_event.flags: the perf_event_attr exclude_* bits, precise_ip */
#define STP_EXCL_USER		(1u << 0)
#define STP_EXCL_KERNEL		(1u << 1)
#define STP_EXCL_HV		(1u << 2)
#define STP_EXCL_GUEST		(1u << 3)
#define STP_EXCL_HOST		(1u << 4)
#define STP_ENC_PRECISE(n)	((n) << 5)	/* precise_ip 0-3 */
#define STP_ENC_PRECISE_OF(f)	(((f) >> 5) & 3)
#define STP_ENC_EXT		(1u << 7)	/* type/config/config1 in ext[] */

/*
 * One CPU range, like the kernel's x86_cpu_id. x86: 4 bytes, vendor << 6 |
 * family (family < 64), stepping_min << 4 | stepping_max. arm64: family =
 * MIDR implementer, model = part (12 bits), stepping = variant << 4 |
 * revision, 8 bytes.
 */
#if defined(CONFIG_X86)
struct stp_pmu_match {
	u8 vendor_family;
	u8 model_min, model_max;
	u8 stepping;
};
#define STP_PMU_MATCH(v, f, m0, m1, s0, s1) \
	{ (v) << 6 | (f), (m0), (m1), (s0) << 4 | (s1) }
#define STP_MATCH_VENDOR(m)	((m)->vendor_family >> 6)
#define STP_MATCH_FAMILY(m)	((m)->vendor_family & 0x3f)
#define STP_MATCH_STEP_MIN(m)	((m)->stepping >> 4)
#define STP_MATCH_STEP_MAX(m)	((m)->stepping & 0xf)
#else
struct stp_pmu_match {
	u8 vendor, family;
	u16 model_min, model_max;
	u8 stepping_min, stepping_max;
};
#define STP_PMU_MATCH(v, f, m0, m1, s0, s1) { (v), (f), (m0), (m1), (s0), (s1) }
#define STP_MATCH_VENDOR(m)	((m)->vendor)
#define STP_MATCH_FAMILY(m)	((m)->family)
#define STP_MATCH_STEP_MIN(m)	((m)->stepping_min)
#define STP_MATCH_STEP_MAX(m)	((m)->stepping_max)
#endif

/* one distinct encoding: config bits 0-47, type, flags (8 bytes) */
struct stp_pmu_event {
	u32 config;
	u16 config_hi;
	u8 type;
	u8 flags;			/* STP_EXCL_*, STP_ENC_PRECISE(), STP_ENC_EXT */
};

/* an encoding the 8 bytes cannot hold (config1, wide config or type) */
struct stp_pmu_event_ext {
	u64 config, config1;
	u32 type;
	u8 enc;				/* index of its stp_pmu_event */
};

/* a PMU row: its nmatch entries follow the previous rows' in match[]
 * (nmatch 0: any CPU); vec indexes the event vectors */
struct stp_pmu_row {
	u8 nmatch;
	u8 vec;
};

/* the generated tables, handed over by stp_pmu_init_tables() */
struct stp_pmu_tables {
	const struct stp_pmu_event_ext *ext;
	unsigned int next;
	const struct stp_pmu_event *enc;
	const struct stp_pmu_match *match;
	const u8 *vec8;			/* [nvec][STP_NEVENTS] encoding indexes, */
	const u16 *vec16;		/* or wide ones (> 255 encodings) */
	const struct stp_pmu_row *rows;
	unsigned int nrows;
	const char *row_names;		/* front-coded: 1 + shared prefix, rest, NUL */
	const char *event_names;	/* NUL separated */
};

#define STP_PMU_NAME_LEN 48

#if STP_NEVENTS > 0

static struct stp_pmu_tables stp_pmu_tab;

/*
 * @pmu_thread events (STP_PMU_THREAD_EVENTS: a flag per event) get per-task
 * counters from stp_pmu_thread.h instead of per-CPU ones.
 */
#ifdef STP_PMU_THREAD_EVENTS
static const u8 stp_pmu_thread_event[STP_NEVENTS] = STP_PMU_THREAD_EVENTS;
#define stp_pmu_is_thread(i) (stp_pmu_thread_event[i])
#else
#define stp_pmu_is_thread(i) 0
#endif
static int stp_pmu_thread_init(void);
static void stp_pmu_thread_release(void);

/* row r's name, decoded into buf (STP_PMU_NAME_LEN bytes) */
static const char *stp_pmu_row_name(int r, char *buf)
{
	const char *s = stp_pmu_tab.row_names;
	size_t k, n, len = 0;
	int i;

	buf[0] = '\0';
	if (r < 0 || (unsigned int)r >= stp_pmu_tab.nrows)
		return "?";
	for (i = 0; i <= r; i++) {
		k = min_t(size_t, (u8)*s++ - 1, len);
		n = strlen(s);
		len = min_t(size_t, k + n, STP_PMU_NAME_LEN - 1);
		memcpy(buf + k, s, len - k);
		buf[len] = '\0';
		s += n + 1;
	}
	return buf;
}

static const char *stp_pmu_event_name(int idx)
{
	const char *s = stp_pmu_tab.event_names;

	while (idx-- > 0)
		s += strlen(s) + 1;
	return s;
}

/* the attr fields of event idx in row r */
static void stp_pmu_fill_attr(int r, int idx, struct perf_event_attr *attr)
{
	unsigned int v = stp_pmu_tab.rows[r].vec * STP_NEVENTS + idx;
	unsigned int e = stp_pmu_tab.vec8 ? stp_pmu_tab.vec8[v] : stp_pmu_tab.vec16[v];
	const struct stp_pmu_event *ev = &stp_pmu_tab.enc[e];
	unsigned int i;

	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = ev->type;
	attr->config = (u64)ev->config_hi << 32 | ev->config;
	if (ev->flags & STP_ENC_EXT)
		for (i = 0; i < stp_pmu_tab.next; i++)
			if (stp_pmu_tab.ext[i].enc == e) {
				attr->type = stp_pmu_tab.ext[i].type;
				attr->config = stp_pmu_tab.ext[i].config;
				attr->config1 = stp_pmu_tab.ext[i].config1;
			}
	attr->exclude_user = !!(ev->flags & STP_EXCL_USER);
	attr->exclude_kernel = !!(ev->flags & STP_EXCL_KERNEL);
	attr->exclude_hv = !!(ev->flags & STP_EXCL_HV);
	attr->exclude_guest = !!(ev->flags & STP_EXCL_GUEST);
	attr->exclude_host = !!(ev->flags & STP_EXCL_HOST);
	attr->precise_ip = STP_ENC_PRECISE_OF(ev->flags);
}

/* what a CPU says about itself */
struct stp_cpu_ident {
	bool valid;
	u8 vendor;			/* STP_VENDOR_*, 0: unknown */
	char vendor_str[13];		/* x86: "GenuineIntel" */
	u16 family, model;
	u8 stepping;
	u32 raw;			/* x86: CPUID.1 EAX; arm64: MIDR_EL1 */
};

struct stp_pmu_cpu {
	int row;			/* index in stp_pmu_tab.rows, -1: none */
	struct perf_event *ev[STP_NEVENTS];
	bool fast[STP_NEVENTS];		/* direct counter reads allowed */
};

static struct stp_pmu_cpu __percpu *stp_pmu_cpus;
static int stp_pmu_hp_state = -1;		/* dynamic cpuhp state, < 0: none */
/* per event: the perf probe sampling it (NULL: a counting @pmu event) */
static struct stp_probe *stp_pmu_sampler[STP_NEVENTS];

#if defined(CONFIG_X86)

#include <asm/processor.h>

/* family and model as the kernel's x86_family()/x86_model() compute them */
static void stp_cpu_ident_fill(struct stp_cpu_ident *id)
{
	u32 max_leaf, ebx, ecx, edx, sig = 0, fam, model;

	cpuid(0, &max_leaf, &ebx, &ecx, &edx);
	memcpy(id->vendor_str, &ebx, 4);
	memcpy(id->vendor_str + 4, &edx, 4);
	memcpy(id->vendor_str + 8, &ecx, 4);
	id->vendor_str[12] = '\0';
	if (max_leaf >= 1)
		cpuid(1, &sig, &ebx, &ecx, &edx);
	fam = (sig >> 8) & 0xf;
	if (fam == 0xf)
		fam += (sig >> 20) & 0xff;
	model = (sig >> 4) & 0xf;
	if (fam >= 0x6)
		model += ((sig >> 16) & 0xf) << 4;
	id->raw = sig;
	id->family = fam;
	id->model = model;
	id->stepping = sig & 0xf;
	if (!strcmp(id->vendor_str, "GenuineIntel"))
		id->vendor = STP_VENDOR_INTEL;
	else if (!strcmp(id->vendor_str, "AuthenticAMD"))
		id->vendor = STP_VENDOR_AMD;
	else
		id->vendor = 0;
}

static int stp_cpu_ident_describe(const struct stp_cpu_ident *id, char *buf,
				  size_t len)
{
	return scnprintf(buf, len, "%s family %u model %u stepping %u",
			 id->vendor_str, id->family, id->model, id->stepping);
}

#elif defined(CONFIG_ARM64)

#include <asm/cputype.h>

/*
 * MIDR_EL1 of this CPU: family = implementer, model = part number,
 * stepping = variant << 4 | revision (the pmu/ match entries use the same
 * encoding with STP_VENDOR_ARM).
 */
static const char *stp_arm_implementer_name(u32 impl)
{
	switch (impl) {
	case 0x41: return "ARM";
	case 0x42: return "Broadcom";
	case 0x43: return "Cavium";
	case 0x46: return "Fujitsu";
	case 0x48: return "HiSilicon";
	case 0x4e: return "NVIDIA";
	case 0x50: return "APM";
	case 0x51: return "Qualcomm";
	case 0x61: return "Apple";
	case 0xc0: return "Ampere";
	default: return "arm64";
	}
}

static void stp_cpu_ident_fill(struct stp_cpu_ident *id)
{
	u32 midr = read_cpuid_id();

	id->raw = midr;
	id->vendor = STP_VENDOR_ARM;
	strscpy(id->vendor_str, stp_arm_implementer_name(MIDR_IMPLEMENTOR(midr)),
		sizeof(id->vendor_str));
	id->family = MIDR_IMPLEMENTOR(midr);
	id->model = MIDR_PARTNUM(midr);
	id->stepping = (MIDR_VARIANT(midr) << 4) | MIDR_REVISION(midr);
}

static int stp_cpu_ident_describe(const struct stp_cpu_ident *id, char *buf,
				  size_t len)
{
	return scnprintf(buf, len,
			 "%s implementer 0x%x part 0x%x variant %u revision %u",
			 id->vendor_str, id->family, id->model, id->stepping >> 4,
			 id->stepping & 0xf);
}

#else
#error "stap-pmu runtime: CPU identification exists for x86 (and arm64) only"
#endif

/* runs on each CPU (IPI): fills this CPU's slot */
static void stp_cpu_ident_ipi(void *info)
{
	struct stp_cpu_ident *id = (struct stp_cpu_ident *)info +
				   smp_processor_id();

	stp_cpu_ident_fill(id);
	id->valid = true;
}

static bool stp_pmu_match_cpu(const struct stp_pmu_match *m,
			      const struct stp_cpu_ident *id)
{
	return id->vendor && STP_MATCH_VENDOR(m) == id->vendor &&
	       STP_MATCH_FAMILY(m) == id->family &&
	       id->model >= m->model_min && id->model <= m->model_max &&
	       id->stepping >= STP_MATCH_STEP_MIN(m) &&
	       id->stepping <= STP_MATCH_STEP_MAX(m);
}

/* the first row matching the CPU (match entries follow in row order) */
static int stp_pmu_pick_row(const struct stp_cpu_ident *id)
{
	const struct stp_pmu_match *m = stp_pmu_tab.match;
	unsigned int r, i;

	for (r = 0; r < stp_pmu_tab.nrows; r++) {
		if (!stp_pmu_tab.rows[r].nmatch)
			return r;
		for (i = 0; i < stp_pmu_tab.rows[r].nmatch; i++, m++)
			if (stp_pmu_match_cpu(m, id))
				return r;
	}
	return -1;
}

/* texts for the errors perf_event_create_kernel_counter() returns */
static const char *stp_pmu_errno_text(int err)
{
	switch (-err) {
	case ENOENT:
		return "no such event on this CPU (no hardware PMU?)";
	case EOPNOTSUPP:
		return "not supported by this PMU (sampling, precise or exclude bits?)";
	case EINVAL:
		return "invalid event encoding for this PMU";
	case EBUSY:
		return "counter busy (all counters in use?)";
	case EACCES:
		return "permission denied";
	case ENODEV:
		return "no PMU for this event type";
	case ENOMEM:
		return "out of memory";
	default:
		return stp_errno_text(err);
	}
}

static void stp_pmu_no_row(int cpu, const struct stp_cpu_ident *id)
{
	char cpudesc[96], names[160], name[STP_PMU_NAME_LEN];
	unsigned int r, nrows = stp_pmu_tab.nrows;
	int len = 0;

	stp_cpu_ident_describe(id, cpudesc, sizeof(cpudesc));
	names[0] = '\0';
	for (r = 0; r < nrows; r++)
		len += scnprintf(names + len, sizeof(names) - len, "%s%s",
				 r ? ", " : "", stp_pmu_row_name(r, name));
	if (len >= sizeof(names) - 1)
		strscpy(names + sizeof(names) - 4, "...", 4);
	stp_err("cpu%d: no PMU row for %s (module built for: %s)\n",
		cpu, cpudesc, nrows ? names : "no rows");
}

/* ---- reading a hardware counter directly ---- */

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
 * PMUv3 (arch/arm64/kernel/perf_event.c in 6.1): hw.idx 0 is the cycle
 * counter PMCCNTR_EL0, idx n >= 1 is PMEVCNTR<n-1>_EL0. Counters are 32
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

	if (idx == 0) {
		/* 32-bit events here are biased: the mask drops the bias */
		*raw = read_sysreg(pmccntr_el0);
		*mask = wide ? ~0ULL : 0xffffffffULL;
		return true;
	}
	if (idx < 1 || idx > 31 || wide)
		return false;
	*raw = stp_arm_read_evcntr(idx - 1);
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

/* ---- creating and releasing counters ---- */

/*
 * Releases one CPU's counters. Each pointer is cleared first: a handler
 * that interrupts this on that CPU (hotplug teardown runs on the CPU going
 * offline) sees NULL, never a counter being freed.
 */
static int stp_pmu_release_cpu(int cpu)
{
	struct stp_pmu_cpu *pc = per_cpu_ptr(stp_pmu_cpus, cpu);
	struct perf_event *e;
	int i, n = 0;

	for (i = 0; i < STP_NEVENTS; i++) {
		e = pc->ev[i];
		if (!e)
			continue;
		WRITE_ONCE(pc->ev[i], NULL);
		pc->fast[i] = false;
		perf_event_release_kernel(e);
		n++;
	}
	pc->row = -1;
	return n;
}

static void stp_pmu_release(void)
{
	int cpu, n = 0;

	stp_pmu_thread_release();
	if (!stp_pmu_cpus)
		return;
	/* no online/offline callback runs after this */
	if (stp_pmu_hp_state >= 0) {
		cpuhp_remove_state_nocalls(stp_pmu_hp_state);
		stp_pmu_hp_state = -1;
	}
	for_each_possible_cpu(cpu)
		n += stp_pmu_release_cpu(cpu);
	free_percpu(stp_pmu_cpus);
	stp_pmu_cpus = NULL;
	stp_dbg("released %d counters\n", n);
}

static void stp_run_probe(const struct stp_probe *p, struct pt_regs *regs,
			  int run_state);

/*
 * Overflow handler of a sampling counter: NMI context for hardware events
 * on x86 (and arm64 with pseudo-NMIs), interrupt context otherwise. The
 * probe body sees the interrupted registers.
 */
static void stp_pmu_overflow(struct perf_event *e, struct perf_sample_data *data,
			     struct pt_regs *regs)
{
	stp_run_probe(e->overflow_handler_context, regs, STP_STATE_RUNNING);
}

static int stp_pmu_create_cpu(int cpu, int row)
{
	struct stp_pmu_cpu *pc = per_cpu_ptr(stp_pmu_cpus, cpu);
	char name[STP_PMU_NAME_LEN];
	struct perf_event_attr attr;
	struct stp_probe *sp;
	struct perf_event *e;
	int i, rc;

	pc->row = row;
	for (i = 0; i < STP_NEVENTS; i++) {
		if (stp_pmu_is_thread(i))
			continue;	/* a per-task counter */
		stp_pmu_fill_attr(row, i, &attr);
		/* pinned: a counter that cannot be scheduled is an error */
		attr.pinned = 1;
		sp = stp_pmu_sampler[i];
		if (sp && sp->sample_freq) {
			attr.freq = 1;
			attr.sample_freq = sp->sample_freq;
		} else if (sp) {
			attr.sample_period = sp->sample_period;
		}

		e = perf_event_create_kernel_counter(&attr, cpu, NULL,
						     sp ? stp_pmu_overflow : NULL,
						     sp);
		if (IS_ERR(e)) {
			rc = PTR_ERR(e);
			goto err;
		}
		/* @pmu never reads a sampling event */
		pc->fast[i] = !sp && STP_PMU_DIRECT_READ && stp_pmu_fast_ok(e);
		WRITE_ONCE(pc->ev[i], e); /* released by stp_pmu_release_cpu() */
		/* a pinned event that cannot get a counter is put in error state */
		if (READ_ONCE(e->state) == PERF_EVENT_STATE_ERROR) {
			rc = -EBUSY;
			goto err;
		}
		stp_dbg("cpu%d: counter %s row %s type=%u config=0x%llx%s%s\n", cpu,
			stp_pmu_event_name(i), stp_pmu_row_name(row, name),
			attr.type, attr.config,
			pc->fast[i] ? " (direct reads)" : "",
			sp ? " (sampling)" : "");
	}
	return 0;

err:
	if (attr.config1)
		stp_err("cpu%d: cannot create %s %s for row %s (type=%u config=0x%llx config1=0x%llx): %s (%d)\n",
			cpu, sp ? "sampling counter" : "counter",
			stp_pmu_event_name(i), stp_pmu_row_name(row, name),
			attr.type, attr.config, attr.config1,
			stp_pmu_errno_text(rc), rc);
	else
		stp_err("cpu%d: cannot create %s %s for row %s (type=%u config=0x%llx): %s (%d)\n",
			cpu, sp ? "sampling counter" : "counter",
			stp_pmu_event_name(i), stp_pmu_row_name(row, name),
			attr.type, attr.config, stp_pmu_errno_text(rc), rc);
	return rc;
}

/* ---- CPU hotplug ---- */

static void stp_cpu_ident_one(void *info)
{
	stp_cpu_ident_fill(info);
	((struct stp_cpu_ident *)info)->valid = true;
}

/* runs on the CPU coming online (cpuhp thread); never refuses it */
static int stp_pmu_cpu_online(unsigned int cpu)
{
	struct stp_cpu_ident id = {};
	char cpudesc[96], name[STP_PMU_NAME_LEN];
	int row;

	if (smp_call_function_single(cpu, stp_cpu_ident_one, &id, 1) ||
	    !id.valid) {
		stp_err("cpu%u: cannot read its CPU identification; no counters there\n",
			cpu);
		return 0;
	}
	row = stp_pmu_pick_row(&id);
	if (row < 0) {
		stp_pmu_no_row(cpu, &id);
		return 0;
	}
	stp_cpu_ident_describe(&id, cpudesc, sizeof(cpudesc));
	stp_info("cpu%u: online: %s selects PMU row %s\n", cpu, cpudesc,
		 stp_pmu_row_name(row, name));
	if (stp_pmu_create_cpu(cpu, row))
		stp_pmu_release_cpu(cpu);
	return 0;
}

/* runs on the CPU going offline */
static int stp_pmu_cpu_offline(unsigned int cpu)
{
	int n = stp_pmu_release_cpu(cpu);

	stp_info("cpu%u: offline: released %d counters\n", cpu, n);
	return 0;
}

/*
 * Identify every online CPU, pick its row, create its counters, then
 * register the hotplug callbacks, all with CPU hotplug held off. On failure
 * everything created so far is released. Sleeps.
 */
static int stp_pmu_init(struct stp_probe *probes, unsigned int nprobes)
{
	struct stp_cpu_ident *ids;
	unsigned int i;
	int cpu, rc, row;

	/* the sampling events and their probes */
	for (i = 0; i < nprobes; i++) {
		if (probes[i].kind != STP_PROBE_PERF)
			continue;
		if (probes[i].event < 0 || probes[i].event >= STP_NEVENTS ||
		    stp_pmu_sampler[probes[i].event] ||
		    (!probes[i].sample_period && !probes[i].sample_freq)) {
			stp_err("probe %s (%s): bad sampling event %d\n",
				probes[i].name, probes[i].loc, probes[i].event);
			return -EINVAL;
		}
		stp_pmu_sampler[probes[i].event] = &probes[i];
	}
	stp_pmu_arch_init();
	ids = kcalloc(nr_cpu_ids, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		goto err_nomem;
	stp_pmu_cpus = alloc_percpu(struct stp_pmu_cpu);
	if (!stp_pmu_cpus)
		goto err_free_ids;
	for_each_possible_cpu(cpu)
		per_cpu_ptr(stp_pmu_cpus, cpu)->row = -1;

	cpus_read_lock();
	on_each_cpu(stp_cpu_ident_ipi, ids, 1);

	/* every CPU picks its own row first (hybrid parts differ per CPU) */
	rc = 0;
	for_each_online_cpu(cpu) {
		char cpudesc[96], name[STP_PMU_NAME_LEN];

		if (!ids[cpu].valid)
			continue;
		row = stp_pmu_pick_row(&ids[cpu]);
		if (row < 0) {
			stp_pmu_no_row(cpu, &ids[cpu]);
			rc = -ENODEV;
			continue;
		}
		per_cpu_ptr(stp_pmu_cpus, cpu)->row = row;
		stp_cpu_ident_describe(&ids[cpu], cpudesc, sizeof(cpudesc));
		stp_info("cpu%d: %s selects PMU row %s\n", cpu, cpudesc,
			 stp_pmu_row_name(row, name));
	}
	if (rc)
		goto err_release;

	for_each_online_cpu(cpu) {
		row = per_cpu_ptr(stp_pmu_cpus, cpu)->row;
		if (row < 0)
			continue;
		rc = stp_pmu_create_cpu(cpu, row);
		if (rc)
			goto err_release;
	}
	rc = cpuhp_setup_state_nocalls_cpuslocked(CPUHP_AP_ONLINE_DYN,
						  STP_MODULE_NAME ":online",
						  stp_pmu_cpu_online,
						  stp_pmu_cpu_offline);
	if (rc < 0) {
		stp_err("cannot register the CPU hotplug callbacks (%d)\n", rc);
		goto err_release;
	}
	stp_pmu_hp_state = rc;
	cpus_read_unlock();
	kfree(ids);
	/* @pmu_thread counters: after the rows, without the hotplug lock */
	rc = stp_pmu_thread_init();
	if (rc)
		stp_pmu_release();
	return rc;

err_release:
	stp_pmu_release();
	cpus_read_unlock();
	kfree(ids);
	return rc;
err_free_ids:
	kfree(ids);
err_nomem:
	stp_err("cannot allocate the PMU state\n");
	return -ENOMEM;
}

/*
 * Stops every sampling counter before the end probes run: after
 * perf_event_disable() returns, no overflow handler of that counter runs
 * (the cross-call to its CPU waits for a running one). Sleeps.
 */
static void stp_pmu_stop_sampling(void)
{
	struct perf_event *e;
	int cpu, i;

	if (!stp_pmu_cpus)
		return;
	cpus_read_lock();
	for_each_online_cpu(cpu)
		for (i = 0; i < STP_NEVENTS; i++) {
			e = per_cpu_ptr(stp_pmu_cpus, cpu)->ev[i];
			if (e && stp_pmu_sampler[i])
				perf_event_disable(e);
		}
	cpus_read_unlock();
}

/*
 * @pmu: this CPU's value of event idx. Lock-free and NMI-safe (kprobe,
 * kretprobe, timer and perf overflow handlers), never sleeps.
 */
static inline s64 stp_pmu_read(struct stp_context *c, int idx)
{
	struct stp_pmu_cpu *pc;
	struct perf_event *e;
	unsigned long flags;
	bool bad = false;
	u64 v = 0;

	if (unlikely(idx < 0 || idx >= STP_NEVENTS)) {
		stp_error(c, "invalid @pmu event index");
		return 0;
	}
	local_irq_save(flags);
	pc = this_cpu_ptr(stp_pmu_cpus);
	e = READ_ONCE(pc->ev[idx]);
	if (unlikely(!e || READ_ONCE(e->state) == PERF_EVENT_STATE_ERROR)) {
		bad = true;
	} else if (e->oncpu == smp_processor_id()) {
		if (!(pc->fast[idx] &&
		      READ_ONCE(e->state) == PERF_EVENT_STATE_ACTIVE &&
		      stp_pmu_read_fast(e, &v))) {
			e->pmu->read(e);
			v = local64_read(&e->count);
		}
	} else {
		v = local64_read(&e->count);
	}
	local_irq_restore(flags);
	if (unlikely(bad)) {
		stp_error(c, "no usable @pmu counter on this CPU");
		return 0;
	}
	return v;
}

#endif /* STP_NEVENTS > 0 */

#endif /* STP_PMU_H */
