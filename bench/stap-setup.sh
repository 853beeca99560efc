#!/bin/bash
# stap-setup.sh - prepare SystemTap 4.8 to build modules for the guest kernel
# (no kernel debuginfo; only kprobe.function and timer probes work). Idempotent.
#  1. System.map: Debian ships none, so one guest boot with nokaslr dumps
#     /proc/kallsyms (cached per kernel release).
#  2. A copy of the kernel headers tree holding that System.map (stap -r DIR);
#     its relative scripts/tools links are made absolute.
#  3. A copy of the SystemTap runtime, fixed for kernels where
#     task_work_cancel() takes a callback_head and task_work_cancel_func()
#     is the old API (Debian 6.1.19x backported it); used with stap -R DIR.
#  4. staprun, stapio and their shared libraries for the guest initramfs.
# Prints nothing on success but the paths (sourced values in $BENCH_WORK/stap/env).
set -eu
. "$(dirname "$0")/lib.sh"
find_kernel
S=$BENCH_WORK/stap/$KREL
mkdir -p "$S"

# 1. System.map from the guest's kallsyms
if [ ! -s "$S/System.map" ] || [ ! -s "$S/probe-candidates" ]; then
	log "stap-setup: dumping /proc/kallsyms from a nokaslr guest (about 20 s)"
	r=$BENCH_WORK/root-kallsyms
	rm -rf "$r"; mkdir -p "$r"/{bin,proc,sys,dev,tmp}
	cp /bin/busybox "$r/bin/"
	# kallsyms, then the ftrace-able functions, then the kprobe blacklist
	{ init_prologue; echo 'T=/sys/kernel/debug/tracing
{ cat /proc/kallsyms; echo "== FTRACE"; cat $T/available_filter_functions; echo "== BLACKLIST"; cat /sys/kernel/debug/kprobes/blacklist; } > /dev/ttyS1
echo KALLSYMS_DONE; poweroff -f'; } >"$r/init"
	chmod +x "$r/init"
	mk_initramfs "$r" "$BENCH_WORK/initrd-kallsyms.gz"
	run_x86 "$BENCH_WORK/initrd-kallsyms.gz" "$BENCH_WORK/kallsyms" 300 "nokaslr loglevel=1" -smp 1
	grep -q KALLSYMS_DONE "$BENCH_WORK/kallsyms/console.log" || die "kallsyms guest failed"
	tr -d '\r' <"$BENCH_WORK/kallsyms/out.log" >"$S/dump.txt"
	sed '/^== FTRACE/,$d' "$S/dump.txt" | awk 'NF >= 3 && $4 == ""' | sort >"$S/System.map.part"
	# candidates for the register_probes benchmark: sysfs/procfs *_show
	# functions (called only when a file is read), ftrace-able, not
	# blacklisted, with a name that is unique in the kernel
	sed -n '/^== BLACKLIST/,$p' "$S/dump.txt" | awk 'NF == 2 { print $2 }' | sort -u >"$S/blacklist"
	awk '$4 == "" { print $3 }' "$S/System.map.part" | sort | uniq -u >"$S/unique-names"
	sed -n '/^== FTRACE/,/^== BLACKLIST/p' "$S/dump.txt" | awk 'NF == 1 && /_show$/ { print $1 }' | sort -u |
		comm -23 - "$S/blacklist" | comm -12 - "$S/unique-names" >"$S/probe-candidates"
	[ "$(wc -l <"$S/System.map.part")" -gt 10000 ] || die "kallsyms dump too short"
	mv "$S/System.map.part" "$S/System.map"
fi

# 2. build-dir copy
if [ ! -f "$S/kbuild/.complete" ]; then
	rm -rf "$S/kbuild"
	cp -a "$KTREE" "$S/kbuild"
	for l in "$S"/kbuild/*; do
		if [ -L "$l" ]; then ln -sfn "$(readlink -f "$KTREE/$(basename "$l")")" "$l"; fi
	done
	cp "$S/System.map" "$S/kbuild/System.map"
	touch "$S/kbuild/.complete"
fi

# 3. runtime copy
if [ ! -f "$S/runtime/.complete" ]; then
	rm -rf "$S/runtime"
	cp -a /usr/share/systemtap/runtime "$S/runtime"
	common=$(readlink -f "$KTREE/include/linux/task_work.h" 2>/dev/null || true)
	[ -f "$common" ] || common=$(ls /usr/src/linux-headers-*-common/include/linux/task_work.h | head -n 1)
	if grep -q 'task_work_cancel_func' "$common"; then
		sed -i -e 's/typeof(&task_work_cancel) task_work_cancel_fn/typeof(\&task_work_cancel_func) task_work_cancel_fn/' \
			-e 's/kallsyms_lookup_name("task_work_cancel")/kallsyms_lookup_name("task_work_cancel_func")/' \
			"$S/runtime/stp_task_work.c"
	fi
	touch "$S/runtime/.complete"
fi

# 4. staprun + stapio + libraries for the guest
if [ ! -f "$S/overlay/.complete" ]; then
	rm -rf "$S/overlay"
	overlay_with_libs "$S/overlay" /usr/bin/staprun /usr/lib/systemtap/stapio || die "staprun overlay"
	touch "$S/overlay/.complete"
fi
cat >"$S/env" <<EOV
STAP_KBUILD=$S/kbuild
STAP_RUNTIME=$S/runtime
STAP_OVERLAY=$S/overlay
EOV
echo "$S/env"
