#!/bin/sh
# par-reps.sh TAG - getpid_par on 1 CPU then on $scale_cpus CPUs, bench_reps
# times each (run directly or as a loader -c command)
. /bench/config
for k in 1 $scale_cpus; do
	i=1
	while [ $i -le $bench_reps ]; do
		getpid_par $k $scale_n "$1" > /dev/ttyS1
		i=$((i + 1))
	done
done
