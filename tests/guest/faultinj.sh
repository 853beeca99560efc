#!/bin/bash
# faultinj.sh STAP_PMU SOURCE_DIR KERNEL [arm64] - every allocation and registration
# of module init and of the CPU hotplug online callback fails once, by the
# runtime's own fault injection (runtime/stp_fault.h: -D STP_FAULT_INJECT,
# the module parameter stp_fail_nth=N fails the N-th site). Debian's kernels
# have no CONFIG_FAULT_INJECTION (no failslab, no fail-nth). One 2-CPU guest,
# tests/guest/scripts/faultinj.stp (one probe of each kind; @pmu reads x86's
# perf::cpu-clock, arm64's PMUv3 instructions with --pmu-targets perf; arm64
# has no ftrace_ops, so its list has no ftrace sites):
#  1. the script's own run: exact output; while it runs, the hotplug online
#     path: stp_fail_nth is set to the next site, cpu1 goes offline and
#     online, its online callback's counter creation fails (one error line
#     naming cpu1, the counter and the injected errno), cpu1 runs without
#     counters: 100 getpid calls there read 0, all counted and reported by
#     the loader, exactly; the next offline/online cycle gives cpu1 its
#     counters back and 100 more calls read them (docs/runtime.md, "CPU
#     hotplug");
#  2. --vm-after loads the module with busybox insmod and stp_fail_nth=N for
#     N = 1, 2, ... until a load reaches fewer than N sites. Each load that
#     fails must: fail with the errno the site's kernel call returns; log
#     "faultinj: fault injected: site N (SITE)" and the runtime's error line
#     naming what failed (exact text per site, table below); leave nothing
#     behind (no kprobe in /sys/kernel/debug/kprobes/list, enabled_functions
#     as before, no /proc/faultinj, no module); then uname and getpid run,
#     so a tracepoint or ftrace callback left pointing into the freed module
#     would oops (--vm fails the run on any kernel problem). A site whose
#     failure the runtime tolerates (the ftrace filter or ftrace_ops: those
#     probes become kprobes; a kprobe batch: one at a time) loads, and the
#     module then unloads cleanly. The ordered list of sites reached is
#     asserted, so a site added or removed changes the test
#     (runtime.fault_sites fails on an unwrapped call);
#     The same loop again with a target process (_stp_target=PID of a
#     sleep, as -x gives): @pmu_thread then uses per-thread counters, a
#     thread table and its attributes instead of per-CPU counters, task
#     slots and tracepoint probes (54 sites on x86);
#  3. a last load with the guest's loader gives the script's exact output;
#  4. where the kernel has kmemleak (/sys/kernel/debug/kmemleak), a scan
#     after the loop must report no leak;
#  5. on the host, the same script built without -D STP_FAULT_INJECT has no
#     trace of it (no stp_fail_nth parameter, no stp_fail_now symbol).
set -u
stap_pmu=$1 src=$2 kernel_spec=${3:?a kernel spec (tests/lib/kernel.sh)} arch=${4:-amd64}
cd "$src" || exit 1
# shellcheck source=tests/lib/guest-script.sh
source tests/lib/guest-script.sh
guest_script_init "$kernel_spec"
archargs=()
if [[ $arch == arm64 ]]; then
	release=$(test_kernel "$kernel_spec" arm64) || { echo "FAIL: no arm64 kernel"; exit 1; }
	archargs=(-a arm64 --pmu-targets perf)
	echo "arm64 kernel: $release"
fi
script=$src/tests/guest/scripts/faultinj.stp
fail=0

# 5. without -D: nothing of the injection in the module
(cd "$work" && "$stap_pmu" -r "$release" "${archargs[@]}" -p4 --vm -m fi_plain "$script" >/dev/null) ||
	{ echo "FAIL: cannot build the module without -D STP_FAULT_INJECT"; exit 1; }
(cd "$work" && "$stap_pmu" -r "$release" "${archargs[@]}" -p4 --vm -m fi_inject -D STP_FAULT_INJECT "$script" >/dev/null) ||
	{ echo "FAIL: cannot build the module with -D STP_FAULT_INJECT"; exit 1; }
for m in plain inject; do
	parm=$(modinfo -F parm "$work/fi_$m.ko" | grep -c '^stp_fail_')
	sym=$(nm "$work/fi_$m.ko" | grep -c ' stp_fail_now$')
	echo "fi_$m.ko: $parm stp_fail_ parameters, $sym stp_fail_now"
	want=0; [[ $m == inject ]] && want=1
	((parm == 3 * want && sym == want)) || { echo "FAIL: fi_$m.ko"; fail=1; }
done

# 1. the script's run, with the hotplug injection
p=/sys/module/faultinj/parameters
cpu1=/sys/devices/system/cpu/cpu1/online
cmd="taskset -c 0 pmu-workload getpid 100; uname >/dev/null; uname >/dev/null; uname >/dev/null
uprobe-target work 5 0; cat /proc/faultinj/hits
echo \$((\$(cat $p/stp_fail_seen) + 1)) > $p/stp_fail_nth
echo 0 > $cpu1; echo 1 > $cpu1
taskset -c 1 pmu-workload getpid 100
echo 0 > $cpu1; echo 1 > $cpu1
taskset -c 1 pmu-workload getpid 100
dmesg | grep 'faultinj: .*\\(cpu1\\|fault injected\\)' >&2"
# 2.-4. in the same boot, after it
after='m=faultinj ko=/stap-pmu/faultinj.ko d=/sys/kernel/debug
kp() { wc -l < $d/kprobes/list; }
ef() { wc -l < $d/tracing/enabled_functions; }
# try TAG N K [PARAM]: load with sites N..N+K-1 failing; unload if it
# loaded; the module lines of the kernel log; what is left; then run the
# probed code
try() {
	echo "faultinj-test: load $1 $2 $3" > /dev/kmsg
	if insmod $ko stp_fail_nth=$2 stp_fail_count=$3 $4 2>/tmp/ins; then
		seen=$(cat /sys/module/$m/parameters/stp_fail_seen)
		rmmod $m || echo "=rmmod failed"
		echo "=$1 $2 $3 loaded seen $seen"
	else
		seen=
		echo "=$1 $2 $3 failed $(cat /tmp/ins)"
	fi
	dmesg -r | sed -n "/faultinj-test: load $1 $2 $3\$/,\$p" | grep " $m: " | sed "s/^/=log /"
	proc=no; [ -e /proc/$m ] && proc=yes
	echo "=left kprobes $(kp) ftrace $(ef) proc $proc module $(grep -c "^$m " /proc/modules)"
	uname >/dev/null; pmu-workload getpid 10; uprobe-target work 1 0 >/dev/null
}
echo "=base kprobes $(kp) ftrace $(ef)"
[ -e $d/kmemleak ] && echo clear > $d/kmemleak
n=1
while [ $n -le 400 ]; do
	try n $n 1
	[ -n "$seen" ] && [ "$seen" -lt $n ] && break
	# a failure the runtime tolerated: fail the next site too (its fallback)
	[ -n "$seen" ] && try n $n 2
	n=$((n + 1))
done
# with a target process (-x): @pmu_thread counts its threads with
# per-thread counters instead of per-CPU ones and task slots
sleep 1000 & tgt=$!
n=1
while [ $n -le 400 ]; do
	try t $n 1 _stp_target=$tgt
	[ -n "$seen" ] && [ "$seen" -lt $n ] && break
	n=$((n + 1))
done
kill $tgt
if [ -e $d/kmemleak ]; then
	sleep 6; echo scan > $d/kmemleak; sleep 1; echo scan > $d/kmemleak
	echo "=kmemleak $(grep -c "^unreferenced object" $d/kmemleak)"
else
	echo "=kmemleak absent"
fi
echo "=final"
stap-pmu-loader -c "taskset -c 0 pmu-workload getpid 100; uname >/dev/null; uprobe-target work 2 0; cat /proc/faultinj/hits" $ko 2>&1
echo "=final rc $?"'
"$stap_pmu" -r "$release" "${archargs[@]}" -m faultinj -D STP_FAULT_INJECT --vm --vm-smp 2 --vm-timeout 900 \
	-c "$cmd" --vm-after "$after" "$script" >"$work/out" 2>"$work/err"
rc=$?
[[ -n ${FAULTINJ_KEEP:-} ]] && cp "$work/out" "$work/err" "$FAULTINJ_KEEP/"
python3 - "$work/out" "$work/err" "$rc" "$arch" <<'PY' || fail=1
import re, sys
out = open(sys.argv[1]).read().splitlines()
err = open(sys.argv[2]).read().splitlines()
rc = int(sys.argv[3])
arm = sys.argv[4] == "arm64"
# the @pmu event (x86: software, arm64: the PMUv3's instructions) and getpid
EVENT, ETYPE = ("instructions", "type=0 config=0x1") if arm else ("perf::cpu-clock", "type=1 config=0x0")
GETPID = "__arm64_sys_getpid" if arm else "__x64_sys_getpid"
fails = []
def check(ok, msg):
    if not ok:
        fails.append(msg)

check(rc == 0, "exit status %d" % rc)
# 1. the script's run: exact output; cpu1's 100 calls after the failed
# online read 0, the next 100 read its new counter
first = out[:out.index("=base kprobes 0 ftrace 0")] if "=base kprobes 0 ftrace 0" in out else out
want1 = ["begin", "procfs hits 100",
         "getpid 300 return 300 uname 3 exec 1 ticks 1 samples 1",
         "uprobe 5 sum 45 end 1 begin 1 task-clock 3",
         "stat count 300 sum 500",
         "cpu0 getpid 100 counted 100 zero 0",
         "cpu1 getpid 200 counted 100 zero 100", "end"]
got1 = [l for l in first if not l.startswith("=")]
check(got1 == want1, "first run output %r, expected %r" % (got1, want1))
check("=base kprobes 0 ftrace 0" in out, "no '=base kprobes 0 ftrace 0' after the first run")
check(any(re.fullmatch(r"\[ *[0-9.]+\] faultinj: fault injected: site \d+ \(counter\)", l) for l in err),
      "no injection in the online callback on stderr")
check(any(re.fullmatch(r"\[ *[0-9.]+\] faultinj: cpu1: cannot create counter %s for row perf "
                       r"\(%s\): out of memory \(-12\)" % (EVENT, ETYPE), l) for l in err),
      "no error line for cpu1's counter")
check(any(l == "WARNING: 100 @pmu reads found no counter on their CPU and were 0 (cpu1: 100): "
               "a CPU came online or went offline during the run; -D STP_PMU_STRICT makes such "
               "a read an error" for l in err), "no loader warning for cpu1's 100 reads")

# 2. the loop. The sites of faultinj.stp in the order init reaches them on
# 2 CPUs: (site, times, insmod's error or "loaded", the module's error
# lines (<3>, besides the injection line), regexps in order). A load that
# fails is tried twice by busybox insmod (finit_module, then init_module):
# both attempts must give the same lines.
NOMEM, INVAL, NOSPC = "Cannot allocate memory", "Invalid argument", "No space left on device"
F = r"faultinj: "
NOFILE = r"offset beyond the file, or not a regular file \(-22\)"


def uprobe_err(ret, why):
    return [F + r"cannot register probe process\(\"\S+/uprobe-target\"\)\.function\(\S+\)%s "
            r"\(\S+\) at \S+/uprobe-target\+0x[0-9a-f]+: %s" % (ret, why)]


SITES = [
    ("output ring table", 1, NOMEM, [F + r"cannot allocate the output buffer table"]),
    ("output ring", 1, NOMEM, [F + r"cannot allocate the 262144 byte output buffer of cpu0"]),
    ("output ring", 1, NOMEM, [F + r"cannot allocate the 65536 byte output buffer of cpu0"]),
    ("output ring", 1, NOMEM, [F + r"cannot allocate the 262144 byte output buffer of cpu1"]),
    ("output ring", 1, NOMEM, [F + r"cannot allocate the 65536 byte output buffer of cpu1"]),
] + [(what, 1, NOMEM, [F + r"cannot allocate array '%s' \(2048 entries of 40 bytes\)" % a])
     for a in ("percpu", "zero", "counted")
     for what in ("array entries", "array hash heads", "array order")] + [
    ("probe context", 1, NOMEM, [F + r"cannot allocate \d+ bytes of probe context for cpu%d" % c])
    for c in (0, 1) for level in (0, 1)] + [     # one context per CPU and level (NMI)
    ("CPU identification table", 1, NOMEM, [F + r"cannot allocate the PMU state"]),
    ("per-CPU counter table", 1, NOMEM, [F + r"cannot allocate the PMU state"]),
] + [("counter", 1, NOMEM, [F + r"cpu%d: cannot create %s for row perf \(%s\): "
                                r"out of memory \(-12\)" % (c, e, t)])
     for c in (0, 1)
     for e, t in (("counter " + EVENT, ETYPE), ("counter perf::task-clock", "type=1 config=0x1"),
                  ("sampling counter perf::cpu-clock", "type=1 config=0x0"))] + [
    ("CPU hotplug callbacks", 1, NOSPC, [F + r"cannot register the CPU hotplug callbacks \(-28\)"]),
    ("@pmu_thread task slots", 1, NOMEM, [F + r"@pmu_thread: cannot allocate 4096 task slots"]),
    ("@pmu_thread tracepoint probe", 1, NOMEM,
     [F + r"@pmu_thread: cannot register on tracepoint sched_process_exit: out of memory \(-12\)"]),
    ("@pmu_thread tracepoint probe", 1, NOMEM,
     [F + r"@pmu_thread: cannot register on tracepoint sched_switch: out of memory \(-12\)"]),
    ("/proc directory", 1, NOMEM, [F + r"cannot create /proc/faultinj \(does it exist already\?\)"]),
] + [("/proc file", 1, NOMEM, [F + r"cannot create /proc/faultinj/" + f])
     for f in ("output", "records", "status", "control")] + [
    ("procfs probe file", 1, NOMEM, [F + r"cannot create /proc/faultinj/hits"]),
    ("kprobe table", 1, NOMEM, [F + r"cannot allocate the probe tables"]),
    ("kretprobe table", 1, NOMEM, [F + r"cannot allocate the probe tables"]),
] + ([] if arm else [      # arm64 has no ftrace_ops: every entry probe is a kprobe
    ("ftrace site table", 1, NOMEM, [F + r"cannot allocate the table of 2 ftrace entry probes"]),
    ("ftrace address list", 1, NOMEM, [F + r"cannot allocate the ftrace filter of 2 addresses"]),
    ("ftrace address flags", 1, NOMEM, [F + r"cannot allocate the ftrace filter of 2 addresses"]),
    # tolerated: the filter of both addresses (ftrace refuses it anyway:
    # __do_sys_newuname), then halved: __do_sys_newuname (refused anyway),
    # __x64_sys_getpid (its probe becomes a kprobe); the ftrace_ops (both
    # entry probes kprobes); a batch (one probe at a time). "loaded E/K/R":
    # the load's E entry probes through the ftrace_ops, K kprobes, R
    # kretprobes
    ("ftrace filter", 1, "loaded 1/1/1", []),
    ("ftrace filter", 1, "loaded 1/1/1", []),
    ("ftrace filter", 1, "loaded 0/2/1", []),
    # (no "ftrace module table": faultinj.stp probes no module function,
    # so its module has no module-site code, STP_HAVE_MODULE_SITES)
    ("ftrace_ops", 1, "loaded 0/2/1", []),
]) + [
    ("kprobe batch", 1, "loaded 0/2/1" if arm else "loaded 1/1/1", []),
    ("kretprobe batch", 1, "loaded 0/2/1" if arm else "loaded 1/1/1", []),
    ("tracepoint probe", 1, NOMEM, [F + r"cannot register probe kernel\.trace\(\"sched:sched_process_exec\"\) "
                                        r"\(\S+faultinj\.stp:\d+:\d+\) on tracepoint sched_process_exec: "
                                        r"out of memory \(-12\)"]),
    ("uprobe", 1, INVAL, uprobe_err("", NOFILE)),
    ("uretprobe entry table", 1, NOMEM, uprobe_err(r"\.return", r"out of memory \(-12\)")),
    ("uprobe", 1, INVAL, uprobe_err(r"\.return", NOFILE)),
    ("process table", 1, NOMEM, [F + r"cannot allocate the table of 1024 processes"]),
] + [("process tracepoint probe", 1, NOMEM,
      [F + r"cannot register process probes on tracepoint %s: out of memory \(-12\)" % tp])
     for tp in ("sched_process_exec", "sched_process_fork", "sched_process_exit")]
# a tolerated failure and the site after it (stp_fail_count=2), by the
# first one's number: the fallback's own failure
KPROBE_ERR = (F + r"cannot register probe %s \(\S+faultinj\.stp:\d+:\d+\) at %s\+0: "
              r"cannot probe there \(blacklisted, notrace or not code\?\) \(-22\)")
MECH = r"<6>faultinj: probes: (\d) entry through ftrace_ops, (\d) kprobes, (\d) kretprobes"
expected = [x for site in SITES for x in [site] * site[1]]


def pos(name, k=0):
    """the site number of the k-th site called name"""
    return [i for i, x in enumerate(expected) if x[0] == name][k] + 1


# the batch's first kprobe: on x86 the one not in the ftrace_ops
first_kp = (r'kprobe\.function\("%s"\)' % GETPID, GETPID) if arm else \
    (r'kernel\.function\("__do_sys_newuname"\)', "__do_sys_newuname")
TWO = {
    pos("kprobe batch"): ("kprobe batch, kprobe", INVAL, [KPROBE_ERR % first_kp]),
    pos("kretprobe batch"): ("kretprobe batch, kretprobe", INVAL,
                             [KPROBE_ERR % (r'kprobe\.function\("%s"\)\.return' % GETPID, GETPID)]),
}
if not arm:
    TWO.update({
        pos("ftrace filter", 0): ("ftrace filter, ftrace filter", "loaded 1/1/1", []),
        pos("ftrace filter", 1): ("ftrace filter, ftrace filter", "loaded 0/2/1", []),
        pos("ftrace filter", 2): ("ftrace filter, kprobe batch", "loaded 0/2/1", []),
        pos("ftrace_ops"): ("ftrace_ops, kprobe batch", "loaded 0/2/1", []),
    })

runs, truns, cur = [], [], None
for l in out:
    m = re.fullmatch(r"=([nt]) (\d+) (\d+) (loaded seen (\d+)|failed (.*))", l)
    if m:
        cur = {"n": int(m[2]), "k": int(m[3]), "loaded": m[5] is not None,
               "seen": int(m[5]) if m[5] else None, "ins": m[6] or "", "log": [], "left": None}
        (runs if m[1] == "n" else truns).append(cur)
    elif cur and l.startswith("=log "):
        cur["log"].append(re.sub(r"^=log <(\d)>\[ *[0-9.]+\] ", r"<\1>", l))
    elif cur and l.startswith("=left "):
        cur["left"] = l
    elif l == "=rmmod failed":
        check(False, "rmmod failed after load %d" % (cur["n"] if cur else 0))
def check_loop(label, runs, expected, two):
    """every load of one loop: its injections, errno, error lines, what is left"""
    singles = [r for r in runs if r["k"] == 1]
    print("%s: %d loads (%d with one site failing), %d sites expected" %
          (label, len(runs), len(singles), len(expected)))
    check(singles and singles[-1]["loaded"] and singles[-1]["seen"] == singles[-1]["n"] - 1 == len(expected),
          "%s: the loop did not end with a load that reached exactly %d sites" % (label, len(expected)))
    for r in runs:
        tag = "%s: load %d (%d failing): " % (label, r["n"], r["k"])
        check(r["left"] == "=left kprobes 0 ftrace 0 proc no module 0",
              tag + "left behind: %s" % r["left"])
        inj = [re.fullmatch(r"<3>faultinj: fault injected: site (\d+) \((.*)\)", l) for l in r["log"]]
        inj = [m for m in inj if m]
        errs = [l[3:] for l in r["log"] if l.startswith("<3>") and "fault injected" not in l]
        mech = [re.fullmatch(MECH, l) for l in r["log"]]
        mech = " ".join("%s/%s/%s" % m.groups() for m in mech if m)
        if r["k"] == 1 and r["n"] > len(expected):
            check(not inj and not errs, tag + "the last load failed something: %r" % r["log"])
            continue
        got = ", ".join(sorted(set("%s %s" % (m[1], m[2]) for m in inj)))
        print("%s%s: %s%s" % (tag, got or "no injection", "loaded " + mech if r["loaded"] else r["ins"],
                              "".join(" | " + e for e in errs)))
        if r["k"] == 2:
            check(r["n"] in two, tag + "a second site failed after a failure not tolerated")
            site, ins, want = two.get(r["n"], ("", "", []))
            names = ", ".join(m[2] for m in inj[:2])
            check(names == site and [int(m[1]) for m in inj[:2]] == [r["n"], r["n"] + 1],
                  tag + "injected %r, expected %s at %d and %d" % (r["log"], site, r["n"], r["n"] + 1))
            inj = inj[::2]      # an attempt's first injection stands for it
        else:
            site, _, ins, want = expected[r["n"] - 1]
            check([(int(m[1]), m[2]) for m in inj] in ([(r["n"], site)], [(r["n"], site)] * 2),
                  tag + "expected one injection at site %d (%s) per attempt: %r" % (r["n"], site, r["log"]))
        if ins.startswith("loaded"):
            check(r["loaded"] and not errs and "loaded " + mech == ins,
                  tag + "expected %s (entry/kprobes/kretprobes) without an error: %r" % (ins, r["log"]))
            continue
        check(not r["loaded"] and r["ins"] == "insmod: can't insert '/stap-pmu/faultinj.ko': " + ins,
              tag + "insmod: %r, expected %r" % (r["ins"], ins))
        n_att = len(inj)
        check(n_att >= 1 and len(errs) == n_att * len(want) and
              all(re.fullmatch(w, e) for i in range(n_att)
                  for w, e in zip(want, errs[i * len(want):(i + 1) * len(want)])),
              tag + "error lines %r, expected %r" % (errs, want))


check_loop("system-wide", runs, expected, TWO)
# 2b. with a target process (_stp_target, as -x gives): @pmu_thread's per-CPU
# counters, task slots and tracepoint probes are replaced by its attributes,
# the thread table (grown once more after the first pass) and one
# per-thread counter (sleep has one thread); 54 sites on x86
PT = F + "@pmu_thread: cannot allocate "
hp = [x[0] for x in expected].index("CPU hotplug callbacks") + 1
texpected = [x for x in expected[:hp] if "task-clock" not in x[3][0]] + [
    ("@pmu_thread attributes", 1, NOMEM, [PT + r"the counter attributes"]),
    ("@pmu_thread thread table", 1, NOMEM, [PT + r"the table of 2 threads"]),
    ("per-thread counter", 1, NOMEM, [F + r"cannot create per-thread counter perf::task-clock for tid "
                                          r"(\d+) of target \1 \(type=1 config=0x1\): out of memory \(-12\)"]),
    ("@pmu_thread thread table", 1, NOMEM, [PT + r"the table of 3 threads"]),
] + [x for x in expected[hp:] if not x[0].startswith("@pmu_thread")]
check(len(texpected) == len(expected) - 1, "the target list has %d sites" % len(texpected))
check_loop("target", truns, texpected, {})

# 4. kmemleak, where the kernel has it
km = [l for l in out if l.startswith("=kmemleak ")]
check(km in (["=kmemleak absent"], ["=kmemleak 0"]), "kmemleak: %r" % km)
print(km[0][1:] if km else "no kmemleak line")
# 3. the last load, with the guest's loader
if "=final" in out:
    fin = out[out.index("=final") + 1:]
    want3 = ["begin", "procfs hits 100",
             "getpid 100 return 100 uname 1 exec 1 ticks 1 samples 1",
             "uprobe 2 sum 9 end 1 begin 1 task-clock 1",
             "stat count 100 sum 100", "cpu0 getpid 100 counted 100 zero 0", "end",
             "=final rc 0"]
    check(fin == want3, "last load output %r, expected %r" % (fin, want3))
else:
    check(False, "no last load")
for f in fails:
    print("FAIL:", f)
if fails:
    print("--- stdout (last 40 lines)"); print("\n".join(out[-40:]))
    print("--- stderr (last 40 lines)"); print("\n".join(err[-40:]))
    sys.exit(1)
PY
((fail)) && exit 1
echo "ok: faultinj"
