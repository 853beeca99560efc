"""loader_status.py - the counts the loader prints on stderr at the end of a run
(translator/run/loader.cpp, loader_procfs.cpp), for the guest tests' python
checks (imported from the source directory: sys.path.insert(0, "tests/lib")).

loader_counts(lines) -> {"dropped": N, "skipped": N, "nested": N}: output
records dropped, probe hits skipped, output records through the nested (NMI)
rings; 0 for a count the loader did not print (it prints none that is 0).
"""
import re

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
