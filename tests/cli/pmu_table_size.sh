#!/bin/bash
# pmu_table_size.sh STAP_PMU - the PMU tables' size as built, not as the
# translator computes it: 4 portable events for every x86 core PMU (the
# script of cli.pmu_compact_size) built with -p4; the size of the one table
# object stp_pmu_data in the module (nm -S, the compiler's sizeof with its
# padding) must be the size -v reports and at most 1024 bytes, and the
# module's .rodata must hold it.
set -u
stap_pmu=$(realpath "$1")
# shellcheck source=../lib/isolated-cache.sh
source "$(dirname "$(realpath "$0")")/../lib/isolated-cache.sh"
"$stap_pmu" -v -p4 -m pmu_size_t --pmu-fallback generic --pmu-targets intel,amd -e \
	'probe begin { printf("%d %d %d %d\n", @pmu("cycles"), @pmu("instructions"), @pmu("branches"), @pmu("branch-misses")) }' \
	>out 2>err || { cat err; echo "FAIL: -p4 failed"; exit 1; }
said=$(sed -n 's/^PMU tables: 52 rows, 4 events, \([0-9]*\) bytes$/\1/p' err)
[[ -n $said ]] || { cat err; echo "FAIL: no 'PMU tables: 52 rows, 4 events, N bytes' line"; exit 1; }
line=$(nm -S pmu_size_t.ko | awk '$4 == "stp_pmu_data"')
[[ -n $line ]] || say "no stp_pmu_data symbol in pmu_size_t.ko"
read -r _ size type _ <<<"$line"
built=$((16#${size:-0}))
((built == said)) || say "stp_pmu_data is $built bytes in the module, -v says $said"
((built <= 1024)) || say "stp_pmu_data is $built bytes, over 1 KiB"
[[ $type == [rR] ]] || say "stp_pmu_data is of type '$type', not read-only data"
((fail)) && exit 1
echo "ok: stp_pmu_data $built bytes (nm -S), -v $said"
