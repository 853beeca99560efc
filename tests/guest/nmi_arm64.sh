#!/bin/bash
# nmi_arm64.sh STAP_PMU SOURCE_DIR KERNEL - sampling probes in real NMIs on
# arm64 (two CPUs, one boot): the debugging kernel built with ARM64_PSEUDO_NMI
# (scripts/debug-kernel.sh --arch arm64; spec 6.1-debug), which the --vm
# harness boots on a GICv3 with irqchip.gicv3_pseudo_nmi=1 because its tree's
# configuration says so. The PMU overflow interrupt is then an NMI, also
# while interrupts are masked, so the sampling probes
# (tests/guest/scripts/nmi_arm64.stp: kernel instructions and cycles) run in
# NMI context and land inside the busy probe's bodies (getpid, looping
# printing), writing to the CPU's nested ring. Checked, exactly:
#  - the boot: the GIC enabled pseudo-NMIs and the PMU driver uses NMIs
#    (the kernel's own lines, from dmesg);
#  - every sampling line says in_nmi 1; both events sampled; lines that say
#    "over 1" (the NMI interrupted a body of its CPU) are more than 0 and
#    exactly the records the loader (-v) reports through the nested rings;
#  - each sampling event's line numbers are distinct and within 1..hits, and
#    every hit is printed or dropped: sampling lines + busy lines + records
#    dropped (the loader's warning) == sampling hits + busy hits;
#  - each worker's BUSY getpid calls were all probed (the script's
#    per-CPU counts); no hit skipped; exit 0 and (the --vm harness) a clean
#    kernel log: no lockdep, KASAN, kmemleak, might_sleep report.
set -u
stap_pmu=$1 src=$2 kernel_spec=${3:?a kernel spec (tests/lib/kernel.sh)}
busy=${NMI_BUSY:-3000}
cd "$src" || exit 1
# shellcheck source=tests/lib/kernel.sh
source tests/lib/kernel.sh
release=$(test_kernel "$kernel_spec" arm64) || { echo "FAIL: no kernel"; exit 1; }
echo "kernel: $release"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

w="pmu-workload getpid $busy"
cmd="sh -c 'taskset -c 0 $w & taskset -c 1 $w & wait'
dmesg | grep -E 'Pseudo-NMIs enabled|hw perfevents: enabled'"
start=$(date +%s)
"$stap_pmu" -v -a arm64 -r "$release" --vm --vm-smp 2 -g -D STP_NO_OVERLOAD -c "$cmd" \
	tests/guest/scripts/nmi_arm64.stp >"$work/out" 2>"$work/err"
rc=$?
echo "run time: $(( $(date +%s) - start )) s"
python3 - "$work/out" "$work/err" "$rc" "$busy" <<'PY'
import re, sys
sys.path.insert(0, "tests/lib")
from guest_checks import finish, loader_counts
out = open(sys.argv[1]).read().splitlines()
err = open(sys.argv[2]).read().splitlines()
rc, busy = int(sys.argv[3]), int(sys.argv[4])
fails = []
def check(ok, msg):
    if not ok:
        fails.append(msg)
check(rc == 0, "exit status %d" % rc)
check(any(re.search(r"GICv3: Pseudo-NMIs enabled using \w+ ICC_PMR_EL1 synchronisation", l)
          for l in out), "the GIC did not enable pseudo-NMIs (boot log)")
check(any(re.search(r"hw perfevents: enabled with armv8_\w+ PMU driver, \d+ counters "
                    r"available, using NMIs$", l) for l in out),
      "the PMU driver does not use NMIs (boot log)")
lines = {"insn": [], "cycles": []}
over = {"insn": 0, "cycles": 0}
bad = []
for l in out:
    if l.startswith("sample "):
        m = re.fullmatch(r"sample (insn|cycles) cpu([01]) n (\d+) in_nmi ([01]) over ([01])", l)
        if not m or m[4] != "1":
            bad.append(l)
            continue
        lines[m[1]].append(int(m[3]))
        over[m[1]] += m[5] == "1"
check(not bad, "%d sampling lines not in NMI or malformed, the first: %r" %
      (len(bad), bad[:3]))
ends = [l for l in out if l.startswith("end hits ")]
m = re.fullmatch(r"end hits insn (\d+) cycles (\d+)", ends[0]) if len(ends) == 1 else None
if not m:
    sys.exit("FAIL: no single end hits line:\n" + "\n".join(out[-20:] + err))
hits = {"insn": int(m[1]), "cycles": int(m[2])}
busy_counted = {}
for l in out:
    mm = re.fullmatch(r"end busy cpu(\d) (\d+)", l)
    if mm:
        busy_counted[int(mm[1])] = int(mm[2])
busy_lines = len([l for l in out if re.fullmatch(r"b{40} busy 44", l)])
st = loader_counts(err)
dropped, skipped, nested = st["dropped"], st["skipped"], st["nested"]
for ev in ("insn", "cycles"):
    n = lines[ev]
    check(hits[ev] > 0, "no %s sample" % ev)
    check(len(set(n)) == len(n) and all(1 <= x <= hits[ev] for x in n),
          "%s: line numbers not distinct within 1..%d" % (ev, hits[ev]))
    if dropped == 0:
        check(sorted(n) == list(range(1, hits[ev] + 1)),
              "%s: %d lines, expected 1..%d, nothing dropped" % (ev, len(n), hits[ev]))
total_over = over["insn"] + over["cycles"]
check(total_over > 0, "no sampling NMI landed over a running body")
check(nested == total_over, "records through the nested rings %d != sampling lines over a "
      "body %d" % (nested, total_over))
check(busy_counted == {0: busy, 1: busy}, "busy hits per CPU %s, expected %d each" %
      (busy_counted, busy))
printed = len(lines["insn"]) + len(lines["cycles"]) + busy_lines
check(printed + dropped == hits["insn"] + hits["cycles"] + 2 * busy,
      "printed %d + dropped %d != sampling hits %d + busy hits %d" %
      (printed, dropped, hits["insn"] + hits["cycles"], 2 * busy))
check(skipped == 0, "%d hits skipped" % skipped)
check(not any(re.search("WARNING|BUG|Oops", l) for l in err
              if not re.fullmatch(r"WARNING: \d+ output records? dropped.*", l)),
      "a warning on stderr")
print("hits insn %d cycles %d, lines insn %d cycles %d, over a body insn %d cycles %d, "
      "nested records %d, busy %d lines of %d, dropped %d" %
      (hits["insn"], hits["cycles"], len(lines["insn"]), len(lines["cycles"]), over["insn"],
       over["cycles"], nested, busy_lines, 2 * busy, dropped))
finish(fails, out, err)
PY
