"""guest_checks.py - helpers for the guest tests' python checks (imported from
the source directory: sys.path.insert(0, "tests/lib")).

loader_counts(lines) -> {"dropped": N, "skipped": N, "nested": N}: the counts
the loader prints on stderr at the end of a run (translator/run/loader.cpp,
loader_procfs.cpp): output records dropped, probe hits skipped, output records
through the nested (NMI) rings; 0 for a count it did not print (it prints
none that is 0).

finish(fails, out, err): prints each failure as "FAIL: ..."; when there is
one, the run's last 30 stdout lines and its stderr, and exits 1.
"""
import re
import sys

PATTERNS = {
    "dropped": r"WARNING: (\d+) output records? dropped \(\d+ bytes?\).*",
    "skipped": r"WARNING: (\d+) probe hits skipped",
    "nested": r"stap-pmu: (\d+) output records? through the nested \(NMI\) rings",
}


def loader_counts(lines):
    counts = dict.fromkeys(PATTERNS, 0)
    for line in lines:
        for key, pattern in PATTERNS.items():
            m = re.fullmatch(pattern, line)
            if m:
                counts[key] = int(m[1])
    return counts


def finish(fails, out, err):
    for f in fails:
        print("FAIL:", f)
    if fails:
        print("--- stdout (last 30 lines)")
        print("\n".join(out[-30:]))
        print("--- stderr")
        print("\n".join(err))
        sys.exit(1)
