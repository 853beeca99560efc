#!/bin/sh
# compare-p3.sh OLD NEW [DIR...] - runs two stap-pmu binaries with -p3 (or
# -p$PASS) on every *.stp under DIRs (default: the corpus scripts that must
# pass pass 2 and the guest scripts) and reports every script whose output (stdout,
# stderr with the binary's name masked, exit status) differs. For a change
# that must not change translation (e.g. lazy tapset parsing): build the
# base commit, keep its binary, and compare. ARGS: more options for both
# (e.g. ARGS="-r 6.1.0-57-amd64", as corpus.must-translate runs).
# Exit status 1 if any differs.
set -u
old=$1
new=$2
shift 2
top=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || set -- "$top/tests/corpus/must-pass-semantics" "$top/tests/guest/scripts"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
bad=0
ok=0
for f in $(find "$@" -name '*.stp' | sort); do
	n=$((n + 1))
	for b in old new; do
		eval bin=\$$b
		timeout 120 "$bin" -p"${PASS:-3}" ${ARGS:-} "$f" >"$tmp/$b.out" 2>"$tmp/$b.err"
		echo "exit $?" >>"$tmp/$b.out"
		sed "s|$bin|STAP_PMU|g" "$tmp/$b.err" >>"$tmp/$b.out"
	done
	grep -qx "exit 0" "$tmp/new.out" && ok=$((ok + 1))
	if ! cmp -s "$tmp/old.out" "$tmp/new.out"; then
		echo "DIFFERS: $f"
		diff "$tmp/old.out" "$tmp/new.out" | head -20
		bad=$((bad + 1))
	fi
done
echo "compare-p3: -p${PASS:-3}, $n scripts, $bad differ, $ok translated (exit 0)"
[ "$bad" -eq 0 ]
