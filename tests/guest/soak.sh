#!/bin/bash
# soak.sh STAP_PMU SOURCE_DIR KERNEL [SECONDS] - the soak (docs/reliability.md,
# "Soak"; ctest -L soak, not in the default run: scripts/test.sh). A 4-CPU
# x86 guest runs tests/guest/scripts/soak.stp for SECONDS (default
# $STAP_PMU_SOAK_SECONDS, else 600): entry probes on vfs_read, vfs_write and
# getpid, a kretprobe on vfs_read, timer.profile and timer.ms(100), cpu-clock
# sampling on every CPU, sched_switch and cpuhp_enter tracepoints, an @pmu
# read in every getpid hit; every hit prints one record (the rings overflow:
# output flooding) while a getpid workload runs on every online CPU and
# cpu1-3 go offline and back online every few seconds. Checked at the end:
#  - exit 0, no script error, no kernel warning, BUG, Oops, lockup or
#    sleeping-in-atomic report (--vm fails the run on one);
#  - every probe fired; each probe's records received <= its hits;
#  - the hits the probes counted = records received + records dropped (the
#    loader's warning), exactly;
#  - the workload's getpid calls = the getpid probe's hits from the workload
#    + at most the skipped hits (the loader's warning; 0 without one);
#  - at least one hotplug cycle a minute (one takes about 11 s on a busy
#    2-core host).
# KERNEL is a tests/lib/kernel.sh spec; $STAP_PMU_SOAK_KERNEL replaces it
# (e.g. a debugging kernel's spec), as $STAP_PMU_TEST_KERNEL replaces suite:.
# The figures line ("soak: ...") is what docs/reliability.md records.
set -u
stap_pmu=$1 src=$2 kernel_spec=${STAP_PMU_SOAK_KERNEL:-${3:?a kernel spec (tests/lib/kernel.sh)}}
secs=${4:-${STAP_PMU_SOAK_SECONDS:-600}}
cd "$src" || exit 1
# shellcheck source=tests/lib/kernel.sh
source tests/lib/kernel.sh
release=$(test_kernel "$kernel_spec" amd64) || { echo "FAIL: no kernel"; exit 1; }
echo "kernel: $release, $secs s"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Workers: pmu-workload getpid 1000 in a loop, one per CPU (not pinned: the
# scheduler moves them off CPUs going offline); each records its rounds.
# Hotplug: cpu1-3 offline, 1 s, online, 4 s, until SECONDS have passed.
cmd='end=$(($(date +%s) + '"$secs"'))
for w in 0 1 2 3; do (n=0; while [ ! -e /tmp/soak-done ]; do pmu-workload getpid 1000; n=$((n + 1)); done; echo $n >/tmp/soak-w$w) & done
cycles=0
while [ "$(date +%s)" -lt $end ]; do
	for c in 1 2 3; do echo 0 >/sys/devices/system/cpu/cpu$c/online; done
	sleep 1
	for c in 1 2 3; do echo 1 >/sys/devices/system/cpu/cpu$c/online; done
	cycles=$((cycles + 1))
	sleep 4
done
touch /tmp/soak-done
wait
calls=0
for w in 0 1 2 3; do calls=$((calls + $(cat /tmp/soak-w$w) * 1000)); done
echo "SOAK cycles=$cycles getpid_calls=$calls" >&2'
start=$(date +%s)
# -D STP_NO_OVERLOAD: under TCG on a busy host these probes take more than
# half of a vCPU, and the overload check would end the run (guest.overload
# tests it)
"$stap_pmu" -r "$release" --vm --vm-smp 4 --vm-timeout $((secs + 600)) -D STP_NO_OVERLOAD -c "$cmd" \
	tests/guest/scripts/soak.stp >"$work/out" 2>"$work/err"
rc=$?
wall=$(($(date +%s) - start))
fail=0
say() { echo "FAIL: $*"; fail=1; }
((rc == 0)) || say "exit status $rc"
grep -q '^ERROR' "$work/out" "$work/err" && say "a script error: $(grep -h '^ERROR' "$work/out" "$work/err" | head -3)"

# records received, by tag (the first word of each line); anything else is
# a record that arrived damaged
tags="g r R w p m s x h"
awk -v tags="$tags" '
	BEGIN { n = split(tags, t, " "); for (i = 1; i <= n; i++) ok[t[i]] = 1 }
	/^SOAK / || /^ERROR: / { next }
	$1 in ok && (NF == 1 || ($1 == "g" && NF == 2 && ($2 == "0" || $2 == "1"))) {
		c[$1]++; if ($1 == "g" && $2 == "0") g0++; next }
	{ bad++; if (bad <= 3) print "bad line: " substr($0, 1, 80) > "/dev/stderr" }
	END { for (i = 1; i <= n; i++) printf "%s %d\n", t[i], c[t[i]]; printf "bad %d\ng0 %d\n", bad, g0 }
' "$work/out" >"$work/counts" 2>"$work/badlines"
declare -A printed hits
while read -r k v; do printed[$k]=$v; done <"$work/counts"
((printed[bad] == 0)) || say "${printed[bad]} damaged records: $(cat "$work/badlines")"

hl=$(grep '^SOAK hits ' "$work/out")
[[ -n $hl ]] || say "no end report"
for kv in ${hl#SOAK hits }; do hits[${kv%%=*}]=${kv#*=}; done
gw=$(sed -n 's/^SOAK getpid_workload=\([0-9]*\)$/\1/p' "$work/out")
cl=$(grep '^SOAK cycles=' "$work/err")
[[ $cl =~ ^SOAK\ cycles=([0-9]+)\ getpid_calls=([0-9]+)$ ]] || say "no workload report: '$cl'"
cycles=${BASH_REMATCH[1]:-0} calls=${BASH_REMATCH[2]:-0}

re_drop='^WARNING: ([0-9]+) output records? dropped \(([0-9]+) bytes\)'
dropped=0 dropped_bytes=0
if [[ $(grep -E "$re_drop" "$work/err") =~ $re_drop ]]; then
	dropped=${BASH_REMATCH[1]} dropped_bytes=${BASH_REMATCH[2]}
fi
re_skip='^WARNING: ([0-9]+) probe hits skipped'
skipped=0
[[ $(grep -E "$re_skip" "$work/err") =~ $re_skip ]] && skipped=${BASH_REMATCH[1]}
re_unav='^WARNING: ([0-9]+) @pmu reads found no counter'
unavail=0
[[ $(grep -E "$re_unav" "$work/err") =~ $re_unav ]] && unavail=${BASH_REMATCH[1]}

total_hits=0 total_printed=0 per=
for t in $tags; do
	h=${hits[$t]:-0} p=${printed[$t]:-0}
	((h > 0)) || say "probe $t never ran"
	((p <= h)) || say "probe $t: $p records received, only $h hits"
	total_hits=$((total_hits + h)) total_printed=$((total_printed + p))
	per+=" $t=$h/$p"
done
((total_hits == total_printed + dropped)) ||
	say "hits $total_hits != printed $total_printed + dropped $dropped (off by $((total_hits - total_printed - dropped)))"
[[ -n $gw ]] || gw=-1
((gw <= calls && calls <= gw + skipped)) ||
	say "getpid: the workload made $calls calls, its probe hits were $gw, skipped $skipped"
((cycles >= 1 && cycles * 60 >= secs)) || say "$cycles hotplug cycles in $secs s (expected one a minute at least)"

echo "soak: $(date -u +%F) kernel $release, ${secs} s (wall ${wall} s), 4 vCPUs: hits $((total_hits + skipped))" \
	"= printed $total_printed + dropped $dropped ($dropped_bytes bytes) + skipped $skipped;" \
	"hotplug cycles $cycles; getpid calls $calls (probe hits from the workload $gw);" \
	"@pmu reads without a counter $unavail (getpid records reading 0: ${printed[g0]})"
echo "per probe (hits/received):$per"
if ((fail)); then
	echo "--- stdout (last 20 lines)"; tail -20 "$work/out"
	echo "--- stderr"; tail -40 "$work/err"
	exit 1
fi
echo "ok: soak"
