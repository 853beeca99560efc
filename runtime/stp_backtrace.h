/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_backtrace.h - kernel stack backtraces of the probed context:
 * backtrace(), print_backtrace(), sprint_backtrace(), print_stack(),
 * sprint_stack() and user_mode(), in SystemTap's formats.
 *
 * The stack starts at the context the probe interrupted (c->regs of a
 * kprobe, kretprobe or perf overflow handler), not in the handler:
 *
 * - x86: the kernel's unwinder (ORC on Debian), exported: unwind_start() on
 *   the interrupted registers, then unwind_next_frame() and
 *   unwind_get_return_address(), as perf_callchain_kernel() does. Registers
 *   that perf synthesized (perf_fetch_caller_regs(): no X86_EFLAGS_FIXED)
 *   are unwound from the current stack starting at their sp.
 * - arm64: only stack_trace_save() is exported (not stack_trace_save_regs):
 *   it saves the handler's own stack, which runs through the exception
 *   entry's frame record (its pc is the interrupted pc) into the probed
 *   context's frames; the frames before the first one equal to
 *   instruction_pointer(regs) are dropped. A kprobe at a function's entry
 *   runs before the function's prologue saved the link register, so the
 *   frame record chain skips the caller: its return address (LR, PAC
 *   stripped; the address a kretprobe of the same call saved when it
 *   replaced LR, stp_kretprobe_saved_ret()) is inserted as the second
 *   frame.
 *
 * Tracepoint probes have no registers: their stack is the handler's,
 * without its leading frames in this module (it starts at the tracepoint's
 * caller). Probes without registers (begin, end, error, timers) and a
 * context in user mode have no kernel stack: backtrace() is "" and
 * print_backtrace() prints nothing.
 *
 * backtrace() holds the raw addresses (print_stack() needs them); the
 * address column of the printed frames is hashed like %p unless -g
 * (stp_ptr_out(), stp_builtins.h): the kernel's %p policy, as a raw text
 * address gives away the KASLR offset. The symbol+offset is exact.
 *
 * Nothing sleeps or locks: the unwinders and kallsyms lookups (%pS, %pB)
 * are the ones perf callchains and NMI backtraces use, so this runs in NMI
 * context too. The scratch buffers are per CPU: a probe body owns its CPU's
 * context (a probe that interrupts a body on its CPU is skipped before its
 * body runs, stp_handlers.h), so only one body at a time uses them.
 */
#ifndef STP_BACKTRACE_H
#define STP_BACKTRACE_H

/* frames of a backtrace, SystemTap's MAXBACKTRACE (-D MAXBACKTRACE=N) */
#ifndef STP_MAXBACKTRACE
#define STP_MAXBACKTRACE 20
#endif
#if STP_MAXBACKTRACE < 1
#error "STP_MAXBACKTRACE must be at least 1"
#endif

/* arm64: room for the handler's own frames before the probed context's */
#define STP_BT_HANDLER_FRAMES 64

struct stp_bt_scratch {
	unsigned long addr[STP_MAXBACKTRACE + STP_BT_HANDLER_FRAMES];
	char sym[KSYM_SYMBOL_LEN + sizeof(" [kernel]") + 256];
};

/* one per context of the CPU (stp_ctx_level()): an NMI body may run over another */
static __maybe_unused DEFINE_PER_CPU(struct stp_bt_scratch, stp_bt_scratch[STP_CTX_LEVELS]);

/* user_mode(): 1 when the probe interrupted user space */
static inline s64 stp_user_mode(struct stp_context *c)
{
	return c->regs && user_mode(c->regs);
}

#ifdef CONFIG_X86
/*
 * regs: the interrupted context (frame 0 is its ip); NULL: the current
 * stack, without its leading frames in this module.
 */
static unsigned int stp_bt_unwind(const struct stp_probe *p,
				  struct pt_regs *regs, unsigned long *buf,
				  unsigned int max)
{
	struct unwind_state state;
	unsigned int n = 0, steps = 0;
	unsigned long addr;

	if (regs) {
		buf[n++] = instruction_pointer(regs);
		if (regs->flags & X86_EFLAGS_FIXED)
			unwind_start(&state, current, regs, NULL);
		else
			unwind_start(&state, current, NULL,
				     (unsigned long *)regs->sp);
	} else {
		unwind_start(&state, current, NULL, NULL);
	}
	for (; n < max && !unwind_done(&state) &&
	       steps < STP_MAXBACKTRACE + STP_BT_HANDLER_FRAMES;
	     unwind_next_frame(&state), steps++) {
		addr = unwind_get_return_address(&state);
		if (!addr)
			break;
		if (!regs && !n && within_module(addr, THIS_MODULE))
			continue;
		buf[n++] = addr;
	}
	return n;
}
#elif defined(CONFIG_ARM64)
static unsigned int stp_bt_unwind(const struct stp_probe *p,
				  struct pt_regs *regs, unsigned long *buf,
				  unsigned int max)
{
	const unsigned int cap = STP_MAXBACKTRACE + STP_BT_HANDLER_FRAMES;
	unsigned int n, i = 0;
	unsigned long lr;

	n = stack_trace_save(buf, cap, 0);
	if (regs) {
		while (i < n && buf[i] != instruction_pointer(regs))
			i++;
		if (i == n) {		/* the unwinder did not reach it */
			buf[0] = instruction_pointer(regs);
			i = 0;
			n = 1;
		}
	} else {
		while (i < n && within_module(buf[i], THIS_MODULE))
			i++;
	}
	n -= i;
	memmove(buf, buf + i, n * sizeof(*buf));
	/*
	 * A kprobe at a function's entry: the caller is only in LR, unless a
	 * kretprobe of the same call already replaced it with its trampoline.
	 */
	if (regs && n && p && p->kind == STP_PROBE_KPROBE && !p->offset) {
		lr = stp_kretprobe_saved_ret(regs->regs[29]);
		if (!lr)
			lr = regs->regs[30];
		lr = stp_strip_pac(lr);
		if (n < 2 || buf[1] != lr) {
			if (n == cap)
				n--;
			memmove(buf + 2, buf + 1, (n - 1) * sizeof(*buf));
			buf[1] = lr;
			n++;
		}
	}
	return min(n, max);
}
#else
static unsigned int stp_bt_unwind(const struct stp_probe *p,
				  struct pt_regs *regs, unsigned long *buf,
				  unsigned int max)
{
	if (!regs)
		return 0;
	buf[0] = instruction_pointer(regs);
	return 1;
}
#endif

/* the probed context's kernel stack, innermost first, in this CPU's scratch */
static unsigned int stp_bt_collect(struct stp_context *c,
				   const unsigned long **frames)
{
	struct stp_bt_scratch *s = this_cpu_ptr(&stp_bt_scratch[stp_ctx_level()]);
	struct pt_regs *regs = c->regs;

	*frames = s->addr;
	if (regs && user_mode(regs))
		return 0;
	if (!regs && (!c->probe || c->probe->kind != STP_PROBE_TRACEPOINT))
		return 0;
	return stp_bt_unwind(c->probe, regs, s->addr, STP_MAXBACKTRACE);
}

/*
 * addr as "func+0x12/0x40 [module]" (SystemTap's "[kernel]" for the core
 * kernel), in this CPU's scratch; with_size 0: "func+0x12 [module]".
 * Frame 0 is an exact address (%pS), the others return addresses (%pB: the
 * call before them names the function). NULL when kallsyms does not know it.
 */
static const char *stp_bt_symbol(unsigned long addr, bool ret, bool with_size)
{
	char *b = this_cpu_ptr(&stp_bt_scratch[stp_ctx_level()])->sym;
	const size_t len = sizeof_field(struct stp_bt_scratch, sym);
	struct mm_struct *mm;
	char *slash, *end;
	bool found;
	int n;

	if (addr < TASK_SIZE_MAX) {	/* a ubacktrace() address */
		mm = stp_umm_lock();
		found = stp_usym_format(mm, b, len, addr, ret, with_size);
		stp_umm_unlock(mm);
		return found ? b : NULL;
	}
	n = snprintf(b, len - sizeof(" [kernel]") + 1, ret ? "%pB" : "%pS",
		     (void *)addr);
	if (n <= 0 || !strncmp(b, "0x", 2))
		return NULL;
	if (!with_size) {
		slash = strchr(b, '/');
		if (slash) {
			end = strchr(slash, ' ');
			if (end)
				memmove(slash, end, strlen(end) + 1);
			else
				*slash = '\0';
		}
	}
	n = strlen(b);
	if (b[n - 1] != ']')
		strscpy(b + n, " [kernel]", len - n);
	return b;
}

/*
 * the address column of a frame: like %p, but for a user address a known
 * binary's symbol names (sym), which gives away no kernel layout: as is
 */
static u64 stp_bt_shown(unsigned long addr, const char *sym)
{
	return sym && addr < TASK_SIZE_MAX ? addr : stp_ptr_out(addr);
}

/*
 * " 0xffffffff8123abcd : func+0x12/0x40 [kernel]\n" (SystemTap's symdata);
 * the address column is printed like %p: hashed, raw with -g (stp_ptr_out)
 */
static void stp_bt_print_frame(struct stp_context *c, unsigned long addr,
			       bool ret)
{
	const char *sym = stp_bt_symbol(addr, ret, true);
	u64 shown = stp_bt_shown(addr, sym);

	if (sym)
		stp_printf(c, " 0x%016llx : %s\n", shown, sym);
	else
		stp_printf(c, " 0x%016llx\n", shown);
}

/* print_backtrace(); in a kretprobe first the function returning */
static __maybe_unused void stp_print_backtrace(struct stp_context *c)
{
	const unsigned long *f;
	unsigned int i, n = stp_bt_collect(c, &f);

	if (!n)
		return;
	if (c->probe && c->probe->kind == STP_PROBE_KRETPROBE) {
		stp_printf(c, "Returning from: ");
		stp_bt_print_frame(c, (unsigned long)c->probe->u.rp.kp.addr,
				   false);
		stp_printf(c, "Returning to  : ");
	}
	for (i = 0; i < n; i++)
		stp_bt_print_frame(c, f[i], i > 0);
}

/* appends text to dst (len bytes used) only when all of it fits */
static __printf(3, 4) bool stp_bt_append(char *dst, size_t *len,
					 const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(dst + *len, STP_MAXSTRINGLEN - *len, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= STP_MAXSTRINGLEN - *len) {
		dst[*len] = '\0';
		return false;
	}
	*len += n;
	return true;
}

/* backtrace(): "0xffffffff8123abcd 0xffffffff8145ef01 " (a space after each) */
static __maybe_unused const char *stp_backtrace(struct stp_context *c,
						char *dst)
{
	const unsigned long *f;
	unsigned int i, n = stp_bt_collect(c, &f);
	size_t len = 0;

	dst[0] = '\0';
	for (i = 0; i < n; i++)
		if (!stp_bt_append(dst, &len, "0x%016lx ", f[i]))
			break;
	return dst;
}

/*
 * sprint_backtrace(): "func+0x12 [kernel]\n" per frame (an address kallsyms
 * does not know like %p), whole lines
 */
static __maybe_unused const char *stp_sprint_backtrace(struct stp_context *c,
						       char *dst)
{
	const unsigned long *f;
	unsigned int i, n = stp_bt_collect(c, &f);
	const char *sym;
	size_t len = 0;
	bool ok;

	dst[0] = '\0';
	for (i = 0; i < n; i++) {
		sym = stp_bt_symbol(f[i], i > 0, false);
		ok = sym ? stp_bt_append(dst, &len, "%s\n", sym)
			 : stp_bt_append(dst, &len, "0x%016llx\n",
					 stp_ptr_out(f[i]));
		if (!ok)
			break;
	}
	return dst;
}

/*
 * The next address of a backtrace() string at *s (spaces separate them);
 * false at its end, or with a script error for a word that is not one.
 */
static bool stp_bt_next_addr(struct stp_context *c, const char **s,
			     unsigned long *addr)
{
	const char *w;
	char word[24];
	size_t n = 0;

	while (**s == ' ' || **s == '\t' || **s == '\n')
		(*s)++;
	if (!**s)
		return false;
	w = *s;
	while (w[n] && w[n] != ' ' && w[n] != '\t' && w[n] != '\n')
		n++;
	*s += n;
	if (n < sizeof(word)) {
		memcpy(word, w, n);
		word[n] = '\0';
		if (!kstrtoul(word, 16, addr))
			return true;
	}
	snprintf(c->printbuf, sizeof(c->printbuf),
		 "not an address of a backtrace(): '%.*s'",
		 (int)min_t(size_t, n, 64), w);
	stp_error(c, c->printbuf);
	return false;
}

/* print_stack(bt): one " 0x... : func+0x12/0x40 [kernel]" line per address */
static __maybe_unused void stp_print_stack(struct stp_context *c,
					   const char *bt)
{
	unsigned long addr;
	unsigned int i = 0;

	while (stp_bt_next_addr(c, &bt, &addr))
		stp_bt_print_frame(c, addr, i++ > 0);
}

/* sprint_stack(bt): the same lines in a string, whole lines */
static __maybe_unused const char *stp_sprint_stack(struct stp_context *c,
						   char *dst, const char *bt)
{
	unsigned long addr;
	unsigned int i = 0;
	const char *sym;
	size_t len = 0;
	bool ok;

	dst[0] = '\0';
	while (stp_bt_next_addr(c, &bt, &addr)) {
		sym = stp_bt_symbol(addr, i++ > 0, true);
		ok = sym ? stp_bt_append(dst, &len, " 0x%016llx : %s\n",
					 stp_bt_shown(addr, sym), sym)
			 : stp_bt_append(dst, &len, " 0x%016llx\n",
					 stp_bt_shown(addr, NULL));
		if (!ok)
			break;
	}
	return dst;
}

/*
 * symname(addr): the function at addr ("vfs_read"), without offset or
 * module; addr in hex when kallsyms does not know it (the number the
 * script already has, so not hashed as %p is)
 */
static __maybe_unused const char *stp_symname(char *dst, s64 addr)
{
	char *sp;

	snprintf(dst, STP_MAXSTRINGLEN, "%ps", (void *)(unsigned long)addr);
	if (!strncmp(dst, "0x", 2) || !dst[0]) {
		snprintf(dst, STP_MAXSTRINGLEN, "0x%llx", (u64)addr);
		return dst;
	}
	sp = strchr(dst, ' ');
	if (sp)
		*sp = '\0';
	return dst;
}

/* symdata(addr): "func+0x12/0x40 [kernel]", or the address in hex */
static __maybe_unused const char *stp_symdata(char *dst, s64 addr)
{
	const char *sym = stp_bt_symbol((unsigned long)addr, false, true);

	if (sym)
		strscpy(dst, sym, STP_MAXSTRINGLEN);
	else
		snprintf(dst, STP_MAXSTRINGLEN, "0x%llx", (u64)addr);
	return dst;
}

/*
 * modname(addr): the module whose symbol holds addr ("kernel" for the core
 * kernel's), from kallsyms as symdata() names it; an error when no symbol
 * holds it
 */
static __maybe_unused const char *stp_modname(struct stp_context *c, char *dst,
					      s64 addr)
{
	const char *sym = stp_bt_symbol((unsigned long)addr, false, false);
	const char *open = sym ? strrchr(sym, '[') : NULL;

	dst[0] = '\0';
	if (!open) {
		stp_errorf(c, "modname(0x%llx): no kernel or module symbol holds this address",
			   (u64)addr);
		return dst;
	}
	strscpy(dst, open + 1, STP_MAXSTRINGLEN);
	dst[strcspn(dst, "]")] = '\0';
	return dst;
}

/*
 * addr(): the probed address: the instruction pointer of the probe's
 * registers, in a kprobe the probed instruction's (x86 shows the address
 * after its breakpoint byte, as the ftrace entry handlers do too); 0 in
 * probes without registers
 */
static __maybe_unused s64 stp_addr(struct stp_context *c)
{
	unsigned long ip;

	if (!c->regs)
		return 0;
	ip = instruction_pointer(c->regs);
#ifdef CONFIG_X86
	if (c->probe && c->probe->kind == STP_PROBE_KPROBE && !user_mode(c->regs))
		ip -= sizeof(kprobe_opcode_t);
#endif
	return (s64)ip;
}

/*
 * The probed context's stack in *f and the index of its first caller frame:
 * 1 (frame 0 is the probed address), 0 in a .return probe (there frame 0 is
 * the address the function returns to)
 */
static unsigned int stp_bt_callers(struct stp_context *c,
				   const unsigned long **f, unsigned int *first)
{
	*first = c->probe && c->probe->kind == STP_PROBE_KRETPROBE ? 0 : 1;
	return stp_bt_collect(c, f);
}

/* caller_addr(): the return address into the probed function's caller, 0 if none */
static __maybe_unused s64 stp_caller_addr(struct stp_context *c)
{
	const unsigned long *f;
	unsigned int first, n = stp_bt_callers(c, &f, &first);

	return n > first ? (s64)f[first] : 0;
}

/* caller(): "func 0xADDR" of caller_addr() (SystemTap's "%s 0x%x" form) */
static __maybe_unused const char *stp_caller(struct stp_context *c, char *dst)
{
	s64 addr = stp_caller_addr(c);
	size_t len;

	stp_symname(dst, addr);
	len = strlen(dst);
	snprintf(dst + len, STP_MAXSTRINGLEN - len, " 0x%llx", (u64)addr);
	return dst;
}

/*
 * callers(n): the first n caller addresses of the stack (-1: all of them),
 * in backtrace()'s form: "0xffffffff8123abcd " each, so that print_stack()
 * takes it
 */
static __maybe_unused const char *stp_callers(struct stp_context *c, char *dst,
					      s64 depth)
{
	const unsigned long *f;
	unsigned int i, first, n = stp_bt_callers(c, &f, &first);
	size_t len = 0;

	dst[0] = '\0';
	for (i = first; i < n && (depth < 0 || i - first < depth); i++)
		if (!stp_bt_append(dst, &len, "0x%016lx ", f[i]))
			break;
	return dst;
}

/* stack(n): the address at depth n of the stack (0: the probed address) */
static __maybe_unused s64 stp_stack(struct stp_context *c, s64 depth)
{
	const unsigned long *f;
	unsigned int n = stp_bt_collect(c, &f);

	if (depth >= 0 && depth < n)
		return (s64)f[depth];
	snprintf(c->printbuf, sizeof(c->printbuf),
		 "stack(%lld): the kernel stack has %u frame%s here", depth, n,
		 n == 1 ? "" : "s");
	stp_error(c, c->printbuf);
	return 0;
}

#endif /* STP_BACKTRACE_H */
