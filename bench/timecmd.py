#!/usr/bin/env python3
"""timecmd.py LABEL OUTFILE CMD... - run CMD (stdout discarded, stderr to
OUTFILE.err), append "LABEL wall_s rc cpu_s" to OUTFILE; cpu_s is the
child's user + system time, less sensitive than wall time to other work on
the host."""
import os
import resource
import subprocess
import sys
import time

label, out, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.perf_counter()
with open(out + ".err", "w") as err:
    rc = subprocess.call(cmd, stdout=subprocess.DEVNULL, stderr=err)
t1 = time.perf_counter()
r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
with open(out, "a") as f:
    f.write(f"{label} {t1 - t0:.4f} {rc} {cpu:.4f}\n")
sys.exit(rc)
