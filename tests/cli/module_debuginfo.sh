#!/bin/bash
# module_debuginfo.sh STAP_PMU - a script's module is built without DWARF
# (-g0: a faster build, docs/performance.md) unless --module-debuginfo asks
# for it; the option is part of the module cache key, so a cached module
# without DWARF never answers a build that asked for it.
set -u
stap_pmu=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export STAP_PMU_MODULE_CACHE=$work/cache STAP_PMU_KBUILD_LOG=$work/kbuild.log
fail=0
say() { echo "FAIL: $*"; fail=1; }
script='global n
probe kprobe.function("__x64_sys_getpid") { n++ }
probe end { printf("%d\n", n) }'
# The compilation units a module's DWARF describes (kbuild compiles the
# small NAME.mod.c with the kernel's -g in both cases: only the script's
# C, NAME.c, follows the option)
cus() { readelf --debug-dump=info "$1" 2>/dev/null | grep -A8 DW_TAG_compile_unit |
	sed -n 's/.*DW_AT_name.*: \(.*\)$/\1/p' | xargs -r -n1 basename | sort | tr '\n' ' '; }

"$stap_pmu" -p4 -m dbg_t -e "$script" >/dev/null 2>err || { say "default build failed"; cat err; }
readelf -SW dbg_t.ko | grep -q ' \.text ' || say "dbg_t.ko has no .text (readelf)"
[[ $(cus dbg_t.ko) == "dbg_t.mod.c " ]] || say "default build: DWARF of '$(cus dbg_t.ko)', expected 'dbg_t.mod.c ' alone"
[[ $(wc -l <kbuild.log) == 1 ]] || say "expected one kbuild run, got $(wc -l <kbuild.log)"

rm -f dbg_t.ko
"$stap_pmu" -p4 --module-debuginfo -m dbg_t -e "$script" >/dev/null 2>err || { say "--module-debuginfo build failed"; cat err; }
[[ $(cus dbg_t.ko) == "dbg_t.c dbg_t.mod.c " ]] ||
	say "--module-debuginfo: DWARF of '$(cus dbg_t.ko)', expected 'dbg_t.c dbg_t.mod.c '"
readelf --debug-dump=info dbg_t.ko 2>/dev/null | grep -q 'DW_AT_name.*: stp_probes$' ||
	say "--module-debuginfo: no DWARF for the probe table stp_probes"
# a second kbuild run: the cached module without DWARF did not answer
[[ $(wc -l <kbuild.log) == 2 ]] || say "expected a second kbuild run, got $(wc -l <kbuild.log) in all"

((fail)) && exit 1
echo "ok: module DWARF only with --module-debuginfo"
