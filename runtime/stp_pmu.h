/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_pmu.h - PMU tables, CPU identification, per-CPU counters and the
 * lock-free read used by @pmu.
 *
 * A module carries a "fat table": rows of (CPU match list, one encoding per
 * script event). At init every online CPU identifies itself (CPUID, read on
 * that CPU through on_each_cpu), picks the first row that matches it and
 * gets one pinned counter per event with that row's encoding.
 *
 * perf_event_read_local() is not exported in 6.1, so a read does what it
 * does internally: with interrupts off, if the event is on this CPU ask the
 * PMU to fold the hardware value into event->count, then read the count.
 *
 * CPU hotplug (a CPU coming online after init has no counters: reading
 * there is a script error) comes in a later issue.
 */
#ifndef STP_PMU_H
#define STP_PMU_H

#define STP_VENDOR_INTEL	1
#define STP_VENDOR_AMD		2
/* arm64 vendors come with the arm64 issue */

/* stp_pmu_event.flags: the perf_event_attr exclude_* bits */
#define STP_EXCL_USER		(1u << 0)
#define STP_EXCL_KERNEL		(1u << 1)
#define STP_EXCL_HV		(1u << 2)
#define STP_EXCL_GUEST		(1u << 3)
#define STP_EXCL_HOST		(1u << 4)

/* one CPU range, like the kernel's x86_cpu_id */
struct stp_pmu_match {
	u8 vendor;
	u16 family, model_min, model_max;
	u8 stepping_min, stepping_max;
};

/* the perf_event_attr fields of one event */
struct stp_pmu_event {
	u32 type;
	u64 config, config1;
	u32 flags;
	u8 precise;
};

/* a PMU: the CPUs it matches (nmatch 0: any CPU) and STP_NEVENTS events */
struct stp_pmu_row {
	const char *pmu;
	const struct stp_pmu_match *match;
	unsigned int nmatch;
	const struct stp_pmu_event *events;
};

#if STP_NEVENTS > 0

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
	const struct stp_pmu_row *row;
	struct perf_event *ev[STP_NEVENTS];
};

static struct stp_pmu_cpu __percpu *stp_pmu_cpus;
static const char *const *stp_pmu_names;	/* event names, for messages */

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
 * Not built by any test yet. Until the arm64 issue defines arm64 vendor
 * codes, arm64 CPUs match only rows with nmatch == 0; the MIDR fields are
 * kept for the message: family = implementer, model = part number,
 * stepping = variant << 4 | revision.
 */
static void stp_cpu_ident_fill(struct stp_cpu_ident *id)
{
	u32 midr = read_cpuid_id();

	id->raw = midr;
	id->vendor = 0;
	strscpy(id->vendor_str, "arm64", sizeof(id->vendor_str));
	id->family = MIDR_IMPLEMENTOR(midr);
	id->model = MIDR_PARTNUM(midr);
	id->stepping = (MIDR_VARIANT(midr) << 4) | MIDR_REVISION(midr);
}

static int stp_cpu_ident_describe(const struct stp_cpu_ident *id, char *buf,
				  size_t len)
{
	return scnprintf(buf, len,
			 "MIDR 0x%08x (implementer 0x%x part 0x%x variant %u revision %u)",
			 id->raw, id->family, id->model, id->stepping >> 4,
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
	return id->vendor && m->vendor == id->vendor &&
	       m->family == id->family &&
	       id->model >= m->model_min && id->model <= m->model_max &&
	       id->stepping >= m->stepping_min &&
	       id->stepping <= m->stepping_max;
}

static const struct stp_pmu_row *
stp_pmu_pick_row(const struct stp_pmu_row *rows, unsigned int nrows,
		 const struct stp_cpu_ident *id)
{
	unsigned int r, m;

	for (r = 0; r < nrows; r++) {
		if (!rows[r].nmatch)
			return &rows[r];
		for (m = 0; m < rows[r].nmatch; m++)
			if (stp_pmu_match_cpu(&rows[r].match[m], id))
				return &rows[r];
	}
	return NULL;
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

static void stp_pmu_no_row(int cpu, const struct stp_cpu_ident *id,
			   const struct stp_pmu_row *rows, unsigned int nrows)
{
	char cpudesc[96], names[160];
	unsigned int r;
	int len = 0;

	stp_cpu_ident_describe(id, cpudesc, sizeof(cpudesc));
	names[0] = '\0';
	for (r = 0; r < nrows; r++)
		len += scnprintf(names + len, sizeof(names) - len, "%s%s",
				 r ? ", " : "", rows[r].pmu);
	if (len >= sizeof(names) - 1)
		strscpy(names + sizeof(names) - 4, "...", 4);
	stp_err("cpu%d: no PMU row for %s (module built for: %s)\n",
		cpu, cpudesc, nrows ? names : "no rows");
}

static void stp_pmu_release(void)
{
	struct stp_pmu_cpu *pc;
	int cpu, i, n = 0;

	if (!stp_pmu_cpus)
		return;
	for_each_possible_cpu(cpu) {
		pc = per_cpu_ptr(stp_pmu_cpus, cpu);
		for (i = 0; i < STP_NEVENTS; i++) {
			if (!pc->ev[i])
				continue;
			perf_event_release_kernel(pc->ev[i]);
			pc->ev[i] = NULL;
			n++;
		}
		pc->row = NULL;
	}
	free_percpu(stp_pmu_cpus);
	stp_pmu_cpus = NULL;
	stp_dbg("released %d counters\n", n);
}

static int stp_pmu_create_cpu(int cpu, const struct stp_pmu_row *row)
{
	struct stp_pmu_cpu *pc = per_cpu_ptr(stp_pmu_cpus, cpu);
	const struct stp_pmu_event *ev;
	struct perf_event_attr attr;
	struct perf_event *e;
	int i, rc;

	pc->row = row;
	for (i = 0; i < STP_NEVENTS; i++) {
		ev = &row->events[i];
		memset(&attr, 0, sizeof(attr));
		attr.size = sizeof(attr);
		attr.type = ev->type;
		attr.config = ev->config;
		attr.config1 = ev->config1;
		attr.pinned = 1;
		attr.exclude_user = !!(ev->flags & STP_EXCL_USER);
		attr.exclude_kernel = !!(ev->flags & STP_EXCL_KERNEL);
		attr.exclude_hv = !!(ev->flags & STP_EXCL_HV);
		attr.exclude_guest = !!(ev->flags & STP_EXCL_GUEST);
		attr.exclude_host = !!(ev->flags & STP_EXCL_HOST);
		attr.precise_ip = ev->precise;

		e = perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
		if (IS_ERR(e)) {
			rc = PTR_ERR(e);
			goto err;
		}
		pc->ev[i] = e;	/* released by stp_pmu_release() */
		/* a pinned event that cannot get a counter is put in error state */
		if (READ_ONCE(e->state) == PERF_EVENT_STATE_ERROR) {
			rc = -EBUSY;
			goto err;
		}
		stp_dbg("cpu%d: counter %s row %s type=%u config=0x%llx\n", cpu,
			stp_pmu_names[i], row->pmu, attr.type, attr.config);
	}
	return 0;

err:
	if (attr.config1)
		stp_err("cpu%d: cannot create counter %s for row %s (type=%u config=0x%llx config1=0x%llx): %s (%d)\n",
			cpu, stp_pmu_names[i], row->pmu, attr.type,
			attr.config, attr.config1, stp_pmu_errno_text(rc), rc);
	else
		stp_err("cpu%d: cannot create counter %s for row %s (type=%u config=0x%llx): %s (%d)\n",
			cpu, stp_pmu_names[i], row->pmu, attr.type,
			attr.config, stp_pmu_errno_text(rc), rc);
	return rc;
}

/*
 * Identify every online CPU, pick its row, create its counters. On failure
 * everything created so far is released. Sleeps.
 */
static int stp_pmu_init(const struct stp_pmu_row *rows, unsigned int nrows,
			const char *const *names)
{
	struct stp_cpu_ident *ids;
	const struct stp_pmu_row *row;
	int cpu, rc;

	stp_pmu_names = names;
	ids = kcalloc(nr_cpu_ids, sizeof(*ids), GFP_KERNEL);
	if (!ids)
		goto err_nomem;
	stp_pmu_cpus = alloc_percpu(struct stp_pmu_cpu);
	if (!stp_pmu_cpus)
		goto err_free_ids;

	on_each_cpu(stp_cpu_ident_ipi, ids, 1);

	/* every CPU picks its own row first (hybrid parts differ per CPU) */
	rc = 0;
	for_each_online_cpu(cpu) {
		char cpudesc[96];

		if (!ids[cpu].valid)
			continue;	/* came online after the IPI: hotplug issue */
		row = stp_pmu_pick_row(rows, nrows, &ids[cpu]);
		if (!row) {
			stp_pmu_no_row(cpu, &ids[cpu], rows, nrows);
			rc = -ENODEV;
			continue;
		}
		per_cpu_ptr(stp_pmu_cpus, cpu)->row = row;
		stp_cpu_ident_describe(&ids[cpu], cpudesc, sizeof(cpudesc));
		stp_info("cpu%d: %s selects PMU row %s\n", cpu, cpudesc, row->pmu);
	}
	if (rc)
		goto err_release;

	for_each_online_cpu(cpu) {
		row = per_cpu_ptr(stp_pmu_cpus, cpu)->row;
		if (!row)
			continue;
		rc = stp_pmu_create_cpu(cpu, row);
		if (rc)
			goto err_release;
	}
	kfree(ids);
	return 0;

err_release:
	stp_pmu_release();
	kfree(ids);
	return rc;
err_free_ids:
	kfree(ids);
err_nomem:
	stp_err("cannot allocate the PMU state\n");
	return -ENOMEM;
}

/* @pmu: this CPU's value of event idx. Lock-free, never sleeps. */
static inline s64 stp_pmu_read(struct stp_context *c, int idx)
{
	struct perf_event *e;
	unsigned long flags;
	bool bad = false;
	u64 v = 0;

	if (unlikely(idx < 0 || idx >= STP_NEVENTS)) {
		stp_error(c, "invalid @pmu event index");
		return 0;
	}
	local_irq_save(flags);
	e = this_cpu_ptr(stp_pmu_cpus)->ev[idx];
	if (unlikely(!e || READ_ONCE(e->state) == PERF_EVENT_STATE_ERROR)) {
		bad = true;
	} else {
		if (e->oncpu == smp_processor_id())
			e->pmu->read(e);
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
