#!/bin/bash
# arm64.sh STAP_PMU SOURCE_DIR KERNEL - arm64 end to end: modules cross-built on the
# host, run in qemu-system-aarch64 guests (cortex-a57, cortex-a72) with
# -icount shift=0, where the emulated PMUv3 counts exact instructions.
#  - the instructions retired between kprobe entry and kretprobe return of
#    getpid are the same for every call, on both CPUs, and in two boots;
#  - cpu1 is taken offline and back online between two workloads: the
#    hotplug callbacks release and recreate its counters, which count after;
#  - with -D STP_PMU_DIRECT_READ=0 (pmu->read instead of reading PMEVCNTR)
#    the window costs more instructions: the direct read is what is used.
set -u
stap_pmu=$1 src=$2 kernel_spec=${3:?a kernel spec (tests/lib/kernel.sh)}
cd "$src" || exit 1
# KERNEL: the guest kernel, a tests/lib/kernel.sh spec ("suite:6.1", "6.12")
# shellcheck source=tests/lib/kernel.sh
source tests/lib/kernel.sh
release=$(test_kernel "$kernel_spec" arm64) || { echo "FAIL: no kernel"; exit 1; }
echo "kernel: $release"
script=tests/guest/scripts/arm64_hotplug_delta.stp
cmd='taskset -c 0 pmu-workload getpid 500
echo 0 > /sys/devices/system/cpu/cpu1/online
echo 1 > /sys/devices/system/cpu/cpu1/online
taskset -c 1 pmu-workload getpid 500
dmesg | grep -o "cpu1: o[a-z]*line: [A-Za-z]*" | sort -u'
fail=0
run() { # run LABEL ARGS... ; sets $out
	local log rc label=$1
	shift
	log=$(mktemp)
	"$stap_pmu" -r "$release" "$@" -a arm64 --vm --pmu-targets perf -c "$cmd" "$script" >"$log" 2>"$log.err"
	rc=$?
	out=$(cat "$log")
	if ((rc != 0)); then
		echo "FAIL: $label: exit status $rc"; cat "$log" "$log.err"; fail=1
	fi
	rm -f "$log" "$log.err"
}
check() { # check LABEL OUTPUT
	# The mode is the per-call cost; it must be the minimum too (interrupts
	# only add), cover at least 99 % of the calls, and be the same on cpu1
	# after its counters were recreated by the hotplug callback.
	local re='^all: calls=1000 mode=([0-9]+) at_mode=([0-9]+) min=([0-9]+)$'
	local line
	line=$(grep '^all:' <<<"$2")
	delta=
	if [[ ! $line =~ $re ]] || [[ ${BASH_REMATCH[1]} != "${BASH_REMATCH[3]}" ]] ||
	   ((BASH_REMATCH[2] < 990 || BASH_REMATCH[1] <= 0)); then
		echo "FAIL: $1: per-call deltas missing or not exact:"; echo "$2"; fail=1; return
	fi
	delta=${BASH_REMATCH[1]}
	re="^cpu1: calls=500 mode=$delta at_mode=([0-9]+) min=$delta"'$'
	line=$(grep '^cpu1: calls=' <<<"$2")
	if [[ ! $line =~ $re ]] || ((BASH_REMATCH[1] < 495)); then
		echo "FAIL: $1: cpu1 after offline/online:"; echo "$2"; fail=1
	fi
	grep -qx "cpu1: offline: released" <<<"$2" && grep -qx "cpu1: online: ARM" <<<"$2" ||
		{ echo "FAIL: $1: hotplug callbacks did not run:"; echo "$2"; fail=1; }
	echo "$1: delta $delta instructions per call"
}
for cpu in cortex-a57 cortex-a72; do
	run "$cpu run 1" --vm-cpu "$cpu"; out1=$out; check "$cpu run 1" "$out1"; d1=${delta:-}
	run "$cpu run 2" --vm-cpu "$cpu"; out2=$out; check "$cpu run 2" "$out2"; d2=${delta:-}
	[[ -n $d1 && $d1 == "$d2" ]] || { echo "FAIL: $cpu: delta $d1 in run 1, $d2 in run 2"; fail=1; }
	[[ $cpu == cortex-a57 ]] && direct=$d1
done
run "cortex-a57 pmu->read" -D STP_PMU_DIRECT_READ=0 --vm-cpu cortex-a57
check "cortex-a57 pmu->read" "$out"
if [[ -n ${direct:-} && -n ${delta:-} ]] && ((delta <= direct)); then
	echo "FAIL: pmu->read window ($delta) not longer than the direct read's ($direct)"; fail=1
else
	echo "direct read saves $((delta - direct)) instructions per pair of reads"
fi
((fail)) && exit 1
echo "ok: arm64"
