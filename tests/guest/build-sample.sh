#!/bin/bash
# build-sample.sh SOURCE_DIR KERNEL... - builds tests/runtime/sample_module.c
# (and sample_uprobe_module.c, the user-space probes' example),
# warnings as errors, against the headers of each KERNEL (a tests/lib/kernel.sh
# spec: "6.1", "6.12", "6.12-rt") and, cross-compiled, against the arm64
# headers of the same line that scripts/install-deps.sh unpacked (stock
# flavours only: install-deps.sh unpacks no other arm64 flavour). Every
# supported kernel compiles the runtime and its compat header
# (runtime/stp_compat.h) warning-free; a missing kernel is a failure.
set -eu
src=$1
shift
# shellcheck source=tests/lib/kernel.sh
source "$src/tests/lib/kernel.sh"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# tree_of RELEASE ARCH: the kbuild tree of an installed release
tree_of() {
	local root
	if [[ $2 == arm64 ]]; then
		for root in ${STAP_PMU_ARM64_ROOT:+"$STAP_PMU_ARM64_ROOT"} /var/cache/stap-pmu/arm64 \
			"${XDG_CACHE_HOME:-$HOME/.cache}/stap-pmu/arm64"; do
			[[ -f $root/$1/.complete ]] && { echo "$root/$1/usr/src/linux-headers-$1"; return; }
		done
	elif [[ -d /usr/src/linux-headers-$1 ]]; then
		echo "/usr/src/linux-headers-$1"
	else
		echo "/lib/modules/$1/build"
	fi
}
for spec in "$@"; do
	arches=amd64
	[[ $spec =~ ^[0-9]+\.[0-9]+$ ]] && arches="amd64 arm64"
	for a in $arches; do
		rel=$(test_kernel "$spec" "$a")
		tree=$(tree_of "$rel" "$a")
		d=$dir/$rel
		mkdir -p "$d"
		cp "$src/tests/runtime/sample_module.c" "$src/tests/runtime/sample_uprobe_module.c" "$d/"
		printf 'obj-m := sample_module.o sample_uprobe_module.o\nccflags-y := -I%s/runtime -Werror\n' \
			"$src" >"$d/Kbuild"
		if [[ $a == arm64 ]]; then
			make -s -C "$tree" M="$d" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- modules
		else
			make -s -C "$tree" M="$d" modules
		fi
		test -s "$d/sample_module.ko"
		test -s "$d/sample_uprobe_module.ko"
		echo "ok: sample_module.ko and sample_uprobe_module.ko built against $tree"
	done
done
