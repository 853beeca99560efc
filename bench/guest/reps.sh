#!/bin/sh
# reps.sh TAG - the benchmark loop, bench_reps times (run as a loader -c command)
. /bench/config
i=1
while [ $i -le ${bench_reps:-3} ]; do
	getpid_loop ${bench_n:-200000} "$1" > /dev/ttyS1
	i=$((i + 1))
done
