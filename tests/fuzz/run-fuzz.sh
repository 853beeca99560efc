#!/bin/bash
# run-fuzz.sh SOURCE_DIR BUILD_DIR SECONDS - builds the libFuzzer target over
# the translator (tests/fuzz/fuzz_frontend.cpp) in a clang build tree with
# -fsanitize=fuzzer,address,undefined and runs it for SECONDS on a copy of
# the committed seed corpus. Any crash, hang (10 s per input), sanitizer
# report or round-trip mismatch fails the test. Then the C generated for the
# inputs the run added that pass semantics must compile with kbuild
# (tests/corpus/generated-c.sh, at most FUZZ_COMPILE_MAX of them, default 40). The
# seed is fixed (FUZZ_SEED overrides) so that CI explores the same inputs
# each run; longer exploratory runs should vary it. FUZZ_TIMEOUT (seconds per
# input, default 10) can be raised for runs on a loaded machine.
set -eu
src=$1 build=$2 secs=${3:-60}
out=$build/fuzz
mkdir -p "$out"
cxx=$(command -v clang++-14 || command -v clang++ || true)
if [[ -z $cxx ]]; then
	echo "FAIL: clang++ not found (scripts/install-deps.sh installs clang)"
	exit 1
fi
cc=$(command -v clang-14 || command -v clang || true)
# A second build tree with every translator and pmu/ source instrumented.
tree=$out/build
if [[ ! -f $tree/CMakeCache.txt ]]; then
	cmake -S "$src" -B "$tree" -DSTAP_PMU_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo \
		-DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" >"$out/configure.log" 2>&1 || {
		cat "$out/configure.log"
		echo "FAIL: cannot configure the fuzz build"
		exit 1
	}
fi
cmake --build "$tree" --target fuzz_frontend -j2 >"$out/build.log" 2>&1 || {
	tail -40 "$out/build.log"
	echo "FAIL: cannot build the fuzz target"
	exit 1
}
bin=$tree/tests/fuzz/fuzz_frontend
work=$out/corpus
rm -rf "$work"
mkdir -p "$work"
cp "$src"/tests/fuzz/corpus/* "$work"/
cd "$out"
"$bin" -seed="${FUZZ_SEED:-20261129}" -max_total_time="$secs" -timeout="${FUZZ_TIMEOUT:-10}" -max_len=4096 -rss_limit_mb=2048 \
	-print_final_stats=1 "$work" 2>&1 | tail -25
rc=${PIPESTATUS[0]}
if ((rc != 0)); then
	echo "FAIL: the fuzzer stopped with status $rc (crash-*, timeout-* or leak-* file in $out)"
	exit 1
fi
echo "ok: fuzzed $secs s with no crash"

# The C of new inputs that translate must compile: the fuzz target runs
# once over the inputs this run added and keeps those that translate; the
# first FUZZ_COMPILE_MAX of them (by content hash) are built with kbuild.
max=${FUZZ_COMPILE_MAX:-40}
kept=$out/translated picked=$out/compile
rm -rf "$kept" "$picked"
mkdir -p "$kept" "$picked"
new=()
for f in "$work"/*; do
	[[ -e $src/tests/fuzz/corpus/$(basename "$f") ]] || new+=("$f")
done
if ((${#new[@]})); then
	STAP_FUZZ_KEEP_TRANSLATED=$kept "$bin" -runs=1 "${new[@]}" >"$out/rerun.log" 2>&1 || {
		tail -20 "$out/rerun.log"
		echo "FAIL: rerunning the new inputs failed"
		exit 1
	}
fi
k=0
for f in $(ls "$kept" | sort); do
	((k < max)) || break
	cp "$kept/$f" "$picked/$f"
	k=$((k + 1))
done
if ((k == 0)); then
	echo "ok: no new input translates; nothing to compile"
	exit 0
fi
"$src"/tests/corpus/generated-c.sh "$build/stap-pmu" "$src" passing "$picked" || {
	echo "FAIL: generated C of a fuzz input does not compile (inputs in $picked)"
	exit 1
}
