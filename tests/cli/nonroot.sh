#!/bin/bash
# nonroot.sh STAP_PMU - running a script on the host as an ordinary user
# fails after translation with one clear line naming root and exit status 1
# (nothing else is printed: no kbuild ran). Run as root (CI), the test drops to nobody with setpriv.
set -u
stap_pmu=$1
run=("$stap_pmu")
if (($(id -u) == 0)); then
	run=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/tmp "$stap_pmu")
fi
out=$(cd /tmp && "${run[@]}" -e 'probe begin { exit() }' 2>&1)
rc=$?
want='stap-pmu: error: loading a kernel module needs root; run stap-pmu as root (or use --vm)'
fail=0
if ((rc != 1)); then echo "FAIL: exit status $rc, expected 1"; fail=1; fi
if [[ $out != "$want" ]]; then
	echo "FAIL: output differs:"; echo "  got:  $out"; echo "  want: $want"; fail=1
fi
((fail)) || echo "ok: non-root refused with: $want"
exit $fail
