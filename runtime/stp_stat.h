/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_stat.h - statistics: `s <<< v`, @count/@sum/@min/@max/@avg/@variance,
 * @hist_log and @hist_linear with their bar-chart printing.
 *
 * A scalar statistic is per CPU (generated code defines one struct per CPU
 * and merges them into c->agg on read); an array of statistics keeps one
 * struct stp_stat per element under the array's lock. Histogram buckets
 * follow the struct stp_stat they belong to; struct stp_hdesc says how
 * many there are and what they mean.
 */
#ifndef STP_STAT_H
#define STP_STAT_H

enum stp_hist_kind {
	STP_HIST_NONE,
	STP_HIST_LOG,
	STP_HIST_LINEAR,
};

/*
 * A statistic local to a probe or function is declared before struct
 * stp_stat (in union stp_locals): as s64 s[5], read as a struct stp_stat.
 */
_Static_assert(sizeof(struct stp_stat) == 5 * sizeof(s64),
	       "local statistics hold struct stp_stat as s64[5]");

/*
 * A number kept per CPU (the translator's per-CPU globals: only n++,
 * n += e ... in probes): its value is *base plus every CPU's copy, in u64
 * so that the sum wraps as one s64 would. Read and set only where no probe
 * adds (begin, end, error, timers reading a snapshot): nothing locks.
 */
static __maybe_unused s64 stp_pcpu_sum(u64 __percpu *pcpu, const u64 *base)
{
	u64 v = READ_ONCE(*base);
	int cpu;

	for_each_possible_cpu(cpu)
		v += READ_ONCE(*per_cpu_ptr(pcpu, cpu));
	return (s64)v;
}

/* the number's value becomes v: every CPU's copy 0, the base v */
static __maybe_unused s64 stp_pcpu_store(u64 __percpu *pcpu, u64 *base, s64 v)
{
	int cpu;

	for_each_possible_cpu(cpu)
		WRITE_ONCE(*per_cpu_ptr(pcpu, cpu), 0);
	WRITE_ONCE(*base, (u64)v);
	return v;
}

/* bucket layout of an aggregate's histogram */
struct stp_hdesc {
	int kind;
	s64 lo, hi, step;		/* linear */
	u32 nb;				/* buckets */
};

/*
 * Log buckets: 64 is 0; 65 + k holds [2^k, 2^(k+1)); 63 - k holds
 * (-2^(k+1), -2^k]. Linear buckets: 0 below lo, 1 + i for
 * [lo + i*step, lo + (i+1)*step), nb - 1 above hi.
 */
#define STP_HIST_LOG_BUCKETS 129
#define STP_HIST_LOG_ZERO 64

static inline u32 stp_hist_bucket(const struct stp_hdesc *d, s64 v)
{
	u64 u;

	if (d->kind == STP_HIST_LOG) {
		if (v == 0)
			return STP_HIST_LOG_ZERO;
		if (v > 0)
			return STP_HIST_LOG_ZERO + 1 + ilog2((u64)v);
		u = v == S64_MIN ? (u64)1 << 63 : (u64)-v;
		return STP_HIST_LOG_ZERO - 1 - ilog2(u);
	}
	if (v < d->lo)
		return 0;
	if (v > d->hi)
		return d->nb - 1;
	return 1 + div64_u64((u64)(v - d->lo), (u64)d->step);
}

/*
 * Buckets a script can index (@hist_log(s)[i], foreach over a histogram):
 * log 0..127 (64 is 0, as SystemTap numbers them; 128 is never filled),
 * linear all nb.
 */
static inline s64 stp_hist_nindex(const struct stp_hdesc *d)
{
	return d->kind == STP_HIST_LOG ? STP_HIST_LOG_BUCKETS - 1 : d->nb;
}

/* @hist_log(s)[i]: the count of bucket i; out of range is a script error */
static inline s64 stp_hist_get(struct stp_context *c, const struct stp_stat *s,
			       const s64 *h, const struct stp_hdesc *d, s64 i)
{
	if (unlikely(i < 0 || i >= stp_hist_nindex(d))) {
		stp_error(c, "histogram index out of range");
		return 0;
	}
	return s->count ? h[i] : 0;	/* an absent element has no buckets */
}

/*
 * adds v to s: the minimum and maximum only when minmax, the sum of
 * squares only when sumsq (constants: whether the script reads @min/@max,
 * @variance of the statistic; what it never reads is never kept)
 */
static __always_inline void stp_stat_add_kept(struct stp_stat *s, s64 v,
					      bool minmax, bool sumsq)
{
	if (minmax) {
		if (!s->count || v < s->min)
			s->min = v;
		if (!s->count || v > s->max)
			s->max = v;
	}
	s->count++;
	s->sum += v;
	if (sumsq)
		s->sumsq = (s64)((u64)s->sumsq + (u64)v * (u64)v);
}

static inline void stp_stat_add(struct stp_stat *s, s64 v)
{
	stp_stat_add_kept(s, v, true, true);
}

/* adds v to s (as stp_stat_add_kept) and, when d collects one, to its histogram h */
static __always_inline void stp_stat_addh_kept(struct stp_stat *s, s64 *h,
					       const struct stp_hdesc *d, s64 v,
					       bool minmax, bool sumsq)
{
	stp_stat_add_kept(s, v, minmax, sumsq);
	if (d->kind != STP_HIST_NONE)
		h[stp_hist_bucket(d, v)]++;
}

static inline void stp_stat_addh(struct stp_stat *s, s64 *h,
				 const struct stp_hdesc *d, s64 v)
{
	stp_stat_addh_kept(s, h, d, v, true, true);
}

/* folds one CPU's aggregate (s, h) into (a, ah) */
static inline void stp_stat_merge(struct stp_stat *a, s64 *ah,
				  const struct stp_stat *s, const s64 *h, u32 nb)
{
	u32 i;

	if (!s->count)
		return;
	if (!a->count || s->min < a->min)
		a->min = s->min;
	if (!a->count || s->max > a->max)
		a->max = s->max;
	a->count += s->count;
	a->sum += s->sum;
	a->sumsq = (s64)((u64)a->sumsq + (u64)s->sumsq);
	for (i = 0; i < nb; i++)
		ah[i] += h[i];
}

static inline void stp_stat_agg_reset(struct stp_context *c, u32 nb)
{
	memset(&c->agg, 0, sizeof(c->agg));
	memset(c->agg_hist, 0, nb * sizeof(s64));
}

static inline s64 stp_stat_count(struct stp_context *c, const struct stp_stat *s)
{
	return s->count;
}

static inline s64 stp_stat_sum(struct stp_context *c, const struct stp_stat *s)
{
	return s->sum;
}

static inline bool stp_stat_empty(struct stp_context *c, const struct stp_stat *s)
{
	if (likely(s->count))
		return false;
	stp_error(c, "empty aggregate");
	return true;
}

static inline s64 stp_stat_min(struct stp_context *c, const struct stp_stat *s)
{
	return stp_stat_empty(c, s) ? 0 : s->min;
}

static inline s64 stp_stat_max(struct stp_context *c, const struct stp_stat *s)
{
	return stp_stat_empty(c, s) ? 0 : s->max;
}

static inline s64 stp_stat_avg(struct stp_context *c, const struct stp_stat *s)
{
	return stp_stat_empty(c, s) ? 0 : div64_s64(s->sum, s->count);
}

/* sample variance (n - 1 in the denominator), 0 below two values */
static inline s64 stp_stat_variance(struct stp_context *c, const struct stp_stat *s)
{
	s64 num;

	if (stp_stat_empty(c, s) || s->count < 2)
		return 0;
	num = (s64)((u64)s->count * (u64)s->sumsq - (u64)s->sum * (u64)s->sum);
	return div64_s64(num, s->count * (s->count - 1));
}

#define STP_HIST_WIDTH 50

static inline int stp_hist_label(char *buf, size_t n, const struct stp_hdesc *d,
				 u32 b)
{
	s64 v;

	if (d->kind == STP_HIST_LOG) {
		if (b == STP_HIST_LOG_ZERO)
			v = 0;
		else if (b > STP_HIST_LOG_ZERO)
			v = (s64)((u64)1 << (b - STP_HIST_LOG_ZERO - 1));
		else
			v = -(s64)((u64)1 << (STP_HIST_LOG_ZERO - 1 - b));
		return scnprintf(buf, n, "%lld", v);
	}
	if (b == 0)
		return scnprintf(buf, n, "<%lld", d->lo);
	if (b == d->nb - 1)
		return scnprintf(buf, n, ">%lld", d->hi);
	return scnprintf(buf, n, "%lld", d->lo + (s64)(b - 1) * d->step);
}

/*
 * print(@hist_log(s)) / print(@hist_linear(s, lo, hi, step)):
 *
 *   value |-------------------------------------------------- count
 *     1 |@@@@@@@@@@                                         10
 *     2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ 50
 *     4 |                                                   0
 *
 * Rows run from two buckets before the first non-empty one to two after
 * the last (within the range; linear under/overflow rows and negative log
 * rows only when not empty), followed by an empty line. Bars are scaled to
 * the largest count (rounded up, so a non-empty bucket shows at least one
 * '@').
 */
static __maybe_unused void stp_hist_print(struct stp_context *c,
					  const struct stp_stat *s, const s64 *h,
					  const struct stp_hdesc *d)
{
	char label[24], bar[STP_HIST_WIDTH + 1];
	u32 first = d->nb, last = 0, b, lo, hi, width = 5;
	s64 max = 0;
	int n;

	if (!s->count || d->kind == STP_HIST_NONE)
		return;
	for (b = 0; b < d->nb; b++) {
		if (!h[b])
			continue;
		if (first == d->nb)
			first = b;
		last = b;
		if (h[b] > max)
			max = h[b];
	}
	if (first == d->nb)
		return;
	lo = first;
	hi = last;
	if (d->kind == STP_HIST_LINEAR) {
		u32 fmin = first == 0 ? 0 : 1;
		u32 lmax = last == d->nb - 1 ? d->nb - 1 : d->nb - 2;

		lo = first >= fmin + 2 ? first - 2 : fmin;
		hi = last + 2 <= lmax ? last + 2 : lmax;
	} else {
		/* no negative rows unless there are negative values */
		u32 fmin = first >= STP_HIST_LOG_ZERO ? STP_HIST_LOG_ZERO : 0;

		lo = first >= fmin + 2 ? first - 2 : fmin;
		hi = last + 2 < d->nb ? last + 2 : d->nb - 1;
	}
	for (b = lo; b <= hi; b++) {
		n = stp_hist_label(label, sizeof(label), d, b);
		if (n > width)
			width = n;
	}
	memset(bar, '-', STP_HIST_WIDTH);
	bar[STP_HIST_WIDTH] = '\0';
	stp_printf(c, "%*s |%s count\n", width, "value", bar);
	for (b = lo; b <= hi; b++) {
		u32 len = max ? (u32)div64_s64(h[b] * STP_HIST_WIDTH + max - 1, max) : 0;

		if (len > STP_HIST_WIDTH)
			len = STP_HIST_WIDTH;
		memset(bar, '@', len);
		memset(bar + len, ' ', STP_HIST_WIDTH - len);
		stp_hist_label(label, sizeof(label), d, b);
		stp_printf(c, "%*s |%s %lld\n", width, label, bar, h[b]);
	}
	stp_printf(c, "\n");
}

#endif /* STP_STAT_H */
