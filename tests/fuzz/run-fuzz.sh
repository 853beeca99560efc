#!/bin/bash
# run-fuzz.sh SOURCE_DIR BUILD_DIR SECONDS - builds the libFuzzer target over
# the front end with clang++ (-fsanitize=fuzzer,address,undefined) and runs it
# for SECONDS on a copy of the committed seed corpus. Any crash, hang (10 s
# per input), sanitizer report or round-trip mismatch fails the test. The
# seed is fixed (FUZZ_SEED overrides) so that CI explores the same inputs
# each run; longer exploratory runs should vary it.
set -eu
src=$1 build=$2 secs=${3:-60}
out=$build/fuzz
mkdir -p "$out"
cxx=$(command -v clang++-14 || command -v clang++ || true)
if [[ -z $cxx ]]; then
	echo "FAIL: clang++ not found (scripts/install-deps.sh installs clang)"
	exit 1
fi
srcs=("$src"/tests/fuzz/fuzz_frontend.cpp)
for f in source diagnostics lexer ast parser parser_stmt parser_expr printer suggest builtins format sema sema_probes sema_stmt sema_vars sema_expr sema_calls preprocess dwarf; do
	srcs+=("$src/translator/$f.cpp")
done
srcs+=("$src"/translator/probes/begin_end.cpp "$src"/translator/probes/kprobe.cpp
	"$src"/translator/probes/timer.cpp "$src"/translator/probes/probe_kind.cpp)
# providers added since (perf, ...) are linked when they only need the front end
for f in "$src"/translator/probes/*.cpp; do
	case " ${srcs[*]} " in *" $f "*) continue ;; esac
	if ! grep -q '#include "pmu/' "$f"; then srcs+=("$f"); fi
done
bin=$out/fuzz_frontend
if [[ ! -x $bin ]] || [[ -n $(find "${srcs[@]}" "$src"/translator/*.h "$src"/translator/probes/*.h -newer "$bin" 2>/dev/null | head -1) ]]; then
	"$cxx" -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-I"$src" "${srcs[@]}" -ldw -lelf -o "$bin.tmp"
	mv "$bin.tmp" "$bin"
fi
work=$out/corpus
rm -rf "$work"
mkdir -p "$work"
cp "$src"/tests/fuzz/corpus/* "$work"/
cd "$out"
"$bin" -seed="${FUZZ_SEED:-20261129}" -max_total_time="$secs" -timeout=10 -max_len=4096 -rss_limit_mb=2048 \
	-print_final_stats=1 "$work" 2>&1 | tail -25
rc=${PIPESTATUS[0]}
if ((rc != 0)); then
	echo "FAIL: the fuzzer stopped with status $rc (crash-*, timeout-* or leak-* file in $out)"
	exit 1
fi
echo "ok: fuzzed $secs s with no crash"
