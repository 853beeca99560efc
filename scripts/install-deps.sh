#!/bin/sh
# install-deps.sh - install every Debian 12 package stap-pmu needs to build,
# test, and run scripts in QEMU guests, and set up the arm64 cross
# environment. Idempotent: a second run only checks.
#
# Kernels: Debian 12 ships two lines. 6.1 comes with linux-image-amd64 (the
# default target, see translator/kernelinfo/kernel.h); for the portability
# tests the newest 6.12 release apt knows (linux-image-6.12.*+deb12-amd64,
# the signed image when it exists, else -unsigned, with the headers of the
# same release) is installed beside it, in the stock and the PREEMPT_RT
# (-rt-amd64) flavours. Releases are discovered with apt-cache; once one
# release of a line and flavour is installed, later runs leave it alone.
# STAP_PMU_EXTRA_LINES (default "6.12") names the extra lines; "" for none.
#
# arm64: the cross compilers and qemu-system-arm are installed normally; the
# arm64 kernel headers, kernel image and static busybox are NOT installed
# (apt would replace gcc-12 and the amd64 headers): for each kernel line, they
# are downloaded with `apt-get download` for the same release as the newest
# installed stock amd64 kernel of that line and unpacked with `dpkg -x` into
# $STAP_PMU_ARM64_ROOT/<release> (default /var/cache/stap-pmu/arm64).
# About 85 MB of downloads per line, 1-2 minutes.
#
# --bench: also what bench/run.sh compares stap-pmu with and reads its logs
# with: SystemTap 4.8 (systemtap), bpftrace 0.17 (bpftrace) and jq. Not needed
# to build or test stap-pmu.
#
# --debug-kernel: also what scripts/debug-kernel.sh builds the debugging guest
# kernel from and with: Debian's linux-source-6.1 (the stock 6.1 kernel's
# source, ~140 MB), flex, bison, bc and pahole (dwarves, for BTF). Without
# it, debug-kernel.sh downloads the source package itself. The arm64 one
# (debug-kernel.sh --arch arm64) is cross-built with gcc-aarch64-linux-gnu,
# installed in any case (above), and boots with the arm64 busybox the
# default run unpacks.
set -eu

PKGS="build-essential cmake pkg-config libpfm4-dev libdw-dev libelf-dev libbpf-dev libzstd-dev
libgtest-dev libgmock-dev libcli11-dev libfmt-dev
linux-image-amd64 linux-headers-amd64 qemu-system-x86 busybox-static
cpio kmod xz-utils gzip file openssl clang-14 libclang-rt-14-dev python3 systemtap-sdt-dev
gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm"
BENCH_PKGS="systemtap bpftrace jq"
DEBUG_KERNEL_PKGS="linux-source-6.1 flex bison bc dwarves"

for arg in "$@"; do
	case $arg in
	--bench) PKGS="$PKGS $BENCH_PKGS" ;;
	--debug-kernel) PKGS="$PKGS $DEBUG_KERNEL_PKGS" ;;
	*)
		echo "install-deps: unknown argument '$arg'" \
			"(usage: install-deps.sh [--bench] [--debug-kernel])" >&2
		exit 2
		;;
	esac
done

export DEBIAN_FRONTEND=noninteractive
updated=0
apt_update() {
	if [ "$updated" = 0 ]; then
		apt-get update -q
		updated=1
	fi
}

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing="$missing $p"
done

if [ -n "$missing" ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "install-deps: missing packages:$missing; run as root" >&2
		exit 1
	fi
	echo "install-deps: installing$missing"
	apt_update
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi

# ---- extra kernel lines (6.12 stock and PREEMPT_RT) ----
EXTRA_LINES=${STAP_PMU_EXTRA_LINES-6.12}

# Releases of a line and flavour, e.g. "6.12" "rt-amd64" -> 6.12.117+deb12-rt-amd64;
# from stdin (package names with their prefix already stripped). The release
# part is digits and dots, an optional Debian ABI ("-57") and an optional
# "+deb12": "6.12.117+deb12-rt-amd64" is not a release of flavour "amd64".
releases_of() {
	line_re=$(printf '%s' "$1" | sed 's/\./\\./g')
	grep -E "^$line_re\.[0-9][0-9.]*(-[0-9]+)?(\+[a-z0-9]+)?-$2\$" | sort -V
}

installed_pkgs() {
	dpkg-query -W -f='${Package} ${Status}\n' "$1" 2>/dev/null |
		awk '/install ok installed$/ { print $1 }'
}

# The newest installed release of a line and flavour that has its headers too.
installed_release() {
	installed_pkgs "linux-headers-$1.*-$2" | sed 's/^linux-headers-//' | releases_of "$1" "$2" |
		while read -r r; do
			if installed_pkgs "linux-image-$r" | grep -q . ||
			   installed_pkgs "linux-image-$r-unsigned" | grep -q .; then
				echo "$r"
			fi
		done | tail -n 1
}

# The image package of release $1 (arch suffix $2: "" or ":arm64") that apt
# can install: Debian's signed image or, while the signed build of a new
# release lags behind the unsigned one (the signed name is then only
# provided, with no candidate), the unsigned one; "" when neither.
image_pkg() {
	for p in "linux-image-$1" "linux-image-$1-unsigned"; do
		if apt-cache madison "$p$2" 2>/dev/null | grep -q .; then
			echo "$p"
			return 0
		fi
	done
}

need_root() {
	if [ "$(id -u)" != 0 ]; then
		echo "install-deps: $1; run as root" >&2
		exit 1
	fi
}

for line in $EXTRA_LINES; do
	for flavour in amd64 rt-amd64; do
		[ -n "$(installed_release "$line" "$flavour")" ] && continue
		need_root "no linux-image-$line.*-$flavour with its headers installed"
		apt_update
		rel=$(apt-cache search --names-only "^linux-headers-$line\\." | awk '{ print $1 }' |
			sed 's/^linux-headers-//' | releases_of "$line" "$flavour" | tail -n 1)
		if [ -z "$rel" ]; then
			echo "install-deps: apt knows no linux-headers-$line.*-$flavour" >&2
			exit 1
		fi
		image=$(image_pkg "$rel" "")
		if [ -z "$image" ]; then
			echo "install-deps: apt has no installable linux-image-$rel (signed or unsigned)" >&2
			exit 1
		fi
		echo "install-deps: installing the $line $flavour kernel $rel"
		apt-get install -y -q --no-install-recommends "$image" "linux-headers-$rel"
	done
done

# ---- arm64 cross environment (download + unpack, never install) ----
ARM64_ROOT=${STAP_PMU_ARM64_ROOT:-/var/cache/stap-pmu/arm64}

# Unpacks the arm64 kernel "$1" (e.g. 6.1.0-57-arm64) whose Debian ABI is "$2"
# (6.1.0-57) into $ARM64_ROOT/$1, with its headers and a static busybox.
fetch_arm64() {
	rel=$1
	abi=$2
	[ -f "$ARM64_ROOT/$rel/.complete" ] && return 0
	need_root "arm64 kernel $rel not unpacked in $ARM64_ROOT"
	echo "install-deps: fetching the arm64 kernel $rel into $ARM64_ROOT/$rel"
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
		updated=0
	fi
	apt_update
	dl="$ARM64_ROOT/debs"
	mkdir -p "$dl"
	# the -common headers are architecture-independent: the host's copy serves
	# when it is installed (it is whenever linux-headers-$abi-amd64 is)
	image=$(image_pkg "$rel" ":arm64")
	if [ -z "$image" ]; then
		echo "install-deps: apt has no installable linux-image-$rel:arm64 (signed or unsigned)" >&2
		exit 1
	fi
	want="linux-headers-$rel:arm64 $image:arm64 busybox-static:arm64"
	common="linux-headers-$abi-common"
	dpkg-query -W -f='${Status}\n' "$common" 2>/dev/null | grep -q '^install ok installed$' ||
		want="$want $common"
	# shellcheck disable=SC2086
	(cd "$dl" && rm -f ./*.deb && apt-get download -q $want)
	tree="$ARM64_ROOT/$rel"
	rm -rf "$tree.tmp"
	mkdir -p "$tree.tmp"
	for deb in "$dl"/*.deb; do
		dpkg -x "$deb" "$tree.tmp"
	done
	# Debian's headers tree points at /usr/lib/linux-kbuild-X (host tools) and
	# /usr/src/linux-headers-ABI-common through relative links: give the
	# unpacked tree the host's kbuild and (when installed) the host's -common
	kbname=$(readlink "$tree.tmp/usr/src/linux-headers-$rel/scripts" 2>/dev/null |
		sed -n 's|.*/\(linux-kbuild-[^/]*\)/.*|\1|p')
	if [ -n "$kbname" ]; then
		mkdir -p "$tree.tmp/usr/lib"
		rm -rf "$tree.tmp/usr/lib/$kbname"
		ln -sfn "/usr/lib/$kbname" "$tree.tmp/usr/lib/$kbname"
	fi
	if [ ! -e "$tree.tmp/usr/src/$common" ] && [ -d "/usr/src/$common" ]; then
		ln -sfn "/usr/src/$common" "$tree.tmp/usr/src/$common"
	fi
	# the guest boots from an initramfs: the kernel's modules and dtbs are not needed
	rm -rf "$tree.tmp/lib/modules" "$tree.tmp/usr/lib/linux-image-$rel"
	rm -rf "$tree"
	mv "$tree.tmp" "$tree"
	rm -f "$dl"/*.deb
	touch "$tree/.complete"
	echo "install-deps: arm64 kernel ready: $tree"
}

# One arm64 kernel per line: the release of the newest installed stock amd64
# kernel of 6.1 (linux-image-amd64's line) and of each extra line.
for line in 6.1 $EXTRA_LINES; do
	rel=$(installed_release "$line" amd64)
	if [ -z "$rel" ]; then
		echo "install-deps: no installed linux-image-$line.*-amd64: cannot pick the arm64 kernel" >&2
		exit 1
	fi
	fetch_arm64 "${rel%-amd64}-arm64" "${rel%-amd64}"
done
