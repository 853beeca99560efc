#!/bin/sh
# Guest side of the scaling benchmark (x86, -icount shift=0 -smp $scale_cpus,
# single-threaded TCG): getpid_par runs the getpid loop on 1 CPU and on
# $scale_cpus CPUs at once (one process pinned to each), with no probe, under
# stap-pmu modules and under SystemTap modules, all in one boot. BENCH lines
# (tag, k = CPUs hitting the probe, guest instructions of all vCPUs per call)
# go to /dev/ttyS1, with what the end probes printed (SCRIPTOUT).
. /bench/config
. /bench/staprun.sh
OUT=/dev/ttyS1
KPL=/sys/kernel/debug/kprobes/list
say() { echo "$*" > $OUT; }

# the guest boots with maxcpus=1 (SMP bring-up at boot stalls under icount);
# the other CPUs come online here, which works
i=1
while [ $i -lt $scale_cpus ]; do
	echo 1 > /sys/devices/system/cpu/cpu$i/online || say "ERROR cannot online cpu$i"
	i=$((i + 1))
done
say "START scaling N=$scale_n R=$bench_reps CPUS=$scale_cpus online=$(grep -c ^processor /proc/cpuinfo) kernel=$(uname -r) clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
getpid_par 1 20000 warmup > /dev/null
/bench/par-reps.sh base

for m in $SP_MODS; do
	if [ ! -f /bench/$m.ko ]; then say "MISSING $m"; continue; fi
	stap-pmu-loader -c "sleep 1; /bench/par-reps.sh $m" /bench/$m.ko > /tmp/$m.out 2>&1
	rc=$?
	sed "s/^/SCRIPTOUT $m rc=$rc: /" /tmp/$m.out > $OUT
done
/bench/par-reps.sh base_before_stap

# SystemTap 4.8: staprun in the background (staprun.sh)
for m in $SB_MODS; do
	if [ ! -f /bench/$m.ko ]; then say "MISSING $m"; continue; fi
	staprun_start $m
	/bench/par-reps.sh $m
	staprun_stop $m
done
/bench/par-reps.sh base_after_stap
say "DONE"
