#!/bin/sh
# Guest side of the register_probes benchmark: load and unload stap-pmu
# modules with N kprobe.function probes (N in $REG_COUNTS), timed by modtime.
. /bench/config
OUT=/dev/ttyS1
R=${bench_reps:-3}
echo "START register kernel=$(uname -r)" > $OUT
for n in $REG_COUNTS; do
	m=sp_reg$n
	# deterministic to 0.01 %: one repeat is enough for the slow 1000 case
	reps=$R
	[ "$n" -ge 1000 ] && reps=1
	i=1
	while [ $i -le $reps ]; do
		modtime load /bench/$m.ko > $OUT 2>&1 || echo "ERROR load $m" > $OUT
		echo "PROBES $m $(grep -c . /sys/kernel/debug/kprobes/list)" > $OUT
		modtime unload $m > $OUT 2>&1 || echo "ERROR unload $m" > $OUT
		i=$((i + 1))
	done
done
# SystemTap 4.8, same scripts: staprun -L loads the module and starts the
# probes, then detaches; staprun -d stops and removes it (both include
# staprun's own work: relocation against /proc/kallsyms, the transport)
for n in $REG_COUNTS; do
	m=sb_reg$n
	[ -f /bench/$m.ko ] || { echo "MISSING $m" > $OUT; continue; }
	modtime run staprun -L /bench/$m.ko > $OUT 2>&1 || echo "ERROR load $m" > $OUT
	echo "PROBES $m $(grep -c . /sys/kernel/debug/kprobes/list)" > $OUT
	modtime run staprun -d $m > $OUT 2>&1 || echo "ERROR unload $m" > $OUT
done
echo "DONE" > $OUT
