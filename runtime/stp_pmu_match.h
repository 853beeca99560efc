/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_pmu_match.h - which table row a CPU uses. Each CPU identifies itself
 * (x86: CPUID vendor, family, model, stepping and, on a hybrid part, the
 * core type of leaf 0x1A; arm64: MIDR_EL1), read on that CPU, and takes the
 * first row whose match list names it and whose core type is its own; a CPU
 * no row matches gets a load error naming it and the rows the module has.
 */
#ifndef STP_PMU_MATCH_H
#define STP_PMU_MATCH_H

#if STP_NEVENTS > 0

/* what a CPU says about itself */
struct stp_cpu_ident {
	bool valid;
	u8 vendor;			/* STP_VENDOR_*, 0: unknown */
	char vendor_str[13];		/* x86: "GenuineIntel" */
	u16 family, model;
	u8 stepping;
	u8 core_type;			/* x86 hybrid: CPUID.1AH:EAX[31:24]; 0: none */
	u32 raw;			/* x86: CPUID.1 EAX; arm64: MIDR_EL1 */
};

#define STP_CORE_TYPE_ATOM	0x20
#define STP_CORE_TYPE_CORE	0x40

#if defined(CONFIG_X86)

/* family and model as the kernel's x86_family()/x86_model() compute them */
static void stp_cpu_ident_fill(struct stp_cpu_ident *id)
{
	u32 max_leaf, eax, ebx, ecx, edx, sig = 0, fam, model;

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
	/* hybrid (CPUID.(EAX=7,ECX=0):EDX[15]): this CPU's core type */
	id->core_type = 0;
	if (max_leaf >= 0x1a) {
		cpuid_count(7, 0, &eax, &ebx, &ecx, &edx);
		if (edx & BIT(15))
			id->core_type = cpuid_eax(0x1a) >> 24;
	}
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
	int n = scnprintf(buf, len, "%s family %u model %u stepping %u",
			  id->vendor_str, id->family, id->model, id->stepping);

	if (id->core_type)
		n += scnprintf(buf + n, len - n, " core type 0x%02x%s", id->core_type,
			       id->core_type == STP_CORE_TYPE_ATOM ? " (Atom)" :
			       id->core_type == STP_CORE_TYPE_CORE ? " (Core)" : "");
	return n;
}

#elif defined(CONFIG_ARM64)

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

/* a row's core type against the CPU's (a P-core row takes "none reported") */
static bool stp_pmu_core_ok(unsigned int core, const struct stp_cpu_ident *id)
{
	switch (core) {
	case STP_CORE_ATOM:
		return id->core_type == STP_CORE_TYPE_ATOM;
	case STP_CORE_CORE:
		return id->core_type == STP_CORE_TYPE_CORE || !id->core_type;
	default:
		return true;
	}
}

/*
 * The first row matching the CPU: match entries follow in row order, a row
 * with `same` takes the previous row's.
 */
static int stp_pmu_pick_row(const struct stp_cpu_ident *id)
{
	const struct stp_pmu_match *m = stp_pmu_tab.match, *first = m;
	unsigned int r, i, n = 0;

	for (r = 0; r < stp_pmu_tab.nrows; r++) {
		const struct stp_pmu_row *row = &stp_pmu_tab.rows[r];

		if (!row->same) {
			first = m;
			n = row->nmatch;
			m += n;
		}
		if (!n)
			return r;	/* the generic row: any CPU */
		if (!stp_pmu_core_ok(row->core, id))
			continue;
		for (i = 0; i < n; i++)
			if (stp_pmu_match_cpu(&first[i], id))
				return r;
	}
	return -1;
}

#if defined(CONFIG_X86)
/*
 * On a hybrid part the kernel registers cpu_core with PERF_TYPE_RAW and
 * cpu_atom with a type of its own, and a raw event bound to an E-core is
 * refused by cpu_core (-ENOENT). For an Atom row the raw encodings take the
 * type of the PMU the kernel gives a generic cycles event on that CPU (it
 * tries every PMU for a generic event). Sleeps; at counter creation only.
 */
static void stp_pmu_core_type_attr(int cpu, int row, struct perf_event_attr *attr)
{
	struct perf_event_attr probe = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(probe),
		.config = PERF_COUNT_HW_CPU_CYCLES,
		.disabled = 1,
	};
	struct perf_event *e;

	if (stp_pmu_tab.rows[row].core != STP_CORE_ATOM || attr->type != PERF_TYPE_RAW)
		return;
	e = stp_fail_errptr("Atom PMU type probe counter", -ENOENT,
		perf_event_create_kernel_counter(&probe, cpu, NULL, NULL, NULL));
	if (IS_ERR(e))
		return;		/* no PMU: creating the real counter says so */
	attr->type = e->pmu->type;
	perf_event_release_kernel(e);
}
#else
static void stp_pmu_core_type_attr(int cpu, int row, struct perf_event_attr *attr)
{
}
#endif

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

#endif /* STP_NEVENTS > 0 */

#endif /* STP_PMU_MATCH_H */
