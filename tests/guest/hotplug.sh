#!/bin/bash
# hotplug.sh STAP_PMU SOURCE_DIR KERNEL [arm64] - @pmu reads while CPUs go
# offline and come back online (docs/runtime.md, "CPU hotplug"). A 4-CPU
# guest takes cpu1-3 offline and back online three times while pmu-workload
# loops on getpid; tests/guest/scripts/hotplug_reads.stp reads a counter
# (x86: the software perf::cpu-clock; arm64: the emulated PMUv3's
# instructions, with --pmu-targets perf) in syscall.getpid and in
# cpuhp:cpuhp_enter (before each hotplug state's callback, on the CPU being
# hotplugged).
#  - the script runs to its end (exit 0, the end probe's report);
#  - on each hotplugged CPU, each bring-up reads 0 until the module's online
#    callback and then never again, each teardown reads non-zero until its
#    offline callback and then 0: 3 of each, one flip each, nothing else;
#  - the loader's end-of-run warning names exactly the CPUs whose reads were
#    0, with the counts the script saw (cpu0, never hotplugged, not among them);
#  - arm64: reads in armpmu_add, while a CPU's second counter makes the perf
#    core re-add its first (ACTIVE, no counter yet), are the folded count;
#    reading the hardware there was a kernel oops;
#  - with -D STP_PMU_STRICT the first such read is the script error it was
#    before ("no usable @pmu counter on this CPU"), exit status 1;
#  - no kernel warning in either run (--vm fails the run on one).
set -u
stap_pmu=$1 src=$2 kernel_spec=${3:?a kernel spec (tests/lib/kernel.sh)} arch=${4:-amd64}
cd "$src" || exit 1
# shellcheck source=tests/lib/kernel.sh
source tests/lib/kernel.sh
release=$(test_kernel "$kernel_spec" "$arch") || { echo "FAIL: no kernel"; exit 1; }
archargs=()
[[ $arch == arm64 ]] && archargs=(-a arm64 --pmu-targets perf)
echo "kernel: $release"
script=tests/guest/scripts/hotplug_reads.stp
cmd='for c in 0 1 2 3; do (while [ ! -e /tmp/hp-done ]; do pmu-workload getpid 300; done) & done
for i in 1 2 3; do
	for c in 1 2 3; do echo 0 > /sys/devices/system/cpu/cpu$c/online; done
	for c in 1 2 3; do echo 1 > /sys/devices/system/cpu/cpu$c/online; done
done
touch /tmp/hp-done
wait'
fail=0
run() { # run LABEL ARGS... ; sets $out, $err, $rc
	local log
	log=$(mktemp)
	"$stap_pmu" -r "$release" "${archargs[@]}" "${@:2}" --vm --vm-smp 4 -c "$cmd" "$script" \
		>"$log" 2>"$log.err"
	rc=$? out=$(cat "$log") err=$(cat "$log.err")
	rm -f "$log" "$log.err"
}
show() { echo "--- exit $rc; stdout:"; echo "$out"; echo "--- stderr:"; echo "$err"; }

run default
ok=1
((rc == 0)) || { echo "FAIL: exit status $rc"; ok=0; }
grep -q '^ERROR' <<<"$out$err" && { echo "FAIL: a script error"; ok=0; }
warn_re='^WARNING: ([0-9]+) @pmu reads found no counter on their CPU and were 0 \((.*)\): a CPU came online or went offline during the run; -D STP_PMU_STRICT makes such a read an error$'
warn=$(grep '@pmu read' <<<"$err")
expect_list='' total=0
for c in 1 2 3; do
	line=$(grep "^hotplug cpu$c " <<<"$out")
	[[ $line == "hotplug cpu$c up 3 down 3 flips_up 3 flips_down 3 bad 0" ]] ||
		{ echo "FAIL: cpu$c: reads around its hotplug callbacks: '${line}'"; ok=0; }
	z=$(sed -n "s/^zero cpu$c \([0-9]*\)$/\1/p" <<<"$out")
	if [[ -z $z ]] || ((z == 0)); then echo "FAIL: cpu$c: no read found its counters missing"; ok=0; fi
	expect_list+="${expect_list:+, }cpu$c: ${z:-0}" total=$((total + ${z:-0}))
done
for c in 0 1 2 3; do
	grep -qx "getpid cpu$c reads_nonzero 1" <<<"$out" ||
		{ echo "FAIL: cpu$c: the getpid probe read no counter there"; ok=0; }
done
grep -q '^zero cpu0 ' <<<"$out" && { echo "FAIL: cpu0 (never hotplugged) read 0"; ok=0; }
if [[ $arch == arm64 ]]; then
	# reads in armpmu_add while a bring-up's second counter reschedules the
	# first: at least two per bring-up read an existing counter (its re-add,
	# then the second's add); reading the hardware there oopsed the guest
	for c in 1 2 3; do
		n=$(sed -n "s/^armpmu_add cpu$c hits [0-9]* read_counted \([0-9]*\)$/\1/p" <<<"$out")
		[[ -n $n ]] && ((n >= 6)) ||
			{ echo "FAIL: cpu$c: reads while the PMU added counters: '${n}'"; ok=0; }
	done
fi
if [[ ! $warn =~ $warn_re ]]; then
	echo "FAIL: no end-of-run warning about the reads"; ok=0
elif [[ ${BASH_REMATCH[1]} != "$total" || ${BASH_REMATCH[2]} != "$expect_list" ]]; then
	echo "FAIL: the runtime counted ${BASH_REMATCH[1]} (${BASH_REMATCH[2]}), the script saw $total ($expect_list)"; ok=0
fi
if ((ok)); then echo "default: $total reads without counters ($expect_list), all reported"
else show; fail=1; fi

run strict -D STP_PMU_STRICT
ok=1
((rc == 1)) || { echo "FAIL: strict: exit status $rc, expected 1"; ok=0; }
grep -Eqx 'ERROR: no usable @pmu counter on this CPU near kernel\.trace\("cpuhp:cpuhp_enter"\) at (.*/)?hotplug_reads\.stp:[0-9]+:[0-9]+' <<<"$out$err" ||
	{ echo "FAIL: strict: no script error for the read"; ok=0; }
grep -q '@pmu read' <<<"$err" && { echo "FAIL: strict: reads counted instead of failing"; ok=0; }
if ((ok)); then echo "strict: the read is a script error"; else show; fail=1; fi

((fail)) && exit 1
echo "ok: hotplug ($arch)"
