#!/bin/sh
# demo.sh - the README's first command: install everything, build, and run
# examples/getpid.stp counting a workload's getpid calls in a QEMU guest
# (this kind of machine cannot load kernel modules itself).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh"
echo "+ stap-pmu --vm -c 'pmu-workload getpid 1000' examples/getpid.stp"
exec "$top/build/stap-pmu" --vm -c 'pmu-workload getpid 1000' "$top/examples/getpid.stp"
