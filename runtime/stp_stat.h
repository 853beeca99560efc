/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_stat.h - statistics (`s <<< v` and @count/@sum/@min/@max/@avg).
 *
 * A stat is a plain global; a probe body that touches one runs under the
 * global lock (the translator sets .lock), which serializes updates.
 */
#ifndef STP_STAT_H
#define STP_STAT_H

struct stp_stat {
	s64 count;
	s64 sum;
	s64 min;
	s64 max;
};

static inline void stp_stat_add(struct stp_stat *s, s64 v)
{
	if (!s->count || v < s->min)
		s->min = v;
	if (!s->count || v > s->max)
		s->max = v;
	s->count++;
	s->sum += v;
}

static inline s64 stp_stat_count(struct stp_context *c, struct stp_stat *s)
{
	return s->count;
}

static inline s64 stp_stat_sum(struct stp_context *c, struct stp_stat *s)
{
	return s->sum;
}

static inline bool stp_stat_empty(struct stp_context *c, struct stp_stat *s)
{
	if (likely(s->count))
		return false;
	stp_error(c, "empty aggregate");
	return true;
}

static inline s64 stp_stat_min(struct stp_context *c, struct stp_stat *s)
{
	return stp_stat_empty(c, s) ? 0 : s->min;
}

static inline s64 stp_stat_max(struct stp_context *c, struct stp_stat *s)
{
	return stp_stat_empty(c, s) ? 0 : s->max;
}

static inline s64 stp_stat_avg(struct stp_context *c, struct stp_stat *s)
{
	return stp_stat_empty(c, s) ? 0 : div64_s64(s->sum, s->count);
}

#endif /* STP_STAT_H */
