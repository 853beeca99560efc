#!/bin/bash
# nmi.sh STAP_PMU SOURCE_DIR KERNEL TESTMOD_DIR - probe bodies in NMI context
# (x86, two CPUs, one boot). The test module (tests/testmod) raises ROUNDS
# rounds of NMIs: an NMI IPI to both CPUs, then a wait until each CPU's
# handler took its NMI, which calls stp_tm_nmi_hit(seq) (seq: 1, 2, ... per
# CPU). Meanwhile a worker pinned to each CPU calls stp_tm_busy(1..BUSY),
# whose probe loops printing with interrupts off (most of the worker's time:
# -D STP_NO_OVERLOAD); the module counts the NMIs
# that landed inside that probe's handler (in_probe). The module's
# functions are probed through the script module's ftrace_ops (-v says so),
# which an NMI reaches even over a running probe. Checked, exactly:
#  - the module handled ROUNDS * 2 NMIs, none lost, some (in_probe > 0)
#    inside a running probe;
#  - the lock-free NMI probe ran in every NMI: per CPU its seqs are exactly
#    1..ROUNDS, every line says in_nmi 1; the lines that say "over 1" (the
#    NMI interrupted a body on its CPU) are more than 0, at most in_probe,
#    and exactly the records the loader (-v) reports through the nested
#    (NMI) rings;
#  - the array-updating NMI probe (the array's lock tried once) and the one
#    adding to a scalar statistic (per-CPU: never run over a body of its
#    CPU): the latter counted exactly the NMIs not over a body, and both
#    counts + hits skipped (the loader's warning) == 2 * NMIs handled, the
#    locking one skipped some (an NMI over a body holding the lock);
#  - each worker's BUSY hits printed and counted; no record dropped; exit 0
#    and (the --vm harness) a clean kernel log;
#  - unloading the test module unregisters its NMI handler: loaded again
#    (--vm-after), 10 rounds give exactly 20 NMIs and a clean log.
set -u
stap_pmu=$1 src=$2 kernel_spec=${3:?a kernel spec (tests/lib/kernel.sh)}
testmod=${4:-${STP_TESTMOD_DIR:?}}/stp_testmod.ko
rounds=${NMI_ROUNDS:-300} busy=${NMI_BUSY:-2000}
cd "$src" || exit 1
# shellcheck source=tests/lib/guest-script.sh
source tests/lib/guest-script.sh
guest_script_init "$kernel_spec"
[[ -f $testmod ]] || { echo "FAIL: no test module $testmod (ctest runs testmod.build first)"; exit 1; }

w="echo busy $busy > /proc/stp_testmod"
cmd="sh -c 'taskset -c 0 sh -c \"$w\" & taskset -c 1 sh -c \"$w\" &
echo nmi $rounds > /proc/stp_testmod; wait; cat /proc/stp_testmod'"
# after the script: the test module unloaded and loaded again, 10 rounds. Had
# the first load left its NMI handler registered, the next NMI would call
# into the freed module (the kernel log check fails the run).
after='rmmod stp_testmod && insmod /stap-pmu/extra/stp_testmod.ko && echo =reloaded= &&
echo nmi 10 > /proc/stp_testmod && cat /proc/stp_testmod'
"$stap_pmu" -v -r "$release" --vm --vm-smp 2 -g -D STP_NO_OVERLOAD --vm-module "$testmod" -c "$cmd" \
	--vm-after "$after" tests/guest/scripts/nmi_testmod.stp >"$work/out" 2>"$work/err"
rc=$?
python3 - "$work/out" "$work/err" "$rc" "$rounds" "$busy" <<'PY'
import re, sys
sys.path.insert(0, "tests/lib")
from guest_checks import finish, loader_counts
out = open(sys.argv[1]).read().splitlines()
err = open(sys.argv[2]).read().splitlines()
rc, rounds, busy = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
fails = []
# the reload after the script: its own totals, from 0 again
if "=reloaded=" in out:
    k = out.index("=reloaded=")
    out, reload = out[:k], out[k + 1:]
else:
    reload = []
if reload[:1] != ["nmi rounds 10 cpus 2 handled 20 lost 0 in_probe 0"]:
    fails.append("after rmmod and insmod: %r, expected 10 rounds, 20 NMIs" % reload[:1])
def check(ok, msg):
    if not ok:
        fails.append(msg)
check(rc == 0, "exit status %d" % rc)
tot = [l for l in out if l.startswith("nmi rounds ")]
m = re.fullmatch(r"nmi rounds (\d+) cpus (\d+) handled (\d+) lost (\d+) in_probe (\d+)",
                 tot[0]) if len(tot) == 1 else None
if not m:
    sys.exit("FAIL: no single module totals line:\n" + "\n".join(out[-20:] + err))
r, cpus, handled, lost, inprobe = map(int, m.groups())
percpu = {}
for l in out:
    mm = re.fullmatch(r"cpu(\d) handled (\d+) in_probe (\d+)", l)
    if mm:
        percpu[int(mm[1])] = (int(mm[2]), int(mm[3]))
check(r == rounds and cpus == 2, "rounds %d cpus %d" % (r, cpus))
check(handled == 2 * rounds, "handled %d, expected %d" % (handled, 2 * rounds))
check(lost == 0, "lost %d" % lost)
check(inprobe > 0, "no NMI landed inside a running probe (in_probe 0)")
check(sorted(percpu) == [0, 1] and all(h == rounds for h, _ in percpu.values()),
      "per-CPU handled: %s" % percpu)
seqs = {0: [], 1: []}
over = 0
for l in out:
    if l.startswith("nmi cpu"):
        mm = re.fullmatch(r"nmi cpu(\d) seq (\d+) in_nmi (\d) over ([01])", l)
        if not mm or mm[3] != "1":
            check(False, "bad NMI probe line: %r" % l)
            continue
        seqs[int(mm[1])].append(int(mm[2]))
        over += mm[4] == "1"
printed = sum(len(v) for v in seqs.values())
counted = 0
for c, v in seqs.items():
    check(v == list(range(1, rounds + 1)),
          "cpu%d: the lock-free NMI probe did not print seqs 1..%d exactly once (%d lines)" %
          (c, rounds, len(v)))
    ends = [l for l in out if l.startswith("end nmi cpu%d " % c)]
    counted += int(ends[0].split()[-1]) if len(ends) == 1 else 0
st = loader_counts(err)
skipped, nested = st["skipped"], st["nested"]
check(any(re.search(r"stap_pmu_[0-9a-f]+: probes: 4 entry through ftrace_ops, 0 kprobes", l)
          for l in err), "the module's functions not probed through the ftrace_ops")
check(0 < over <= inprobe, "NMI lines over a body %d, expected 1..in_probe %d" % (over, inprobe))
check(nested == over, "records through the nested rings %d != NMI lines over a body %d" %
      (nested, over))
pc = [int(l.split()[-1]) for l in out if l.startswith("end pcpu ")]
pc = pc[0] if len(pc) == 1 else -1
check(pc == handled - over,
      "per-CPU NMI probe counted %d, expected the %d NMIs not over a body" % (pc, handled - over))
check(counted + pc + skipped == 2 * handled,
      "locked NMI probe %d + per-CPU one %d + skipped %d != 2 * handled %d" %
      (counted, pc, skipped, handled))
check(skipped > over, "the locked NMI probe was never skipped")
for c in (0, 1):
    check(("end busy cpu%d %d" % (c, busy)) in out, "cpu%d: not %d busy hits" % (c, busy))
check(len([l for l in out if re.fullmatch(r"b{40} busy \d+ 43", l)]) == 2 * busy,
      "not %d busy lines" % (2 * busy))
check(not any("dropped" in l for l in err), "records dropped")
check(not any(re.search("WARNING|BUG|Oops", l) for l in err
              if not re.fullmatch(r"WARNING: \d+ probe hits skipped", l)),
      "a warning on stderr")
print("rounds %d handled %d in_probe %d printed %d (over a body %d, nested records %d) "
      "locked probe counted %d, per-CPU probe %d, skipped %d" %
      (r, handled, inprobe, printed, over, nested, counted, pc, skipped))
finish(fails, out, err)
PY
