/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_pmu_table.h - the fat PMU table a module carries, and its decoding.
 *
 * Rows of (CPU match list, one encoding per script event) in the compact
 * layout pmu/fat_emit.cpp writes: shared 8-byte encodings (wide ones in
 * ext[]), rows without pointers, packed match entries, front-coded row
 * names. docs/pmu.md and docs/runtime.md describe the format.
 */
#ifndef STP_PMU_TABLE_H
#define STP_PMU_TABLE_H

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

/* stp_pmu_row.core: the core type a hybrid Intel row is for (CPUID leaf 0x1A) */
#define STP_CORE_ANY		0	/* any CPU its entries match */
#define STP_CORE_ATOM		1	/* core type 0x20 (E-core) */
#define STP_CORE_CORE		2	/* core type 0x40 (P-core), or none reported */

/*
 * A PMU row: its nmatch entries follow the previous rows' in match[]; with
 * same set it has none of its own and takes the previous row's (the other
 * core type of the same hybrid models). nmatch 0 without same: any CPU.
 * vec indexes the event vectors.
 */
struct stp_pmu_row {
	u8 nmatch : 5;
	u8 same : 1;
	u8 core : 2;			/* STP_CORE_* */
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
	const char *row_names;		/* front-coded: 1 + shared prefix, then the
					 * rest, its last byte | 0x80 */
	const char *event_names;	/* NUL separated */
};

#define STP_PMU_NAME_LEN 48

#if STP_NEVENTS > 0

static struct stp_pmu_tables stp_pmu_tab;

/* row r's name, decoded into buf (STP_PMU_NAME_LEN bytes) */
static const char *stp_pmu_row_name(int r, char *buf)
{
	const char *s = stp_pmu_tab.row_names;
	size_t k, len = 0;
	int i;
	u8 c;

	buf[0] = '\0';
	if (r < 0 || (unsigned int)r >= stp_pmu_tab.nrows)
		return "?";
	for (i = 0; i <= r; i++) {
		k = min_t(size_t, (u8)*s++ - 1, len);
		len = k;
		do {
			c = *s++;
			if (len < STP_PMU_NAME_LEN - 1)
				buf[len++] = c & 0x7f;
		} while (!(c & 0x80) && c);
		buf[len] = '\0';
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

#endif /* STP_NEVENTS > 0 */

#endif /* STP_PMU_TABLE_H */
