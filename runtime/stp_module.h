/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stp_module.h - module init and exit. Included last by the generated file:
 * it uses the tables the file defines (stp_probes[] and, when STP_NEVENTS
 * > 0, stp_pmu_data and stp_pmu_init_tables()).
 *
 * init:  output buffer, contexts, PMU (identify CPUs, pick rows, create
 *        counters), /proc files (and procfs probes' files), kprobes and kretprobes,
 *        tracepoints, user probes (stp_uprobes.h), timers, begin
 *        probes, state running. Each failure unwinds what came before.
 * stop:  stp_stop() (stp_control.h), at "stop" written to control or at
 *        module exit.
 * exit:  stop if not done, /proc files removed, memory freed.
 */
#ifndef STP_MODULE_H
#define STP_MODULE_H

module_param(_stp_target, int, 0444);
MODULE_PARM_DESC(_stp_target, "process id returned by target()");
module_param(_stp_tz_gmtoff, int, 0444);
MODULE_PARM_DESC(_stp_tz_gmtoff, "tz_gmtoff(): the loader's time zone, seconds west of UTC");
module_param(_stp_tz_name, charp, 0444);
MODULE_PARM_DESC(_stp_tz_name, "tz_name(): the loader's time zone's name");

#ifdef STP_HAVE_MAPS
static void stp_maps_free(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(stp_maps); i++)
		stp_map_free(stp_maps[i]);
}

/* every array's entries, hash heads and foreach order, preallocated */
static int stp_maps_alloc(void)
{
	unsigned int i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(stp_maps); i++) {
		rc = stp_map_alloc(stp_maps[i]);
		if (rc) {
			stp_maps_free();
			return rc;
		}
	}
	return 0;
}
#else
static inline int stp_maps_alloc(void) { return 0; }
static inline void stp_maps_free(void) { }
#endif

/* the procfs probes' files (stp_procfs.h) */
static int stp_procfs_start(void)
{
#ifdef STP_HAVE_PROCFS
	return stp_procfs_create(stp_procfs_files, ARRAY_SIZE(stp_procfs_files));
#else
	return 0;
#endif
}

static int __init stp_module_init(void)
{
	int rc;

	stp_ptr_key_init();
	stp_overload_init();
	stp_loader_tgid = task_tgid_nr(current);
#ifdef STP_HAVE_USYMS
	stp_usyms_init(stp_ubins_table, ARRAY_SIZE(stp_ubins_table));
#endif
	rc = stp_output_alloc();
	if (rc)
		goto err_release_usyms;
	rc = stp_maps_alloc();
	if (rc)
		goto err_free_output;
	rc = stp_contexts_alloc();
	if (rc)
		goto err_free_maps;
#if STP_NEVENTS > 0
	rc = stp_pmu_init_tables(stp_probes, ARRAY_SIZE(stp_probes));
	if (rc)
		goto err_free_contexts;
#endif
	rc = stp_proc_create();
	if (rc)
		goto err_release_pmu;
	rc = stp_procfs_start();
	if (rc)
		goto err_remove_proc;
	rc = stp_probes_register(stp_probes, ARRAY_SIZE(stp_probes));
	if (rc)
		goto err_stop_procfs;
	rc = stp_uprobes_register(stp_probes, ARRAY_SIZE(stp_probes));
	if (rc)
		goto err_unregister_probes;
	stp_timers_start();
	stp_run_probes_of_kind(STP_PROBE_BEGIN, STP_STATE_STARTING);
	/* stays exit-requested if a begin probe called exit() or failed */
	atomic_cmpxchg(&stp_session.state, STP_STATE_STARTING,
		       STP_STATE_RUNNING);
	WRITE_ONCE(stp_session.init_done, true);
	return 0;

err_unregister_probes:
	stp_probes_unregister();
	stp_probes_free();
err_stop_procfs:
	stp_procfs_remove();
err_remove_proc:
	stp_proc_remove();
err_release_pmu:
#if STP_NEVENTS > 0
	stp_pmu_release();
err_free_contexts:
#endif
	stp_contexts_free();
err_free_maps:
	stp_maps_free();
err_free_output:
	stp_output_free();
err_release_usyms:
	stp_usyms_release();
	return rc;
}

static void __exit stp_module_exit(void)
{
	stp_stop();
	stp_procfs_remove();
	stp_proc_remove();
	stp_probes_free();
	stp_contexts_free();
	stp_maps_free();
	stp_output_free();
	stp_usyms_release();
}

module_init(stp_module_init);
module_exit(stp_module_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stap-pmu script module");
MODULE_INFO(stp_script_hash, STP_SCRIPT_HASH);
MODULE_INFO(stp_pmu_targets, STP_PMU_TARGETS);
MODULE_INFO(stp_pmu_version, STP_VERSION);

#endif /* STP_MODULE_H */
