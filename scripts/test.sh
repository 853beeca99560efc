#!/bin/sh
# test.sh - the README's second command and what CI runs: install
# everything, build, and run the whole suite (unit tests and guest tests).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
"$top/scripts/install-deps.sh"
"$top/scripts/build.sh"
cd "$top/build"
# Guest tests boot QEMU (TCG); two at a time fits the 2-core CI machines.
# Not the soak (label soak: ten minutes of one guest) nor the debugging
# kernel's group (label debugkernel: its kernel is built once by
# scripts/debug-kernel.sh, in about half an hour): docs/testing.md.
exec ctest --output-on-failure -j 2 --timeout 600 -LE "soak|debugkernel"
