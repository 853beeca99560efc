/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_string.h - string builtins. Every script string is a NUL-terminated
 * char[STP_MAXSTRINGLEN]; results are written into a destination of that
 * size (a temporary in the probe's locals), never allocated.
 */
#ifndef STP_STRING_H
#define STP_STRING_H

/* substr(s, start, len): start is 0-based; out of range gives "" */
static inline const char *stp_substr(char *dst, const char *s, s64 start, s64 len)
{
	s64 n = strnlen(s, STP_MAXSTRINGLEN);

	dst[0] = '\0';
	if (start < 0 || len <= 0 || start >= n)
		return dst;
	if (len > n - start)
		len = n - start;
	memcpy(dst, s + start, len);
	dst[len] = '\0';
	return dst;
}

static inline s64 stp_isinstr(const char *s, const char *needle)
{
	return strstr(s, needle) != NULL;
}

static inline s64 stp_strpos(const char *s, const char *needle)
{
	const char *p = strstr(s, needle);

	return p ? p - s : -1;
}

/* strtol(s, base): leading spaces, sign, digits of base (0: by prefix) */
static inline s64 stp_strtol(struct stp_context *c, const char *s, s64 base)
{
	bool neg = false;
	u64 v = 0;
	int d;

	if (base != 0 && (base < 2 || base > 36)) {
		stp_error(c, "strtol: base must be 0 or between 2 and 36");
		return 0;
	}
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	if (base == 0) {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			base = 16;
			s += 2;
		} else if (s[0] == '0') {
			base = 8;
		} else {
			base = 10;
		}
	} else if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
	}
	for (;; s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'z')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'Z')
			d = *s - 'A' + 10;
		else
			break;
		if (d >= base)
			break;
		v = v * base + d;
	}
	return neg ? (s64)(0 - v) : (s64)v;
}

static inline const char *stp_str_replace(char *dst, const char *s, const char *from,
					  const char *to)
{
	size_t flen = strlen(from), tlen = strlen(to), n = 0;

	while (*s && n < STP_MAXSTRINGLEN - 1) {
		if (flen && !strncmp(s, from, flen)) {
			size_t k = min(tlen, (size_t)STP_MAXSTRINGLEN - 1 - n);

			memcpy(dst + n, to, k);
			n += k;
			s += flen;
		} else {
			dst[n++] = *s++;
		}
	}
	dst[n] = '\0';
	return dst;
}

/*
 * C escapes for quotes, backslashes and non-printables of s into dst: at
 * most room bytes (and a NUL). *cut is set when s did not fit.
 */
static __maybe_unused size_t stp_escape(char *dst, const char *s, size_t room,
					bool *cut)
{
	size_t n = 0;
	char esc[5];
	int k;

	*cut = false;
	for (; *s; s++) {
		unsigned char ch = *s;

		switch (ch) {
		case '\n': k = scnprintf(esc, sizeof(esc), "\\n"); break;
		case '\t': k = scnprintf(esc, sizeof(esc), "\\t"); break;
		case '\r': k = scnprintf(esc, sizeof(esc), "\\r"); break;
		case '"': k = scnprintf(esc, sizeof(esc), "\\\""); break;
		case '\\': k = scnprintf(esc, sizeof(esc), "\\\\"); break;
		default:
			if (ch < 0x20 || ch >= 0x7f)
				k = scnprintf(esc, sizeof(esc), "\\%03o", ch);
			else
				k = scnprintf(esc, sizeof(esc), "%c", ch);
		}
		if (n + k > room) {
			*cut = true;
			break;
		}
		memcpy(dst + n, esc, k);
		n += k;
	}
	dst[n] = '\0';
	return n;
}

/* text_str(s): C escapes for quotes, backslashes and non-printables */
static inline const char *stp_text_str(char *dst, const char *s)
{
	bool cut;

	stp_escape(dst, s, STP_MAXSTRINGLEN - 1, &cut);
	return dst;
}

/*
 * text_strn(s, len, quoted): text_str(s) in at most len bytes (0: the
 * string limit); quoted puts it in double quotes, and a cut string then
 * ends in "... after the closing quote (len is at least 5 then)
 */
static __maybe_unused const char *stp_text_strn(char *dst, const char *s, s64 len,
						s64 quoted)
{
	size_t max = len <= 0 || len > STP_MAXSTRINGLEN - 1 ? STP_MAXSTRINGLEN - 1 : len;
	size_t n;
	bool cut;

	if (!quoted) {
		stp_escape(dst, s, max, &cut);
		return dst;
	}
	max = max_t(size_t, max, 5);
	dst[0] = '"';
	n = 1 + stp_escape(dst + 1, s, max - 2, &cut);
	if (cut)
		n = 1 + stp_escape(dst + 1, s, max - 5, &cut);
	memcpy(dst + n, cut ? "\"..." : "\"", cut ? 5 : 2);
	return dst;
}

static inline s64 stp_stringat(struct stp_context *c, const char *s, s64 i)
{
	if (i < 0 || i >= (s64)strnlen(s, STP_MAXSTRINGLEN)) {
		stp_error(c, "stringat: index out of range");
		return 0;
	}
	return (unsigned char)s[i];
}

static inline const char *stp_toupper(char *dst, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i < STP_MAXSTRINGLEN - 1; i++)
		dst[i] = toupper(s[i]);
	dst[i] = '\0';
	return dst;
}

static inline const char *stp_tolower(char *dst, const char *s)
{
	size_t i;

	for (i = 0; s[i] && i < STP_MAXSTRINGLEN - 1; i++)
		dst[i] = tolower(s[i]);
	dst[i] = '\0';
	return dst;
}

/* isdigit(s): 1 when s starts with a decimal digit */
static inline s64 stp_isdigit(const char *s)
{
	return s[0] >= '0' && s[0] <= '9';
}

/*
 * tokenize(s, delim): SystemTap's stateful tokenizer. A non-empty s starts
 * over with a copy of s; "" continues the string of the previous call.
 * Each call returns the next non-empty token between characters of delim,
 * "" when none is left. The state is this CPU's (a handler is never
 * preempted), so it carries over between hits on the same CPU only; NMI
 * bodies have their own (stp_ctx_level()).
 */
struct stp_tokenizer {
	char buf[STP_MAXSTRINGLEN];
	char *next;
};

static __maybe_unused DEFINE_PER_CPU(struct stp_tokenizer, stp_tokenizer[STP_CTX_LEVELS]);

static __maybe_unused const char *stp_tokenize(char *dst, const char *s, const char *delim)
{
	struct stp_tokenizer *t = this_cpu_ptr(&stp_tokenizer[stp_ctx_level()]);
	char *tok;

	if (s[0]) {
		strscpy(t->buf, s, sizeof(t->buf));
		t->next = t->buf;
	}
	do {
		tok = strsep(&t->next, delim);
	} while (tok && !tok[0]);
	dst[0] = '\0';
	if (tok)
		strscpy(dst, tok, STP_MAXSTRINGLEN);
	return dst;
}

/* sprint(n) / print(n) of a long */
static inline const char *stp_ltoa(char *dst, s64 v)
{
	scnprintf(dst, STP_MAXSTRINGLEN, "%lld", v);
	return dst;
}

#ifdef STP_HAVE_REGEX
/* --- the last =~ of this probe hit (stp_regex.h) --- */

/* matched(n): the n-th subexpression of the last match, "" when it took no part */
static __maybe_unused const char *stp_regex_matched(struct stp_context *c,
						    struct stp_regex_state *st, char *dst, s64 n)
{
	u16 a, b;

	dst[0] = '\0';
	if (!st->valid) {
		stp_error(c, "matched(): no successful regex match in this probe");
		return dst;
	}
	if (n < 0 || n >= st->nsub) {	/* 0: the whole match, 1..ngroups() */
		snprintf(dst, STP_MAXSTRINGLEN, "matched(%lld): the regex has no such subexpression"
			 " (it has %u)", n, (unsigned int)(st->nsub - 1));
		stp_error(c, dst);
		dst[0] = '\0';
		return dst;
	}
	a = st->caps[2 * n];
	b = st->caps[2 * n + 1];
	if (a != STP_RE_UNSET && b != STP_RE_UNSET && b >= a) {
		memcpy(dst, st->str + a, b - a);
		dst[b - a] = '\0';
	}
	return dst;
}

/* matched_str(): the string of the last successful match */
static __maybe_unused const char *stp_regex_matched_str(struct stp_context *c,
							struct stp_regex_state *st, char *dst)
{
	dst[0] = '\0';
	if (!st->valid)
		stp_error(c, "matched_str(): no successful regex match in this probe");
	else
		strscpy(dst, st->str, STP_MAXSTRINGLEN);
	return dst;
}

/* ngroups(): the parenthesized subexpressions of the last successful match's regex */
static __maybe_unused s64 stp_regex_ngroups(struct stp_context *c, struct stp_regex_state *st)
{
	if (!st->valid) {
		stp_error(c, "ngroups(): no successful regex match in this probe");
		return 0;
	}
	return st->nsub - 1;
}
#endif /* STP_HAVE_REGEX */

#endif /* STP_STRING_H */
