#!/bin/bash
# build.sh SRC_DIR OUT_DIR [RELEASE] - builds stp_testmod.ko (with DWARF) for
# the newest installed kernel with headers (or RELEASE, also a kernel built by
# scripts/debug-kernel.sh) in OUT_DIR.
set -eu
src=$1 out=$2 rel=${3:-}
if [[ -z $rel ]]; then
	rel=$(ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sed 's|.*/linux-headers-||' |
	      sort -V | tail -1)
fi
tree=/usr/src/linux-headers-$rel
# a kernel built by scripts/debug-kernel.sh: its module tree in its cache entry
[[ -d $tree ]] || tree=$("$(dirname "$0")/../lib/kernel.sh" --modules-dir "$rel")/build
[[ -d $tree ]] || { echo "build.sh: no kernel headers for '$rel' (install linux-headers-amd64)" >&2; exit 1; }
mkdir -p "$out"
cp "$src/stp_testmod.c" "$src/Kbuild" "$out/"
make -s -C "$tree" M="$out" modules >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
echo "$out/stp_testmod.ko"
