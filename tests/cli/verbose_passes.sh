#!/bin/bash
# verbose_passes.sh STAP_PMU SOURCE_DIR - -v prints one line per pass with
# its time, in stap's words:
#   Pass 1: parsed user script and N library scripts in Tms.
#   Pass 2: analyzed script: P probes, F functions, G globals, E PMU events in Tms.
#   global NAME: per-CPU (WHY) | global NAME: shared, locked (WHY)   (one per global)
#   Pass 3: translated to C into "DIR/NAME.c" in Tms.   (-p3: "translated to C")
#   Pass 4: compiled C into "NAME.ko" for RELEASE in Tms.
#   Pass 3-4: using cached module PATH                 (a module cache hit)
# (Pass 5 is checked by guest.embedded_c, which runs the module.)
set -u
stap_pmu=$(realpath "$1") src=$(realpath "$2")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export STAP_PMU_MODULE_CACHE=$work/cache TMPDIR=$work
fail=0
say() { echo "FAIL: $*"; fail=1; }
has() { grep -Eqx -- "$1" err || say "no stderr line matches: $1"; }
script=$src/tests/guest/scripts/embedded_c.stp

# the whole build, -k keeps the C where pass 3 said it is
"$stap_pmu" -v -k -g -p4 -m verbose_t "$script" >out 2>err || { say "-p4 failed"; cat err; }
has 'Pass 1: parsed user script and 0 library scripts in [0-9]+ms\.'
has 'Pass 2: analyzed script: 1 probe, 4 functions, 0 globals, 0 PMU events in [0-9]+ms\.'
has "Pass 3: translated to C into \"$work/stap-pmu[^/]*/verbose_t\.c\" in [0-9]+ms\."
has 'Pass 4: compiled C into "verbose_t\.ko" for [^ ]+ in [0-9]+ms\.'
c=$(sed -n 's/^Pass 3: translated to C into "\(.*\)" in .*/\1/p' err)
[[ -f $c ]] && grep -q 'stp_fn_scaled' "$c" || say "pass 3 named '$c', which is not the module's C"
[[ $(grep -c '^Pass ' err) == 5 ]] || say "$(grep -c '^Pass ' err) Pass lines, expected 4 and the cache's"

# a tapset (library script), PMU events and globals in the counts, -p3
"$stap_pmu" -v -p3 -e 'global a, b probe perf.sw.cpu_clock { a++ } probe begin { b = @pmu("perf::cpu-clock") } probe end { println(a, b) }' >out 2>err ||
	{ say "-p3 failed"; cat err; }
has 'Pass 1: parsed user script and 1 library script in [0-9]+ms\.'
has 'Pass 2: analyzed script: 3 probes, 0 functions, 2 globals, 2 PMU events in [0-9]+ms\.'
has 'Pass 3: translated to C in [0-9]+ms\.'
grep -q '^Pass 4' err && say "-p3 printed a Pass 4 line"
# then one line per global: where it lives and why (sema/storage.cpp)
has 'global a: per-CPU \(only a\+\+ in probes; read in end\)'
has 'global b: shared, locked \(no probe adds to it outside begin/end/error\)'

# a module cache hit skips passes 2-4
"$stap_pmu" -v -g -p4 -m verbose_t "$script" >out 2>err || { say "cached -p4 failed"; cat err; }
has 'Pass 1: parsed user script and 0 library scripts in [0-9]+ms\.'
has "Pass 3-4: using cached module $work/cache/[0-9a-f]{32}/verbose_t\.ko"
grep -Eq '^Pass (2|3|4):' err && say "a cache hit printed a Pass 2, 3 or 4 line"

((fail)) && { echo "--- last stderr"; cat err; exit 1; }
echo "ok: verbose pass lines"
