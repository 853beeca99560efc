#!/bin/sh
# build-sample.sh SOURCE_DIR - builds tests/runtime/sample_module.c against
# the newest installed kernel headers, warnings as errors.
set -eu
src=$1
tree=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$tree" ] || { echo "no linux-headers-*-amd64 installed" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cp "$src/tests/runtime/sample_module.c" "$dir/"
printf 'obj-m := sample_module.o\nccflags-y := -I%s/runtime -Werror\n' "$src" > "$dir/Kbuild"
make -s -C "$tree" M="$dir" modules
test -s "$dir/sample_module.ko"
echo "ok: sample_module.ko built against $tree"
