#!/bin/sh
# install-deps.sh - install every Debian 12 package stap-pmu needs to build,
# test, and run scripts in QEMU guests. Idempotent: a second run only checks.
set -eu

PKGS="build-essential cmake pkg-config libpfm4-dev libdw-dev libelf-dev
libgtest-dev libgmock-dev libcli11-dev libfmt-dev
linux-image-amd64 linux-headers-amd64 qemu-system-x86 busybox-static
cpio kmod xz-utils gzip file"

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
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -q
	# shellcheck disable=SC2086
	apt-get install -y -q --no-install-recommends $missing
fi
