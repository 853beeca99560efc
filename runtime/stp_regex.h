/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_regex.h - `s =~ "re"` and `s !~ "re"`: running the programs the
 * translator compiled from the regular expressions (translator/regex/);
 * matched(n), matched_str() and ngroups() on the last match are string
 * builtins (stp_string.h).
 *
 * A regex is a Thompson NFA (CHAR a byte set, SPLIT two ways on with the
 * first preferred, JMP, SAVE a submatch boundary (y: unset it), BOL '^',
 * EOL '$', MATCH)
 * and, when it was small enough, a DFA over byte classes. The DFA answers
 * match/no-match in one table step per byte; the NFA runs as a Pike VM
 * when the script asks for submatches (or there is no DFA): one thread
 * per instruction at most, each with its submatch offsets, two thread
 * lists and an explicit stack bounded by the number of instructions, so
 * time is O(length x instructions) and memory the scratch below, sized by
 * the script's largest regexes (STP_REGEX_MAXINSNS instructions,
 * STP_REGEX_MAXSLOTS submatch offsets, STP_REGEX_MAXCAPS the largest
 * instructions x offsets of one regex: at most 16384, so the thread lists
 * take at most 64 KiB) and
 * kept in the per-CPU probe context. No recursion, no allocation, nothing
 * that sleeps; the context is never shared (its busy count), so no lock.
 *
 * The search is unanchored and the whole match is the leftmost-longest
 * one: threads are started at every position until some thread matches;
 * a match replaces the one found when it starts earlier, or at the same
 * place and ends later; threads that started after the match found are
 * dropped. Between threads at the same instruction the one started
 * earlier (or, from the same start, preferred by SPLIT) is kept.
 *
 * It uses nothing of the runtime but the limits, so the unit tests compile
 * it in user space with their definitions of u8, u16, u32, memcpy and strnlen.
 */
#ifndef STP_REGEX_H
#define STP_REGEX_H

enum stp_regex_op {
	STP_RE_CHAR,
	STP_RE_SPLIT,
	STP_RE_JMP,
	STP_RE_SAVE,
	STP_RE_BOL,
	STP_RE_EOL,
	STP_RE_MATCH,
};

struct stp_regex_insn {
	u8 op;			/* enum stp_regex_op */
	u16 x;			/* CHAR: set; SPLIT, JMP: target; SAVE: slot */
	u16 y;			/* SPLIT: the other target; SAVE: 1 unsets */
};

/* one compiled regex (generated tables) */
struct stp_regex {
	const struct stp_regex_insn *prog;
	const u32 (*sets)[8];		/* CHAR byte sets: bit b is byte b */
	u16 ninsns;
	u16 nsub;			/* subexpressions, the whole match included */
	const u8 *cls;			/* DFA (NULL: none): byte -> class */
	const u16 *dfa;			/* state * nclasses + class -> state */
	const u8 *accept;		/* bit 0: matched; bit 1: matched at the end */
	u16 nclasses;
};

#define STP_RE_UNSET 0xffff
#define STP_RE_NOPC 0xffff

#if STP_MAXSTRINGLEN >= STP_RE_UNSET
#error "regex submatch offsets are 16 bits: MAXSTRINGLEN must be below 65535"
#endif

struct stp_regex_frame {
	u16 pc;				/* a SPLIT's other way, or STP_RE_NOPC */
	u16 slot;			/* with STP_RE_NOPC: the slot to restore */
	u16 val;
};

struct stp_regex_scratch {
	u16 pc[2][STP_REGEX_MAXINSNS];
	u16 caps[2][STP_REGEX_MAXCAPS];	/* thread k: [k * 2 * nsub] */
	u32 mark[STP_REGEX_MAXINSNS];	/* == gen: already in the list filled */
	u32 gen;
	u16 cur[STP_REGEX_MAXSLOTS];	/* the thread being followed */
	struct stp_regex_frame stack[STP_REGEX_MAXINSNS + 1];
};

/* the last =~ of this probe hit (valid: it matched) and the scratch */
struct stp_regex_state {
	int valid;
	u16 nsub;
	u16 caps[STP_REGEX_MAXSLOTS];
	char str[STP_MAXSTRINGLEN];	/* the string matched */
	struct stp_regex_scratch s;
};

static inline int stp_re_in_set(const struct stp_regex *re, u16 set, unsigned char b)
{
	return (re->sets[set][b >> 5] >> (b & 31)) & 1;
}

/* match/no-match by the DFA */
static inline int stp_re_dfa(const struct stp_regex *re, const char *s, unsigned len)
{
	unsigned i, st = 0;

	if (re->accept[0] & 1)
		return 1;
	for (i = 0; i < len; i++) {
		st = re->dfa[st * re->nclasses + re->cls[(unsigned char)s[i]]];
		if (re->accept[st] & 1)
			return 1;
	}
	return (re->accept[st] >> 1) & 1;
}

static inline void stp_re_next_gen(struct stp_regex_scratch *sc)
{
	if (++sc->gen == 0) {
		memset(sc->mark, 0, sizeof(sc->mark));
		sc->gen = 1;
	}
}

/*
 * Adds the thread at pc with the captures in sc->cur to list l at position
 * pos: SPLIT, JMP, SAVE, BOL and EOL are followed here (depth first, the
 * preferred way first), so the list holds only CHAR and MATCH threads.
 */
static __maybe_unused void stp_re_add(const struct stp_regex *re,
				      struct stp_regex_scratch *sc, int l, unsigned *n,
				      u16 pc, unsigned pos, unsigned len, unsigned nslots)
{
	const struct stp_regex_insn *in;
	struct stp_regex_frame *f;
	unsigned sp = 0;

	for (;;) {
		if (sc->mark[pc] != sc->gen) {
			sc->mark[pc] = sc->gen;
			in = &re->prog[pc];
			switch (in->op) {
			case STP_RE_JMP:
				pc = in->x;
				continue;
			case STP_RE_SPLIT:
				f = &sc->stack[sp++];
				f->pc = in->y;
				pc = in->x;
				continue;
			case STP_RE_SAVE:
				f = &sc->stack[sp++];
				f->pc = STP_RE_NOPC;
				f->slot = in->x;
				f->val = sc->cur[in->x];
				sc->cur[in->x] = in->y ? STP_RE_UNSET : pos;
				pc++;
				continue;
			case STP_RE_BOL:
				if (pos == 0) {
					pc++;
					continue;
				}
				break;
			case STP_RE_EOL:
				if (pos == len) {
					pc++;
					continue;
				}
				break;
			default: /* CHAR, MATCH: the thread waits here */
				sc->pc[l][*n] = pc;
				memcpy(&sc->caps[l][*n * nslots], sc->cur, nslots * sizeof(u16));
				(*n)++;
				break;
			}
		}
		/* this way ends: undo its SAVEs up to the last SPLIT, take its other way */
		for (;;) {
			if (!sp)
				return;
			f = &sc->stack[--sp];
			if (f->pc != STP_RE_NOPC)
				break;
			sc->cur[f->slot] = f->val;
		}
		pc = f->pc;
	}
}

/*
 * The Pike VM: the leftmost-longest match of re in s[0..len) into caps
 * (2 * re->nsub offsets, STP_RE_UNSET for a subexpression not matched);
 * 1 when there is one.
 */
static __maybe_unused int stp_re_nfa(const struct stp_regex *re, struct stp_regex_scratch *sc,
		      const char *s, unsigned len, u16 *caps)
{
	unsigned nslots = 2 * re->nsub, pos, i, k, n[2] = {0, 0};
	int cl = 0, nl = 1, found = 0;
	const u16 *tc;
	u16 pc;

	stp_re_next_gen(sc);
	for (pos = 0;; pos++) {
		if (!found) {
			for (k = 0; k < nslots; k++)
				sc->cur[k] = STP_RE_UNSET;
			stp_re_add(re, sc, cl, &n[cl], 0, pos, len, nslots);
		}
		if (!n[cl] && (found || pos >= len))
			break;
		stp_re_next_gen(sc);
		n[nl] = 0;
		for (i = 0; i < n[cl]; i++) {
			pc = sc->pc[cl][i];
			tc = &sc->caps[cl][i * nslots];
			if (found && tc[0] > caps[0])
				continue;	/* starts after the match found */
			if (re->prog[pc].op == STP_RE_MATCH) {
				if (!found || tc[0] < caps[0] || pos > caps[1]) {
					memcpy(caps, tc, nslots * sizeof(u16));
					found = 1;
				}
				continue;
			}
			if (pos < len && stp_re_in_set(re, re->prog[pc].x, s[pos])) {
				memcpy(sc->cur, tc, nslots * sizeof(u16));
				stp_re_add(re, sc, nl, &n[nl], pc + 1, pos + 1, len, nslots);
			}
		}
		if (pos >= len)
			break;
		cl = nl;
		nl = 1 - nl;
	}
	return found;
}

/*
 * s =~ re. With submatches, the match is kept in st for matched() (a
 * failed match is kept too: matched() then raises an error).
 */
static __maybe_unused int stp_regex_match(struct stp_regex_state *st, const struct stp_regex *re,
					  const char *s, int submatches)
{
	unsigned len = strnlen(s, STP_MAXSTRINGLEN - 1);
	int m;

	if (!submatches)
		return re->dfa ? stp_re_dfa(re, s, len) : stp_re_nfa(re, &st->s, s, len, st->caps);
	st->valid = 0;
	if (re->dfa && !stp_re_dfa(re, s, len))
		return 0;
	m = stp_re_nfa(re, &st->s, s, len, st->caps);
	if (m) {
		st->nsub = re->nsub;
		memcpy(st->str, s, len);
		st->str[len] = '\0';
		st->valid = 1;
	}
	return m;
}

#endif /* STP_REGEX_H */
