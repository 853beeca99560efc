/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_tvar.h - target variables ($param, $param->field, $return) of DWARF
 * probe points, and the kernel-memory tapset functions.
 *
 * The translator resolves every target variable of a probe body with DWARF
 * into a struct stp_tvar per probe point (a body may serve several points of
 * a wildcard): the argument register or the return value, then member
 * offsets, each step but the last reading a pointer. Memory is read with
 * copy_from_kernel_nofault(): a bad pointer is a script error, never an oops.
 *
 * kretprobes: argument-based variables are evaluated in the entry handler
 * and saved in the instance's data (ri->data); @entry(...) saves the whole
 * value at entry, a plain $p->f saves $p and reads ->f at return.
 *
 * tracepoints: the generated probe function passes the tracepoint's
 * arguments as an array of u64 (c->entry); STP_TVAR_TPARG indexes it.
 *
 * user-space probes (stp_uprobes.h) and kernel probes the translator reads
 * with DWARF locations (a statement inside a function, locals, parameters
 * passed on the stack): STP_TVAR_LOC, a DWARF location the translator
 * evaluated at the probed address: a register (DWARF number,
 * stp_dwarf_reg()), a register plus an offset, memory at a register plus an
 * offset (a stack slot), memory at a link-time address plus the binary's
 * run-time load bias (a static variable; user space only), or a constant.
 * Memory of user variables (t->user) is read with copy_from_user_nofault():
 * the current task's resident pages; a fault is the same located script
 * error. In a uretprobe every STP_TVAR_LOC variable is saved at entry, in a
 * kretprobe every STP_TVAR_LOC and argument variable.
 *
 * @cast(p, "type")->m: the same member steps from a run-time address, with
 * a static struct stp_tvar per @cast expression (stp_cast_get()).
 *
 * $p->a[i], $p[i], @cast(p, "type")[i]: a constant index is folded into the
 * offsets by the translator; a run-time one is passed to the read, which
 * adds index * stride to its step's address (no bound check: the read is
 * fault-safe like every other).
 */
#ifndef STP_TVAR_H
#define STP_TVAR_H

#define STP_TVAR_MAXDEREF 8
#define STP_TVAR_MAXIDX 4	/* run-time indexes ($p->a[i]) of one variable */

enum stp_tvar_base { STP_TVAR_ARG, STP_TVAR_RETURN, STP_TVAR_TPARG, STP_TVAR_LOC };

/* STP_TVAR_LOC: where the value starts (translator's Location::Kind) */
enum stp_loc_kind {
	STP_LOC_REG,		/* register reg */
	STP_LOC_REGOFF,		/* reg + loff */
	STP_LOC_MEM,		/* memory at reg + loff */
	STP_LOC_STATIC,		/* memory at loff + load bias */
	STP_LOC_CONST,		/* loff */
};

struct stp_tvar {
	unsigned char base;		/* enum stp_tvar_base */
	unsigned char arg;		/* STP_TVAR_ARG, STP_TVAR_TPARG: argument index */
	unsigned char size;		/* bytes of the value: 1, 2, 4, 8 */
	unsigned char is_signed;
	unsigned char nderef;		/* member steps */
	unsigned char deref_last;	/* the last step reads the value */
	unsigned char at_entry;		/* kretprobe: all of it read at entry */
	unsigned char nidx;		/* run-time indexes */
	unsigned char idx_step[STP_TVAR_MAXIDX]; /* the step each one adds to */
	unsigned char user;		/* memory is the current task's user space */
	unsigned char lkind;		/* STP_TVAR_LOC: enum stp_loc_kind */
	unsigned char reg;		/* STP_TVAR_LOC: DWARF register number */
	s64 loff;			/* STP_TVAR_LOC: offset, address or constant */
	int off[STP_TVAR_MAXDEREF];
	long idx_stride[STP_TVAR_MAXIDX];	/* bytes per element */
};

static inline s64 stp_tvar_extend(u64 v, unsigned int size, int is_signed)
{
	switch (size) {
	case 1: return is_signed ? (s64)(s8)v : (s64)(u8)v;
	case 2: return is_signed ? (s64)(s16)v : (s64)(u16)v;
	case 4: return is_signed ? (s64)(s32)v : (s64)(u32)v;
	}
	return (s64)v;
}

/* reads size bytes at addr; false on a fault */
static inline bool stp_read_kernel(unsigned long addr, unsigned int size,
				   u64 *out)
{
	u64 v = 0;

	if (addr < PAGE_SIZE ||
	    copy_from_kernel_nofault(&v, (const void *)addr, size))
		return false;
	*out = v;
	return true;
}

/* size bytes at addr, of user space (the current task's) or the kernel's */
static inline bool stp_read_mem(unsigned long addr, unsigned int size,
				bool user, u64 *out)
{
	u64 v = 0;

	if (!user)
		return stp_read_kernel(addr, size, out);
	if (addr < PAGE_SIZE ||
	    copy_from_user_nofault(&v, (const void __user *)addr, size))
		return false;
	*out = v;
	return true;
}

/*
 * DWARF register n of the probed context (x86-64: 0 ax, 1 dx, 2 cx, 3 bx,
 * 4 si, 5 di, 6 bp, 7 sp, 8-15 r8-r15, 16 the return address column: ip;
 * arm64: 0-30 x0-x30, 31 sp); false for a number without a register
 */
static inline bool stp_dwarf_reg(struct pt_regs *regs, unsigned int n, u64 *out)
{
#ifdef CONFIG_X86_64
	static const unsigned short offs[] = {
		offsetof(struct pt_regs, ax), offsetof(struct pt_regs, dx),
		offsetof(struct pt_regs, cx), offsetof(struct pt_regs, bx),
		offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
		offsetof(struct pt_regs, bp), offsetof(struct pt_regs, sp),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
		offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
		offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
		offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
		offsetof(struct pt_regs, ip),
	};

	if (n >= ARRAY_SIZE(offs))
		return false;
	*out = *(const unsigned long *)((const char *)regs + offs[n]);
	return true;
#elif defined(CONFIG_ARM64)
	if (n < 31)
		*out = regs->regs[n];
	else if (n == 31)
		*out = regs->sp;
	else
		return false;
	return true;
#else
	return false;
#endif
}

/*
 * the start of an STP_TVAR_LOC variable: the value (register, register
 * plus offset, constant) or the first read (stack slot, static variable;
 * bias: the binary's load bias). False and *bad the address on a fault;
 * *bad 0 for a register the architecture does not have.
 */
static bool stp_tvar_loc_value(const struct stp_tvar *t, struct pt_regs *regs,
			       u64 bias, u64 *v, unsigned long *bad)
{
	unsigned long addr;
	u64 r = 0;

	*bad = 0;
	switch (t->lkind) {
	case STP_LOC_CONST:
		*v = (u64)t->loff;
		return true;
	case STP_LOC_STATIC:
		addr = (unsigned long)(bias + t->loff);
		break;
	default:
		if (!stp_dwarf_reg(regs, t->reg, &r))
			return false;
		if (t->lkind == STP_LOC_REG) {
			*v = r;
			return true;
		}
		if (t->lkind == STP_LOC_REGOFF) {
			*v = r + t->loff;
			return true;
		}
		addr = (unsigned long)(r + t->loff);
		break;
	}
	/* a chain's first step reads a pointer; a plain variable its value */
	if (!stp_read_mem(addr, t->nderef ? 8 : t->size, t->user, v)) {
		*bad = addr;
		return false;
	}
	return true;
}

/*
 * applies the member steps to v, each index idx[k] (t->nidx of them; NULL
 * when none) adding idx[k] * idx_stride[k] to its step's address; false
 * on a bad pointer
 */
static bool stp_tvar_walk(const struct stp_tvar *t, u64 *v, unsigned long *bad,
			  const s64 *idx)
{
	unsigned int i, k;

	for (i = 0; i < t->nderef; i++) {
		unsigned long addr = (unsigned long)*v + t->off[i];
		bool last = i + 1 == t->nderef;

		for (k = 0; idx && k < t->nidx; k++)
			if (t->idx_step[k] == i)
				addr += (unsigned long)(idx[k] * t->idx_stride[k]);

		if (last && !t->deref_last) {
			*v = addr;
			break;
		}
		if (!stp_read_mem(addr, last ? t->size : 8, t->user, v)) {
			*bad = addr;
			return false;
		}
	}
	return true;
}

static u64 stp_tvar_base_value(const struct stp_tvar *t, struct pt_regs *regs)
{
	if (t->base == STP_TVAR_RETURN)
		return regs_return_value(regs);
	return regs_get_kernel_argument(regs, t->arg);
}

static void stp_tvar_fault(struct stp_context *c, unsigned long addr)
{
	stp_errorf(c, "invalid pointer dereference (address 0x%lx)", addr);
}

/* whether variable t of probe p was saved at entry (c->entry) */
static inline bool stp_tvar_saved(const struct stp_probe *p,
				  const struct stp_tvar *t)
{
	return (p->kind == STP_PROBE_KRETPROBE &&
		(t->base == STP_TVAR_ARG || t->base == STP_TVAR_LOC)) ||
	       (p->kind == STP_PROBE_URETPROBE && t->base == STP_TVAR_LOC);
}

/*
 * whether the running probe reads DWARF locations: a uprobe (whose context
 * entry holds the binary's load bias) or a kprobe (a kernel statement or
 * function probe: registers and stack slots, no static locations)
 */
static inline bool stp_tvar_loc_ok(const struct stp_context *c)
{
	return c->probe->kind == STP_PROBE_KPROBE ||
	       (c->probe->kind == STP_PROBE_UPROBE && c->entry);
}

/* the load bias of a location's static address (kernel probes: none) */
static inline u64 stp_tvar_bias(const struct stp_context *c)
{
	return c->probe->kind == STP_PROBE_UPROBE ? c->entry[0] : 0;
}

/*
 * the start of variable t in the running probe (not saved at entry): false
 * after raising the error
 */
static bool stp_tvar_start(struct stp_context *c, const struct stp_tvar *t,
			   u64 *v)
{
	unsigned long bad = 0;

	if (t->base != STP_TVAR_LOC) {
		*v = stp_tvar_base_value(t, c->regs);
		return true;
	}
	if (!stp_tvar_loc_ok(c)) {
		stp_error(c, "target variable not available here");
		return false;
	}
	if (stp_tvar_loc_value(t, c->regs, stp_tvar_bias(c), v, &bad))
		return true;
	if (bad)
		stp_tvar_fault(c, bad);
	else
		stp_error(c, "target variable in a register this architecture does not have");
	return false;
}

/* value of target variable k of the running probe; idx: its run-time
 * indexes (NULL: none) */
static __maybe_unused s64 stp_tvar_get_idx(struct stp_context *c, unsigned int k,
					   const s64 *idx)
{
	const struct stp_probe *p = c->probe;
	const struct stp_tvar *t;
	unsigned long bad = 0;
	u64 v;

	if (!p || k >= p->ntvars) {
		stp_error(c, "target variable not available here");
		return 0;
	}
	t = &p->tvars[k];
	if (t->base == STP_TVAR_TPARG) {
		if (!c->entry || t->arg >= p->tp_nargs) {
			stp_error(c, "tracepoint argument not available here");
			return 0;
		}
		v = c->entry[t->arg];
	} else if (!c->regs) {
		stp_error(c, "target variable not available here");
		return 0;
	} else if (stp_tvar_saved(p, t)) {
		/* saved by the entry handler: values, then a fault mask */
		if (!c->entry) {
			stp_error(c, "entry value not saved");
			return 0;
		}
		v = c->entry[k];
		if (c->entry[p->ntvars] & (1ULL << k)) {
			stp_tvar_fault(c, (unsigned long)v);
			return 0;
		}
		if (t->at_entry)
			return (s64)v;
	} else {
		if (!stp_tvar_start(c, t, &v))
			return 0;
		if (t->at_entry)
			return 0;
		/* a location's plain value was read whole */
		if (t->base == STP_TVAR_LOC && !t->nderef)
			return stp_tvar_extend(v, t->size, t->is_signed);
	}
	if (!stp_tvar_walk(t, &v, &bad, idx)) {
		stp_tvar_fault(c, bad);
		return 0;
	}
	return stp_tvar_extend(v, t->size, t->is_signed);
}

static __maybe_unused s64 stp_tvar_get(struct stp_context *c, unsigned int k)
{
	return stp_tvar_get_idx(c, k, NULL);
}

/*
 * @cast(p, "type")->member[i]...: t's member steps applied to the address
 * p (t->base and t->arg unused), with run-time indexes idx (NULL: none); a
 * bad pointer is a script error.
 */
static __maybe_unused s64 stp_cast_get_idx(struct stp_context *c, s64 p,
					   const struct stp_tvar *t, const s64 *idx)
{
	unsigned long bad = 0;
	u64 v = (u64)p;

	if (!stp_tvar_walk(t, &v, &bad, idx)) {
		stp_tvar_fault(c, bad);
		return 0;
	}
	return stp_tvar_extend(v, t->size, t->is_signed);
}

static __maybe_unused s64 stp_cast_get(struct stp_context *c, s64 p,
				       const struct stp_tvar *t)
{
	return stp_cast_get_idx(c, p, t, NULL);
}

/*
 * entry i of the running probe's $$parms/$$vars/$$locals list, extended to
 * its size: from its argument register at a function's entry, or where
 * its DWARF location says; false when it cannot be read (no location
 * there, a fault)
 */
static __maybe_unused bool stp_parm_value(struct stp_context *c,
					  unsigned int i, u64 *v)
{
	const struct stp_tvar *t = &c->probe->parms[i];
	unsigned long bad;

	if (!t->size)
		return false;
	if (t->base != STP_TVAR_LOC)
		*v = regs_get_kernel_argument(c->regs, t->arg);
	else if (!stp_tvar_loc_ok(c) ||
		 !stp_tvar_loc_value(t, c->regs, stp_tvar_bias(c), v, &bad))
		return false;
	*v = stp_tvar_extend(*v, t->size, t->is_signed);
	return true;
}

/*
 * $$parms, $$vars, $$locals: "name=0x... name=0x..." into dst. A
 * tracepoint's arguments are the context's entry values; a DWARF
 * function's parameters and locals are read by stp_parm_value() (p->parms;
 * one that cannot be read prints "name=?"). Pointers (p->parm_ptrmask)
 * print hashed unless -g.
 */
static __maybe_unused const char *stp_parms(struct stp_context *c, char *dst)
{
	const struct stp_probe *p = c->probe;
	bool tp = p && p->kind == STP_PROBE_TRACEPOINT;
	unsigned int i, nargs;
	const char *name;
	int n = 0;

	dst[0] = '\0';
	if (!p || (tp ? !p->tp_argnames || (p->tp_nargs && !c->entry) : !c->regs)) {
		stp_error(c, "$$parms not available here");
		return dst;
	}
	name = tp ? p->tp_argnames : p->parm_names; /* NULL: no parameters */
	nargs = tp ? p->tp_nargs : p->nparms;
	for (i = 0; i < nargs; i++) {
		u64 v;

		if (tp) {
			v = c->entry[i];
		} else if (!stp_parm_value(c, i, &v)) {
			n += scnprintf(dst + n, STP_MAXSTRINGLEN - n, "%s%s=?",
				       i ? " " : "", name);
			name += strlen(name) + 1;
			continue;
		}
		if (i < 64 && (p->parm_ptrmask & (1ULL << i)))
			v = stp_ptr_out(v);
		n += scnprintf(dst + n, STP_MAXSTRINGLEN - n, "%s%s=0x%llx",
			       i ? " " : "", name, v);
		name += strlen(name) + 1;
	}
	return dst;
}

/*
 * $$return: "return=0x..." into dst in a .return probe of a function with
 * a prototype, "" when it returns void.
 */
static __maybe_unused const char *stp_return_str(struct stp_context *c, char *dst)
{
	const struct stp_probe *p = c->probe;
	u64 v;

	dst[0] = '\0';
	if (!p || (p->kind != STP_PROBE_KRETPROBE &&
		   p->kind != STP_PROBE_URETPROBE) || !c->regs) {
		stp_error(c, "$$return not available here");
		return dst;
	}
	if (!p->ret_shown)
		return dst;
	v = regs_return_value(c->regs);
	if (p->ret_shown == 2)
		v = stp_ptr_out(v);
	scnprintf(dst, STP_MAXSTRINGLEN, "return=0x%llx", v);
	return dst;
}

/*
 * $var$ and $var$$: the translator generates one function per probe point
 * and pretty-printed variable, a sequence of the pieces below into dst
 * (at *n, capped at STP_MAXSTRINGLEN like every string). Each read is
 * fault-safe; a fault is the script error of any bad target-variable read
 * (its address), and stops the printing.
 */
static __maybe_unused void stp_pp_lit(char *dst, int *n, const char *s)
{
	*n += scnprintf(dst + *n, STP_MAXSTRINGLEN - *n, "%s", s);
}

/* kind: 0 signed decimal, 1 unsigned decimal, 2 pointer (hashed unless -g) */
static __maybe_unused bool stp_pp_int(struct stp_context *c, char *dst, int *n,
				      unsigned long addr, unsigned int size,
				      int kind)
{
	u64 v;

	if (!stp_read_kernel(addr, size, &v)) {
		stp_tvar_fault(c, addr);
		return false;
	}
	if (kind == 0)
		*n += scnprintf(dst + *n, STP_MAXSTRINGLEN - *n, "%lld",
				stp_tvar_extend(v, size, 1));
	else if (kind == 1)
		*n += scnprintf(dst + *n, STP_MAXSTRINGLEN - *n, "%llu",
				(u64)stp_tvar_extend(v, size, 0));
	else
		*n += scnprintf(dst + *n, STP_MAXSTRINGLEN - *n, "0x%llx",
				stp_ptr_out(v));
	return true;
}

/* a value already read (a scalar $var$) */
static __maybe_unused void stp_pp_val(char *dst, int *n, s64 v, int kind)
{
	if (kind == 0)
		*n += scnprintf(dst + *n, STP_MAXSTRINGLEN - *n, "%lld", v);
	else if (kind == 1)
		*n += scnprintf(dst + *n, STP_MAXSTRINGLEN - *n, "%llu", (u64)v);
	else
		*n += scnprintf(dst + *n, STP_MAXSTRINGLEN - *n, "0x%llx",
				stp_ptr_out((u64)v));
}

/* a char array of len bytes at addr, quoted, up to its NUL */
static __maybe_unused bool stp_pp_chars(struct stp_context *c, char *dst, int *n,
					unsigned long addr, unsigned long len)
{
	unsigned long i;

	stp_pp_lit(dst, n, "\"");
	for (i = 0; i < len && *n < STP_MAXSTRINGLEN - 1; i++) {
		u64 v;
		unsigned char ch;

		if (!stp_read_kernel(addr + i, 1, &v)) {
			stp_tvar_fault(c, addr + i);
			return false;
		}
		ch = (unsigned char)v;
		if (!ch)
			break;
		if (ch == '"' || ch == '\\')
			*n += scnprintf(dst + *n, STP_MAXSTRINGLEN - *n, "\\%c", ch);
		else if (ch < 0x20 || ch >= 0x7f)
			*n += scnprintf(dst + *n, STP_MAXSTRINGLEN - *n, "\\x%02x", ch);
		else
			*n += scnprintf(dst + *n, STP_MAXSTRINGLEN - *n, "%c", ch);
	}
	stp_pp_lit(dst, n, "\"");
	return true;
}

/*
 * kretprobe entry: saves argument-based variables in data; uretprobe
 * entry: location-based ones (bias: the binary's load bias). data holds
 * ntvars values, then a mask of those whose read faulted (the value is
 * then the faulting address).
 */
static void stp_tvar_save_entry_bias(const struct stp_probe *p,
				     struct pt_regs *regs, u64 *data, u64 bias)
{
	unsigned long bad = 0;
	unsigned int k;
	u64 v;

	data[p->ntvars] = 0;
	for (k = 0; k < p->ntvars && k < 64; k++) {
		const struct stp_tvar *t = &p->tvars[k];
		bool ok = true;

		if (!stp_tvar_saved(p, t))
			continue;
		if (t->base == STP_TVAR_LOC)
			ok = stp_tvar_loc_value(t, regs, bias, &v, &bad);
		else
			v = stp_tvar_base_value(t, regs);
		if (ok && t->base == STP_TVAR_LOC && !t->nderef)
			v = stp_tvar_extend(v, t->size, t->is_signed);
		else if (ok && t->at_entry && stp_tvar_walk(t, &v, &bad, NULL))
			v = stp_tvar_extend(v, t->size, t->is_signed);
		else if (ok && t->at_entry)
			ok = false;
		if (!ok) {
			v = bad;
			data[p->ntvars] |= 1ULL << k;
		}
		data[k] = v;
	}
}

static __maybe_unused void stp_tvar_save_entry(const struct stp_probe *p,
					       struct pt_regs *regs, u64 *data)
{
	stp_tvar_save_entry_bias(p, regs, data, 0);
}

/* kernel_string(addr): a NUL-terminated kernel string, read without faulting */
/* kernel_long() and friends: size bytes at addr, sign-extended; 0 and an
 * error on a bad address */
static __maybe_unused s64 stp_kernel_read(struct stp_context *c, s64 addr,
					  unsigned int size, int is_signed)
{
	u64 v;

	if (!stp_read_kernel((unsigned long)addr, size, &v)) {
		stp_tvar_fault(c, (unsigned long)addr);
		return 0;
	}
	return stp_tvar_extend(v, size, is_signed);
}

/*
 * addr_to_node(addr): the NUMA node of the memory behind a kernel address
 * of the linear map (kmalloc'ed objects, task_structs); an error for
 * others (vmalloc, module text, user addresses)
 */
static __maybe_unused s64 stp_addr_to_node(struct stp_context *c, s64 addr)
{
	const void *p = (const void *)(unsigned long)addr;

	if (!virt_addr_valid(p)) {
		stp_errorf(c, "addr_to_node(0x%llx): not an address of the kernel's linear map",
			   (u64)addr);
		return 0;
	}
	return page_to_nid(virt_to_page(p));
}

static __maybe_unused const char *stp_kernel_string(struct stp_context *c, char *dst, s64 addr)
{
	long n;

	dst[0] = '\0';
	if ((unsigned long)addr < PAGE_SIZE) {
		stp_tvar_fault(c, (unsigned long)addr);
		return dst;
	}
	/* page by page (strncpy_from_kernel_nofault is not exported) */
	for (n = 0; n < STP_MAXSTRINGLEN - 1;) {
		unsigned long a = (unsigned long)addr + n;
		long chunk = min_t(long, STP_MAXSTRINGLEN - 1 - n,
				   PAGE_SIZE - offset_in_page(a));

		if (copy_from_kernel_nofault(dst + n, (const void *)a, chunk)) {
			dst[0] = '\0';
			stp_tvar_fault(c, a);
			return dst;
		}
		if (memchr(dst + n, '\0', chunk))
			return dst;
		n += chunk;
	}
	dst[n] = '\0';
	return dst;
}

/* returnval(): the return value in a .return probe */
static __maybe_unused s64 stp_returnval(struct stp_context *c)
{
	if (!c->regs || !c->probe || (c->probe->kind != STP_PROBE_KRETPROBE &&
				      c->probe->kind != STP_PROBE_URETPROBE)) {
		stp_error(c, "returnval() outside a .return probe");
		return 0;
	}
	return (s64)regs_return_value(c->regs);
}

/* probefunc(): the probed function's name ("" outside function probes) */
static __maybe_unused const char *stp_probefunc(struct stp_context *c)
{
	const char *s = c->probe && c->probe->symbol ? c->probe->symbol : "";
	const char *colon = strchr(s, ':');

	return colon ? colon + 1 : s;
}

/*
 * int_arg(n) and the other *_arg functions: argument n (from 1) of the
 * probed function as its entry registers hold it (x86-64: rdi rsi rdx rcx
 * r8 r9, then the kernel stack; arm64: x0-x7), cut to size bytes and
 * sign- or zero-extended. Only function probes have arguments; in a
 * .return probe the registers are the function's at its return.
 */
static __maybe_unused s64 stp_regs_arg(struct stp_context *c, s64 n,
				       unsigned int size, int is_signed)
{
	const struct stp_probe *p = c->probe;
	bool user = p && (p->kind == STP_PROBE_UPROBE || p->kind == STP_PROBE_URETPROBE);
#ifdef CONFIG_X86_64
	s64 most = user ? 6 : 32;	/* a kernel function's 7th on: its stack */
#else
	s64 most = 8;			/* regs_get_kernel_argument()'s x0-x7 */
#endif

	if (!c->regs || !p || (!user && p->kind != STP_PROBE_KPROBE &&
			       p->kind != STP_PROBE_KRETPROBE)) {
		stp_error(c, "cannot access function arguments in this probe");
		return 0;
	}
	if (n < 1 || n > most) {
		stp_errorf(c, "argument %lld is out of range (1 to %lld here)", n, most);
		return 0;
	}
	return stp_tvar_extend(regs_get_kernel_argument(c->regs, n - 1), size,
			       is_signed);
}

/* the registers register() and print_regs() know, by name */
static const struct {
	const char *name;
	unsigned int off;
} stp_reg_table[] __maybe_unused = {
#define STP_REG(n, f) { n, offsetof(struct pt_regs, f) }
#ifdef CONFIG_X86_64
	STP_REG("rax", ax), STP_REG("rbx", bx), STP_REG("rcx", cx),
	STP_REG("rdx", dx), STP_REG("rsi", si), STP_REG("rdi", di),
	STP_REG("rbp", bp), STP_REG("rsp", sp), STP_REG("rip", ip),
	STP_REG("r8", r8), STP_REG("r9", r9), STP_REG("r10", r10),
	STP_REG("r11", r11), STP_REG("r12", r12), STP_REG("r13", r13),
	STP_REG("r14", r14), STP_REG("r15", r15),
	STP_REG("flags", flags), STP_REG("orig_rax", orig_ax),
#elif defined(CONFIG_ARM64)
	STP_REG("x0", regs[0]), STP_REG("x1", regs[1]), STP_REG("x2", regs[2]),
	STP_REG("x3", regs[3]), STP_REG("x4", regs[4]), STP_REG("x5", regs[5]),
	STP_REG("x6", regs[6]), STP_REG("x7", regs[7]), STP_REG("lr", regs[30]),
	STP_REG("sp", sp), STP_REG("pc", pc), STP_REG("pstate", pstate),
#endif
#undef STP_REG
};

static inline s64 stp_reg_value(const struct pt_regs *regs, unsigned int i)
{
	return *(const s64 *)((const char *)regs + stp_reg_table[i].off);
}

/* register("rax"): a register of the probed context, by name */
static __maybe_unused s64 stp_register(struct stp_context *c, const char *name)
{
	unsigned int i;

	if (!c->regs) {
		stp_error(c, "register() outside a kprobe");
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(stp_reg_table); i++)
		if (!strcmp(name, stp_reg_table[i].name))
			return stp_reg_value(c->regs, i);
	stp_errorf(c, "unknown register '%s'", name);
	return 0;
}

/*
 * print_regs(): the probe's registers, "rax: 0x0000000000000001" three to
 * a line in register()'s names and order; nothing without registers
 */
static __maybe_unused void stp_print_regs(struct stp_context *c)
{
	unsigned int i, n = ARRAY_SIZE(stp_reg_table);

	if (!c->regs)
		return;
	for (i = 0; i < n; i++)
		stp_printf(c, "%s: 0x%016llx%s", stp_reg_table[i].name,
			   (u64)stp_reg_value(c->regs, i),
			   i % 3 == 2 || i + 1 == n ? "\n" : "  ");
}

#endif /* STP_TVAR_H */
