#!/bin/sh
# install-deps.sh - install every Debian 12 package stap-pmu needs to build,
# test, and run scripts in QEMU guests, and set up the arm64 cross
# environment. Idempotent: a second run only checks.
#
# arm64: the cross compilers and qemu-system-arm are installed normally; the
# arm64 kernel headers, kernel image and static busybox are NOT installed
# (apt would replace gcc-12 and the amd64 headers): they are downloaded with
# `apt-get download` for the same kernel ABI as the installed amd64 kernel
# and unpacked with `dpkg -x` into $STAP_PMU_ARM64_ROOT (default
# /var/cache/stap-pmu/arm64). About 85 MB of downloads, 1-2 minutes.
set -eu

PKGS="build-essential cmake pkg-config libpfm4-dev libdw-dev libelf-dev libbpf-dev libzstd-dev
libgtest-dev libgmock-dev libcli11-dev libfmt-dev
linux-image-amd64 linux-headers-amd64 qemu-system-x86 busybox-static
cpio kmod xz-utils gzip file openssl clang-14 libclang-rt-14-dev python3
gcc-aarch64-linux-gnu g++-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm"

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

# ---- arm64 cross environment (download + unpack, never install) ----
ARM64_ROOT=${STAP_PMU_ARM64_ROOT:-/var/cache/stap-pmu/arm64}

# ABI of the newest installed amd64 kernel image, e.g. 6.1.0-57
abi=$(dpkg-query -W -f='${Package} ${Status}\n' 'linux-image-[0-9]*-amd64' 2>/dev/null |
	awk '/install ok installed$/ { sub(/^linux-image-/, "", $1); sub(/-amd64$/, "", $1); print $1 }' |
	sort -V | tail -n 1)
if [ -z "$abi" ]; then
	echo "install-deps: no installed linux-image-*-amd64: cannot pick the arm64 kernel" >&2
	exit 1
fi
rel="$abi-arm64"
stamp="$ARM64_ROOT/$rel/.complete"
if [ -f "$stamp" ]; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: arm64 kernel $rel not unpacked in $ARM64_ROOT; run as root" >&2
	exit 1
fi
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
want="linux-headers-$rel:arm64 linux-image-$rel:arm64 busybox-static:arm64"
common="linux-headers-$abi-common"
dpkg-query -W -f='${Status}\n' "$common" 2>/dev/null | grep -q '^install ok installed$' ||
	want="$want $common"
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
kbname=$(readlink "$tree.tmp/usr/src/linux-headers-$rel/scripts" 2>/dev/null | sed -n 's|.*/\(linux-kbuild-[^/]*\)/.*|\1|p')
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
touch "$stamp"
echo "install-deps: arm64 kernel ready: $tree"
