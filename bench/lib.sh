# shellcheck shell=bash
# lib.sh - helpers shared by the bench scripts (sourced, bash).
# Everything generated lives under $BENCH_WORK (default ~/.cache/stap-pmu/bench);
# only results.json and docs/performance.md are written into the tree.

BENCH_DIR=${BENCH_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)}
SRC_DIR=${SRC_DIR:-$(cd "$BENCH_DIR/.." && pwd)}
BUILD_DIR=${BUILD_DIR:-$SRC_DIR/build}
BENCH_WORK=${BENCH_WORK:-$HOME/.cache/stap-pmu/bench}
STAP_PMU=${STAP_PMU:-$BUILD_DIR/stap-pmu}
mkdir -p "$BENCH_WORK"

log() { printf '[bench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# The kernel both tools build for: the newest stock release of the 6.1 line
# (Debian 12's default, stap-pmu's default here, and the line SystemTap 4.8
# builds for; $BENCH_KERNEL, a line or release of tests/lib/kernel.sh,
# overrides it). Sets KREL, KTREE, VMLINUZ, VMLINUX.
find_kernel() {
	KREL=$("$SRC_DIR/tests/lib/kernel.sh" "${BENCH_KERNEL:-6.1}") ||
		die "no installed kernel of line ${BENCH_KERNEL:-6.1} with its headers"
	KTREE=/usr/src/linux-headers-$KREL
	VMLINUZ=/boot/vmlinuz-$KREL
	VMLINUX=$HOME/.cache/stap-pmu/vmlinux-$KREL
	if [ ! -s "$VMLINUX" ]; then
		mkdir -p "$(dirname "$VMLINUX")"
		extract_vmlinux "$VMLINUZ" "$VMLINUX" || die "cannot extract vmlinux from $VMLINUZ"
	fi
}

# The x86 bzImage holds an xz stream; the uncompressed ELF boots through PVH
# (about twice as fast under TCG, and without KASLR).
extract_vmlinux() {
	local in=$1 out=$2 off
	for off in $(grep -abo "$(printf '\3757zXZ\000')" "$in" | cut -d: -f1); do
		tail -c +$((off + 1)) "$in" | xz -dc 2>/dev/null >"$out.part"
		if file "$out.part" | grep -q ELF; then
			mv "$out.part" "$out"
			return 0
		fi
	done
	rm -f "$out.part"
	return 1
}

# mk_initramfs ROOTDIR OUT.cpio.gz | OUT.cpio (uncompressed: a root holding
# bpftrace's 200 MB of libraries boots much faster when the guest kernel need
# not inflate it under TCG)
mk_initramfs() {
	case $2 in
	*.gz) (cd "$1" && find . | cpio -o -H newc --quiet | gzip -1) >"$2" ;;
	*) (cd "$1" && find . | cpio -o -H newc --quiet) >"$2" ;;
	esac
}

# base_root DIR: busybox + the bench's static guest programs
base_root() {
	local r=$1
	rm -rf "$r"
	mkdir -p "$r"/{bin,sbin,proc,sys,dev,tmp,etc,bench}
	cp /bin/busybox "$r/bin/busybox"
	cp "$BENCH_WORK/bin/getpid_loop" "$BENCH_WORK/bin/getpid_par" "$BENCH_WORK/bin/modtime" "$r/bin/"
	cp "${GUEST_BIN:-$BUILD_DIR/guest}/stap-pmu-loader" "${GUEST_BIN:-$BUILD_DIR/guest}/pmu-workload" "$r/bin/"
}

# overlay_with_libs DIR BIN... : copies each BIN (an absolute path) to
# DIR/BIN and every shared library ldd lists for them (ldd resolves the whole
# closure) to DIR at the same path, with the dynamic loader, so that the
# programs run in a guest initramfs built from DIR.
overlay_with_libs() {
	local dir=$1 f lib
	shift
	for f in "$@"; do
		mkdir -p "$dir$(dirname "$f")"
		cp -L "$f" "$dir$f" || return 1
	done
	for lib in $(for f in "$@"; do ldd "$f"; done | awk '/=>/ && $3 ~ /^\// { print $3 }' | sort -u); do
		mkdir -p "$dir$(dirname "$lib")"
		cp -L "$lib" "$dir$lib" || return 1
	done
	mkdir -p "$dir/lib64"
	cp -L /lib64/ld-linux-x86-64.so.2 "$dir/lib64/"
}

# Common /init prologue (busybox sh)
init_prologue() {
	cat <<'EOS'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs tmpfs /tmp
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
stty -F /dev/ttyS1 raw -echo 2>/dev/null
EOS
}

# run_x86 INITRD OUTDIR TIMEOUT CMDLINE [QEMU ARGS...]
# Console -> OUTDIR/console.log, guest /dev/ttyS1 -> OUTDIR/out.log.
# X86_MEM (1G) and X86_ACCEL (tcg) set -m and -accel.
run_x86() {
	local initrd=$1 out=$2 to=$3 cmdline=$4
	shift 4
	mkdir -p "$out"
	rm -f "$out/console.log" "$out/out.log"
	timeout --foreground -k 5 "$to" qemu-system-x86_64 -accel "${X86_ACCEL:-tcg}" -cpu qemu64 -m "${X86_MEM:-1G}" \
		-nodefaults -display none -monitor none -no-reboot "$@" \
		-kernel "$VMLINUX" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 oops=panic $cmdline" \
		-serial "file:$out/console.log" -serial "file:$out/out.log" </dev/null
}

# median of the numbers on stdin
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
