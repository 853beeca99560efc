#!/bin/bash
# output.sh STAP_PMU SOURCE_DIR KERNEL - the output transport in x86 guests
# (docs/runtime.md, "Output transport"). Two boots:
#  1. --vm-at-boot, one CPU, -D STP_BUFSIZE=4096: 1000 one-line records and no
#     reader until the workload ends. The command then reads the first 300
#     bytes of /proc/<module>/output one byte per read (dd bs=1), which ends in
#     the middle of a record, and the rest framed from /proc/<module>/records
#     seven bytes per read (dd bs=7). Checked: the 300 bytes and the frames'
#     texts together are exactly "line 1".."line K"; the first frame carries
#     the rest of the cut record; the frames' seq numbers follow each other,
#     with cpu 0 and the probe's name; the loader's warning says D records and
#     B bytes were dropped, K + D == 1000 (the script's count, printed by the
#     end probe, which comes last), and B is exactly the bytes of lines
#     K+1..1000.
#  2. two CPUs, --output-format json, a workload pinned to each CPU calling
#     getpid 500 times (100 processes of 5 calls each, so that the CPUs take
#     turns): every line is a JSON object; seq runs 1..N without gaps in
#     order; per CPU the records alternate "call cpuC k" (k = 1..500 in
#     order) and "return cpuC", with the right probe names and cpu fields; the
#     begin record comes first with its escapes decoded, the end record last.
set -u
stap_pmu=$1 src=$2 kernel_spec=${3:?a kernel spec (tests/lib/kernel.sh)}
cd "$src" || exit 1
# KERNEL: the guest kernel, a tests/lib/kernel.sh spec ("suite:6.1", "6.12")
# shellcheck source=tests/lib/kernel.sh
source tests/lib/kernel.sh
release=$(test_kernel "$kernel_spec" amd64) || { echo "FAIL: no kernel"; exit 1; }
echo "kernel: $release"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail=0
say() { echo "FAIL: $*"; fail=1; }
show() { echo "--- stdout (first and last 20 lines)"; head -20 "$work/out"; echo ...; tail -20 "$work/out"
	echo "--- stderr"; cat "$work/err"; }

# 1. a full buffer, short reads of both files
cmd='pmu-workload getpid 1000; for d in /proc/stap_pmu_*; do
dd if=$d/output bs=1 count=300 2>/dev/null; echo; echo =records=
dd if=$d/records bs=7 2>/dev/null; echo; echo =end=; done'
"$stap_pmu" -r "$release" --vm --vm-at-boot --vm-smp 1 -D STP_BUFSIZE=4096 -c "$cmd" \
	tests/guest/scripts/output_drops.stp >"$work/out" 2>"$work/err"
rc=$?
((rc == 0)) || say "drops: exit status $rc"
k=$(python3 - "$work/out" 2>&1 <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
m = re.fullmatch(rb"(.{300})\n=records=\n(.*)\n=end=\nprints=1000\n", data, re.S)
if not m:
    sys.exit("drops: not 300 bytes, =records=, frames, =end=, prints=1000: %r" % data[:400])
text, frames = m.group(1), m.group(2)
first, seqs, pos = None, [], 0
name = b'kprobe.function("__x64_sys_getpid")'
while pos < len(frames):
    nl = frames.index(b"\n", pos)
    f = frames[pos:nl].split(b" ")
    if len(f) != 6 or f[1] != b"0" or f[3] != b"o" or int(f[4]) != len(name):
        sys.exit("drops: bad frame header %r" % frames[pos:nl])
    body = nl + 1
    if frames[body:body + len(name)] != name:
        sys.exit("drops: bad probe name in frame %r" % frames[pos:body + 60])
    t = frames[body + len(name):body + len(name) + int(f[5])]
    if first is None:
        first = t
    text += t
    seqs.append(int(f[0]))
    pos = body + len(name) + int(f[5])
lines = text.decode().split("\n")
k = len(lines) - 1
if lines[-1] != "" or lines[:-1] != ["line %d" % i for i in range(1, k + 1)]:
    sys.exit("drops: the text is not exactly line 1..line %d: %r" % (k, text[:200]))
cut = text[:300].rsplit(b"\n", 1)[1]
if not first or cut + first != b"line %d\n" % (text[:300].count(b"\n") + 1):
    sys.exit("drops: the first frame %r does not complete the cut record %r" % (first, cut))
if seqs != list(range(seqs[0], seqs[0] + len(seqs))) or seqs[-1] != k:
    sys.exit("drops: frame seq numbers %s..%s for %d frames, last line %d" % (seqs[0], seqs[-1], len(seqs), k))
print(k)
PY
)
if ! [[ $k =~ ^[0-9]+$ ]]; then say "$k"; k=-1; fi
re='^WARNING: ([0-9]+) output records dropped \(([0-9]+) bytes\): a CPU.s output buffer \(4096 bytes\) was full; -D STP_BUFSIZE=BYTES makes it larger$'
w=$(grep -E "$re" "$work/err")
if [[ $w =~ $re ]]; then
	d=${BASH_REMATCH[1]} b=${BASH_REMATCH[2]}
	((k > 0 && d > 0)) || say "drops: $k lines printed and $d dropped; expected both"
	((k + d == 1000)) || say "drops: $k printed + $d dropped != 1000 prints"
	bytes=0
	for ((i = k + 1; i <= 1000; i++)); do ((bytes += ${#i} + 6)); done
	((b == bytes)) || say "drops: $b bytes dropped, lines $((k + 1))..1000 have $bytes"
	echo "drops: $k records printed, $d ($b bytes) dropped"
else
	say "drops: no drop warning"
fi
((fail)) && show
first_fail=$fail

# 2. two CPUs, JSON
cmd='for c in 0 1; do taskset -c $c sh -c "i=0; while [ \$i -lt 100 ]; do pmu-workload getpid 5; i=\$((i+1)); done" & done; wait'
"$stap_pmu" -r "$release" --vm --vm-smp 2 --output-format json -D STP_BUFSIZE=1048576 -c "$cmd" \
	tests/guest/scripts/output_smp.stp >"$work/out" 2>"$work/err"
rc=$?
((rc == 0)) || say "smp json: exit status $rc"
python3 - "$work/out" <<'PY' || say "smp json: records wrong"
import json, sys
fail = []
recs = []
for i, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    try:
        recs.append(json.loads(line))
    except ValueError as e:
        sys.exit("line %d is not JSON (%s): %r" % (i, e, line[:200]))
keys = ["probe", "cpu", "timestamp_ns", "seq", "type", "text"]
for r in recs:
    if list(r) != keys or r["type"] != "output":
        sys.exit("unexpected record %r" % r)
seqs = [r["seq"] for r in recs]
if seqs != list(range(1, len(recs) + 1)):
    sys.exit("seq is not 1..%d in order" % len(recs))
begin, end, body = recs[0], recs[-1], recs[1:-1]
if begin["probe"] != "begin" or begin["text"] != 'begin "quoted" back\\slash\ttab bell\a byte\ufffd end\n':
    sys.exit("begin record wrong: %r" % begin)
if end["probe"] != "end" or end["text"] != "end cpu0 500\nend cpu1 500\n":
    sys.exit("end record wrong: %r" % end)
entry, ret = 'kprobe.function("__x64_sys_getpid")', 'kprobe.function("__x64_sys_getpid").return'
per_cpu = {0: [], 1: []}
for r in body:
    if r["cpu"] not in per_cpu or not begin["timestamp_ns"] <= r["timestamp_ns"] <= end["timestamp_ns"]:
        sys.exit("cpu or timestamp wrong: %r" % r)
    per_cpu[r["cpu"]].append(r)
for cpu, rs in per_cpu.items():
    want = []
    for k in range(1, 501):
        want += [(entry, "call cpu%d %d\n" % (cpu, k)), (ret, "return cpu%d\n" % cpu)]
    got = [(r["probe"], r["text"]) for r in rs]
    if got != want:
        bad = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
        sys.exit("cpu%d: %d records, record %d is %r, expected %r" % (
            cpu, len(got), bad, got[bad] if bad < len(got) else None, want[bad] if bad < len(want) else None))
switches = sum(1 for a, b in zip(body, body[1:]) if a["cpu"] != b["cpu"])
print("smp json: %d records, the CPUs took turns %d times" % (len(recs), switches))
PY
grep -q WARNING "$work/err" && say "smp json: warnings: $(grep WARNING "$work/err")"
((fail > first_fail)) && show
((fail)) && exit 1
echo "ok: drops counted exactly, short reads, per-CPU records merged in order, JSON"
