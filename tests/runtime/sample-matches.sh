#!/bin/bash
# sample-matches.sh STAP_PMU SOURCE_DIR - tests/runtime/sample_module.c is
# written by hand; this keeps it what the translator emits. It translates
# tests/runtime/sample_module.stp (-p3, the suite's 6.1 kernel, the generic
# perf row) and compares, with the hand-written file:
#  - the runtime's interface both use: every stp_* / STP_* name that the
#    runtime headers (runtime/*.h) contain and either file uses;
#  - the probe table: each entry's .kind, .name, .symbol, .locks, .nlocks,
#    .percpu and .body, in
#    order, and the .loc line:column (the file's directory aside).
# A name only one side uses, or a different table, fails with the difference.
set -u
stap_pmu=$1 src=$2
cd "$src" || exit 1
# shellcheck source=tests/lib/kernel.sh
source tests/lib/kernel.sh
release=$(test_kernel suite:6.1 amd64) || { echo "FAIL: no kernel"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hand=tests/runtime/sample_module.c
TMPDIR=$work "$stap_pmu" -p3 -m sample_module -r "$release" --pmu-targets perf \
	tests/runtime/sample_module.stp >"$work/gen.c" 2>"$work/err" ||
	{ cat "$work/err"; echo "FAIL: sample_module.stp does not translate"; exit 1; }
names() { grep -oE '\b(stp|STP)_[A-Za-z0-9_]+\b' "$1" | sort -u; }
cat runtime/*.h | grep -oE '\b(stp|STP)_[A-Za-z0-9_]+\b' | sort -u >"$work/runtime"
comm -12 <(names "$work/gen.c") "$work/runtime" >"$work/gen.names"
comm -12 <(names "$hand") "$work/runtime" >"$work/hand.names"
# the probe table, one line per field, the .loc's directory dropped
table() {
	sed -n '/^static struct stp_probe stp_probes\[\] = {/,/^};/p' "$1" |
		grep -oE '\.(kind|name|symbol|locks|nlocks|percpu|body|loc) = ("([^"\\]|\\.)*"|[A-Za-z0-9_]+)' |
		sed -E 's|\.loc = ".*/|.loc = "|'
}
table "$work/gen.c" >"$work/gen.table"
table "$hand" >"$work/hand.table"
fail=0
if ! diff -u "$work/gen.names" "$work/hand.names" >"$work/d1"; then
	echo "FAIL: runtime names used by the translator's C (-) and by $hand (+) differ:"
	grep -E '^[-+][^-+]' "$work/d1"; fail=1
fi
if ! diff -u "$work/gen.table" "$work/hand.table" >"$work/d2"; then
	echo "FAIL: the probe tables of the translator's C (-) and of $hand (+) differ:"
	grep -E '^[-+][^-+]' "$work/d2"; fail=1
fi
[[ -s $work/gen.table ]] || { echo "FAIL: no probe table in the translator's C"; fail=1; }
((fail)) && exit 1
echo "ok: $(wc -l <"$work/gen.names") runtime names and $(grep -c '\.kind' "$work/gen.table") probe table entries agree"
