/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_builtins.h - what probe bodies call: printf, error, exit, checked
 * division, process builtins and bounded string helpers. Nothing here
 * sleeps; all of it runs with interrupts off inside a probe handler.
 */
#ifndef STP_BUILTINS_H
#define STP_BUILTINS_H

/* value of target(): module parameter _stp_target (see stp_module.h) */
static int _stp_target;

/*
 * tz_gmtoff() and tz_name(): the loader's local time zone when it loaded
 * the module, module parameters _stp_tz_gmtoff (seconds west of UTC, as
 * SystemTap's) and _stp_tz_name (see stp_module.h); UTC when not given
 */
static int _stp_tz_gmtoff;
static char *_stp_tz_name;

/* text for a negative errno in init failure messages */
static __maybe_unused const char *stp_errno_text(int err)
{
	switch (-err) {
	case ENOENT:
		return "no such file or directory";
	case EOPNOTSUPP:
		return "operation not supported";
	case EINVAL:
		return "invalid argument";
	case EBUSY:
		return "device or resource busy";
	case EACCES:
		return "permission denied";
	case EPERM:
		return "operation not permitted";
	case ENODEV:
		return "no such device";
	case ENOMEM:
		return "out of memory";
	case EEXIST:
		return "already exists";
	case EILSEQ:
		return "illegal byte sequence";
	case E2BIG:
		return "argument list too long";
	case ENOSPC:
		return "no space left";
	default:
		return "unknown error";
	}
}

/*
 * Appends to this hit's output (c->outbuf), which the handler writes as one
 * record when the body returns (stp_output_flush). One call produces at most
 * STP_MAXPRINTLEN - 1 bytes (longer output is truncated); when it does not
 * fit behind the hit's earlier output, that output becomes a record first.
 */
static __printf(2, 3) __maybe_unused void stp_printf(struct stp_context *c,
				      const char *fmt, ...)
{
	va_list ap;
	size_t room;
	int n;

	/* a statement that raised an error prints nothing more */
	if (unlikely(c->error))
		return;
	room = min_t(size_t, STP_MAXPRINTLEN, sizeof(c->outbuf) - c->outlen);
	va_start(ap, fmt);
	n = vsnprintf(c->outbuf + c->outlen, room, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	if (unlikely(n >= room) && room < STP_MAXPRINTLEN) {
		stp_output_flush(c);
		room = STP_MAXPRINTLEN;
		va_start(ap, fmt);
		n = vsnprintf(c->outbuf, room, fmt, ap);
		va_end(ap);
		if (n <= 0)
			return;
	}
	/* longer than STP_MAXPRINTLEN: keep what vsnprintf wrote */
	if (n >= room)
		n = room - 1;
	c->outlen += n;
}

/*
 * A script error: the message is kept in the context and the body unwinds
 * (generated code checks c->error after every statement that can fail). A
 * try/catch in the script clears it; otherwise stp_report_error() prints
 * "ERROR: <msg> near <probe> at <loc>" when the body returns, sets exit
 * code 1 and the state exit-requested. msg may be any string.
 */
static __maybe_unused void stp_error(struct stp_context *c, const char *msg)
{
	if (c->error)
		return;
	c->error = 1;
	c->errloc = c->loc;
	if (msg != c->errmsg)
		strscpy(c->errmsg, msg, sizeof(c->errmsg));
}

/* ansi_set_color(fg, bg, attr): SGR "ESC[bg;fg;attrm", without attr when 0 */
static __maybe_unused void stp_ansi_color3(struct stp_context *c, s64 fg,
					   s64 bg, s64 attr)
{
	if (attr)
		stp_printf(c, "\033[%lld;%lld;%lldm", bg, fg, attr);
	else
		stp_printf(c, "\033[%lld;%lldm", bg, fg);
}

#ifdef STP_HAVE_SYSTEM
/* system(cmd): queued for the loader, which runs it with /bin/sh -c */
static __maybe_unused void stp_system(struct stp_context *c, const char *cmd)
{
	if (!stp_system_queue(cmd))
		stp_error(c, "system(): the loader has not taken the commands queued before (queue full or busy)");
}
#endif

/* stp_error() with a formatted message; the first error of a statement wins */
static __maybe_unused __printf(2, 3) void stp_errorf(struct stp_context *c,
						    const char *fmt, ...)
{
	va_list ap;

	if (c->error)
		return;
	va_start(ap, fmt);
	vscnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
	va_end(ap);
	stp_error(c, c->errmsg);
}

/* error("msg") in a script */
static inline void stp_error_str(struct stp_context *c, const char *msg)
{
	stp_error(c, msg);
}

/*
 * called by the handler after the body when c->error is still set; never
 * inlined: in stp_run_probe_rest(), its one caller in most modules, it
 * would give every sampled hit a stack frame for its locals
 */
static noinline __maybe_unused void stp_report_error(struct stp_context *c)
{
	const char *probe = c->probe && c->probe->name ? c->probe->name : "?";
	const char *loc = c->errloc ? c->errloc :
			  c->probe && c->probe->loc ? c->probe->loc : "?";

	int n;

	atomic_inc(&stp_session.errors);
	atomic_set(&stp_session.exit_code, 1);
	/* the hit's output so far, then the message: two records */
	stp_output_flush(c);
	n = scnprintf(c->printbuf, sizeof(c->printbuf), "ERROR: %s near %s at %s\n",
		      c->errmsg, probe, loc);
	stp_output_record(c->probe, STP_REC_ERROR, c->printbuf, n);
	stp_request_exit();
}

/*
 * warn(msg): "WARNING: msg" after the hit's output so far, as a record of
 * the error kind (the output stream has no separate stderr: the loader
 * prints it where it prints "ERROR: ..." lines). The script goes on.
 */
static __maybe_unused void stp_warn(struct stp_context *c, const char *msg)
{
	int n;

	if (unlikely(c->error))
		return;
	stp_output_flush(c);
	n = scnprintf(c->printbuf, sizeof(c->printbuf), "WARNING: %s\n", msg);
	stp_output_record(c->probe, STP_REC_ERROR, c->printbuf, n);
}

/* log(msg): msg and a newline, like println(msg) */
static inline void stp_log(struct stp_context *c, const char *msg)
{
	stp_printf(c, "%s\n", msg);
}

/* MAXACTION: generated code adds the statements of each block it enters */
static inline bool stp_actions(struct stp_context *c, long n)
{
	c->actions += n;
	if (likely(c->actions <= STP_MAXACTION))
		return false;
	stp_error(c, "MAXACTION exceeded");
	return true;
}

/* exit(): no further probe bodies start; the loader stops the module */
static inline void stp_exit(struct stp_context *c)
{
	stp_request_exit();
}

static inline s64 stp_div(struct stp_context *c, s64 a, s64 b)
{
	if (unlikely(!b)) {
		stp_error(c, "division by zero");
		return 0;
	}
	/* S64_MIN / -1 traps on x86: wrap like the two's complement result */
	if (unlikely(b == -1))
		return (s64)(0 - (u64)a);
	return div64_s64(a, b);
}

static inline s64 stp_mod(struct stp_context *c, s64 a, s64 b)
{
	if (unlikely(!b)) {
		stp_error(c, "division by zero");
		return 0;
	}
	if (unlikely(b == -1))
		return 0;
	return a - div64_s64(a, b) * b;
}

/* script function calls: generated code brackets a call with these */
static inline bool stp_nest_enter(struct stp_context *c)
{
	/*
	 * An error earlier in the same statement (an argument before this
	 * call) stops the statement: no call runs after it, or a try/catch in
	 * the called function would take that error for its own.
	 */
	if (unlikely(c->error))
		return false;
	if (unlikely(++c->nesting > STP_MAXNESTING)) {
		c->nesting--;
		stp_error(c, "MAXNESTING exceeded");
		return false;
	}
	return true;
}

static inline void stp_nest_leave(struct stp_context *c)
{
	c->nesting--;
}

/* handlers run with interrupts off, so these are stable for the body */
static inline s64 stp_cpu(void)
{
	return smp_processor_id();
}

static inline s64 stp_pid(void)
{
	return task_tgid_nr(current);
}

/*
 * %p in printf: kernel addresses leave the kernel hashed (SipHash with a
 * key drawn at module init, so one run prints one value per address and
 * values can be compared), NULL stays 0; -g (STP_GURU) prints them raw.
 */
static siphash_key_t stp_ptr_key;

static void stp_ptr_key_init(void)
{
	get_random_bytes(&stp_ptr_key, sizeof(stp_ptr_key));
}

static inline u64 stp_ptr_out(s64 v)
{
#ifdef STP_GURU
	return v;
#else
	return v ? siphash_1u64((u64)v, &stp_ptr_key) : 0;
#endif
}

static inline s64 stp_tid(void)
{
	return task_pid_nr(current);
}

static inline s64 stp_ppid(void)
{
	return task_tgid_nr(READ_ONCE(current->real_parent));
}

static inline s64 stp_uid(void)
{
	return from_kuid_munged(current_user_ns(), current_uid());
}

static inline s64 stp_local_clock_ns(void)
{
	return local_clock();
}

/* cpu_clock_ns(cpu): that CPU's sched clock, 0 for a CPU that does not exist */
static inline s64 stp_cpu_clock_ns(s64 cpu)
{
	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_possible((int)cpu))
		return 0;
	return cpu_clock((int)cpu);
}

static inline const char *stp_pp(struct stp_context *c)
{
	return c->probe && c->probe->name ? c->probe->name : "";
}

static inline s64 stp_target(void)
{
	return _stp_target;
}

static inline s64 stp_tz_gmtoff(void)
{
	return _stp_tz_gmtoff;
}

static inline const char *stp_tz_name(void)
{
	return _stp_tz_name ? _stp_tz_name : "UTC";
}

/* NMI-safe wall clock */
static inline s64 stp_gettimeofday_ns(void)
{
	return ktime_get_real_fast_ns();
}

static inline const char *stp_execname(struct stp_context *c)
{
	strscpy(c->execname, current->comm, sizeof(c->execname));
	return c->execname;
}

/* --- strings: every script string is a char[STP_MAXSTRINGLEN] --- */

static inline char *stp_strlcpy(char *dst, const char *src)
{
	strscpy(dst, src, STP_MAXSTRINGLEN);
	return dst;
}

static inline char *stp_strlcat(char *dst, const char *src)
{
	size_t len = strnlen(dst, STP_MAXSTRINGLEN - 1);

	strscpy(dst + len, src, STP_MAXSTRINGLEN - len);
	return dst;
}

/* a . b into dst (a temporary distinct from a and b) */
static inline const char *stp_concat(char *dst, const char *a, const char *b)
{
	strscpy(dst, a, STP_MAXSTRINGLEN);
	return stp_strlcat(dst, b);
}

static inline s64 stp_strlen(const char *s)
{
	return strnlen(s, STP_MAXSTRINGLEN);
}

static inline int stp_strcmp(const char *a, const char *b)
{
	return strncmp(a, b, STP_MAXSTRINGLEN);
}

/* sprintf(): formats into dst, bounded, truncating */
static __printf(2, 3) __maybe_unused char *stp_sprintf(char *dst, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, STP_MAXSTRINGLEN, fmt, ap);
	va_end(ap);
	return dst;
}

#endif /* STP_BUILTINS_H */
