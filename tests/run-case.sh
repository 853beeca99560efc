#!/bin/bash
# run-case.sh CASE STAP_PMU SOURCE_DIR [--vm KERNEL] - runs one test case:
# stap-pmu with the case's arguments (and --vm for guest cases), output compared.
# Guest cases name their kernel: KERNEL is a spec of tests/lib/kernel.sh
# ("suite:6.1", "6.12", "6.12-rt", a release), resolved here for the case's
# architecture and passed as -r RELEASE.
#
# A case file is bash that sets:
#   args=(...)            stap-pmu arguments (paths relative to SOURCE_DIR)
#   expect_rc=N|nonzero   exit status
#   expect_stdout='...'   exact standard output (optional)
#   expect_stdout_re=()   extended regexps, each must match a whole stdout line
#   expect_stderr_re=()   the same for standard error
#   expect_stdout_seq=()  extended regexps that must match consecutive stdout
#                         lines, in this order (e.g. one stack of frames)
#   reject_stdout_re=()   regexps no stdout line may match
#   reject_stderr_re=()   regexps no stderr line may match
# Guest tests never skip: a missing QEMU or kernel is a failure.
set -u
case_file=$1 stap_pmu=$2 src=$3 vm=${4:-} kernel_spec=${5:-}
# the case runs in SOURCE_DIR: paths given relative to the caller's directory
# (build/stap-pmu, tests/guest/cases/X.case) are made absolute first
[[ $case_file == /* ]] || case_file=$PWD/$case_file
[[ $stap_pmu == */* && $stap_pmu != /* ]] && stap_pmu=$PWD/$stap_pmu
args=() expect_rc=0 expect_stdout= expect_stdout_re=() expect_stderr_re=() reject_stdout_re=() reject_stderr_re=()
expect_stdout_seq=()
unset expect_stdout
# For a case whose figures are the kernel's rather than the tool's: true on the
# debugging kernel (scripts/debug-kernel.sh; docs/testing.md says what differs).
on_debug_kernel() { [[ $kernel_spec == *-debug ]]; }
# The kernel line ("6.1", "6.12") of the case's spec (for suite:LINE, the
# suite's kernel: $STAP_PMU_TEST_KERNEL when it is set).
kernel_line()
{
	local s=$kernel_spec
	[[ $s == suite:* ]] && s=${STAP_PMU_TEST_KERNEL:-${s#suite:}}
	[[ $s =~ ^([0-9]+\.[0-9]+) ]] && echo "${BASH_REMATCH[1]}"
}
# shellcheck disable=SC1090
source "$case_file"

out=$(mktemp) err=$(mktemp) tmp=$(mktemp -d)
trap 'rm -rf "$out" "$err" "$tmp"' EXIT
cd "$src" || exit 1
kernel=()
if [[ -n $vm ]]; then
	if [[ -z $kernel_spec ]]; then
		echo "FAIL: a guest case names its kernel (run-case.sh CASE STAP_PMU SRC --vm KERNEL)"
		exit 1
	fi
	# shellcheck source=tests/lib/kernel.sh
	source "$src/tests/lib/kernel.sh"
	release=$(test_kernel "$kernel_spec" "$(args_arch "${args[@]}")") || { echo "FAIL: no kernel"; exit 1; }
	kernel=(-r "$release")
fi
# TMPDIR: what stap-pmu leaves behind (a failed build's C and make log) goes too
TMPDIR=$tmp "$stap_pmu" $vm "${kernel[@]}" "${args[@]}" >"$out" 2>"$err"
rc=$?
fail=0
say() { echo "FAIL: $*"; fail=1; }

if [[ $expect_rc == nonzero ]]; then
	((rc != 0)) || say "exit status 0, expected non-zero"
elif ((rc != expect_rc)); then
	say "exit status $rc, expected $expect_rc"
fi
if [[ -v expect_stdout ]] && [[ "$(cat "$out")" != "$expect_stdout" ]]; then
	say "stdout differs; expected:"; printf '%s\n' "$expect_stdout" | sed 's/^/    /'
fi
for re in "${expect_stdout_re[@]}"; do
	grep -Eqx -- "$re" "$out" || say "no stdout line matches: $re"
done
for re in "${expect_stderr_re[@]}"; do
	grep -Eqx -- "$re" "$err" || say "no stderr line matches: $re"
done
if ((${#expect_stdout_seq[@]})); then
	mapfile -t lines <"$out"
	nseq=${#expect_stdout_seq[@]} found=0
	for ((i = 0; !found && i + nseq <= ${#lines[@]}; i++)); do
		for ((j = 0; j < nseq; j++)); do
			[[ ${lines[i + j]} =~ ^(${expect_stdout_seq[j]})$ ]] || break
		done
		((j == nseq)) && found=1
	done
	((found)) || { say "no consecutive stdout lines match, in order:"
		printf '    %s\n' "${expect_stdout_seq[@]}"; }
fi
for re in "${reject_stdout_re[@]}"; do
	grep -Eq -- "$re" "$out" && say "stdout has a line matching: $re"
done
for re in "${reject_stderr_re[@]}"; do
	grep -Eq -- "$re" "$err" && say "stderr has a line matching: $re"
done
if ((fail)); then
	echo "--- stap-pmu $vm ${kernel[*]} ${args[*]} (exit $rc)"
	echo "--- stdout"; cat "$out"
	echo "--- stderr"; cat "$err"
	exit 1
fi
echo "ok: $(basename "$case_file")${kernel[1]:+ on ${kernel[1]}}"
