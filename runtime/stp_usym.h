/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_usym.h - user-space symbols and stacks: the binaries the translator
 * knows (every process("PATH") probe's file, -c's program, -d FILE), an
 * address's binary and symbol, and the unwinder of ubacktrace() and the
 * other user-stack functions (stp_ubacktrace.h prints them).
 *
 * The generated module emits one struct stp_ubin per known binary: its
 * PT_LOAD segments, its function symbols sorted by link-time address and
 * its .eh_frame rows (translator/userinfo/unwind.cpp), and defines
 * STP_HAVE_USYMS; module init looks each path up (kern_path) and holds its
 * inode until exit. A missing file is skipped: its addresses stay unnamed.
 *
 * A user address is mapped to a binary through the task's VMA that holds
 * it (its file's inode, its file offset to a link-time address through the
 * segments). The VMAs need mmap_lock: it is only tried (mmap_read_trylock,
 * no sleeping in a probe body), never in NMI context (perf sampling
 * probes). When it cannot be had, or the task has no mm, only the
 * interrupted address is known: stacks have one frame, symbols are hex.
 *
 * The unwinder starts at the task's user registers (the probe's own in a
 * process probe, task_pt_regs() in a kernel probe) and evaluates the CFI
 * row of each pc: CFA = sp or fp + offset, the return address and fp saved
 * at CFA + offset (arm64: the return address may still be in lr at frame
 * 0), copying stack words with copy_from_user_nofault(). It stops at a pc
 * outside the known binaries or without a row, at an expression rule, a
 * read that faults, and after STP_MAXBACKTRACE frames.
 */
#ifndef STP_USYM_H
#define STP_USYM_H

struct stp_uload {
	u64 offset, vaddr, filesz;
};

struct stp_usym {
	u64 addr;
	u32 size;
	u32 name;			/* offset into the binary's names */
};

enum { STP_UCFA_SP, STP_UCFA_FP, STP_UCFA_UNKNOWN };
enum { STP_URA_UNDEFINED, STP_URA_SAVED, STP_URA_INREG };

struct stp_ucfi {
	u64 start;
	u32 len;
	s32 cfa_off, ra_off, fp_off;
	u8 cfa, ra, fp_saved;
};

struct stp_ubin {
	const char *path;
	const char *names;
	const struct stp_uload *loads;
	const struct stp_usym *syms;
	const struct stp_ucfi *cfi;
	unsigned int nloads, nsyms, ncfi;
	struct inode *inode;		/* NULL: not found at load */
};

static struct stp_ubin *stp_ubins;
static unsigned int stp_nubins;

/* module init: finds each known binary's inode (sleeps) */
static __maybe_unused void stp_usyms_init(struct stp_ubin *bins, unsigned int n)
{
	struct path path;
	unsigned int i;

	for (i = 0; i < n; i++) {
		bins[i].inode = NULL;
		if (kern_path(bins[i].path, LOOKUP_FOLLOW, &path))
			continue;
		bins[i].inode = igrab(d_inode(path.dentry));
		path_put(&path);
	}
	stp_ubins = bins;
	stp_nubins = n;
}

static __maybe_unused void stp_usyms_release(void)
{
	unsigned int i;

	for (i = 0; i < stp_nubins; i++) {
		if (stp_ubins[i].inode)
			iput(stp_ubins[i].inode);
		stp_ubins[i].inode = NULL;
	}
	stp_nubins = 0;
}

/* the current task's mm with its mmap_lock read-held, or NULL */
static struct mm_struct *stp_umm_lock(void)
{
	struct mm_struct *mm = current->mm;

	if (!mm || (current->flags & PF_KTHREAD) || in_nmi() || !stp_nubins)
		return NULL;
	return mmap_read_trylock(mm) ? mm : NULL;
}

static void stp_umm_unlock(struct mm_struct *mm)
{
	if (mm)
		mmap_read_unlock(mm);
}

/* the known binary mapped at addr in mm (locked) and addr's link-time address */
static const struct stp_ubin *stp_ubin_find(struct mm_struct *mm,
					    unsigned long addr, u64 *vaddr)
{
	struct vm_area_struct *vma;
	struct inode *inode;
	unsigned int i, j;
	u64 off;

	if (!mm)
		return NULL;
	vma = find_vma(mm, addr);
	if (!vma || vma->vm_start > addr || !vma->vm_file)
		return NULL;
	inode = file_inode(vma->vm_file);
	off = addr - vma->vm_start + ((u64)vma->vm_pgoff << PAGE_SHIFT);
	for (i = 0; i < stp_nubins; i++) {
		const struct stp_ubin *b = &stp_ubins[i];

		if (b->inode != inode)
			continue;
		for (j = 0; j < b->nloads; j++) {
			const struct stp_uload *l = &b->loads[j];

			if (off >= l->offset && off - l->offset < l->filesz) {
				*vaddr = off - l->offset + l->vaddr;
				return b;
			}
		}
	}
	return NULL;
}

/*
 * The number of entries of a table sorted by its leading u64 (each entry
 * size bytes) whose key is at most v: entry [result - 1] is the last of them.
 */
static unsigned int stp_ubsearch(const void *base, unsigned int n, size_t size, u64 v)
{
	unsigned int lo = 0, hi = n;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (*(const u64 *)((const char *)base + (size_t)mid * size) <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* the function symbol of b holding vaddr, or NULL */
static const struct stp_usym *stp_usym_find(const struct stp_ubin *b, u64 vaddr)
{
	unsigned int i = stp_ubsearch(b->syms, b->nsyms, sizeof(*b->syms), vaddr);
	const struct stp_usym *s;

	if (!i)
		return NULL;
	s = &b->syms[i - 1];
	if (s->size && vaddr - s->addr >= s->size)
		return NULL;
	return s;
}

/* the CFI row of b holding vaddr, or NULL */
static const struct stp_ucfi *stp_ucfi_find(const struct stp_ubin *b, u64 vaddr)
{
	unsigned int i = stp_ubsearch(b->cfi, b->ncfi, sizeof(*b->cfi), vaddr);
	const struct stp_ucfi *r;

	if (!i)
		return NULL;
	r = &b->cfi[i - 1];
	return vaddr - r->start < r->len ? r : NULL;
}

/* the user registers of the probed task, or NULL (a kernel thread, no task) */
static struct pt_regs *stp_uregs(struct stp_context *c)
{
	if (c->regs && user_mode(c->regs))
		return c->regs;
	if (!current->mm || (current->flags & PF_KTHREAD))
		return NULL;
	return task_pt_regs(current);
}

struct stp_uframe {
	unsigned long pc, sp, fp, lr;
};

static bool stp_uread(unsigned long addr, unsigned long *v)
{
	return !copy_from_user_nofault(v, (const void __user *)addr, sizeof(*v));
}

/* one step from f (frame n of the stack) to its caller's frame; false: none */
static bool stp_ustep(struct mm_struct *mm, struct stp_uframe *f, unsigned int n)
{
	const struct stp_ubin *b;
	const struct stp_ucfi *r;
	unsigned long cfa, ra;
	u64 va;

	b = stp_ubin_find(mm, n ? f->pc - 1 : f->pc, &va);
	r = b ? stp_ucfi_find(b, va) : NULL;
	if (!r || r->cfa == STP_UCFA_UNKNOWN)
		return false;
	cfa = (r->cfa == STP_UCFA_SP ? f->sp : f->fp) + (long)r->cfa_off;
	if (r->ra == STP_URA_SAVED) {
		if (!stp_uread(cfa + (long)r->ra_off, &ra))
			return false;
	} else if (r->ra == STP_URA_INREG && !n) {
		ra = f->lr;
	} else {
		return false;
	}
	if (r->fp_saved && !stp_uread(cfa + (long)r->fp_off, &f->fp))
		return false;
#ifdef CONFIG_ARM64
	ra &= GENMASK_ULL(VA_BITS - 1, 0);	/* a signed return address's PAC */
#endif
	/* the caller's frame is above this one (a leaf's may be the same, arm64) */
	if (!ra || ra >= TASK_SIZE_MAX || cfa < f->sp ||
	    (cfa == f->sp && r->ra != STP_URA_INREG))
		return false;
	f->sp = cfa;
	f->pc = ra;
	return true;
}

/* the user stack of c's task into buf (innermost first); mm: locked or NULL */
static unsigned int stp_uunwind(struct stp_context *c, struct mm_struct *mm,
				unsigned long *buf, unsigned int max)
{
	struct pt_regs *regs = stp_uregs(c);
	struct stp_uframe f;
	unsigned int n = 0;

	if (!regs || !max)
		return 0;
	f.pc = instruction_pointer(regs);
	f.sp = user_stack_pointer(regs);
#ifdef CONFIG_X86
	f.fp = regs->bp;
	f.lr = 0;
#elif defined(CONFIG_ARM64)
	f.fp = regs->regs[29];
	f.lr = regs->regs[30];
#else
	f.fp = 0;
	f.lr = 0;
#endif
	buf[n++] = f.pc;
	while (n < max && stp_ustep(mm, &f, n - 1))
		buf[n++] = f.pc;
	return n;
}

/*
 * addr (a return address when ret: its call names the function) as
 * "func+0x12/0x40 [/path/prog]" (with_size) or "func+0x12 [/path/prog]"
 * into b (len bytes); false when no known binary's symbol holds it
 */
static bool stp_usym_format(struct mm_struct *mm, char *b, size_t len,
			    unsigned long addr, bool ret, bool with_size)
{
	const struct stp_ubin *bin;
	const struct stp_usym *s;
	u64 va;

	bin = stp_ubin_find(mm, ret ? addr - 1 : addr, &va);
	s = bin ? stp_usym_find(bin, va) : NULL;
	if (!s)
		return false;
	va += ret;
	if (with_size)
		snprintf(b, len, "%s+0x%llx/0x%x [%s]", bin->names + s->name,
			 va - s->addr, s->size, bin->path);
	else
		snprintf(b, len, "%s+0x%llx [%s]", bin->names + s->name,
			 va - s->addr, bin->path);
	return true;
}

#endif /* STP_USYM_H */
