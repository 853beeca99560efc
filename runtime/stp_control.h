/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_control.h - the session's control: stp_stop() (what "stop" written to
 * /proc/<module>/control and module exit run) and /proc/<module>/status;
 * stp_proc_create() makes the directory /proc/<module> with its four files
 * (output and records are the transport's, stp_output.h; a script calling
 * system() has a fifth, system, the transport's command queue).
 *
 * stop:  state stopping, timers cancelled, user probes and probes
 *        unregistered, procfs probes' files removed, sampling counters
 *        disabled (no handler runs after), end probes (error probes after
 *        a script error), counters released, state stopped.
 */
#ifndef STP_CONTROL_H
#define STP_CONTROL_H

static void stp_stop(void)
{
	mutex_lock(&stp_session.ctl_mutex);
	if (stp_session.stopped)
		goto out;
	atomic_set(&stp_session.state, STP_STATE_STOPPING);
	stp_timers_stop();
	stp_uprobes_unregister(stp_session.probes, stp_session.nprobes);
	stp_probes_unregister();
	stp_procfs_remove();
#if STP_NEVENTS > 0
	stp_pmu_stop_sampling();
#endif
	/* after script errors the error probes run instead of the end probes */
	if (atomic_read(&stp_session.errors))
		stp_run_probes_of_kind(STP_PROBE_ERROR, STP_STATE_STOPPING);
	else
		stp_run_probes_of_kind(STP_PROBE_END, STP_STATE_STOPPING);
#if STP_NEVENTS > 0
	stp_pmu_release();
#endif
	atomic_set(&stp_session.state, STP_STATE_STOPPED);
	stp_session.stopped = true;
out:
	mutex_unlock(&stp_session.ctl_mutex);
}

/* --- /proc/<module>/status --- */

static int stp_proc_status_show(struct seq_file *m, void *v)
{
	struct stp_out_counts all = {}, one;
	int state = stp_state();
	int cpu;

	seq_printf(m, "%s %d\n", stp_state_name(state),
		   atomic_read(&stp_session.exit_code));
	seq_printf(m, "skipped %llu\n",
		   (u64)atomic64_read(&stp_session.skipped) + stp_probes_nmissed());
	for_each_possible_cpu(cpu)
		stp_output_counts(cpu, &all);
	all.dropped += atomic64_read(&stp_out.nested_dropped);
	all.dropped_bytes += atomic64_read(&stp_out.nested_dropped_bytes);
	seq_printf(m, "dropped %llu\n", all.dropped);
	seq_printf(m, "dropped_bytes %llu\n", all.dropped_bytes);
	seq_printf(m, "nested %llu\n", all.nested);
	seq_printf(m, "error %d\n", atomic_read(&stp_session.errors));
	seq_printf(m, "bufsize %u\n", (unsigned int)STP_BUFSIZE);
	for_each_possible_cpu(cpu) {
		one = (struct stp_out_counts){};
		stp_output_counts(cpu, &one);
		if (one.written || one.dropped)
			seq_printf(m, "cpu%d written %llu dropped %llu dropped_bytes %llu nested %llu\n",
				   cpu, one.written, one.dropped, one.dropped_bytes,
				   one.nested);
	}
	stp_pmu_status(m);
	return 0;
}

static int stp_proc_status_open(struct inode *inode, struct file *file)
{
	return single_open(file, stp_proc_status_show, NULL);
}

STP_PROC_OPS(stp_proc_status_ops, stp_proc_status_open, seq_read, NULL,
	     single_release);

/* --- /proc/<module>/control --- */

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

/* one file of /proc/<module>; false (logged) when it cannot be created */
static bool stp_proc_file(const char *name, umode_t mode,
			  const typeof(stp_proc_output_ops) *ops)
{
	if (stp_fail_null("/proc file",
			  proc_create(name, mode, stp_proc_dir, ops)))
		return true;
	stp_err("cannot create /proc/%s/%s\n", STP_MODULE_NAME, name);
	return false;
}

static int stp_proc_create(void)
{
	stp_proc_dir = stp_fail_null("/proc directory",
				     proc_mkdir(STP_MODULE_NAME, NULL));
	if (!stp_proc_dir) {
		stp_err("cannot create /proc/%s (does it exist already?)\n",
			STP_MODULE_NAME);
		return -ENOMEM;
	}
	if (stp_proc_file("output", 0400, &stp_proc_output_ops) &&
	    stp_proc_file("records", 0400, &stp_proc_records_ops) &&
	    stp_proc_file("status", 0400, &stp_proc_status_ops) &&
	    stp_proc_file("control", 0200, &stp_proc_control_ops)
#ifdef STP_HAVE_SYSTEM
	    && stp_proc_file("system", 0400, &stp_proc_system_ops)
#endif
	    )
		return 0;
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

#endif /* STP_CONTROL_H */
