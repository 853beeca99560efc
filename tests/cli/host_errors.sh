#!/bin/bash
# host_errors.sh STAP_PMU - errors of the build host's environment are one
# "stap-pmu: error:" line and exit status 1, never a crash:
#  - TMPDIR names no directory (temp_directory_path), or one where no
#    directory can be made (mkdtemp);
#  - -p4 cannot write NAME.ko into the current directory.
set -u
stap_pmu=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export STAP_PMU_MODULE_CACHE=$work/cache
fail=0
say() { echo "FAIL: $*"; fail=1; }
# expect RC LINE: the exit status and the whole of stderr
expect() {
	[[ $rc == "$1" ]] || say "exit status $rc, expected $1"
	[[ $(cat err) == "$2" ]] || { say "stderr differs; expected: $2"; sed 's/^/    /' err; }
}
script='probe begin { exit() }'

TMPDIR=$work/nonexistent "$stap_pmu" -p4 -m host_t -e "$script" >out 2>err
rc=$?
expect 1 "stap-pmu: error: cannot create a temporary directory: No such file or directory (TMPDIR=$work/nonexistent)"

TMPDIR=/proc "$stap_pmu" -p4 -m host_t -e "$script" >out 2>err
rc=$?
expect 1 "stap-pmu: error: cannot create a temporary directory: No such file or directory (in /proc)"

mkdir host_t.ko # where -p4 writes the module
"$stap_pmu" -p4 -m host_t -e "$script" >out 2>err
rc=$?
expect 1 "stap-pmu: error: cannot write $work/host_t.ko: Invalid argument"

((fail)) && exit 1
echo "ok: host errors"
