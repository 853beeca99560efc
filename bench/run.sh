#!/bin/bash
# bench/run.sh - stap-pmu benchmarks side by side with SystemTap 4.8 and bpftrace 0.17.
# Installs what they need (idempotent), builds, runs every benchmark, writes
# bench/results.json and regenerates the table in docs/performance.md.
# About 5 minutes on an idle machine of the project once packages are installed. Not part of ./scripts/test.sh.
#
# Usage: bench/run.sh [--only "PHASE..."]
# Phases: deps build stap host fat probe scaling register arm64 ctxsw report
# (default all). --only (or BENCH_ONLY) runs the phases named, e.g.
# --only "build probe report"; report.py reads the raw logs that earlier runs
# of the other phases left in BENCH_WORK/results.
# Environment: BENCH_N (getpid calls per repeat, 200000), BENCH_SCALE_N (calls
# per CPU per repeat in the scaling phase, 50000), BENCH_SCALE_CPUS (4),
# BENCH_SCALE_TIMEOUT (seconds before the scaling guest is stopped, 900),
# BENCH_REPS (3), BENCH_P3_RUNS / BENCH_P4_RUNS (translation/build runs per
# tool, 15/5), BENCH_ONLY, BENCH_WORK (scratch, ~/.cache/stap-pmu/bench).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
N=${BENCH_N:-200000}
SCALE_N=${BENCH_SCALE_N:-50000}
SCALE_CPUS=${BENCH_SCALE_CPUS:-4}
SCALE_TIMEOUT=${BENCH_SCALE_TIMEOUT:-900}
REPS=${BENCH_REPS:-3}
P3_RUNS=${BENCH_P3_RUNS:-15}
P4_RUNS=${BENCH_P4_RUNS:-5}
REG_COUNTS="1 100 1000"
RES=$BENCH_WORK/results
ALL_PHASES="deps build stap host fat probe scaling register arm64 ctxsw report"
ONLY=${BENCH_ONLY:-$ALL_PHASES}
while [ $# -gt 0 ]; do
	case $1 in
	--only) [ $# -ge 2 ] || die "--only needs a list of phases ($ALL_PHASES)"; ONLY=$2; shift 2 ;;
	--only=*) ONLY=${1#--only=}; shift ;;
	*) die "unknown argument '$1' (usage: bench/run.sh [--only \"PHASE...\"]; phases: $ALL_PHASES)" ;;
	esac
done
for p in $ONLY; do
	[[ " $ALL_PHASES " == *" $p "* ]] || die "unknown phase '$p' (phases: $ALL_PHASES)"
done
want() { [[ " $ONLY " == *" $1 "* ]]; }
mkdir -p "$RES"
T_START=$(date +%s)

# key TAB command, for results.json
NEWCMD=$RES/commands.tsv.$$
record_cmd() { printf '%s\t%s\n' "$1" "$2" >>"$NEWCMD"; }
: >"$NEWCMD"

# ---- deps ----------------------------------------------------------------
if want deps; then
	log "installing packages (scripts/install-deps.sh --bench: also systemtap, bpftrace)"
	"$SRC_DIR/scripts/install-deps.sh" --bench || die "install-deps.sh --bench failed"
fi

# ---- build ---------------------------------------------------------------
find_kernel
if want build; then
	log "building stap-pmu ($BUILD_DIR)"
	[ -f "$BUILD_DIR/CMakeCache.txt" ] || cmake -S "$SRC_DIR" -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release >/dev/null
	if ! cmake --build "$BUILD_DIR" -j2 >"$RES/build.log" 2>&1; then
		[ -x "$STAP_PMU" ] || die "build failed, see $RES/build.log"
		log "WARNING: build failed (see $RES/build.log); using the existing $STAP_PMU"
		echo "build failed at $(date -u +%FT%TZ); measured the binary from $(date -u -r "$STAP_PMU" +%FT%TZ)" >"$RES/build-warning.txt"
	else
		rm -f "$RES/build-warning.txt"
	fi
	mkdir -p "$BENCH_WORK/bin"
	gcc -O2 -Wall -static -o "$BENCH_WORK/bin/getpid_loop" "$BENCH_DIR/guest/getpid_loop.c" || die "getpid_loop"
	gcc -O2 -Wall -static -o "$BENCH_WORK/bin/modtime" "$BENCH_DIR/guest/modtime.c" || die "modtime"
	gcc -O2 -Wall -static -o "$BENCH_WORK/bin/getpid_par" "$BENCH_DIR/guest/getpid_par.c" || die "getpid_par"
	rm -rf "$BENCH_WORK/kmod" && cp -a "$BENCH_DIR/kmod" "$BENCH_WORK/kmod"
	make -s -C "$KTREE" M="$BENCH_WORK/kmod" modules >"$RES/kmod.log" 2>&1 || die "bench_kprobe.ko: see $RES/kmod.log"
fi
[ -x "$STAP_PMU" ] || die "no $STAP_PMU"
# Snapshot the binary, its runtime headers and the guest programs in an
# install layout, so that the whole run measures one build even while the
# tree is being rebuilt.
SNAP=$BENCH_WORK/snap
rm -rf "$SNAP" && mkdir -p "$SNAP/bin" "$SNAP/share/stap-pmu" "$SNAP/libexec"
cp -p "$STAP_PMU" "$SNAP/bin/stap-pmu" || die "cannot copy $STAP_PMU"
cp -a "$SRC_DIR/runtime" "$SNAP/share/stap-pmu/runtime"
[ -d "$SRC_DIR/tapsets" ] && cp -a "$SRC_DIR/tapsets" "$SNAP/share/stap-pmu/tapsets"
cp -a "$BUILD_DIR/guest" "$SNAP/libexec/stap-pmu"
STAP_PMU=$SNAP/bin/stap-pmu
GUEST_BIN=$SNAP/libexec/stap-pmu
echo "$("$STAP_PMU" --version 2>&1 | head -n 1) built $(date -u -r "$SNAP/bin/stap-pmu" +%FT%TZ)" >"$RES/stap-pmu-version.txt"

# ---- SystemTap set-up ----------------------------------------------------
if want stap || want host || want probe || want scaling || want register; then
	envf=$("$BENCH_DIR/stap-setup.sh") || die "stap-setup.sh failed"
	. "$envf"
	export SYSTEMTAP_DIR=$BENCH_WORK/systemtap-dir
	mkdir -p "$SYSTEMTAP_DIR"
	STAP=(stap -R "$STAP_RUNTIME" -r "$STAP_KBUILD")
fi
SCRIPTS=$BENCH_DIR/scripts
MODS=$BENCH_WORK/mods

# time_cmd OUTFILE LABEL CMD... : appends "LABEL wall_s rc cpu_s" to OUTFILE
time_cmd() {
	local f=$1 label=$2
	shift 2
	python3 "$BENCH_DIR/timecmd.py" "$label" "$f" "$@" ||
		{ log "$label failed:"; head -5 "$f.err" >&2; }
}

# ---- host: translation (-p3) and build (-p4), side by side -------------
if want host; then
	log "translation: -p3, $P3_RUNS runs each, interleaved"
	# wall-time ratios suffer from other work on the host: record the load
	cut -d' ' -f1-3 /proc/loadavg >"$RES/loadavg-host-phase.txt"
	s=$SCRIPTS/translate.stp
	"${STAP[@]}" -p3 "$s" >/dev/null 2>&1 # warm caches (stapconf, page cache)
	"$STAP_PMU" -p3 "$s" >/dev/null 2>&1 # (and stap-pmu's decoded symbol table)
	: >"$RES/translate.txt"
	for i in $(seq "$P3_RUNS"); do
		time_cmd "$RES/translate.txt" stap_pmu "$STAP_PMU" -p3 "$s"
		time_cmd "$RES/translate.txt" stap "${STAP[@]}" -p3 "$s"
	done
	record_cmd translate "stap-pmu -p3 bench/scripts/translate.stp  vs  stap -R <patched runtime> -r <headers copy with guest System.map> -p3 bench/scripts/translate.stp (median of $P3_RUNS each, interleaved, after one untimed run of each: stap's stapconf and stap-pmu's decoded kernel symbol table cached; wall and user+system CPU time)"

	log "build: -p4, $P4_RUNS runs each, interleaved"
	b=$BENCH_WORK/p4
	rm -rf "$b" && mkdir -p "$b"
	# untimed warm-up: SystemTap's first build in a fresh SYSTEMTAP_DIR also
	# generates its kernel-config cache (stapconf), about 15 s
	# (and stap-pmu's first records kbuild's commands for this kernel)
	(cd "$b" && "${STAP[@]}" -p4 -m bs_warm "$s" >/dev/null 2>&1 && "$STAP_PMU" -p4 --no-cache -m bp_warm "$s" >/dev/null 2>&1)
	: >"$RES/build.txt"
	# --no-cache: a real build every time (-m alone is a module-cache hit
	# after the first run); the cache hit is timed on its own below
	# The untimed run above recorded kbuild's commands for this kernel
	# (translator/builder/kbuild_replay.h): the timed builds replay them, as
	# every build after a kernel's first does. What make costs (--kbuild-make)
	# and a kernel's first build (make, then recording the commands and
	# precompiling the headers: an empty recipe store each run) are timed in
	# the same rounds.
	: >"$RES/build_make.txt"
	: >"$RES/build_first.txt"
	for i in $(seq "$P4_RUNS"); do
		(cd "$b" && time_cmd "$RES/build.txt" stap_pmu "$STAP_PMU" -p4 --no-cache -m bp_translate "$s")
		(cd "$b" && time_cmd "$RES/build.txt" stap "${STAP[@]}" -p4 -m bs_translate "$s")
		(cd "$b" && time_cmd "$RES/build_make.txt" stap_pmu "$STAP_PMU" -p4 --no-cache --kbuild-make -m bp_make "$s")
		rm -rf "$b/recipes" && mkdir "$b/recipes"
		(cd "$b" && time_cmd "$RES/build_first.txt" stap_pmu env STAP_PMU_KBUILD_CACHE="$b/recipes" "$STAP_PMU" -p4 --no-cache -m bp_first "$s")
	done
	record_cmd build_make "stap-pmu -p4 --no-cache --kbuild-make -m bp_make bench/scripts/translate.stp (median of $P4_RUNS, in the rounds of the build ratio)"
	record_cmd build_first "STAP_PMU_KBUILD_CACHE=<empty directory> stap-pmu -p4 --no-cache -m bp_first bench/scripts/translate.stp (median of $P4_RUNS, in the rounds of the build ratio)"
	log "build: -p4 module-cache hit, $P4_RUNS runs"
	(cd "$b" && "$STAP_PMU" -p4 -m bp_cached "$s" >/dev/null 2>&1) # fills the cache
	: >"$RES/build_cached.txt"
	for i in $(seq "$P4_RUNS"); do
		(cd "$b" && time_cmd "$RES/build_cached.txt" stap_pmu "$STAP_PMU" -p4 -m bp_cached "$s")
	done
	record_cmd build_cached "stap-pmu -p4 -m bp_cached bench/scripts/translate.stp after one untimed run filled the module cache (median of $P4_RUNS)"
	for k in bp_translate bs_translate; do
		strip --strip-debug -o "$b/$k.stripped.ko" "$b/$k.ko" 2>/dev/null
		echo "$k $(stat -c %s "$b/$k.ko") $(stat -c %s "$b/$k.stripped.ko" 2>/dev/null || echo 0)"
	done >"$RES/module_size.txt"
	record_cmd build "stap-pmu -p4 --no-cache -m bp_translate bench/scripts/translate.stp  vs  stap -R ... -r ... -p4 -m bs_translate bench/scripts/translate.stp (median of $P4_RUNS each, interleaved; stap's stapconf cache warm, stap-pmu's recorded kbuild commands warm, neither uses a module cache); sizes after strip --strip-debug"
fi

# ---- fat data ------------------------------------------------------------
if want fat; then
	log "fat data: 4 portable events over every x86 core PMU"
	FAT_EV='@pmu("cycles") + @pmu("instructions") + @pmu("branches") + @pmu("branch-misses")'
	FAT_CMD=("$STAP_PMU" -p2 -v --pmu-targets intel,amd --pmu-fallback generic -e
		"probe kprobe.function(\"__x64_sys_getpid\") { x = $FAT_EV }")
	"${FAT_CMD[@]}" >"$RES/fat.out" 2>"$RES/fat.err"
	echo "rc=$?" >>"$RES/fat.err"
	record_cmd fat "stap-pmu -p2 -v --pmu-targets intel,amd --pmu-fallback generic -e 'probe kprobe.function(\"__x64_sys_getpid\") { x = $FAT_EV }'"
fi

# ---- guest modules -------------------------------------------------------
build_sp() { # NAME SCRIPT [stap-pmu args]
	local name=$1 script=$2
	shift 2
	(cd "$MODS" && "$STAP_PMU" -p4 --pmu-targets perf "$@" -m "$name" "$script" >/dev/null 2>"$RES/$name.err") ||
		{ log "stap-pmu -p4 $name failed:"; head -5 "$RES/$name.err" >&2; rm -f "$MODS/$name.ko"; }
}
build_sb() { # NAME SCRIPT
	(cd "$MODS" && "${STAP[@]}" -p4 -m "$1" "$2" >/dev/null 2>"$RES/$1.err") ||
		{ log "stap -p4 $1 failed:"; head -5 "$RES/$1.err" >&2; rm -f "$MODS/$1.ko"; }
}

# ---- x86 probe cost ------------------------------------------------------
if want probe; then
	log "probe cost: building guest modules"
	rm -rf "$MODS" && mkdir -p "$MODS"
	SP_MODS="sp_idle sp_cnt sp_agg sp_two_reads sp_arr"
	SB_MODS="sb_idle sb_cnt sb_agg sb_arr"
	for m in $SP_MODS; do build_sp "$m" "$SCRIPTS/${m#sp_}.stp"; done
	for m in $SB_MODS; do build_sb "$m" "$SCRIPTS/${m#sb_}.stp"; done
	bt_overlay=$("$BENCH_DIR/bpftrace-setup.sh") || die "bpftrace-setup.sh failed"
	r=$BENCH_WORK/root-probe
	base_root "$r"
	cp "$BENCH_WORK/kmod/bench_kprobe.ko" "$MODS"/*.ko "$r/bench/" 2>/dev/null
	cp -a "$STAP_OVERLAY/." "$bt_overlay/." "$r/"
	rm -f "$r/.complete"
	install -m 755 "$BENCH_DIR/guest/probe-cost.sh" "$r/bench/run.sh"
	install -m 755 "$BENCH_DIR/guest/reps.sh" "$r/bench/reps.sh"
	install -m 644 "$BENCH_DIR/guest/staprun.sh" "$r/bench/staprun.sh"
	printf 'bench_n=%s\nbench_reps=%s\nSP_MODS="%s"\nSB_MODS="%s"\n' "$N" "$REPS" "$SP_MODS" "$SB_MODS" >"$r/bench/config"
	{ init_prologue; echo '/bench/run.sh; poweroff -f'; } >"$r/init"
	chmod +x "$r/init"
	# uncompressed: the guest kernel would take long to inflate bpftrace's libraries
	mk_initramfs "$r" "$BENCH_WORK/initrd-probe.cpio"
	log "probe cost: booting the x86 guest (-icount shift=0 -smp 1), about 3-4 minutes"
	# 3 GB: the root (bpftrace's libraries) lives in guest memory twice while it unpacks
	X86_MEM=3G run_x86 "$BENCH_WORK/initrd-probe.cpio" "$BENCH_WORK/probe" 1500 "loglevel=4" -smp 1 -icount shift=0
	cp "$BENCH_WORK/probe/out.log" "$RES/probe.log"
	cp "$BENCH_WORK/probe/console.log" "$RES/probe-console.log"
	grep -q DONE "$RES/probe.log" || log "WARNING: probe-cost guest did not finish (see $RES/probe-console.log)"
	record_cmd probe "qemu-system-x86_64 -accel tcg -cpu qemu64 -m 3G -smp 1 -icount shift=0 -kernel <uncompressed vmlinux $KREL> (bench/guest/probe-cost.sh: getpid_loop $N calls x $REPS repeats per case, one boot; stap-pmu modules: stap-pmu -p4 --pmu-targets perf bench/scripts/X.stp run by stap-pmu-loader -c; SystemTap: stap -p4 bench/scripts/X.stp run by staprun; bpftrace $(bpftrace --version 2>&1): bpftrace -e 'kfunc:__do_sys_getpid { @n = count(); }' and 'kprobe:__x64_sys_getpid { @n = count(); }' in the background, the loop 3 s after it printed Attaching; reference: bench/kmod/bench_kprobe.c)"
fi

# ---- scaling: the probe hit on 1 and on SCALE_CPUS CPUs at once -------------
# x86 guest with -smp $SCALE_CPUS -icount shift=0: QEMU runs the vCPUs in turn
# on one host thread (single-threaded TCG, which icount requires), and the
# virtual clock advances by one ns per instruction of any vCPU, so getpid_par's
# time per call is the instructions of all vCPUs per call (see docs/performance.md)
if want scaling; then
	log "scaling: building guest modules"
	mkdir -p "$MODS"
	SC_SP="sp_cnt sp_agg"
	SC_SB="sb_cnt sb_agg"
	for m in $SC_SP; do build_sp "$m" "$SCRIPTS/${m#sp_}.stp"; done
	for m in $SC_SB; do build_sb "$m" "$SCRIPTS/${m#sb_}.stp"; done
	r=$BENCH_WORK/root-scaling
	base_root "$r"
	for m in $SC_SP $SC_SB; do cp "$MODS/$m.ko" "$r/bench/" 2>/dev/null; done
	cp -a "$STAP_OVERLAY/." "$r/"
	rm -f "$r/.complete"
	install -m 755 "$BENCH_DIR/guest/scaling.sh" "$r/bench/run.sh"
	install -m 755 "$BENCH_DIR/guest/par-reps.sh" "$r/bench/par-reps.sh"
	install -m 644 "$BENCH_DIR/guest/staprun.sh" "$r/bench/staprun.sh"
	printf 'scale_n=%s\nscale_cpus=%s\nbench_reps=%s\nSP_MODS="%s"\nSB_MODS="%s"\n' \
		"$SCALE_N" "$SCALE_CPUS" "$REPS" "$SC_SP" "$SC_SB" >"$r/bench/config"
	{ init_prologue; echo '/bench/run.sh; poweroff -f'; } >"$r/init"
	chmod +x "$r/init"
	mk_initramfs "$r" "$BENCH_WORK/initrd-scaling.gz"
	# maxcpus=1: under icount the kernel's SMP bring-up at boot stalls (the
	# second CPU waits in cpu_init forever); bench/guest/scaling.sh brings the
	# other CPUs online from /init, which works. loglevel=7: the console shows
	# how far the boot got if it stalls.
	log "scaling: booting the x86 guest (-icount shift=0 -smp $SCALE_CPUS)"
	X86_ACCEL=tcg,thread=single run_x86 "$BENCH_WORK/initrd-scaling.gz" "$BENCH_WORK/scaling" "$SCALE_TIMEOUT" "loglevel=7 maxcpus=1" \
		-smp "$SCALE_CPUS" -icount shift=0
	cp "$BENCH_WORK/scaling/out.log" "$RES/scaling.log"
	cp "$BENCH_WORK/scaling/console.log" "$RES/scaling-console.log"
	if ! grep -q DONE "$RES/scaling.log"; then
		log "WARNING: scaling guest did not finish (see $RES/scaling-console.log)"
		tail -n 1 "$RES/scaling-console.log" | tr -d '\r' >"$RES/scaling-stalled.txt"
	else
		rm -f "$RES/scaling-stalled.txt"
	fi
	record_cmd scaling "qemu-system-x86_64 -accel tcg,thread=single -cpu qemu64 -smp $SCALE_CPUS -icount shift=0 -kernel <uncompressed vmlinux $KREL> -append 'maxcpus=1 ...' (bench/guest/scaling.sh: CPUs 1-$((SCALE_CPUS - 1)) brought online through sysfs, then getpid_par K $SCALE_N, K processes pinned one per CPU, released together, K = 1 and $SCALE_CPUS, $REPS repeats each, one boot; stap-pmu: stap-pmu -p4 --pmu-targets perf bench/scripts/{cnt,agg}.stp run by stap-pmu-loader -c; SystemTap: stap -p4 of the same scripts run by staprun)"
fi

# ---- registration scale --------------------------------------------------
if want register; then
	log "register: building modules with 1, 100, 1000 kprobe.function probes"
	cand=$BENCH_WORK/stap/$KREL/probe-candidates
	[ -s "$cand" ] || die "no $cand (stap-setup.sh)"
	mkdir -p "$MODS"
	for n in $REG_COUNTS; do
		f=$BENCH_WORK/reg$n.stp
		{
			echo "# $n kprobe.function probes on distinct rarely-called functions"
			echo "global n"
			head -n "$n" "$cand" | awk '{ printf "probe kprobe.function(\"%s\") { n++ }\n", $1 }'
		} >"$f"
		build_sp "sp_reg$n" "$f"
		build_sb "sb_reg$n" "$f"
	done
	r=$BENCH_WORK/root-register
	base_root "$r"
	cp "$MODS"/sp_reg*.ko "$MODS"/sb_reg*.ko "$r/bench/" 2>/dev/null
	cp -a "$STAP_OVERLAY/." "$r/"
	rm -f "$r/.complete"
	install -m 755 "$BENCH_DIR/guest/register.sh" "$r/bench/run.sh"
	printf 'bench_reps=%s\nREG_COUNTS="%s"\n' "$REPS" "$REG_COUNTS" >"$r/bench/config"
	{ init_prologue; echo '/bench/run.sh; poweroff -f'; } >"$r/init"
	chmod +x "$r/init"
	mk_initramfs "$r" "$BENCH_WORK/initrd-register.gz"
	log "register: booting the x86 guest"
	run_x86 "$BENCH_WORK/initrd-register.gz" "$BENCH_WORK/register" 900 "loglevel=4" -smp 1 -icount shift=0
	cp "$BENCH_WORK/register/out.log" "$RES/register.log"
	cp "$BENCH_WORK/register/console.log" "$RES/register-console.log"
	record_cmd register "stap-pmu -p4 --pmu-targets perf -m sp_regN regN.stp (N distinct probe kprobe.function(\"F\") { n++ }, F from the guest's ftrace-able *_show functions) then, in an x86 guest with -icount shift=0 -smp 1: modtime load sp_regN.ko / modtime unload sp_regN (finit_module / delete_module timed with CLOCK_MONOTONIC), $REPS times each (once for 1000); SystemTap: stap -p4 -m sb_regN regN.stp, then modtime run staprun -L sb_regN.ko / modtime run staprun -d sb_regN"
fi

# ---- arm64 counter reads -------------------------------------------------
if want arm64; then
	log "arm64: counter read cost, fast path and fallback"
	A_CMD=("$STAP_PMU" -a arm64 --vm --vm-cpu cortex-a57 --pmu-targets perf -c 'pmu-workload getpid 1000' "$SCRIPTS/arm64_read.stp")
	"${A_CMD[@]}" >"$RES/arm64_fast.out" 2>"$RES/arm64_fast.err"
	echo "rc=$?" >>"$RES/arm64_fast.err"
	"${A_CMD[@]}" -D STP_PMU_DIRECT_READ=0 >"$RES/arm64_fallback.out" 2>"$RES/arm64_fallback.err"
	echo "rc=$?" >>"$RES/arm64_fallback.err"
	record_cmd arm64_fast "stap-pmu -a arm64 --vm --vm-cpu cortex-a57 --pmu-targets perf -c 'pmu-workload getpid 1000' bench/scripts/arm64_read.stp"
	record_cmd arm64_fallback "stap-pmu -a arm64 --vm --vm-cpu cortex-a57 --pmu-targets perf -D STP_PMU_DIRECT_READ=0 -c 'pmu-workload getpid 1000' bench/scripts/arm64_read.stp"
fi

# ---- context switch cost of system-wide @pmu_thread (arm64) ---------------
# the CPU-wide instructions of one nanosleep call (two context switches),
# without and with @pmu_thread's sched_switch accounting (no -c: --vm-during)
if want ctxsw; then
	log "arm64: context switch cost of system-wide @pmu_thread"
	C_CMD=("$STAP_PMU" -a arm64 --vm --vm-cpu cortex-a57 --vm-smp 1 --pmu-targets perf
	       --vm-during 'pmu-workload nanosleep 1000 100' "$SCRIPTS/ctxsw.stp")
	"${C_CMD[@]}" >"$RES/ctxsw_base.out" 2>"$RES/ctxsw_base.err"
	echo "rc=$?" >>"$RES/ctxsw_base.err"
	"${C_CMD[@]}" thread >"$RES/ctxsw_thread.out" 2>"$RES/ctxsw_thread.err"
	echo "rc=$?" >>"$RES/ctxsw_thread.err"
	record_cmd ctxsw_base "stap-pmu -a arm64 --vm --vm-cpu cortex-a57 --vm-smp 1 --pmu-targets perf --vm-during 'pmu-workload nanosleep 1000 100' bench/scripts/ctxsw.stp"
	record_cmd ctxsw_thread "stap-pmu -a arm64 --vm --vm-cpu cortex-a57 --vm-smp 1 --pmu-targets perf --vm-during 'pmu-workload nanosleep 1000 100' bench/scripts/ctxsw.stp thread"
fi

# ---- report --------------------------------------------------------------
# keep commands of phases not re-run
if [ -f "$RES/commands.tsv" ]; then
	awk -F'\t' 'NR == FNR { seen[$1] = 1; next } !($1 in seen)' "$NEWCMD" "$RES/commands.tsv" >>"$NEWCMD"
fi
mv "$NEWCMD" "$RES/commands.tsv"
if want report; then
	python3 "$BENCH_DIR/report.py" --results "$RES" --out "$BENCH_DIR/results.json" \
		--doc "$SRC_DIR/docs/performance.md" --kernel "$KREL" --stap-pmu "$STAP_PMU" ||
		die "report.py failed"
fi
log "done in $(($(date +%s) - T_START)) s: bench/results.json, docs/performance.md"
