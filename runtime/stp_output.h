/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_output.h - the output transport, and its reading end
 * /proc/<module>/{output,records} (the status and control files, and the
 * creation of the directory they share, are stp_control.h's).
 *
 * Records: a probe hit's prints are collected in its context (c->outbuf,
 * stp_printf) and written as ONE record when the handler ends
 * (stp_output_flush), or earlier when the next print would not fit. A
 * script error is a record of its own. Each record carries a global
 * sequence number, a CLOCK_MONOTONIC timestamp (ktime_get_mono_fast_ns,
 * NMI-safe), its probe and its type.
 *
 * Rings: every possible CPU has STP_OUT_LEVELS single-producer
 * single-consumer rings, allocated at init. Only that CPU writes them, with
 * interrupts off, so the only writer that can interrupt another is a body
 * in NMI context (a probe hit in NMI, perf overflow handlers of hardware
 * events), which runs in the CPU's NMI context (stp_handlers.h). Such a
 * writer uses the level-1 (nested) ring when it interrupted a body on its
 * CPU (stp_out_level), so it never races the level-0 writer; a writer
 * nested deeper drops its record and counts it. Nothing locks or spins: the writer reads the
 * reader's tail (acquire), drops and counts the record when it does not
 * fit, else takes a sequence number, copies the record and publishes the
 * new head (release). The sequence number is taken only once the record is
 * sure to be stored, so every number is eventually committed.
 *
 * Reader (process context, read_mutex): delivers records in sequence order,
 * merging all rings; it waits (returns what it has) while the next number
 * is still being written on another CPU, except once the session is stopped.
 * A record's ring space is released only after all of it was copied to user
 * space, so short reads and faults lose nothing. `output` delivers the text
 * only; `records` frames each record (see stp_proc_records_read). Both share
 * one read position.
 */
#ifndef STP_OUTPUT_H
#define STP_OUTPUT_H

#if STP_BUFSIZE < 4096
#error "STP_BUFSIZE (bytes of each CPU's output buffer) must be at least 4096"
#endif
#if STP_NESTED_BUFSIZE < 1024
#error "STP_NESTED_BUFSIZE must be at least 1024"
#endif
#if STP_PRINT_BUFSIZE < STP_MAXPRINTLEN
#error "STP_PRINT_BUFSIZE must be at least STP_MAXPRINTLEN"
#endif

#define STP_OUT_LEVELS 2

enum stp_rec_type {
	STP_REC_TEXT,			/* script output */
	STP_REC_ERROR,			/* a script error message */
};

#define STP_REC_NOPROBE 0xffff

struct stp_rec_hdr {
	u64 seq;			/* 1, 2, ...: delivery order */
	u64 ts;				/* ktime_get_mono_fast_ns() */
	u32 len;			/* bytes of text after the header */
	u16 probe;			/* index in stp_session.probes */
	u8 type;			/* enum stp_rec_type */
	u8 pad;
};

struct stp_ring {
	/* the writer's: its CPU, at its level */
	u64 head;			/* bytes ever committed */
	u64 written;			/* records committed */
	u64 dropped;			/* records that did not fit */
	u64 dropped_bytes;		/* their text bytes */
	/* the reader's */
	u64 tail ____cacheline_aligned_in_smp;	/* bytes ever released */
	u64 peek;			/* seq of the record at tail, 0: not read */
	u32 size;
	int cpu;
	char data[];
};

struct stp_outbuf {
	struct stp_ring **rings;	/* [cpu * STP_OUT_LEVELS + level] */
	unsigned int nrings;
	atomic64_t seq;			/* last sequence number taken */
	atomic64_t nested_dropped;	/* records of writers nested too deep */
	atomic64_t nested_dropped_bytes;
	/* reader state, under read_mutex */
	struct mutex read_mutex;
	u64 next_seq;			/* the record to deliver next */
	struct stp_ring *cur;		/* the record being delivered, or NULL */
	struct stp_rec_hdr hdr;		/* its header */
	u32 text_off;			/* its text bytes delivered */
	int frame_part;			/* records file: -1 frame line not made yet,
					 * 0 frame line, 1 name, 2 text */
	u32 frame_off;			/* bytes of that part delivered */
	u32 frame_len;			/* bytes of the frame line */
	char frame[96];			/* at most 88 bytes and a NUL */
};

static struct stp_outbuf stp_out = {
	.seq = ATOMIC64_INIT(0),
	.nested_dropped = ATOMIC64_INIT(0),
	.nested_dropped_bytes = ATOMIC64_INIT(0),
	.read_mutex = __MUTEX_INITIALIZER(stp_out.read_mutex),
	.next_seq = 1,
};

static DEFINE_PER_CPU(int, stp_out_nest);

static struct proc_dir_entry *stp_proc_dir;

static void stp_ring_put(struct stp_ring *r, u64 pos, const void *src, size_t n)
{
	size_t off = pos % r->size;
	size_t first = min_t(size_t, n, r->size - off);

	memcpy(r->data + off, src, first);
	memcpy(r->data, (const char *)src + first, n - first);
}

static void stp_ring_get(const struct stp_ring *r, u64 pos, void *dst, size_t n)
{
	size_t off = pos % r->size;
	size_t first = min_t(size_t, n, r->size - off);

	memcpy(dst, r->data + off, first);
	memcpy((char *)dst + first, r->data, n - first);
}

static u16 stp_probe_index(const struct stp_probe *p)
{
	if (!p || !stp_session.probes || p < stp_session.probes ||
	    p >= stp_session.probes + stp_session.nprobes ||
	    p - stp_session.probes >= STP_REC_NOPROBE)
		return STP_REC_NOPROBE;
	return p - stp_session.probes;
}

/*
 * The ring level of a writer that found nest writes running on this CPU:
 * at least 1 in NMI over a body (context 0 busy) of its CPU, even when that
 * body is not writing at the moment.
 */
static __always_inline int stp_out_level(int nest)
{
	struct stp_context *c;

	if (nest || !in_nmi())
		return nest;
	c = __this_cpu_read(stp_contexts[0]);
	return c && atomic_read(&c->busy);
}

/*
 * Stores one record in this CPU's ring of the current nesting level, or
 * drops and counts it. Any context, NMI included; never waits.
 */
static void stp_output_record(const struct stp_probe *p, u8 type,
			      const char *s, size_t len)
{
	struct stp_rec_hdr h;
	struct stp_ring *r;
	unsigned long flags;
	u64 head, tail;
	size_t total = sizeof(h) + len;
	int level;

	if (unlikely(!len || !stp_out.rings))
		return;
	local_irq_save(flags);
	level = stp_out_level(this_cpu_inc_return(stp_out_nest) - 1);
	r = NULL;
	if (likely(level < STP_OUT_LEVELS))
		r = stp_out.rings[smp_processor_id() * STP_OUT_LEVELS + level];
	if (unlikely(!r)) {
		atomic64_inc(&stp_out.nested_dropped);
		atomic64_add(len, &stp_out.nested_dropped_bytes);
		goto out;
	}
	head = r->head;
	/* pairs with the reader's release: its copies are done */
	tail = smp_load_acquire(&r->tail);
	if (unlikely(len > U32_MAX || total > r->size - (head - tail))) {
		WRITE_ONCE(r->dropped, r->dropped + 1);
		WRITE_ONCE(r->dropped_bytes, r->dropped_bytes + len);
		goto out;
	}
	h.seq = atomic64_inc_return(&stp_out.seq);
	h.ts = ktime_get_mono_fast_ns();
	h.len = len;
	h.probe = stp_probe_index(p);
	h.type = type;
	h.pad = 0;
	stp_ring_put(r, head, &h, sizeof(h));
	stp_ring_put(r, head + sizeof(h), s, len);
	WRITE_ONCE(r->written, r->written + 1);
	/* the record's bytes before the new head */
	smp_store_release(&r->head, head + total);
out:
	this_cpu_dec(stp_out_nest);
	local_irq_restore(flags);
}

/* writes the hit's collected output as one record */
static void stp_output_flush(struct stp_context *c)
{
	if (!c->outlen)
		return;
	stp_output_record(c->probe, STP_REC_TEXT, c->outbuf, c->outlen);
	c->outlen = 0;
}

struct stp_out_counts {
	u64 written, dropped, dropped_bytes;
	u64 nested;			/* of written: in the nested rings */
};

static void stp_output_counts(int cpu, struct stp_out_counts *n)
{
	struct stp_ring *r;
	int level;

	for (level = 0; level < STP_OUT_LEVELS; level++) {
		r = stp_out.rings[cpu * STP_OUT_LEVELS + level];
		if (!r)
			continue;
		n->written += READ_ONCE(r->written);
		if (level)
			n->nested += READ_ONCE(r->written);
		n->dropped += READ_ONCE(r->dropped);
		n->dropped_bytes += READ_ONCE(r->dropped_bytes);
	}
}

static void stp_output_free(void)
{
	unsigned int i;

	if (!stp_out.rings)
		return;
	for (i = 0; i < stp_out.nrings; i++)
		kvfree(stp_out.rings[i]);
	kfree(stp_out.rings);
	stp_out.rings = NULL;
	stp_out.nrings = 0;
}

/* every possible CPU's rings, on its node (sleeps) */
static int stp_output_alloc(void)
{
	static const u32 sizes[STP_OUT_LEVELS] = { STP_BUFSIZE, STP_NESTED_BUFSIZE };
	struct stp_ring *r;
	int cpu, level;

	stp_out.nrings = nr_cpu_ids * STP_OUT_LEVELS;
	stp_out.rings = stp_fail_null("output ring table",
		kcalloc(stp_out.nrings, sizeof(*stp_out.rings), GFP_KERNEL));
	if (!stp_out.rings) {
		stp_out.nrings = 0;
		stp_err("cannot allocate the output buffer table\n");
		return -ENOMEM;
	}
	for_each_possible_cpu(cpu) {
		for (level = 0; level < STP_OUT_LEVELS; level++) {
			r = stp_fail_null("output ring",
				kvzalloc_node(sizeof(*r) + sizes[level],
					      GFP_KERNEL, cpu_to_node(cpu)));
			if (!r) {
				stp_err("cannot allocate the %u byte output buffer of cpu%d\n",
					sizes[level], cpu);
				stp_output_free();
				return -ENOMEM;
			}
			r->size = sizes[level];
			r->cpu = cpu;
			stp_out.rings[cpu * STP_OUT_LEVELS + level] = r;
		}
	}
	return 0;
}

/* --- the reader (process context, read_mutex held) --- */

/*
 * Makes the next record in sequence order current; false when there is
 * none yet. Before the session stopped, a gap (the next number is still
 * being written on some CPU) waits; once stopped nothing writes and the
 * smallest number goes.
 */
static bool stp_output_next(void)
{
	struct stp_rec_hdr h, best_h;
	struct stp_ring *r, *best = NULL;
	unsigned int i;
	u64 head;

	for (i = 0; i < stp_out.nrings; i++) {
		r = stp_out.rings[i];
		if (!r)
			continue;
		if (!r->peek) {
			/* pairs with the writer's release: the record is complete */
			head = smp_load_acquire(&r->head);
			if (head == r->tail)
				continue;
			stp_ring_get(r, r->tail, &h, sizeof(h));
			r->peek = h.seq;
		}
		if (!best || r->peek < best->peek)
			best = r;
	}
	if (!best)
		return false;
	if (best->peek > stp_out.next_seq && stp_state() != STP_STATE_STOPPED)
		return false;
	stp_ring_get(best, best->tail, &best_h, sizeof(best_h));
	stp_out.cur = best;
	stp_out.hdr = best_h;
	stp_out.text_off = 0;
	stp_out.frame_part = -1;
	return true;
}

static void stp_output_release(void)
{
	struct stp_ring *r = stp_out.cur;

	/* after the copies out of the ring: the writer may reuse the space */
	smp_store_release(&r->tail, r->tail + sizeof(stp_out.hdr) + stp_out.hdr.len);
	r->peek = 0;
	stp_out.next_seq = stp_out.hdr.seq + 1;
	stp_out.cur = NULL;
}

/* copies up to n text bytes of the current record; returns the count, or
 * -EFAULT when nothing could be copied */
static ssize_t stp_output_copy_text(char __user *buf, size_t n)
{
	struct stp_ring *r = stp_out.cur;
	u64 pos = r->tail + sizeof(stp_out.hdr) + stp_out.text_off;
	size_t off = pos % r->size, first, done, left;

	n = min_t(size_t, n, stp_out.hdr.len - stp_out.text_off);
	first = min_t(size_t, n, r->size - off);
	left = copy_to_user(buf, r->data + off, first);
	done = first - left;
	if (!left && n > first) {
		left = copy_to_user(buf + first, r->data, n - first);
		done += n - first - left;
	}
	stp_out.text_off += done;
	if (!done && n)
		return -EFAULT;
	return done;
}

static ssize_t stp_copy_part(char __user *buf, size_t n, const char *part,
			     size_t part_len)
{
	size_t left;

	n = min(n, part_len - stp_out.frame_off);
	left = copy_to_user(buf, part + stp_out.frame_off, n);
	stp_out.frame_off += n - left;
	if (left == n && n)
		return -EFAULT;
	return n - left;
}

static const char *stp_record_probe_name(u16 idx)
{
	const char *name = NULL;

	if (idx != STP_REC_NOPROBE && stp_session.probes && idx < stp_session.nprobes)
		name = stp_session.probes[idx].name;
	return name ? name : "";
}

/*
 * Drains records into buf: framed (records file) or text only (output
 * file). Returns the bytes delivered, 0 when nothing is ready.
 */
static ssize_t stp_output_read(char __user *buf, size_t count, bool framed)
{
	const char *name;
	size_t done = 0;
	ssize_t n;

	if (mutex_lock_interruptible(&stp_out.read_mutex))
		return -ERESTARTSYS;
	while (done < count) {
		if (!stp_out.cur && !stp_output_next())
			break;
		if (framed && stp_out.frame_part < 2) {
			name = stp_record_probe_name(stp_out.hdr.probe);
			if (stp_out.frame_part < 0) {
				/* the text still to come: all of it, unless the
				 * output file delivered a part */
				stp_out.frame_len = scnprintf(stp_out.frame,
					sizeof(stp_out.frame), "%llu %d %llu %c %zu %u\n",
					stp_out.hdr.seq, stp_out.cur->cpu, stp_out.hdr.ts,
					stp_out.hdr.type == STP_REC_ERROR ? 'e' : 'o',
					strlen(name), stp_out.hdr.len - stp_out.text_off);
				stp_out.frame_part = 0;
				stp_out.frame_off = 0;
			}
			if (stp_out.frame_part == 0)
				n = stp_copy_part(buf + done, count - done,
						  stp_out.frame, stp_out.frame_len);
			else
				n = stp_copy_part(buf + done, count - done, name,
						  strlen(name));
			if (n < 0)
				goto fault;
			done += n;
			if (stp_out.frame_off == (stp_out.frame_part ?
						  strlen(name) : stp_out.frame_len)) {
				stp_out.frame_part++;
				stp_out.frame_off = 0;
			}
			continue;
		}
		n = stp_output_copy_text(buf + done, count - done);
		if (n < 0)
			goto fault;
		done += n;
		if (stp_out.text_off < stp_out.hdr.len)
			break;		/* buf is full, or a fault */
		stp_output_release();
	}
	mutex_unlock(&stp_out.read_mutex);
	return done;

fault:
	/* nothing of this part was copied: report what was delivered */
	mutex_unlock(&stp_out.read_mutex);
	return done ? done : -EFAULT;
}

/* --- /proc/<module>/output and records: non-blocking drains --- */

static ssize_t stp_proc_output_read(struct file *file, char __user *buf,
				    size_t count, loff_t *ppos)
{
	return stp_output_read(buf, count, false);
}

STP_PROC_OPS(stp_proc_output_ops, NULL, stp_proc_output_read, NULL, NULL);

/*
 * Each record: a line "SEQ CPU TIMESTAMP_NS TYPE NAME_LEN TEXT_LEN\n" (TYPE
 * o: output, e: error), then NAME_LEN bytes of probe name, then TEXT_LEN
 * bytes of text.
 */
static ssize_t stp_proc_records_read(struct file *file, char __user *buf,
				     size_t count, loff_t *ppos)
{
	return stp_output_read(buf, count, true);
}

STP_PROC_OPS(stp_proc_records_ops, NULL, stp_proc_records_read, NULL, NULL);

#ifdef STP_HAVE_SYSTEM
/*
 * system(cmd): the commands for the loader to run, a FIFO that
 * /proc/<module>/system hands out one command per read (its bytes and a
 * NUL). Probe bodies (NMI included) only try the lock: a command that
 * finds it taken or the queue full is not queued (stp_system() reports it).
 */
#ifndef STP_SYSTEM_SLOTS
#define STP_SYSTEM_SLOTS 32
#endif

static struct {
	raw_spinlock_t lock;
	unsigned int head, tail;	/* head - tail commands queued */
	char cmd[STP_SYSTEM_SLOTS][STP_MAXSTRINGLEN];
} stp_sysq = { .lock = __RAW_SPIN_LOCK_UNLOCKED(stp_sysq.lock) };

static bool stp_system_queue(const char *cmd)
{
	unsigned long flags;
	bool ok = false;

	if (!raw_spin_trylock_irqsave(&stp_sysq.lock, flags))
		return false;
	if (stp_sysq.head - stp_sysq.tail < STP_SYSTEM_SLOTS) {
		strscpy(stp_sysq.cmd[stp_sysq.head % STP_SYSTEM_SLOTS], cmd,
			STP_MAXSTRINGLEN);
		stp_sysq.head++;
		ok = true;
	}
	raw_spin_unlock_irqrestore(&stp_sysq.lock, flags);
	return ok;
}

/* the oldest command and its NUL; 0 when none is queued */
static ssize_t stp_proc_system_read(struct file *file, char __user *buf,
				    size_t count, loff_t *ppos)
{
	char cmd[STP_MAXSTRINGLEN];
	unsigned long flags;
	size_t n = 0;

	raw_spin_lock_irqsave(&stp_sysq.lock, flags);
	if (stp_sysq.head != stp_sysq.tail) {
		strscpy(cmd, stp_sysq.cmd[stp_sysq.tail % STP_SYSTEM_SLOTS],
			sizeof(cmd));
		n = strlen(cmd) + 1;
		if (n <= count)
			stp_sysq.tail++;
	}
	raw_spin_unlock_irqrestore(&stp_sysq.lock, flags);
	if (n > count)
		return -EINVAL;
	if (n && copy_to_user(buf, cmd, n))
		return -EFAULT;
	return n;
}

STP_PROC_OPS(stp_proc_system_ops, NULL, stp_proc_system_read, NULL, NULL);
#endif

#endif /* STP_OUTPUT_H */
