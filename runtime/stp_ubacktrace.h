/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_ubacktrace.h - the user-stack and user-symbol functions of
 * SystemTap's ucontext tapsets: ubacktrace(), print_ubacktrace(),
 * print_ubacktrace_brief(), sprint_ubacktrace(), ucallers(), uaddr(),
 * usymname(), usymdata(), umodname(), in the kernel backtrace functions'
 * formats (stp_backtrace.h), over stp_usym.h's unwinder and tables. A
 * frame is named "func+0x12/0x40 [/path/prog]"; one outside the known
 * binaries is its hex address (and ends the stack). Addresses are user
 * addresses: printed as they are, not hashed.
 */
#ifndef STP_UBACKTRACE_H
#define STP_UBACKTRACE_H

/* the probed task's user stack in this CPU's scratch; *mm: locked or NULL */
static unsigned int stp_ubt_collect(struct stp_context *c, struct mm_struct **mm,
				    const unsigned long **frames)
{
	struct stp_bt_scratch *s = this_cpu_ptr(&stp_bt_scratch[stp_ctx_level()]);

	*frames = s->addr;
	*mm = stp_uregs(c) ? stp_umm_lock() : NULL;
	return stp_uunwind(c, *mm, s->addr, STP_MAXBACKTRACE);
}

/* frame i's name into this CPU's scratch, or NULL */
static const char *stp_ubt_name(struct mm_struct *mm, unsigned long addr,
				bool ret, bool with_size)
{
	char *b = this_cpu_ptr(&stp_bt_scratch[stp_ctx_level()])->sym;
	const size_t len = sizeof_field(struct stp_bt_scratch, sym);

	return stp_usym_format(mm, b, len, addr, ret, with_size) ? b : NULL;
}

/* frames first.. of the user stack (at most depth, -1: all), "0x%016lx " each */
static const char *stp_ubt_addrs(struct stp_context *c, char *dst,
				 unsigned int first, s64 depth)
{
	struct mm_struct *mm;
	const unsigned long *f;
	unsigned int i, n = stp_ubt_collect(c, &mm, &f);
	size_t len = 0;

	stp_umm_unlock(mm);
	dst[0] = '\0';
	for (i = first; i < n && (depth < 0 || i - first < depth); i++)
		if (!stp_bt_append(dst, &len, "0x%016lx ", f[i]))
			break;
	return dst;
}

/* ubacktrace(): "0x00005555555551a9 0x00005555555551c3 " (a space after each) */
static __maybe_unused const char *stp_ubt_backtrace(struct stp_context *c, char *dst)
{
	return stp_ubt_addrs(c, dst, 0, -1);
}

/* ucallers(n): the first n callers of ubacktrace() (-1: all) */
static __maybe_unused const char *stp_ubt_callers(struct stp_context *c, char *dst,
						  s64 depth)
{
	return stp_ubt_addrs(c, dst, 1, depth);
}

/*
 * print_ubacktrace(): " 0x... : func+0x12/0x40 [/path/prog]" per frame;
 * brief: "func+0x12" per frame (the address when no symbol holds it)
 */
static void stp_ubt_print(struct stp_context *c, bool brief)
{
	struct mm_struct *mm;
	const unsigned long *f;
	unsigned int i, n = stp_ubt_collect(c, &mm, &f);
	const char *sym;
	char *sp;

	for (i = 0; i < n; i++) {
		sym = stp_ubt_name(mm, f[i], i > 0, !brief);
		if (brief && sym) {
			sp = strchr(sym, ' ');
			stp_printf(c, "%.*s\n", sp ? (int)(sp - sym) : (int)strlen(sym), sym);
		} else if (brief) {
			stp_printf(c, "0x%016lx\n", f[i]);
		} else if (sym) {
			stp_printf(c, " 0x%016lx : %s\n", f[i], sym);
		} else {
			stp_printf(c, " 0x%016lx\n", f[i]);
		}
	}
	stp_umm_unlock(mm);
}

static __maybe_unused void stp_ubt_print_backtrace(struct stp_context *c)
{
	stp_ubt_print(c, false);
}

static __maybe_unused void stp_ubt_print_brief(struct stp_context *c)
{
	stp_ubt_print(c, true);
}

/* sprint_ubacktrace(): "func+0x12 [/path/prog]\n" per frame, whole lines */
static __maybe_unused const char *stp_ubt_sprint_backtrace(struct stp_context *c,
							   char *dst)
{
	struct mm_struct *mm;
	const unsigned long *f;
	unsigned int i, n = stp_ubt_collect(c, &mm, &f);
	const char *sym;
	size_t len = 0;
	bool ok;

	dst[0] = '\0';
	for (i = 0; i < n; i++) {
		sym = stp_ubt_name(mm, f[i], i > 0, false);
		ok = sym ? stp_bt_append(dst, &len, "%s\n", sym)
			 : stp_bt_append(dst, &len, "0x%016lx\n", f[i]);
		if (!ok)
			break;
	}
	stp_umm_unlock(mm);
	return dst;
}

/* uaddr(): the user address the task was at (0: no user context) */
static __maybe_unused s64 stp_ubt_uaddr(struct stp_context *c)
{
	struct pt_regs *regs = stp_uregs(c);

	return regs ? (s64)instruction_pointer(regs) : 0;
}

/* the known binary and symbol of addr, under mm's lock (taken and dropped) */
static const struct stp_usym *stp_ubt_lookup(s64 addr, const struct stp_ubin **bin,
					     u64 *va)
{
	struct mm_struct *mm = stp_umm_lock();
	const struct stp_usym *s = NULL;

	*bin = stp_ubin_find(mm, (unsigned long)addr, va);
	if (*bin)
		s = stp_usym_find(*bin, *va);
	stp_umm_unlock(mm);
	return s;
}

/* usymname(addr): the function holding addr, or addr in hex */
static __maybe_unused const char *stp_ubt_symname(char *dst, s64 addr)
{
	const struct stp_ubin *bin;
	const struct stp_usym *s;
	u64 va;

	s = stp_ubt_lookup(addr, &bin, &va);
	if (s)
		strscpy(dst, bin->names + s->name, STP_MAXSTRINGLEN);
	else
		snprintf(dst, STP_MAXSTRINGLEN, "0x%llx", (u64)addr);
	return dst;
}

/* usymdata(addr): "func+0x12/0x40 [/path/prog]", or addr in hex */
static __maybe_unused const char *stp_ubt_symdata(char *dst, s64 addr)
{
	struct mm_struct *mm = stp_umm_lock();

	if (!stp_usym_format(mm, dst, STP_MAXSTRINGLEN, (unsigned long)addr,
			     false, true))
		snprintf(dst, STP_MAXSTRINGLEN, "0x%llx", (u64)addr);
	stp_umm_unlock(mm);
	return dst;
}

/* umodname(addr): the file name of the known binary mapped at addr; an error if none */
static __maybe_unused const char *stp_ubt_modname(struct stp_context *c, char *dst,
						  s64 addr)
{
	const struct stp_ubin *bin;
	const char *slash;
	u64 va;

	stp_ubt_lookup(addr, &bin, &va);
	dst[0] = '\0';
	if (!bin) {
		stp_errorf(c, "umodname(0x%llx): no known binary is mapped at this address",
			   (u64)addr);
		return dst;
	}
	slash = strrchr(bin->path, '/');
	strscpy(dst, slash ? slash + 1 : bin->path, STP_MAXSTRINGLEN);
	return dst;
}

#endif /* STP_UBACKTRACE_H */
