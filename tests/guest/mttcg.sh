#!/bin/bash
# mttcg.sh STAP_PMU SOURCE_DIR KERNEL - true concurrency: four vCPUs under
# QEMU's multi-threaded TCG (--vm-tcg multi), each a host thread, so probe
# bodies run on several CPUs at the same instant (single-threaded TCG runs
# the vCPUs in turns). No text is patched while the workload runs: the
# kprobe is registered before the workers start and unregistered after they
# have all exited (docs/testing.md, "True concurrency", says why that matters).
# RUNS runs in one boot: the script's own run, then --vm-after loads the same
# module RUNS-1 more times with the guest's loader. Each run has two phases,
# each starting its four workers (one pinned to each CPU) together:
#  1. getpid CALLS times each; every hit updates a scalar n, an array
#     per_cpu[cpu()] and a statistic s <<< cpu()+1 and prints "gC n" with n's
#     new value, into 16 KiB per-CPU output buffers (-D STP_BUFSIZE=16384), so
#     the reader falls behind and records are dropped. Checked per run: n +
#     skipped >= 4 * CALLS >= n; per_cpu sums to n, none over CALLS;
#     @count(s) == n and @sum(s) == sum of per_cpu[c] * (c + 1); printed
#     lines + dropped records == n; the printed values are distinct, within
#     1..n and rising in output order (each is printed under the lock that
#     made it).
#  2. READS one-byte reads each, counted by a lock-free probe with a plain,
#     non-atomic increment (-g, embedded C): the witness of parallelism. With
#     --vm-tcg multi the runs together must lose increments (vCPUs running at
#     the same instant); with MTTCG_TCG=single (for comparison) none may.
# Exit 0 and a clean kernel log (the --vm harness); -v shows QEMU's -accel.
set -u
stap_pmu=$1 src=$2 kernel_spec=${3:?a kernel spec (tests/lib/kernel.sh)}
runs=${MTTCG_RUNS:-20} calls=${MTTCG_CALLS:-2000} reads=${MTTCG_READS:-10000}
tcg=${MTTCG_TCG:-multi}
cd "$src" || exit 1
# shellcheck source=tests/lib/guest-script.sh
source tests/lib/guest-script.sh
guest_script_init "$kernel_spec"

# each phase's four workers wait for a file, so that they run at the same
# time (a worker alone makes its calls in less time than the next one takes
# to start): getpid CALLS times each, then READS one-byte reads each
phase='for c in 0 1 2 3; do taskset -c $c sh -c "while [ ! -e /tmp/GO ]; do :; done; exec pmu-workload WORK" & done; sleep 0.2; touch /tmp/GO; wait'
p1=${phase//GO/go1} p2=${phase//GO/go2}
workers="rm -f /tmp/go1 /tmp/go2; ${p1/WORK/getpid $calls}; ${p2/WORK/read $reads}"
# the later runs: the guest's loader on the same module file; its warnings
# (drops, skips) into stdout, after the run's own lines
after="for r in \$(seq 2 $runs); do echo =run \$r=
stap-pmu-loader -c '$workers' /stap-pmu/stap_pmu_*.ko 2>&1 || echo =loader failed=; done"
start=$SECONDS
"$stap_pmu" -v -g -r "$release" --vm --vm-tcg "$tcg" --vm-smp 4 --vm-timeout 600 \
	-D STP_BUFSIZE=16384 -c "$workers" --vm-after "$after" \
	tests/guest/scripts/mttcg_shared.stp >"$work/out" 2>"$work/err"
rc=$?
echo "one boot, $runs runs: $((SECONDS - start)) s"
python3 - "$work/out" "$work/err" "$rc" "$runs" "$calls" "$tcg" "$reads" <<'PY'
import re, sys
out = open(sys.argv[1]).read().splitlines()
err = open(sys.argv[2]).read().splitlines()
rc, runs, calls, tcg = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
reads = int(sys.argv[7])
fails = []
def check(ok, msg):
    if not ok:
        fails.append(msg)
check(rc == 0, "exit status %d" % rc)
check(any(re.match(r"stap-pmu: running: qemu-system-x86_64 .*-accel tcg,thread=%s " % tcg, l) for l in err),
      "no 'stap-pmu: running: qemu-system-x86_64 ... -accel tcg,thread=%s' line (-v)" % tcg)
# split stdout into runs; run 1's warnings are on stderr
chunks, cur = [], []
for l in out:
    if re.fullmatch(r"=run \d+=", l):
        chunks.append(cur); cur = []
    else:
        cur.append(l)
chunks.append(cur)
check(len(chunks) == runs, "%d runs in the output, expected %d" % (len(chunks), runs))
chunks[0] = chunks[0] + err
summary, lost = [], 0
for i, lines in enumerate(chunks, 1):
    tag = "run %d: " % i
    def count(pat):
        for l in lines:
            m = re.fullmatch(pat, l)
            if m:
                return int(m[1])
        return 0
    dropped = count(r"WARNING: (\d+) output records dropped \(\d+ bytes\).*")
    skipped = count(r"WARNING: (\d+) probe hits skipped")
    m = [re.fullmatch(r"end n=(\d+) count=(\d+) sum=(\d+) racy=(\d+)", l) for l in lines]
    m = [x for x in m if x]
    if len(m) != 1:
        check(False, tag + "no single end line"); continue
    n, cnt, ssum, racy = map(int, m[0].groups())
    nreads = 4 * reads
    check(racy <= nreads, tag + "racy counter %d over %d reads" % (racy, nreads))
    lost += nreads - racy
    per = {}
    for l in lines:
        x = re.fullmatch(r"end cpu(\d+)=(\d+)", l)
        if x:
            per[int(x[1])] = int(x[2])
    check(n <= 4 * calls and n + skipped >= 4 * calls,
          tag + "n %d, skipped %d, %d calls" % (n, skipped, 4 * calls))
    check(sorted(per) == [0, 1, 2, 3], tag + "CPUs %s" % sorted(per))
    check(sum(per.values()) == n and all(v <= calls for v in per.values()),
          tag + "per_cpu %s, n %d" % (per, n))
    check(cnt == n and ssum == sum(v * (c + 1) for c, v in per.items()),
          tag + "statistic count %d sum %d" % (cnt, ssum))
    vals, last, bad, top = set(), {}, 0, 0
    for l in lines:
        x = re.fullmatch(r"g(\d) (\d+)", l)
        if not x:
            continue
        c, v = int(x[1]), int(x[2])
        bad += v in vals or not 1 <= v <= n or v <= last.get(c, 0) or v <= top
        vals.add(v); last[c] = v; top = max(top, v)
    check(bad == 0, tag + "%d printed values repeated, out of 1..n or not rising per CPU" % bad)
    # n's hits printed or dropped (the lock-free probe prints nothing)
    check(len(vals) + dropped == n,
          tag + "printed %d + dropped %d != n %d" % (len(vals), dropped, n))
    check(not any(l == "=loader failed=" for l in lines), tag + "the loader failed")
    summary.append("%d+%d" % (len(vals), dropped) + ("/s%d" % skipped if skipped else "") +
                   " r%d" % (nreads - racy))
check(not any(re.search("BUG|Oops", l) for l in err), "a kernel problem on stderr")
# the racy counter: parallel vCPUs lose increments, vCPUs taking turns none
if tcg == "multi":
    check(lost > 0, "the racy counter lost no increment in %d runs: the vCPUs did "
          "not run in parallel" % runs)
else:
    check(lost == 0, "the racy counter lost %d increments with single-threaded TCG" % lost)
print("per run: printed+dropped[/skipped] rRACY_LOST: %s" % ", ".join(summary))
print("racy counter: %d increments lost in %d runs" % (lost, runs))
for f in fails:
    print("FAIL:", f)
if fails:
    print("--- stdout (last 30 lines)"); print("\n".join(out[-30:]))
    print("--- stderr"); print("\n".join(err[-30:]))
    sys.exit(1)
PY
