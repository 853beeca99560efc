/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_output.h - the output ring buffer and /proc/<module>/{output,status,
 * control}.
 *
 * One ring buffer of STP_BUFSIZE bytes, allocated at init, guarded by a raw
 * spinlock taken with irqsave: writers are kprobe, kretprobe and hrtimer
 * handlers and the begin/end probes. A write that does not fit is dropped
 * whole and its bytes are counted.
 *
 * NMI: perf overflow handlers of hardware events (and kprobes) can run in
 * NMI context. An NMI writer only try-locks once and drops the write on
 * failure, counting its bytes in nmi_dropped (reported with dropped), so it
 * never spins on a lock held by the code it interrupted.
 */
#ifndef STP_OUTPUT_H
#define STP_OUTPUT_H

/* bytes one read() of the output file moves per lock hold */
#define STP_READ_CHUNK 4096

struct stp_outbuf {
	raw_spinlock_t lock;
	char *data;			/* STP_BUFSIZE bytes */
	size_t head;			/* next byte written */
	size_t tail;			/* next byte read */
	size_t used;
	u64 dropped;			/* bytes lost to a full buffer */
	atomic64_t nmi_dropped;		/* bytes an NMI writer could not lock for */
	char *bounce;			/* STP_READ_CHUNK bytes, under read_mutex */
	struct mutex read_mutex;	/* one reader at a time */
};

static struct stp_outbuf stp_out = {
	.lock = __RAW_SPIN_LOCK_UNLOCKED(stp_out.lock),
	.read_mutex = __MUTEX_INITIALIZER(stp_out.read_mutex),
};

static struct proc_dir_entry *stp_proc_dir;

static void stp_output_write(const char *s, size_t len)
{
	unsigned long flags;
	size_t first;

	if (unlikely(!len || !stp_out.data))
		return;
	if (unlikely(in_nmi())) {
		/* see the header comment: never spin in NMI */
		local_irq_save(flags);
		if (!raw_spin_trylock(&stp_out.lock)) {
			local_irq_restore(flags);
			atomic64_add(len, &stp_out.nmi_dropped);
			return;
		}
	} else {
		raw_spin_lock_irqsave(&stp_out.lock, flags);
	}
	if (len > STP_BUFSIZE - stp_out.used) {
		stp_out.dropped += len;
		goto out;
	}
	first = min_t(size_t, len, STP_BUFSIZE - stp_out.head);
	memcpy(stp_out.data + stp_out.head, s, first);
	memcpy(stp_out.data, s + first, len - first);
	stp_out.head = (stp_out.head + len) % STP_BUFSIZE;
	stp_out.used += len;
out:
	raw_spin_unlock_irqrestore(&stp_out.lock, flags);
}

/* moves up to max bytes from the ring into dst; returns the count */
static size_t stp_output_take(char *dst, size_t max)
{
	unsigned long flags;
	size_t n, first;

	raw_spin_lock_irqsave(&stp_out.lock, flags);
	n = min(max, stp_out.used);
	first = min_t(size_t, n, STP_BUFSIZE - stp_out.tail);
	memcpy(dst, stp_out.data + stp_out.tail, first);
	memcpy(dst + first, stp_out.data, n - first);
	stp_out.tail = (stp_out.tail + n) % STP_BUFSIZE;
	stp_out.used -= n;
	raw_spin_unlock_irqrestore(&stp_out.lock, flags);
	return n;
}

static u64 stp_output_dropped(void)
{
	unsigned long flags;
	u64 d;

	raw_spin_lock_irqsave(&stp_out.lock, flags);
	d = stp_out.dropped;
	raw_spin_unlock_irqrestore(&stp_out.lock, flags);
	return d + atomic64_read(&stp_out.nmi_dropped);
}

static int stp_output_alloc(void)
{
	stp_out.data = vmalloc(STP_BUFSIZE);
	if (!stp_out.data)
		goto err;
	stp_out.bounce = kmalloc(STP_READ_CHUNK, GFP_KERNEL);
	if (!stp_out.bounce)
		goto err_data;
	return 0;

err_data:
	vfree(stp_out.data);
	stp_out.data = NULL;
err:
	stp_err("cannot allocate the %u byte output buffer\n",
		(unsigned int)STP_BUFSIZE);
	return -ENOMEM;
}

static void stp_output_free(void)
{
	kfree(stp_out.bounce);
	stp_out.bounce = NULL;
	vfree(stp_out.data);
	stp_out.data = NULL;
}

/* --- /proc/<module>/output: non-blocking drain --- */

static ssize_t stp_proc_output_read(struct file *file, char __user *buf,
				    size_t count, loff_t *ppos)
{
	size_t done = 0, n;
	ssize_t ret;

	if (mutex_lock_interruptible(&stp_out.read_mutex))
		return -ERESTARTSYS;
	while (done < count) {
		n = stp_output_take(stp_out.bounce,
				    min_t(size_t, count - done, STP_READ_CHUNK));
		if (!n)
			break;
		/* on a fault the chunk is lost; report what was delivered */
		if (copy_to_user(buf + done, stp_out.bounce, n)) {
			ret = done ? done : -EFAULT;
			goto out;
		}
		done += n;
	}
	ret = done;
out:
	mutex_unlock(&stp_out.read_mutex);
	return ret;
}

STP_PROC_OPS(stp_proc_output_ops, NULL, stp_proc_output_read, NULL, NULL);

/* --- /proc/<module>/status --- */

static u64 stp_probes_nmissed(void);

static int stp_proc_status_show(struct seq_file *m, void *v)
{
	int state = stp_state();

	seq_printf(m, "%s %d\n", stp_state_name(state),
		   atomic_read(&stp_session.exit_code));
	seq_printf(m, "skipped %llu\n",
		   (u64)atomic64_read(&stp_session.skipped) + stp_probes_nmissed());
	seq_printf(m, "dropped %llu\n", stp_output_dropped());
	seq_printf(m, "error %d\n", atomic_read(&stp_session.errors));
	return 0;
}

static int stp_proc_status_open(struct inode *inode, struct file *file)
{
	return single_open(file, stp_proc_status_show, NULL);
}

STP_PROC_OPS(stp_proc_status_ops, stp_proc_status_open, seq_read, NULL,
	     single_release);

/* --- /proc/<module>/control --- */

static void stp_stop(void);

static ssize_t stp_proc_control_write(struct file *file,
				      const char __user *buf, size_t count,
				      loff_t *ppos)
{
	char cmd[16];
	size_t n = min(count, sizeof(cmd) - 1);

	if (copy_from_user(cmd, buf, n))
		return -EFAULT;
	cmd[n] = '\0';
	if (strcmp(strim(cmd), "stop"))
		return -EINVAL;
	/* module init still running: its own unwind owns the teardown */
	if (!READ_ONCE(stp_session.init_done))
		return -EBUSY;
	stp_stop();
	return count;
}

STP_PROC_OPS(stp_proc_control_ops, NULL, NULL, stp_proc_control_write, NULL);

static int stp_proc_create(void)
{
	stp_proc_dir = proc_mkdir(STP_MODULE_NAME, NULL);
	if (!stp_proc_dir) {
		stp_err("cannot create /proc/%s (does it exist already?)\n",
			STP_MODULE_NAME);
		return -ENOMEM;
	}
	if (!proc_create("output", 0400, stp_proc_dir, &stp_proc_output_ops))
		goto err;
	if (!proc_create("status", 0400, stp_proc_dir, &stp_proc_status_ops))
		goto err;
	if (!proc_create("control", 0200, stp_proc_dir, &stp_proc_control_ops))
		goto err;
	return 0;

err:
	stp_err("cannot create the files in /proc/%s\n", STP_MODULE_NAME);
	proc_remove(stp_proc_dir);
	stp_proc_dir = NULL;
	return -ENOMEM;
}

/* waits for open files' operations to finish */
static void stp_proc_remove(void)
{
	proc_remove(stp_proc_dir);
	stp_proc_dir = NULL;
}

#endif /* STP_OUTPUT_H */
