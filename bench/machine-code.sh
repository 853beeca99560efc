#!/bin/bash
# bench/machine-code.sh [REV] - is the modules' machine code what it was at REV?
# Builds the modules of bench/scripts/*.stp, examples/*.stp and
# tests/runtime/sample_module.stp (-p4, x86-64; the arm64 ones with -a arm64) twice with
# this build's stap-pmu: once with runtime/ as it was at REV (default HEAD~1), once with
# the work tree's; then compares every function's disassembly (objdump -dr). Addresses of
# data and of other functions, and padding, are left out: a row says which functions
# differ in their instructions. Exits 1 when any does. Not part of the test suite: the
# check a change to runtime/ or the code generator runs before it lands (docs/testing.md).
set -euo pipefail
rev=${1:-HEAD~1}
src=$(cd "$(dirname "$0")/.." && pwd)
stap=${STAP_PMU:-$src/build/stap-pmu}
work=$(mktemp -d "${TMPDIR:-/tmp}/stp-machine-code.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/base" "$work/new"

# Both builds use one runtime directory, after a build that is thrown away: a kernel's
# first build (or a runtime directory seen for the first time) runs make, later ones
# replay kbuild with the kernel's headers precompiled, and gcc orders some
# instructions differently with and without the precompiled headers.
build() { # OUT
	local s n arch
	(cd "$work" && STAP_PMU_RUNTIME=$work/runtime "$stap" -p4 --no-cache -m m_warmup \
		"$src/bench/scripts/cnt.stp" >/dev/null 2>&1 || true)
	(cd "$work" && STAP_PMU_RUNTIME=$work/runtime "$stap" -a arm64 -p4 --no-cache -m m_warmup \
		"$src/bench/scripts/arm64_read.stp" >/dev/null 2>&1 || true)
	for s in "$src"/bench/scripts/*.stp "$src"/examples/*.stp "$src"/tests/runtime/sample_module.stp; do
		n=$(basename "$s" .stp)
		arch=()
		grep -q '__arm64_sys_' "$s" && arch=(-a arm64)
		(cd "$1" && STAP_PMU_RUNTIME=$work/runtime "$stap" "${arch[@]}" -p4 --no-cache -m "m_$n" "$s" \
			>"$n.log" 2>&1) || echo "machine-code: $n left out, it does not build here: $(head -n 1 "$1/$n.log")" >&2
	done
}
echo "machine-code: building the modules with runtime/ of $rev, then of the work tree" >&2
git -C "$src" archive "$rev" runtime | tar -x -C "$work"
build "$work/base"
rm -rf "$work/runtime"
cp -a "$src/runtime" "$work/runtime"
build "$work/new"

exec python3 - "$work/base" "$work/new" <<'PY'
import os, re, subprocess, sys

def functions(ko):
    od = "objdump"
    if b"aarch64" in subprocess.run(["file", ko], capture_output=True).stdout:
        od = "aarch64-linux-gnu-objdump"
    text = subprocess.run([od, "-dr", "--no-show-raw-insn", ko], capture_output=True,
                          text=True, check=True).stdout
    funcs, cur = {}, None
    for line in text.split("\n"):
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        line = re.sub(r"^\s*[0-9a-f]+:\s*", "", line).strip()
        if cur is None or not line or re.match(r"^(nop|int3|xchg +%ax,%ax|cs nopw|data16)", line):
            continue
        # a target inside a function is named by its offset, which moves with the layout
        line = re.sub(r"[0-9a-f]+ <([^>+]*)\+0x[0-9a-f]+>", r"<\1+off>", line)
        line = re.sub(r"[0-9a-f]+ <([^>+]*)>", r"<\1>", line)
        line = re.sub(r"(\.(?:text|bss|data|rodata)[.\w]*|__dyndbg\w*)[+-]0x[0-9a-f]+", r"\1", line)
        line = re.sub(r"__UNIQUE_ID_(\w+?)\d+(\.\d+)?", r"__UNIQUE_ID_\1", line)
        cur.append(re.sub(r"\s+", " ", line))
    # a jump to a place that is no function (a cold part, past the end) is named after
    # whatever symbol precedes it, which the layout decides
    for name, lines in funcs.items():
        funcs[name] = [re.sub(r"<([^>]+)>", lambda m: m.group(0) if m.group(1) in funcs
                              else "<elsewhere>", l) for l in lines]
    return funcs

base, new = sys.argv[1], sys.argv[2]
bad = 0
print(f"{'module':28} {'functions':>9} {'same':>5}  differing")
for ko in sorted(f for f in os.listdir(base) if f.endswith(".ko")):
    if not os.path.exists(os.path.join(new, ko)):
        print(f"{ko:28} only built with the old runtime"); bad += 1; continue
    a, b = functions(os.path.join(base, ko)), functions(os.path.join(new, ko))
    names = sorted(set(a) | set(b))
    diff = [n for n in names if a.get(n) != b.get(n)]
    print(f"{ko:28} {len(names):9} {len(names) - len(diff):5}  {' '.join(diff)}")
    bad += len(diff)
sys.exit(1 if bad else 0)
PY
