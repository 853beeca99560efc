#!/bin/sh
# Guest side of the probe-cost benchmark (x86, -icount shift=0 -smp 1): getpid
# loop cost with no probe, with the reference empty kprobe, with stap-pmu
# modules, with bpftrace programs and with SystemTap modules, all in one boot.
# Results go to /dev/ttyS1 as BENCH lines (tag, instructions per call).
# Order matters: staprun turns kprobe jump-optimization off for the whole
# kernel and leaves it off, so the optimized reference probe, every stap-pmu
# case and bpftrace run before the first SystemTap session.
. /bench/config
. /bench/staprun.sh
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

# bpftrace 0.17 (the recipe of ../shared/reference/bpftrace-bench): bpftrace
# in the background; the loop starts BT_SETTLE s after it printed "Attaching";
# SIGINT makes it print the final @n. BTF names the function __do_sys_getpid
# (__x64_sys_getpid is the syscall wrapper kprobes attach to).
BT_SETTLE=3
mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
mount -t bpf bpf /sys/fs/bpf 2>/dev/null
ulimit -l unlimited
say "BPFTRACE $(bpftrace --version 2>&1) jit_enable=$(cat /proc/sys/net/core/bpf_jit_enable)"
case_bt() { # TAG PROG
	: > /tmp/$1.out
	bpftrace -e "$2" > /tmp/$1.out 2>&1 &
	bp=$!
	w=0
	while [ $w -lt 3000 ] && ! grep -q '^Attaching' /tmp/$1.out && kill -0 $bp 2>/dev/null; do
		usleep 100000
		w=$((w + 1))
	done
	if grep -q '^Attaching' /tmp/$1.out; then
		sleep $BT_SETTLE
	fi
	if ! kill -0 $bp 2>/dev/null || ! grep -q '^Attaching' /tmp/$1.out; then
		kill -INT $bp 2>/dev/null
		wait $bp
		say "FAIL $1 rc=$? prog=$2"
		sed "s/^/SCRIPTOUT $1 rc=fail: /" /tmp/$1.out > $OUT
		return
	fi
	kpstate $1
	reps $1
	kill -INT $bp
	wait $bp
	rc=$?
	sed "s/^/SCRIPTOUT $1 rc=$rc: /" /tmp/$1.out > $OUT
}
case_bt bt_kfunc_count 'kfunc:__do_sys_getpid { @n = count(); }'
case_bt bt_kprobe_count 'kprobe:__x64_sys_getpid { @n = count(); }'

reps base_before_stap

# SystemTap 4.8: staprun in the background, wait for the begin probe and the kprobe
for m in $SB_MODS; do
	if [ ! -f /bench/$m.ko ]; then say "MISSING $m"; continue; fi
	staprun_start $m
	kpstate $m
	reps $m
	staprun_stop $m
done
reps base_after_stap
say "AFTER optimization=$(cat $OPT)"
say "DONE"
