/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_procfs.h - procfs("NAME").read and .write probes: the files
 * /proc/<module>/NAME, next to output, status and control.
 *
 * Each open of a file for reading runs its read probe once, through the
 * normal probe path (stp_run_probe_value: this CPU's context, the state
 * check, the globals' locks), with $value a buffer of its own of bufsize
 * bytes of text (.maxsize(N); STP_PROCFS_BUFSIZE by default); reads of that
 * open file return the text. Concurrent readers each have their own
 * buffer, written only before open returns. Each write() runs the write
 * probe with $value the first STP_MAXSTRINGLEN - 1 bytes written and
 * consumes those (a longer write comes back for the rest: one hit per
 * piece). The body runs only while the session is running.
 *
 * A script with procfs probes defines STP_HAVE_PROCFS (before the runtime)
 * and stp_procfs_files[] (after its probe table); stp_module.h creates the
 * files after /proc/<module> and removes them when the script stops
 * (proc_remove waits for running handlers and releases open files), before
 * the end probes run.
 */
#ifndef STP_PROCFS_H
#define STP_PROCFS_H

#ifdef STP_HAVE_PROCFS

/* bytes of text a read probe's $value holds without .maxsize(N) */
#ifndef STP_PROCFS_BUFSIZE
#define STP_PROCFS_BUFSIZE (STP_MAXSTRINGLEN - 1)
#endif

struct stp_procfs_file {
	/* public */
	const char *name;
	const struct stp_probe *read;	/* NULL: not readable */
	const struct stp_probe *write;	/* NULL: not writable */
	umode_t mode;
	unsigned int bufsize;		/* read text bytes, 0: STP_PROCFS_BUFSIZE */

	/* runtime-private */
	struct proc_dir_entry *pde;
};

/* what one open file reads: the read probe's $value */
struct stp_procfs_text {
	size_t len;
	char data[];
};

static struct stp_procfs_file *stp_procfs_table;
static unsigned int stp_procfs_n;

/* runs a procfs probe with $value the buffer of size bytes */
static void stp_run_probe_value(const struct stp_probe *p, int run_state,
				char *value, u32 size)
{
	stp_run_probe_with(p, NULL, run_state, NULL, value, size);
}

/* $value in a procfs probe body ("" outside one) */
static inline const char *stp_procfs_value(struct stp_context *c)
{
	return c->pvalue ? c->pvalue : "";
}

/* $value = s */
static const char *stp_procfs_set(struct stp_context *c, const char *s)
{
	if (c->pvalue && s != c->pvalue)
		strscpy(c->pvalue, s, c->pvalue_size);
	return stp_procfs_value(c);
}

/* $value .= s: up to the buffer's size, which may exceed STP_MAXSTRINGLEN */
static const char *stp_procfs_append(struct stp_context *c, const char *s)
{
	size_t len;

	if (!c->pvalue)
		return "";
	len = strnlen(c->pvalue, c->pvalue_size - 1);
	if (s == c->pvalue)	/* $value .= $value: the text before this append */
		s = "";
	strscpy(c->pvalue + len, s, c->pvalue_size - len);
	return c->pvalue;
}

static int stp_procfs_open(struct inode *inode, struct file *file)
{
	const struct stp_procfs_file *f = stp_pde_data(inode);
	struct stp_procfs_text *t;
	size_t size;

	if (!(file->f_mode & FMODE_READ) || !f->read)
		return 0;
	size = (f->bufsize ? f->bufsize : STP_PROCFS_BUFSIZE) + 1;
	t = stp_fail_null("procfs read buffer",
			  kvzalloc(sizeof(*t) + size, GFP_KERNEL));
	if (!t)
		return -ENOMEM;
	stp_run_probe_value(f->read, STP_STATE_RUNNING, t->data, size);
	t->len = strnlen(t->data, size - 1);
	file->private_data = t;
	return 0;
}

static ssize_t stp_procfs_read(struct file *file, char __user *buf,
			       size_t count, loff_t *ppos)
{
	const struct stp_procfs_text *t = file->private_data;

	if (!t)
		return -EINVAL;
	return simple_read_from_buffer(buf, count, ppos, t->data, t->len);
}

static ssize_t stp_procfs_write(struct file *file, const char __user *buf,
				size_t count, loff_t *ppos)
{
	const struct stp_procfs_file *f = stp_pde_data(file_inode(file));
	size_t n = min_t(size_t, count, STP_MAXSTRINGLEN - 1);
	char *v;

	if (!f->write)
		return -EINVAL;
	if (!n)
		return 0;
	v = stp_fail_null("procfs write buffer",
			  kmalloc(STP_MAXSTRINGLEN, GFP_KERNEL));
	if (!v)
		return -ENOMEM;
	if (copy_from_user(v, buf, n)) {
		kfree(v);
		return -EFAULT;
	}
	v[n] = '\0';
	stp_run_probe_value(f->write, STP_STATE_RUNNING, v, STP_MAXSTRINGLEN);
	kfree(v);
	*ppos += n;
	return n;
}

static int stp_procfs_release(struct inode *inode, struct file *file)
{
	kvfree(file->private_data);
	file->private_data = NULL;
	return 0;
}

STP_PROC_OPS(stp_procfs_ops, stp_procfs_open, stp_procfs_read,
	     stp_procfs_write, stp_procfs_release);

/*
 * Removes the files created; waits for their running handlers and releases
 * their open files. Sleeps. Safe to call again.
 */
static void stp_procfs_remove(void)
{
	unsigned int i;

	for (i = 0; i < stp_procfs_n; i++) {
		proc_remove(stp_procfs_table[i].pde);
		stp_procfs_table[i].pde = NULL;
	}
	stp_procfs_table = NULL;
	stp_procfs_n = 0;
}

/* creates files[0..n) in /proc/<module>; on failure none stays. Sleeps. */
static int stp_procfs_create(struct stp_procfs_file *files, unsigned int n)
{
	unsigned int i;

	stp_procfs_table = files;
	stp_procfs_n = n;
	for (i = 0; i < n; i++) {
		files[i].pde = stp_fail_null("procfs probe file",
			proc_create_data(files[i].name, files[i].mode,
					 stp_proc_dir, &stp_procfs_ops,
					 &files[i]));
		if (!files[i].pde) {
			stp_err("cannot create /proc/%s/%s\n", STP_MODULE_NAME,
				files[i].name);
			stp_procfs_remove();
			return -ENOMEM;
		}
	}
	return 0;
}

#else /* !STP_HAVE_PROCFS */
static inline void stp_procfs_remove(void) { }
#endif /* STP_HAVE_PROCFS */

#endif /* STP_PROCFS_H */
