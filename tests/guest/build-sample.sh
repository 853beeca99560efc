#!/bin/sh
# build-sample.sh SOURCE_DIR - builds tests/runtime/sample_module.c against
# the newest installed amd64 kernel headers and, cross-compiled, against the
# arm64 headers scripts/install-deps.sh unpacked; warnings as errors.
set -eu
src=$1
tree=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$tree" ] || { echo "no linux-headers-*-amd64 installed" >&2; exit 1; }
root=${STAP_PMU_ARM64_ROOT:-/var/cache/stap-pmu/arm64}
arm=$(ls -d "$root"/*/usr/src/linux-headers-*-arm64 2>/dev/null | sort -V | tail -n 1)
[ -n "$arm" ] || { echo "no arm64 headers in $root (run scripts/install-deps.sh)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for a in amd64 arm64; do
	mkdir -p "$dir/$a"
	cp "$src/tests/runtime/sample_module.c" "$dir/$a/"
	printf 'obj-m := sample_module.o\nccflags-y := -I%s/runtime -Werror\n' "$src" > "$dir/$a/Kbuild"
done
make -s -C "$tree" M="$dir/amd64" modules
test -s "$dir/amd64/sample_module.ko"
echo "ok: sample_module.ko built against $tree"
make -s -C "$arm" M="$dir/arm64" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules
test -s "$dir/arm64/sample_module.ko"
echo "ok: sample_module.ko cross-built against $arm"
