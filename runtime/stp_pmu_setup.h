/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_pmu_setup.h - the counters' set-up and teardown: stp_pmu_init()
 * identifies every CPU, picks its row and creates its counters (stp_pmu.h),
 * the per-task ones of @pmu_thread (stp_pmu_thread.h) and the hotplug
 * callbacks; stp_pmu_stop_sampling() and stp_pmu_release() undo it at stop;
 * stp_pmu_status() is their part of /proc/<module>/status.
 */
#ifndef STP_PMU_SETUP_H
#define STP_PMU_SETUP_H

#if STP_NEVENTS > 0

static void stp_pmu_release(void)
{
	int cpu, n = 0;

	stp_pmu_thread_release();
	if (!stp_pmu_cpus)
		return;
	/* no online/offline callback runs after this */
	if (stp_pmu_hp_state >= 0) {
		cpuhp_remove_state_nocalls(stp_pmu_hp_state);
		stp_pmu_hp_state = -1;
	}
	for_each_possible_cpu(cpu)
		n += stp_pmu_release_cpu(cpu);
	free_percpu(stp_pmu_cpus);
	stp_pmu_cpus = NULL;
	stp_dbg("released %d counters\n", n);
}

/*
 * Identify every online CPU, pick its row, create its counters, then
 * register the hotplug callbacks, all with CPU hotplug held off. On failure
 * everything created so far is released. Sleeps.
 */
static int stp_pmu_init(struct stp_probe *probes, unsigned int nprobes)
{
	struct stp_cpu_ident *ids;
	unsigned int i;
	int cpu, rc, row;

	/* the sampling events and their probes */
	for (i = 0; i < nprobes; i++) {
		if (probes[i].kind != STP_PROBE_PERF)
			continue;
		if (probes[i].event < 0 || probes[i].event >= STP_NEVENTS ||
		    stp_pmu_sampler[probes[i].event] ||
		    (!probes[i].sample_period && !probes[i].sample_freq)) {
			stp_err("probe %s (%s): bad sampling event %d\n",
				probes[i].name, probes[i].loc, probes[i].event);
			return -EINVAL;
		}
		stp_pmu_sampler[probes[i].event] = &probes[i];
	}
	stp_pmu_arch_init();
	stp_pmu_thread_sys = _stp_target <= 0;
	ids = stp_fail_null("CPU identification table",
			    kcalloc(nr_cpu_ids, sizeof(*ids), GFP_KERNEL));
	if (!ids)
		goto err_nomem;
	stp_pmu_cpus = stp_fail_null("per-CPU counter table",
				     alloc_percpu(struct stp_pmu_cpu));
	if (!stp_pmu_cpus)
		goto err_free_ids;
	for_each_possible_cpu(cpu)
		per_cpu_ptr(stp_pmu_cpus, cpu)->row = -1;

	cpus_read_lock();
	on_each_cpu(stp_cpu_ident_ipi, ids, 1);

	/* every CPU picks its own row first (hybrid parts differ per CPU) */
	rc = 0;
	for_each_online_cpu(cpu) {
		char cpudesc[96], name[STP_PMU_NAME_LEN];

		if (!ids[cpu].valid)
			continue;
		row = stp_pmu_pick_row(&ids[cpu]);
		if (row < 0) {
			stp_pmu_no_row(cpu, &ids[cpu]);
			rc = -ENODEV;
			continue;
		}
		per_cpu_ptr(stp_pmu_cpus, cpu)->row = row;
		stp_cpu_ident_describe(&ids[cpu], cpudesc, sizeof(cpudesc));
		stp_info("cpu%d: %s selects PMU row %s\n", cpu, cpudesc,
			 stp_pmu_row_name(row, name));
	}
	if (rc)
		goto err_release;

	for_each_online_cpu(cpu) {
		row = per_cpu_ptr(stp_pmu_cpus, cpu)->row;
		if (row < 0)
			continue;
		rc = stp_pmu_create_cpu(cpu, row);
		if (rc)
			goto err_release;
	}
	rc = stp_fail_rc("CPU hotplug callbacks", -ENOSPC,
		cpuhp_setup_state_nocalls_cpuslocked(CPUHP_AP_ONLINE_DYN,
						     STP_MODULE_NAME ":online",
						     stp_pmu_cpu_online,
						     stp_pmu_cpu_offline));
	if (rc < 0) {
		stp_err("cannot register the CPU hotplug callbacks (%d)\n", rc);
		goto err_release;
	}
	stp_pmu_hp_state = rc;
	cpus_read_unlock();
	kfree(ids);
	/* @pmu_thread counters: after the rows, without the hotplug lock */
	rc = stp_pmu_thread_init();
	if (rc)
		stp_pmu_release();
	return rc;

err_release:
	stp_pmu_release();
	cpus_read_unlock();
	kfree(ids);
	return rc;
err_free_ids:
	kfree(ids);
err_nomem:
	stp_err("cannot allocate the PMU state\n");
	return -ENOMEM;
}

/*
 * Stops every sampling counter before the end probes run: after
 * perf_event_disable() returns, no overflow handler of that counter runs
 * (the cross-call to its CPU waits for a running one). Sleeps.
 */
static void stp_pmu_stop_sampling(void)
{
	struct perf_event *e;
	int cpu, i;

	if (!stp_pmu_cpus)
		return;
	cpus_read_lock();
	for_each_online_cpu(cpu)
		for (i = 0; i < STP_NEVENTS; i++) {
			e = per_cpu_ptr(stp_pmu_cpus, cpu)->ev[i];
			if (e && stp_pmu_sampler[i])
				perf_event_disable(e);
		}
	cpus_read_unlock();
}

static void stp_pmu_status(struct seq_file *m)
{
	u64 all = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		all += READ_ONCE(*per_cpu_ptr(&stp_pmu_unavail, cpu));
	seq_printf(m, "pmu_unavailable %llu\n", all);
	for_each_possible_cpu(cpu) {
		u64 n = READ_ONCE(*per_cpu_ptr(&stp_pmu_unavail, cpu));

		if (n)
			seq_printf(m, "cpu%d pmu_unavailable %llu\n", cpu, n);
	}
	stp_pmu_thread_status(m);
}

#else /* STP_NEVENTS == 0 */

static inline void stp_pmu_status(struct seq_file *m)
{
}

#endif /* STP_NEVENTS > 0 */

#endif /* STP_PMU_SETUP_H */
