#!/bin/bash
# run-fuzz.sh SOURCE_DIR BUILD_DIR SECONDS - runs the libFuzzer target over
# the translator (tests/fuzz/fuzz_frontend.cpp, -fsanitize=fuzzer,address,
# undefined) for SECONDS on a copy of the committed seed corpus. The build
# step made the target: BUILD_DIR/fuzz/build is the instrumented clang tree
# tests/fuzz/CMakeLists.txt configures (STAP_PMU_FUZZ=ON). Any crash, hang
# (10 s per input), sanitizer report or round-trip mismatch fails the test.
# Then generated C must compile with kbuild (tests/corpus/generated-c.sh,
# -Werror): FUZZ_COMPILE_MAX inputs (default 40) that translate, first the
# inputs the run added, then (filling the rest) the seed inputs, so the
# step always compiles something. The seed is fixed (FUZZ_SEED overrides)
# so that CI explores the same inputs each run; longer exploratory runs
# should vary it. FUZZ_TIMEOUT (seconds per input, default 10) can be
# raised for runs on a loaded machine.
set -eu
src=$1 build=$2 secs=${3:-60}
out=$build/fuzz
bin=$out/build/tests/fuzz/fuzz_frontend
if [[ ! -x $bin ]]; then
	if ! command -v clang++-14 >/dev/null && ! command -v clang++ >/dev/null; then
		echo "FAIL: clang++ not found (scripts/install-deps.sh installs clang)"
	else
		echo "FAIL: no $bin: the build step makes it (cmake --build $build;" \
			"not when configured with -DSTAP_PMU_FUZZ_TREE=OFF)"
	fi
	exit 1
fi
seeds=$src/tests/fuzz/corpus
work=$out/corpus
rm -rf "$work"
mkdir -p "$work"
cp "$seeds"/* "$work"/
cd "$out"
SECONDS=0
"$bin" -seed="${FUZZ_SEED:-20261129}" -max_total_time="$secs" -timeout="${FUZZ_TIMEOUT:-10}" -max_len=4096 -rss_limit_mb=2048 \
	-print_final_stats=1 "$work" 2>&1 | tail -25
rc=${PIPESTATUS[0]}
if ((rc != 0)); then
	echo "FAIL: the fuzzer stopped with status $rc (crash-*, timeout-* or leak-* file in $out)"
	exit 1
fi
echo "ok: fuzzed $secs s with no crash ($SECONDS s)"

# The target runs once more over the inputs this run added, then over the
# seeds, keeping (by content hash) those that translate and hold no
# embedded C; the first FUZZ_COMPILE_MAX of the new ones, then of the seeds,
# are compiled.
max=${FUZZ_COMPILE_MAX:-40}
picked=$out/compile
rm -rf "$out/translated" "$picked"
mkdir -p "$out/translated/new" "$out/translated/seed" "$picked"
keep()
{
	local dir=$1 log=$2
	shift 2
	STAP_FUZZ_KEEP_TRANSLATED=$dir "$bin" -runs=1 "$@" >"$log" 2>&1 || {
		tail -20 "$log"
		echo "FAIL: rerunning the inputs failed ($log)"
		exit 1
	}
}
new=()
for f in "$work"/*; do
	[[ -e $seeds/$(basename "$f") ]] || new+=("$f")
done
((${#new[@]} == 0)) || keep "$out/translated/new" "$out/rerun-new.log" "${new[@]}"
keep "$out/translated/seed" "$out/rerun-seed.log" "$seeds"/*
nseed=$(ls "$out/translated/seed" | wc -l)
if ((nseed == 0)); then
	echo "FAIL: no seed input translates (tests/fuzz/corpus/ or the fuzz target is broken)"
	exit 1
fi
k=0 knew=0
for kind in new seed; do
	for f in $(ls "$out/translated/$kind" | sort); do
		((k < max)) || break
		# a seed the run also found again (same content) is compiled once
		[[ -e $picked/$f ]] || { cp "$out/translated/$kind/$f" "$picked/$f"; k=$((k + 1)); }
	done
	if [[ $kind == new ]]; then knew=$k; fi
done
echo "compiling the C of $k inputs: $knew new of $(ls "$out/translated/new" | wc -l) that translate, $((k - knew)) seeds of $nseed"
SECONDS=0
"$src"/tests/corpus/generated-c.sh "$build/stap-pmu" "$src" passing "$picked" || {
	echo "FAIL: generated C of a fuzz input does not compile (inputs in $picked)"
	exit 1
}
echo "ok: compiled in $SECONDS s"
