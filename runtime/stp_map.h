/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_map.h - associative arrays: fixed-capacity hash maps with tuple keys,
 * preallocated at module init (vmalloc), never allocating in handlers.
 *
 * Entries live in one block of cap slots: a header, the keys (a long is 8
 * bytes, a string STP_MAXSTRINGLEN) and the value (a long, a string, or a
 * struct stp_stat followed by its histogram buckets). Used entries are
 * chained per hash bucket and kept on an insertion-order list (oldest
 * first), which is the unsorted foreach order and the eviction order of a
 * wrapping array (a%[N]). Free slots form a list through hnext.
 *
 * Every array is a global: bodies that touch one run under its lock,
 * which serializes all access. foreach sorts slot indexes into the map's
 * preallocated order[] array with sort_r() (no allocation).
 */
#ifndef STP_MAP_H
#define STP_MAP_H

#define STP_NIL 0xffffffffU

enum stp_type {
	STP_TLONG = 1,
	STP_TSTR = 2,
	STP_TSTAT = 3,
};

/* a key as generated code passes it: n[i] for long keys, s[i] for strings */
struct stp_key {
	s64 n[STP_MAXKEYS];
	const char *s[STP_MAXKEYS];
};

struct stp_ment {
	u32 hnext;			/* next in hash chain / free list */
	u32 older, newer;		/* insertion order */
	u32 hash;
	u32 seq;			/* insertion number, for stable sorts */
	u32 pad;
};

struct stp_map {
	/* set by generated code */
	const char *name;
	u32 cap;
	u8 nkeys;
	u8 ktype[STP_MAXKEYS];
	u8 vtype;
	bool wrap;
	const struct stp_hdesc *hist;	/* STP_TSTAT values */

	/* runtime */
	u32 esize, voff, koff[STP_MAXKEYS];
	char *ents;
	u32 *heads;
	u32 nheads;
	u32 count;
	u32 free_head;
	u32 oldest, newest;
	u32 seq;
	u32 *order;			/* foreach: sorted slot indexes */
	bool iterating;
};

static const struct stp_stat stp_empty_stat __maybe_unused;

static inline struct stp_ment *stp_map_ent(const struct stp_map *m, u32 i)
{
	return (struct stp_ment *)(m->ents + (size_t)i * m->esize);
}

static inline void *stp_mval(const struct stp_map *m, const struct stp_ment *e)
{
	return (char *)e + m->voff;
}

static inline s64 stp_mkey_long(const struct stp_map *m, const struct stp_ment *e, int i)
{
	return *(const s64 *)((const char *)e + m->koff[i]);
}

static inline const char *stp_mkey_str(const struct stp_map *m, const struct stp_ment *e, int i)
{
	return (const char *)e + m->koff[i];
}

static __maybe_unused void stp_map_reset(struct stp_map *m)
{
	u32 i;

	for (i = 0; i < m->nheads; i++)
		m->heads[i] = STP_NIL;
	for (i = 0; i < m->cap; i++)
		stp_map_ent(m, i)->hnext = i + 1 < m->cap ? i + 1 : STP_NIL;
	m->free_head = 0;
	m->count = 0;
	m->oldest = m->newest = STP_NIL;
}

/* at module init; sleeps */
static __maybe_unused int stp_map_alloc(struct stp_map *m)
{
	u32 off = sizeof(struct stp_ment), i;

	for (i = 0; i < m->nkeys; i++) {
		m->koff[i] = off;
		off += m->ktype[i] == STP_TSTR ? ALIGN(STP_MAXSTRINGLEN, 8) : 8;
	}
	m->voff = off;
	if (m->vtype == STP_TSTR)
		off += ALIGN(STP_MAXSTRINGLEN, 8);
	else if (m->vtype == STP_TSTAT)
		off += sizeof(struct stp_stat) + m->hist->nb * sizeof(s64);
	else
		off += 8;
	m->esize = ALIGN(off, 8);
	m->nheads = roundup_pow_of_two(max(m->cap, 2U));
	m->ents = stp_fail_null("array entries",
				vzalloc((size_t)m->cap * m->esize));
	m->heads = stp_fail_null("array hash heads",
				 vmalloc(m->nheads * sizeof(u32)));
	m->order = stp_fail_null("array order",
				 vmalloc(m->cap * sizeof(u32)));
	if (!m->ents || !m->heads || !m->order) {
		stp_err("cannot allocate array '%s' (%u entries of %u bytes)\n",
			m->name, m->cap, m->esize);
		return -ENOMEM;
	}
	stp_map_reset(m);
	return 0;
}

static __maybe_unused void stp_map_free(struct stp_map *m)
{
	vfree(m->ents);
	vfree(m->heads);
	vfree(m->order);
	m->ents = NULL;
	m->heads = NULL;
	m->order = NULL;
}

static __maybe_unused u32 stp_map_hash(const struct stp_map *m, const struct stp_key *k)
{
	u64 h = 0xcbf29ce484222325ULL;
	const unsigned char *p;
	int i;

	for (i = 0; i < m->nkeys; i++) {
		if (m->ktype[i] == STP_TSTR) {
			for (p = (const unsigned char *)k->s[i]; *p; p++)
				h = (h ^ *p) * 0x100000001b3ULL;
			h = (h ^ 0xff) * 0x100000001b3ULL;
		} else {
			h = hash_64(h ^ (u64)k->n[i], 64);
		}
	}
	return (u32)(h ^ (h >> 32));
}

/*
 * Slices a[*, k]: the keys whose bit is set in wild (bit i for key i) match
 * any value; the others must equal k's.
 */
static __always_inline bool stp_map_keymatch(const struct stp_map *m, const struct stp_ment *e,
					     const struct stp_key *k, u32 wild)
{
	int i;

	for (i = 0; i < m->nkeys; i++) {
		if (wild & (1U << i))
			continue;
		if (m->ktype[i] == STP_TSTR) {
			if (strncmp(stp_mkey_str(m, e, i), k->s[i], STP_MAXSTRINGLEN - 1))
				return false;
		} else if (stp_mkey_long(m, e, i) != k->n[i]) {
			return false;
		}
	}
	return true;
}

static __maybe_unused bool stp_map_keyeq(const struct stp_map *m, const struct stp_ment *e,
			  const struct stp_key *k)
{
	return stp_map_keymatch(m, e, k, 0);
}

static __maybe_unused struct stp_ment *stp_map_find(const struct stp_map *m, const struct stp_key *k)
{
	u32 h = stp_map_hash(m, k), i;
	struct stp_ment *e;

	for (i = m->heads[h & (m->nheads - 1)]; i != STP_NIL; i = e->hnext) {
		e = stp_map_ent(m, i);
		if (e->hash == h && stp_map_keyeq(m, e, k))
			return e;
	}
	return NULL;
}

static __maybe_unused void stp_map_unlink(struct stp_map *m, u32 idx)
{
	struct stp_ment *e = stp_map_ent(m, idx), *p;
	u32 *link = &m->heads[e->hash & (m->nheads - 1)];

	while (*link != idx) {
		p = stp_map_ent(m, *link);
		link = &p->hnext;
	}
	*link = e->hnext;
	if (e->older != STP_NIL)
		stp_map_ent(m, e->older)->newer = e->newer;
	else
		m->oldest = e->newer;
	if (e->newer != STP_NIL)
		stp_map_ent(m, e->newer)->older = e->older;
	else
		m->newest = e->older;
	e->hnext = m->free_head;
	m->free_head = idx;
	m->count--;
}

/* finds or creates the entry of k; NULL (and a script error) when full */
static __maybe_unused struct stp_ment *stp_map_insert(struct stp_context *c, struct stp_map *m,
				       const struct stp_key *k)
{
	struct stp_ment *e = stp_map_find(m, k);
	u32 idx, h, i;

	if (e)
		return e;
	if (m->free_head == STP_NIL) {
		if (!m->wrap || m->oldest == STP_NIL) {
			stp_errorf(c, "array '%s' is full (%u entries); declare it larger (global %s[N]), wrapping (%s%%[N]) or raise MAXMAPENTRIES",
				   m->name, m->cap, m->name, m->name);
			return NULL;
		}
		stp_map_unlink(m, m->oldest);
	}
	idx = m->free_head;
	e = stp_map_ent(m, idx);
	m->free_head = e->hnext;
	memset(e, 0, m->esize);
	h = stp_map_hash(m, k);
	e->hash = h;
	e->seq = m->seq++;
	for (i = 0; i < m->nkeys; i++) {
		if (m->ktype[i] == STP_TSTR)
			strscpy((char *)e + m->koff[i], k->s[i], STP_MAXSTRINGLEN);
		else
			*(s64 *)((char *)e + m->koff[i]) = k->n[i];
	}
	e->hnext = m->heads[h & (m->nheads - 1)];
	m->heads[h & (m->nheads - 1)] = idx;
	e->older = m->newest;
	e->newer = STP_NIL;
	if (m->newest != STP_NIL)
		stp_map_ent(m, m->newest)->newer = idx;
	else
		m->oldest = idx;
	m->newest = idx;
	m->count++;
	return e;
}

static inline s64 stp_map_get_long(const struct stp_map *m, const struct stp_key *k)
{
	struct stp_ment *e = stp_map_find(m, k);

	return e ? *(s64 *)stp_mval(m, e) : 0;
}

static inline const char *stp_map_get_str(const struct stp_map *m, const struct stp_key *k)
{
	struct stp_ment *e = stp_map_find(m, k);

	return e ? (const char *)stp_mval(m, e) : "";
}

static inline const struct stp_stat *stp_map_get_stat(const struct stp_map *m,
						      const struct stp_key *k)
{
	struct stp_ment *e = stp_map_find(m, k);

	return e ? (const struct stp_stat *)stp_mval(m, e) : &stp_empty_stat;
}

/* the element of k to store into (created); a dummy when the map is full */
static inline s64 *stp_map_lref(struct stp_context *c, struct stp_map *m,
				const struct stp_key *k)
{
	struct stp_ment *e = stp_map_insert(c, m, k);

	if (unlikely(!e)) {
		c->dummy_long = 0;
		return &c->dummy_long;
	}
	return stp_mval(m, e);
}

/*
 * a[k] of an array with one long key, the common a[pid()]++: the lookup
 * without building a struct stp_key (a memset of every key slot) or the
 * loops over key types; the same hash as stp_map_hash, so both paths find
 * the same entries. A new entry goes through stp_map_lref, out of line.
 */
static __always_inline u32 stp_map_hash_n1(s64 k)
{
	u64 h = hash_64(0xcbf29ce484222325ULL ^ (u64)k, 64);

	return (u32)(h ^ (h >> 32));
}

static noinline s64 *stp_map_lref_n1_new(struct stp_context *c, struct stp_map *m, s64 k)
{
	struct stp_key key = { .n = { [0] = k } };

	return stp_map_lref(c, m, &key);
}

static inline s64 *stp_map_lref_n1(struct stp_context *c, struct stp_map *m, s64 k)
{
	u32 h = stp_map_hash_n1(k), i;
	struct stp_ment *e;

	for (i = m->heads[h & (m->nheads - 1)]; i != STP_NIL; i = e->hnext) {
		e = stp_map_ent(m, i);
		if (e->hash == h && *(s64 *)((char *)e + m->koff[0]) == k)
			return stp_mval(m, e);
	}
	return stp_map_lref_n1_new(c, m, k);
}

static inline char *stp_map_sref(struct stp_context *c, struct stp_map *m,
				 const struct stp_key *k)
{
	struct stp_ment *e = stp_map_insert(c, m, k);

	if (unlikely(!e))
		return c->dummy_str;
	return stp_mval(m, e);
}

static inline void stp_map_stat_add(struct stp_context *c, struct stp_map *m,
				    const struct stp_key *k, s64 v)
{
	struct stp_ment *e = stp_map_insert(c, m, k);
	struct stp_stat *s;

	if (unlikely(!e))
		return;
	s = stp_mval(m, e);
	stp_stat_addh(s, (s64 *)(s + 1), m->hist, v);
}

static inline s64 stp_map_exists(const struct stp_map *m, const struct stp_key *k)
{
	return stp_map_find(m, k) != NULL;
}

static inline void stp_map_delete(struct stp_map *m, const struct stp_key *k)
{
	struct stp_ment *e = stp_map_find(m, k);

	if (e)
		stp_map_unlink(m, ((char *)e - m->ents) / m->esize);
}

static inline void stp_map_clear(struct stp_map *m)
{
	if (m->count)
		stp_map_reset(m);
}

/* [*, k] in a */
static __maybe_unused s64 stp_map_exists_slice(const struct stp_map *m, const struct stp_key *k,
					       u32 wild)
{
	u32 i;

	for (i = m->oldest; i != STP_NIL; i = stp_map_ent(m, i)->newer)
		if (stp_map_keymatch(m, stp_map_ent(m, i), k, wild))
			return 1;
	return 0;
}

/* delete a[*, k] */
static __maybe_unused void stp_map_delete_slice(struct stp_map *m, const struct stp_key *k,
						u32 wild)
{
	u32 i, next;

	for (i = m->oldest; i != STP_NIL; i = next) {
		next = stp_map_ent(m, i)->newer;
		if (stp_map_keymatch(m, stp_map_ent(m, i), k, wild))
			stp_map_unlink(m, i);
	}
}

/* foreach (... in a[*, k]): keeps the first n of m->order that match, in order */
static __maybe_unused u32 stp_map_slice(struct stp_map *m, u32 n, const struct stp_key *k,
					u32 wild)
{
	u32 i, j = 0;

	for (i = 0; i < n; i++)
		if (stp_map_keymatch(m, stp_map_ent(m, m->order[i]), k, wild))
			m->order[j++] = m->order[i];
	return j;
}

struct stp_sort_spec {
	const struct stp_map *m;
	int col;			/* 0: value, k + 1: key k */
	int dir;			/* 1 ascending, -1 descending */
};

static __maybe_unused int stp_map_cmp(const void *a, const void *b, const void *priv)
{
	const struct stp_sort_spec *sp = priv;
	const struct stp_map *m = sp->m;
	const struct stp_ment *x = stp_map_ent(m, *(const u32 *)a);
	const struct stp_ment *y = stp_map_ent(m, *(const u32 *)b);
	int r = 0, type;
	s64 u, v;

	if (sp->col == 0)
		type = m->vtype;
	else
		type = m->ktype[sp->col - 1];
	if (type == STP_TSTR) {
		const char *s = sp->col ? stp_mkey_str(m, x, sp->col - 1) : stp_mval(m, x);
		const char *t = sp->col ? stp_mkey_str(m, y, sp->col - 1) : stp_mval(m, y);

		r = strncmp(s, t, STP_MAXSTRINGLEN);
		r = r < 0 ? -1 : r > 0;
	} else {
		if (sp->col)
			u = stp_mkey_long(m, x, sp->col - 1), v = stp_mkey_long(m, y, sp->col - 1);
		else if (type == STP_TSTAT)
			u = ((struct stp_stat *)stp_mval(m, x))->count,
			v = ((struct stp_stat *)stp_mval(m, y))->count;
		else
			u = *(s64 *)stp_mval(m, x), v = *(s64 *)stp_mval(m, y);
		r = u < v ? -1 : u > v;
	}
	r *= sp->dir;
	if (!r)				/* ties keep insertion order */
		r = x->seq < y->seq ? -1 : x->seq > y->seq;
	return r;
}

/*
 * Starts a foreach: fills m->order (insertion order, or sorted on column
 * col) and returns the number of entries. A foreach nested in a foreach
 * over the same array is a script error (the order array is in use).
 */
static __maybe_unused u32 stp_map_sort(struct stp_context *c, struct stp_map *m, int col, int dir)
{
	struct stp_sort_spec sp = { m, col, dir };
	u32 i, n = 0;

	if (unlikely(m->iterating)) {
		stp_errorf(c, "nested foreach over array '%s'", m->name);
		return 0;
	}
	for (i = m->oldest; i != STP_NIL; i = stp_map_ent(m, i)->newer)
		m->order[n++] = i;
	if (dir && n > 1)
		sort_r(m->order, n, sizeof(u32), stp_map_cmp, NULL, &sp);
	m->iterating = true;
	return n;
}

#endif /* STP_MAP_H */
