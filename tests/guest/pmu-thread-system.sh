#!/bin/bash
# pmu-thread-system.sh STAP_PMU SOURCE_DIR KERNEL - @pmu_thread without a
# target gives the same per-call getpid deltas as with -c. arm64 guests,
# exact instruction counting (-icount shift=0), one CPU; the same script
# (tests/guest/scripts/pmu_thread_getpid_delta.stp) twice:
#  - with -c 'pmu-workload getpid 500': per-task perf counters
#    (runtime/stp_pmu_thread.h);
#  - with --vm-during 'pmu-workload getpid 500' (no target): CPU-wide
#    counters plus sched_switch accounting (runtime/stp_pmu_tasks.h).
# Each run's mode must be its minimum and cover at least 495 of the 500
# calls. The two read functions differ in length (measured: 195 and 109
# instructions back to back on 6.1), so the check is on getpid - read, the
# call's own cost, which must be equal; the raw getpid deltas must differ
# by exactly the difference of the read costs.
set -u
stap_pmu=$1 src=$2 kernel_spec=${3:?a kernel spec (tests/lib/kernel.sh)}
cd "$src" || exit 1
# shellcheck source=tests/lib/kernel.sh
source tests/lib/kernel.sh
release=$(test_kernel "$kernel_spec" arm64) || { echo "FAIL: no kernel"; exit 1; }
echo "kernel: $release"
script=tests/guest/scripts/pmu_thread_getpid_delta.stp
fail=0
declare -A cost read
run() { # run LABEL OPTION
	local out rc line name re='^(getpid|read): calls=([0-9]+) mode=([0-9]+) at_mode=([0-9]+) min=([0-9]+)$'
	out=$("$stap_pmu" -r "$release" -a arm64 --vm --vm-smp 1 --pmu-targets perf \
		"$2" 'pmu-workload getpid 500' "$script" 2>&1)
	rc=$?
	if ((rc != 0)); then
		echo "FAIL: $1: exit status $rc"; echo "$out"; fail=1; return
	fi
	for name in getpid read; do
		line=$(grep "^$name: " <<<"$out")
		if [[ ! $line =~ $re ]] || ((BASH_REMATCH[2] != 500)) ||
		   [[ ${BASH_REMATCH[3]} != "${BASH_REMATCH[5]}" ]] || ((BASH_REMATCH[4] < 495)); then
			echo "FAIL: $1: $name deltas missing or not exact:"; echo "$out"; fail=1; return
		fi
		if [[ $name == getpid ]]; then cost[$1]=${BASH_REMATCH[3]}; else read[$1]=${BASH_REMATCH[3]}; fi
	done
	echo "$1: getpid ${cost[$1]} instructions, two reads back to back ${read[$1]}," \
	     "call $((cost[$1] - read[$1]))"
}
run target -c
run system --vm-during
if ((!fail)); then
	if ((cost[target] - read[target] != cost[system] - read[system])); then
		echo "FAIL: getpid's own cost differs: $((cost[target] - read[target])) with -c," \
		     "$((cost[system] - read[system])) without a target"
		fail=1
	fi
fi
((fail)) && exit 1
echo "ok: the same per-call getpid cost with and without a target"
