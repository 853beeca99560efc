/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_task.h - task and process builtins: task_current() and the task_*
 * accessors of a task_struct address (members read with
 * copy_from_kernel_nofault at offsets from the kernel's own headers, so a
 * bad address is a script error, never an oops), the credential ids,
 * probemod(), cmdline_str(), get_cycles(), ktime_get_ns(), ctime(). Nothing here
 * sleeps or takes a lock.
 */
#ifndef STP_TASK_H
#define STP_TASK_H

/* task_current(): the current task_struct's address */
static inline s64 stp_task_current(void)
{
	return (s64)(unsigned long)current;
}

/* member m of the task_struct at t, sign-extended when is_signed */
#define stp_task_member(c, t, m, is_signed)                                 \
	stp_kernel_read(c, (t) + offsetof(struct task_struct, m),           \
			sizeof_field(struct task_struct, m), is_signed)

/* task_state(t): the scheduler state bits (stp_compat.h names the member) */
static __maybe_unused s64 stp_task_state(struct stp_context *c, s64 t)
{
	return stp_task_member(c, t, STP_TASK_STATE_MEMBER, STP_TASK_STATE_SIGNED);
}

/* task_cpu(t): the CPU the task runs or last ran on (as task_cpu()) */
static __maybe_unused s64 stp_task_cpu(struct stp_context *c, s64 t)
{
#ifdef STP_TASK_CPU_MEMBER
	return stp_task_member(c, t, STP_TASK_CPU_MEMBER, 0);
#else
	/* one CPU, or thread_info on the stack: only report a bad address */
	stp_task_member(c, t, pid, 1);
	return 0;
#endif
}

/* task_prio(t): priority as ps shows it (prio - MAX_RT_PRIO) */
static __maybe_unused s64 stp_task_prio(struct stp_context *c, s64 t)
{
	return stp_task_member(c, t, prio, 1) - MAX_RT_PRIO;
}

/* task_nice(t): the nice value, -20..19 (from static_prio) */
static __maybe_unused s64 stp_task_nice(struct stp_context *c, s64 t)
{
	return stp_task_member(c, t, static_prio, 1) - DEFAULT_PRIO;
}

/* task_execname(t): comm of the task at t, "" and an error on a bad address */
static __maybe_unused const char *stp_task_execname(struct stp_context *c,
						     char *dst, s64 t)
{
	unsigned long a = (unsigned long)t + offsetof(struct task_struct, comm);

	dst[0] = '\0';
	if ((unsigned long)t < PAGE_SIZE ||
	    copy_from_kernel_nofault(dst, (const void *)a, TASK_COMM_LEN)) {
		dst[0] = '\0';
		stp_tvar_fault(c, a);
		return dst;
	}
	dst[TASK_COMM_LEN - 1] = '\0';
	return dst;
}

/*
 * task_uid(t), task_gid(t), task_euid(t), task_egid(t): a member of the
 * task's objective credentials (real_cred, then the id; both read without
 * faulting), as seen from the initial user namespace
 */
static __maybe_unused s64 stp_task_cred(struct stp_context *c, s64 t, size_t off)
{
	s64 cred = stp_task_member(c, t, real_cred, 0);

	if (c->error)
		return 0;
	return stp_kernel_read(c, cred + off, sizeof(uid_t), 0);
}

/* pgrp(), sid(): process group and session of the current task */
static inline s64 stp_pgrp(void)
{
	return task_pgrp_nr(current);
}

static inline s64 stp_sid(void)
{
	return task_session_nr_ns(current, &init_pid_ns);
}

static inline s64 stp_gid(void)
{
	return from_kgid_munged(current_user_ns(), current_gid());
}

static inline s64 stp_egid(void)
{
	return from_kgid_munged(current_user_ns(), current_egid());
}

static inline s64 stp_euid(void)
{
	return from_kuid_munged(current_user_ns(), current_euid());
}

/* get_cycles(): the CPU's cycle (x86 TSC) or timer (arm64 CNTVCT) counter */
static inline s64 stp_get_cycles(void)
{
	return (s64)get_cycles();
}

/* ktime_get_ns(): CLOCK_MONOTONIC in ns, the NMI-safe reader */
static inline s64 stp_ktime_get_ns(void)
{
	return ktime_get_mono_fast_ns();
}

/*
 * ctime(secs): "Wed Jun 30 21:49:08 1993" (UTC), as SystemTap's; outside
 * year 0..9999 its texts for a time before the epoch or far ahead
 */
static __maybe_unused const char *stp_ctime(char *dst, s64 secs)
{
	static const char *const days[] = { "Sun", "Mon", "Tue", "Wed", "Thu",
					    "Fri", "Sat" };
	static const char *const months[] = { "Jan", "Feb", "Mar", "Apr", "May",
					      "Jun", "Jul", "Aug", "Sep", "Oct",
					      "Nov", "Dec" };
	struct tm tm;

	if (secs < 0)
		return "a long, long time ago...";
	if (secs > 253402300799LL)	/* 9999-12-31 23:59:59 */
		return "far far in the future...";
	time64_to_tm(secs, 0, &tm);
	scnprintf(dst, STP_MAXSTRINGLEN, "%s %s %2d %02d:%02d:%02d %ld",
		  days[tm.tm_wday], months[tm.tm_mon], tm.tm_mday, tm.tm_hour,
		  tm.tm_min, tm.tm_sec, tm.tm_year + 1900);
	return dst;
}

/* is_return(): 1 in a .return probe */
static inline s64 stp_is_return(struct stp_context *c)
{
	return c->probe && c->probe->kind == STP_PROBE_KRETPROBE;
}

/*
 * probemod(): the module of a function probe ("ext4" for
 * module("ext4").function(...)), "kernel" for the kernel's own functions,
 * "" for probes that are not on a function.
 */
static __maybe_unused const char *stp_probemod(struct stp_context *c, char *dst)
{
	const struct stp_probe *p = c->probe;
	const char *colon;

	dst[0] = '\0';
	if (!p || !p->symbol ||
	    (p->kind != STP_PROBE_KPROBE && p->kind != STP_PROBE_KRETPROBE))
		return dst;
	colon = strchr(p->symbol, ':');
	if (!colon)
		return "kernel";
	strscpy(dst, p->symbol, min_t(size_t, colon - p->symbol + 1, STP_MAXSTRINGLEN));
	return dst;
}

/*
 * cmdline_str(): the current process's arguments separated by spaces,
 * read from its own argument pages with copy_from_user_nofault (a page
 * that is not resident is an error: a handler cannot fault it in). ""
 * for kernel threads.
 */
static __maybe_unused const char *stp_cmdline_str(struct stp_context *c, char *dst)
{
	struct mm_struct *mm = current->mm;
	unsigned long start, end, a;
	size_t n, i, chunk;

	dst[0] = '\0';
	if (!mm || (current->flags & PF_KTHREAD))
		return dst;
	start = READ_ONCE(mm->arg_start);
	end = READ_ONCE(mm->arg_end);
	if (!start || end <= start)
		return dst;
	n = min_t(size_t, end - start, STP_MAXSTRINGLEN - 1);
	for (i = 0; i < n;) {
		a = start + i;
		chunk = min_t(size_t, n - i, PAGE_SIZE - offset_in_page(a));

		if (copy_from_user_nofault(dst + i, (const void __user *)a, chunk)) {
			dst[0] = '\0';
			stp_user_fault(c, "string", a);
			return dst;
		}
		i += chunk;
	}
	/* arguments are NUL separated; the last NUL ends the string */
	while (n && dst[n - 1] == '\0')
		n--;
	dst[n] = '\0';
	for (i = 0; i < n; i++)
		if (dst[i] == '\0')
			dst[i] = ' ';
	return dst;
}

/* pid2task(pid): the task_struct of a process id, 0 when there is none */
static __maybe_unused s64 stp_pid2task(s64 pid)
{
	struct task_struct *t;

	if (pid <= 0 || pid > INT_MAX)
		return 0;
	rcu_read_lock();
	t = pid_task(find_vpid((pid_t)pid), PIDTYPE_PID);
	rcu_read_unlock();
	return (s64)(unsigned long)t;
}

/* pid2execname(pid): comm of the task of a process id, "" when there is none */
static __maybe_unused const char *stp_pid2execname(char *dst, s64 pid)
{
	struct task_struct *t;

	dst[0] = '\0';
	if (pid <= 0 || pid > INT_MAX)
		return dst;
	rcu_read_lock();
	t = pid_task(find_vpid((pid_t)pid), PIDTYPE_PID);
	if (t) {
		memcpy(dst, t->comm, TASK_COMM_LEN);
		dst[TASK_COMM_LEN - 1] = '\0';
	}
	rcu_read_unlock();
	return dst;
}

/* stp_pid(): the process that loaded the module (the loader, stapio's part) */
static pid_t stp_loader_tgid;

static inline s64 stp_loader_pid(void)
{
	return READ_ONCE(stp_loader_tgid);
}

/* task_utime(), task_stime(): the current task's user and system time in ns */
static inline s64 stp_task_utime(void)
{
	return (s64)READ_ONCE(current->utime);
}

static inline s64 stp_task_stime(void)
{
	return (s64)READ_ONCE(current->stime);
}

/* sprint_loadavg(): the 1, 5 and 15 minute load averages, "0.42 0.17 0.06" */
static __maybe_unused const char *stp_sprint_loadavg(char *dst)
{
	unsigned long a[3];
	int i;

	for (i = 0; i < 3; i++)
		a[i] = READ_ONCE(avenrun[i]) + FIXED_1 / 200;
	snprintf(dst, STP_MAXSTRINGLEN, "%lu.%02lu %lu.%02lu %lu.%02lu",
		 LOAD_INT(a[0]), LOAD_FRAC(a[0]), LOAD_INT(a[1]),
		 LOAD_FRAC(a[1]), LOAD_INT(a[2]), LOAD_FRAC(a[2]));
	return dst;
}

/* bytes of the environment env_var() looks at */
#define STP_ENV_SCAN (64 * 1024)

/*
 * env_var(name): the value of NAME in the current process's environment
 * (its env pages, read with copy_from_user_nofault), "" when it is unset,
 * the task has no user memory, or a page is not resident
 */
static __maybe_unused const char *stp_env_var(char *dst, const char *name)
{
	struct mm_struct *mm = current->mm;
	unsigned long a, end;
	size_t nl = strlen(name), pos = 0, out = 0, chunk, k;
	int state = 0; /* 0 matching the name, 1 in the value, 2 skipping */
	char buf[64];

	dst[0] = '\0';
	if (!mm || (current->flags & PF_KTHREAD) || !nl)
		return dst;
	a = READ_ONCE(mm->env_start);
	end = READ_ONCE(mm->env_end);
	if (!a || end <= a)
		return dst;
	end = min(end, a + STP_ENV_SCAN);
	for (; a < end; a += chunk) {
		chunk = min3(end - a, sizeof(buf), PAGE_SIZE - offset_in_page(a));
		if (copy_from_user_nofault(buf, (const void __user *)a, chunk))
			break;
		for (k = 0; k < chunk; k++) {
			if (state == 1) {
				if (!buf[k])
					goto done;
				if (out < STP_MAXSTRINGLEN - 1)
					dst[out++] = buf[k];
			} else if (!buf[k]) {
				state = 0;
				pos = 0;
			} else if (state == 0) {
				if (pos < nl)
					state = buf[k] == name[pos] ? 0 : 2;
				else
					state = buf[k] == '=' ? 1 : 2;
				pos++;
			}
		}
	}
	if (state != 1)
		out = 0;
done:
	dst[out] = '\0';
	return dst;
}

#endif /* STP_TASK_H */
