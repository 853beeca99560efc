#!/bin/bash
# tracepoint_cache.sh STAP_PMU - the tracepoint query modules of
# kernel.trace (translator/tracequery.h) are built once per kernel,
# architecture and subsystem and then come from the module cache:
#  - the first -L builds one query (one make run, STAP_PMU_KBUILD_LOG) and
#    stores it; a -p2 of a script using the same subsystem runs no make;
#  - --no-cache builds again and stores nothing;
#  - -a arm64 cross-builds its own query against the arm64 headers
#    (scripts/install-deps.sh) and lists the same arguments;
#  - a second subsystem is a second query;
#  - a generated module with tracepoint probes (the probe functions, the
#    runtime's registration, $arg->member, $$parms) builds with -Werror for
#    amd64 and, cross-compiled, for arm64.
set -u
stap_pmu=$(realpath "$1")
# shellcheck source=../lib/isolated-cache.sh
source "$(dirname "$(realpath "$0")")/../lib/isolated-cache.sh"
entries() { find cache -name 'stp_tq_*.ko' | wc -l; }
want='kernel.trace("sched:sched_switch") $preempt:bool $prev:struct task_struct* $next:struct task_struct* $prev_state:unsigned int'

"$stap_pmu" -v -L 'kernel.trace("sched:sched_switch")' >out 2>err || { say "-L failed"; cat err; }
[[ $(cat out) == "$want" ]] || say "-L printed '$(cat out)'"
[[ $(makes) == 1 ]] || say "first -L: $(makes) make runs, expected 1"
grep -Eq '^Pass 2: built tracepoint query stp_tq_sched in [0-9]+ms$' err || say "first -L did not say it built the query"
[[ $(entries) == 1 ]] || say "first -L: $(entries) cached queries, expected 1"

"$stap_pmu" -v -p2 -e 'probe kernel.trace("sched:sched_switch") { println($next->pid) }' >out 2>err ||
	{ say "-p2 failed"; cat err; }
[[ $(makes) == 1 ]] || say "-p2 after -L ran make ($(makes) runs)"
grep -Eq "^Pass 2: tracepoint query stp_tq_sched from the module cache \($work/cache/[0-9a-f]{32}/stp_tq_sched.ko\)$" err ||
	{ say "-p2: no cache hit"; cat err; }

tmpdirs() { ls -d "${TMPDIR:-/tmp}"/stap-pmu-tq* 2>/dev/null; }
before=$(tmpdirs)
"$stap_pmu" --no-cache -L 'kernel.trace("sched:sched_switch")' >out 2>err || { say "--no-cache -L failed"; cat err; }
[[ $(cat out) == "$want" ]] || say "--no-cache -L printed '$(cat out)'"
[[ $(makes) == 2 ]] || say "--no-cache did not build ($(makes) make runs)"
[[ $(entries) == 1 ]] || say "--no-cache stored a query"
[[ $(tmpdirs) == "$before" ]] || say "--no-cache left its build directory behind"

"$stap_pmu" -a arm64 -L 'kernel.trace("sched:sched_switch")' >out 2>err || { say "-a arm64 -L failed"; cat err; }
[[ $(cat out) == "$want" ]] || say "-a arm64 -L printed '$(cat out)'"
[[ $(makes) == 3 ]] || say "-a arm64 did not build its own query ($(makes) make runs)"
grep -q 'ARCH=.arm64. CROSS_COMPILE=.aarch64-linux-gnu-.' "$STAP_PMU_KBUILD_LOG" || say "-a arm64 did not cross-build"
[[ $(entries) == 2 ]] || say "-a arm64: $(entries) cached queries, expected 2"

"$stap_pmu" -l 'kernel.trace("irq:irq_handler_en*")' >out 2>err || { say "-l irq failed"; cat err; }
[[ $(cat out) == 'kernel.trace("irq:irq_handler_entry")' ]] || say "-l irq printed '$(cat out)'"
[[ $(makes) == 4 ]] || say "a second subsystem did not build its query ($(makes) make runs)"
[[ $(entries) == 3 ]] || say "$(entries) cached queries, expected 3"

script='probe kernel.trace("sched:sched_switch") {
	if ($next->pid == target())
		printf("%s %d %s\n", kernel_string($next->comm), $prev_state, $$parms)
}
probe kernel.trace("irq:irq_handler_en*") { println($irq) }'
for a in x86_64 arm64; do
	"$stap_pmu" -a $a -p4 -m tp_werror_$a -B KCFLAGS=-Werror -e "$script" >out 2>err ||
		{ say "-a $a -p4 with -Werror failed"; cat err; }
	[[ -s tp_werror_$a.ko ]] || say "-a $a: no tp_werror_$a.ko"
done

((fail)) && exit 1
echo "ok: tracepoint query cache"
