#!/bin/bash
# ftrace-direct.sh STAP_PMU SOURCE_DIR KERNEL - entry probes through direct
# calls (runtime/stp_ftrace.h: the sites call the module's own trampoline;
# x86-64, scripts whose bodies read no registers), in x86 guests. Two boots:
#  1. a script alone: "probes: 2 entry through direct calls"; the kernel's
#     enabled_functions shows both functions calling the module's
#     stp_ftrace_tramp directly; __x64_sys_getpid counts the workload's 1000
#     calls exactly. Its body calls ktime_get_real_fast_ns
#     (gettimeofday_ns()), which the script also probes: each such call
#     comes back into the handler while the body runs, finds the context
#     busy and is counted as skipped (the loader's warning: at least one per
#     getpid hit), where the ftrace trampoline's recursion lock used to stop
#     it. The run ends normally.
#  2. another stap-pmu module (built with -p4, loaded with --vm-module,
#     starts by itself) holds the direct call on __x64_sys_getpid first: the
#     script's registration is refused (-EBUSY), says so, and its probe goes
#     through the ftrace_ops; enabled_functions shows the other module's
#     trampoline and both ops; both modules count the 1000 calls exactly
#     (the other's count read from its /proc file after "stop").
#  3. vfs_read alone with a body that calls nothing (the script's one entry
#     probe: no site search, the body inlined into the handler): a file
#     read back through it has the contents written, and the reads are
#     counted.
set -u
stap_pmu=$(realpath "$1") src=$2 kernel_spec=${3:?a kernel spec (tests/lib/kernel.sh)}
cd "$src" || exit 1
# shellcheck source=tests/lib/guest-script.sh
source tests/lib/guest-script.sh
guest_script_init "$kernel_spec"
fail=0
say() { echo "FAIL: $*"; fail=1; }
has() { grep -qE -- "$2" <<<"$1" || say "$3 (no line matching '$2')"; }
ef=/sys/kernel/debug/tracing/enabled_functions

# 1. direct calls, and a hit recursing from the body
# (__x64_sys_getpid is __do_sys_getpid's alias: the kernel names the latter)
getpid='__(x64|do)_sys_getpid'
script='global n, t, k
probe kprobe.function("__x64_sys_getpid") {
	if (execname() == "pmu-workload") { n++; t = gettimeofday_ns() }
}
probe kprobe.function("ktime_get_real_fast_ns") { k++ }
probe end { printf("n=%d\n", n) }'
out=$("$stap_pmu" -v -r "$release" --vm -c "pmu-workload getpid 1000; grep -A1 -E '^($getpid|ktime_get_real_fast_ns) ' $ef" \
	-e "$script" 2>&1)
has "$out" "^n=1000$" "boot 1: the count"
has "$out" "stap_pmu_[0-9a-f]+: probes: 2 entry through direct calls, 0 kprobes, 0 kretprobes" \
	"boot 1: the mechanism"
for f in "$getpid" ktime_get_real_fast_ns; do
	grep -A1 -E "^$f " <<<"$out" | grep -qE "direct-->stp_ftrace_tramp\+0x0/0x[0-9a-f]+ \[stap_pmu_[0-9a-f]+\]" ||
		say "boot 1: enabled_functions shows no direct call from $f to the module's trampoline"
done
k=$(sed -nE 's/.*WARNING: ([0-9]+) probe hits skipped.*/\1/p' <<<"$out")
[[ -n $k && $k -ge 1000 ]] ||
	say "boot 1: skipped hits '${k:-none}', expected at least 1000 (ktime_get_real_fast_ns under the getpid body)"
grep -qE "BUG|Oops|WARNING: CPU|cannot attach" <<<"$out" && say "boot 1: kernel or attach complaints"
((fail)) && echo "--- boot 1" && echo "$out"

# 2. the direct call already taken by another module
other='global n
probe kprobe.function("__x64_sys_getpid") { if (execname() == "pmu-workload") n++ }
probe end { printf("other n=%d\n", n) }'
(cd "$work" && "$stap_pmu" -r "$release" --vm -p4 -m ftd_other -e "$other" >/dev/null) ||
	{ echo "FAIL: cannot build the other module"; exit 1; }
m=/proc/ftd_other
script='global n
probe kprobe.function("__x64_sys_getpid") { if (execname() == "pmu-workload") n++ }
probe end { printf("n=%d\n", n) }'
cmd="pmu-workload getpid 1000; grep -A1 -E '^$getpid ' $ef
echo stop > $m/control; cat $m/output"
out2=$("$stap_pmu" -v -r "$release" --vm --vm-module "$work/ftd_other.ko" -c "$cmd" -e "$script" 2>&1)
has "$out2" "^n=1000$" "boot 2: the script's count"
has "$out2" "^other n=1000$" "boot 2: the other module's count"
has "$out2" "stap_pmu_[0-9a-f]+: cannot attach the entry probes by a direct call \(-16\): through the ftrace_ops" \
	"boot 2: the refusal"
has "$out2" "stap_pmu_[0-9a-f]+: probes: 1 entry through ftrace_ops, 0 kprobes, 0 kretprobes" \
	"boot 2: the mechanism"
grep -A1 -E "^$getpid " <<<"$out2" | grep -qE "direct-->stp_ftrace_tramp\+0x0/0x[0-9a-f]+ \[ftd_other\]" ||
	say "boot 2: enabled_functions shows no direct call to the other module's trampoline"
grep -qE "BUG|Oops|WARNING" <<<"$out2" && say "boot 2: kernel complaints or warnings"
((fail)) && echo "--- boot 2" && echo "$out2"
# 3. one entry probe whose body makes no call: the trampoline passes the
# handler nothing, and the handler runs the body inlined, its rare ends
# out of line as a last call; vfs_read's arguments must come through
# untouched: a file read back through it has the contents written, every
# read counted
sum=$(seq 1 20000 | md5sum | cut -d' ' -f1)
script='global n
probe kprobe.function("vfs_read") { n++ }
probe end { printf("reads=%d\n", n) }'
cmd="seq 1 20000 > /tmp/s; for i in 1 2 3; do md5sum < /tmp/s; done"
out3=$("$stap_pmu" -v -r "$release" --vm -c "$cmd" -e "$script" 2>&1)
has "$out3" "stap_pmu_[0-9a-f]+: probes: 1 entry through direct calls, 0 kprobes, 0 kretprobes" \
	"boot 3: the mechanism"
[[ $(grep -c "^$sum " <<<"$out3") == 3 ]] || say "boot 3: the file read back through the probed vfs_read is not what was written ($sum, 3 times)"
r=$(sed -nE 's/^reads=([0-9]+)$/\1/p' <<<"$out3")
[[ -n $r && $r -ge 3 ]] || say "boot 3: vfs_read hits '${r:-none}', expected at least the 3 md5sum reads"
grep -qE "BUG|Oops|WARNING: CPU|skipped" <<<"$out3" && say "boot 3: kernel complaints or skipped hits"
((fail)) && echo "--- boot 3" && echo "$out3"
if ((!fail)); then
	grep -E "direct-->|skipped|entry through|^n=|^other n=|^reads=" <<<"$out
$out2
$out3"
	echo "ok: direct calls, a recursing hit skipped, the fallback to the ftrace_ops"
fi
exit $fail
