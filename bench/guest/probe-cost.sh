#!/bin/sh
# Guest side of the probe-cost benchmark (x86, -icount shift=0 -smp 1): getpid
# loop cost with no probe, with the reference empty kprobe, with stap-pmu
# modules and with SystemTap modules, all in one boot. Results go to
# /dev/ttyS1 as BENCH lines (tag, instructions per call).
# Order matters: staprun turns kprobe jump-optimization off for the whole
# kernel and leaves it off, so the optimized reference probe and every
# stap-pmu case run before the first SystemTap session.
. /bench/config
N=${bench_n:-200000}
R=${bench_reps:-3}
OUT=/dev/ttyS1
KPL=/sys/kernel/debug/kprobes/list
OPT=/proc/sys/debug/kprobes-optimization
say() { echo "$*" > $OUT; }
reps() { i=1; while [ $i -le $R ]; do getpid_loop $N "$1" > $OUT; i=$((i + 1)); done; }
kpstate() { say "KPSTATE $1 optimization=$(cat $OPT) $(grep getpid $KPL | tr '\n' ' ')"; }

say "START N=$N R=$R kernel=$(uname -r) cmdline=$(cat /proc/cmdline)"
getpid_loop 20000 warmup > /dev/null
reps base

# reference: hand-written module, empty pre-handler
for off in 0 5; do
	insmod /bench/bench_kprobe.ko offset=$off || say "ERROR insmod bench_kprobe offset=$off"
	sleep 1   # well over the optimizer's delay, for the +5 probe
	kpstate empty_kprobe_off$off
	reps empty_kprobe_off$off
	rmmod bench_kprobe
done

# stap-pmu: the loader runs the loop as its -c command while the module is live
for m in $SP_MODS; do
	if [ ! -f /bench/$m.ko ]; then say "MISSING $m"; continue; fi
	stap-pmu-loader -c "sleep 1; grep getpid $KPL > /tmp/$m.kp; /bench/reps.sh $m" /bench/$m.ko > /tmp/$m.out 2>&1
	rc=$?
	say "KPSTATE $m optimization=$(cat $OPT) $(tr '\n' ' ' < /tmp/$m.kp)"
	sed "s/^/SCRIPTOUT $m rc=$rc: /" /tmp/$m.out > $OUT
done
reps base_before_stap

# SystemTap 4.8: staprun in the background, wait for the begin probe and the kprobe
for m in $SB_MODS; do
	if [ ! -f /bench/$m.ko ]; then say "MISSING $m"; continue; fi
	staprun /bench/$m.ko > /tmp/$m.out 2>&1 &
	sp=$!
	t=0
	while [ $t -lt 300 ]; do
		if [ "$(cat /sys/module/$m/initstate 2>/dev/null)" = live ]; then
			case $m in *idle*) break ;; esac
			grep -q getpid $KPL && break
		fi
		t=$((t + 1))
		usleep 200000
	done
	sleep 1
	kpstate $m
	reps $m
	kill -TERM $sp
	wait $sp
	rc=$?
	sed "s/^/SCRIPTOUT $m rc=$rc: /" /tmp/$m.out > $OUT
done
reps base_after_stap
say "AFTER optimization=$(cat $OPT)"
say "DONE"
