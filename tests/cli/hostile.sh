#!/bin/bash
# hostile.sh STAP_PMU - hostile input to the translator: each gets an error
# with its location and exit status 1, within 30 s and 1 GiB of memory,
# never a crash.
set -u
stap_pmu=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
check() { # check NAME FILE EXPECTED-FIRST-LINE-REGEX
	local name=$1 file=$2 re=$3 rc
	(ulimit -v 1048576; timeout 30 "$stap_pmu" -p2 "$file") >"$work/out" 2>"$work/err"
	rc=$?
	if ((rc != 1)); then
		echo "FAIL: $name: exit status $rc, expected 1"; fail=1
	fi
	if ! head -n 1 "$work/err" | grep -Eqx -- "$re"; then
		echo "FAIL: $name: first stderr line does not match $re:"; head -n 3 "$work/err"; fail=1
	fi
	[[ -s $work/out ]] && { echo "FAIL: $name: wrote to stdout"; fail=1; }
	((fail)) || echo "ok: $name"
}

# 10 MB script: refused by size before it is read
{ printf 'probe begin {\n'; yes 'x = x + 1;' | head -n 900000; } >"$work/big.stp"
check "10 MB script" "$work/big.stp" \
	"stap-pmu: error: $work/big.stp: script is 9900014 bytes, more than the limit of 4 MiB"
# just under the limit: parsed in bounded memory; the brace never closes
{ printf 'probe begin {\n'; yes 'x = x + 1;' | head -n 380000; } >"$work/4m.stp"
check "4 MB script" "$work/4m.stp" \
	"$work/4m.stp:1:13: error: unterminated block: '\\{' has no matching '\\}'"

# 10,000 nested parentheses
{ printf 'probe begin { x = '; printf '(%.0s' $(seq 10000); printf '1'
  printf ')%.0s' $(seq 10000); printf ' }\n'; } >"$work/nest.stp"
check "10,000 nested parentheses" "$work/nest.stp" \
	"$work/nest.stp:1:273: error: nesting too deep \\(more than 256 levels\\)"

printf 'probe begin {\n  printf("no end)\n}\n' >"$work/str.stp"
check "unterminated string" "$work/str.stp" "$work/str.stp:2:10: error: unterminated string literal"

printf 'probe begin { }\n/* never closed\n' >"$work/cmt.stp"
check "unterminated comment" "$work/cmt.stp" "$work/cmt.stp:2:1: error: unterminated comment"

head -c 4096 "$stap_pmu" >"$work/binary.stp"
check "binary file" "$work/binary.stp" "stap-pmu: error: $work/binary.stp: not a script \\(binary file\\)"

check "missing file" "$work/none.stp" \
	"stap-pmu: error: $work/none.stp: cannot open: No such file or directory"

check "directory" "$work" "stap-pmu: error: $work: is a directory, not a script"
exit $fail
