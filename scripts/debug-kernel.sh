#!/bin/sh
# debug-kernel.sh - build the debugging guest kernel (issue 18) once, into a cache.
#
# Architectures: x86_64 (the default) and arm64 (--arch arm64: cross-built
# with aarch64-linux-gnu-gcc, fragment scripts/debug-kernel/arm64.config with
# ARM64_PSEUDO_NMI, release 6.1.N-debug-arm64, an Image to boot instead of a
# bzImage). The arm64 entry's hash also covers "arch arm64" and the cross
# compiler's version; the x86 one is unchanged by --arch's existence.
#
# Source: Debian's own linux-source-6.1 (the same upstream release and Debian
# patches as the stock linux-image-6.1.0-*-amd64 the guest suite boots), from
# /usr/src when the package is installed (install-deps.sh --debug-kernel), else
# fetched with `apt-get download` and unpacked with `dpkg -x` (no root needed).
# Config: `make tinyconfig`, then scripts/debug-kernel/x86_64.config merged over
# it (lockdep, KASAN, atomic-sleep checks, kmemleak, fault injection, ...), then
# olddefconfig; every option the fragment sets is checked to have survived.
#
# Cache: $STAP_PMU_KERNEL_CACHE (default ~/.cache/stap-pmu/kernels)/
#   <source version>-<hash of fragment, recipe and compiler>/
#     build/         the built tree: `-r <this dir>/build` builds modules for it
#     bzImage (x86) or Image (arm64), vmlinux, System.map   links into build/
#     lib/modules/<release>/          `make modules_install` (brd.ko, ...)
#     release        the kernel's release string (uname -r)
#     arch           the kbuild ARCH (x86 or arm64; an entry without it is x86)
#     build.log      the full make output
# A second run finds the complete entry and only prints its path.
#
# Lines: 6.1 (the default) and 6.12 (--line 6.12: linux-source-6.12, release
# 6.12.N-debug-amd64, the "6.12-debug" spec). A line's own fragment,
# scripts/debug-kernel/<line>-<arch>.config when there is one, is merged after
# the architecture's (options that the newer kernel renamed or that its
# defaults changed). The 6.1 entries' hashes are unchanged by --line's existence.
#
# Usage: debug-kernel.sh [--arch x86_64|arm64] [--line 6.1|6.12] [--print-dir]
#   --print-dir prints the entry's directory and builds nothing
# Environment: STAP_PMU_JOBS (default 2) parallel jobs for make.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
line=6.1
cache=${STAP_PMU_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stap-pmu/kernels}
jobs=${STAP_PMU_JOBS:-2}
# bump when the steps below change what they produce
recipe=2

say() { echo "debug-kernel: $*" >&2; }
die() { say "error: $*"; exit 1; }

usage="usage: debug-kernel.sh [--arch x86_64|arm64] [--line 6.1|6.12] [--print-dir]"
print_only=0
arch=x86_64
while [ $# -gt 0 ]; do
	case $1 in
	--print-dir) print_only=1 ;;
	--arch) [ $# -ge 2 ] || die "--arch needs a value ($usage)"; arch=$2; shift ;;
	--arch=*) arch=${1#--arch=} ;;
	--line) [ $# -ge 2 ] || die "--line needs a value ($usage)"; line=$2; shift ;;
	--line=*) line=${1#--line=} ;;
	*) die "unknown argument '$1' ($usage)" ;;
	esac
	shift
done
# kbuild's ARCH, the cross compiler, the image make builds and QEMU boots
case $arch in
x86_64 | x86 | amd64)
	arch=x86_64 karch=x86 cross="" cc=gcc image=bzImage ;;
arm64 | aarch64)
	arch=arm64 karch=arm64 cross=aarch64-linux-gnu- cc=aarch64-linux-gnu-gcc image=Image ;;
*) die "unknown architecture '$arch' ($usage)" ;;
esac
case $line in
6.1 | 6.12) ;;
*) die "unknown kernel line '$line' ($usage)" ;;
esac
pkg=linux-source-$line
frag=$root/scripts/debug-kernel/$arch.config
linefrag=$root/scripts/debug-kernel/$line-$arch.config
[ -f "$linefrag" ] || linefrag=""
kmake() { make ARCH=$karch ${cross:+CROSS_COMPILE=$cross} "$@"; }

[ -f "$frag" ] || die "no config fragment $frag"

# the source package's version: the installed one, else the candidate apt knows
ver=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || true)
installed=1
if [ -z "$ver" ]; then
	installed=0
	ver=$(apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
	[ -n "$ver" ] && [ "$ver" != "(none)" ] ||
		die "apt knows no $pkg (run apt-get update, or install-deps.sh --debug-kernel)"
fi

command -v "$cc" >/dev/null 2>&1 ||
	die "'$cc' is missing (install-deps.sh --debug-kernel installs it)"
# x86's input is what it was before --arch existed (its cache entry stays valid)
hash=$( { echo "recipe $recipe"; [ "$arch" = x86_64 ] || echo "arch $arch"
	[ "$line" = 6.1 ] || echo "line $line"
	"$cc" --version | head -n 1; cat "$frag" ${linefrag:+"$linefrag"}; } | sha256sum | cut -c1-12)
dir=$cache/$ver-$hash
if [ "$print_only" = 1 ]; then
	echo "$dir"
	exit 0
fi
if [ -f "$dir/complete" ]; then
	say "cache hit: $dir (release $(cat "$dir/release"))"
	echo "$dir"
	exit 0
fi

for tool in make gcc flex bison bc pahole dpkg-deb; do
	command -v "$tool" >/dev/null 2>&1 ||
		die "'$tool' is missing (install-deps.sh --debug-kernel installs it)"
done

mkdir -p "$dir"
exec 9>"$dir/lock"
flock -n 9 || { say "another build holds $dir/lock; waiting"; flock 9; }
if [ -f "$dir/complete" ]; then
	echo "$dir"
	exit 0
fi
start=$(date +%s)

# ---- source ----
if [ ! -f "$dir/build/.stap-pmu-unpacked" ]; then
	rm -rf "$dir/build" "$dir/src-tmp"
	mkdir -p "$dir/src-tmp"
	tarball=/usr/src/$pkg.tar.xz
	if [ "$installed" = 0 ] || [ ! -f "$tarball" ]; then
		say "downloading $pkg $ver"
		(cd "$dir/src-tmp" && apt-get download -q "$pkg=$ver" >/dev/null)
		dpkg -x "$dir/src-tmp"/"${pkg}"_*.deb "$dir/src-tmp/pkg"
		tarball=$dir/src-tmp/pkg/usr/src/$pkg.tar.xz
	fi
	say "unpacking $tarball"
	tar -xJf "$tarball" -C "$dir/src-tmp"
	mv "$dir/src-tmp/$pkg" "$dir/build"
	rm -rf "$dir/src-tmp"
	touch "$dir/build/.stap-pmu-unpacked"
fi

# ---- config ----
cd "$dir/build"
if [ ! -f .stap-pmu-configured ]; then
	say "configuring: $karch tinyconfig + $(basename "$frag")${linefrag:+ + $(basename "$linefrag")}"
	kmake -s tinyconfig >/dev/null
	ARCH=$karch ./scripts/kconfig/merge_config.sh -m .config "$frag" ${linefrag:+"$linefrag"} \
		>"$dir/config.log" 2>&1
	kmake -s olddefconfig >>"$dir/config.log" 2>&1
	# every option of the fragments must have survived olddefconfig (the
	# line's fragment, merged last, wins where both set an option)
	if [ -n "$linefrag" ]; then
		opts=$(sed -nE 's/^(CONFIG_[A-Z0-9_]+)=.*/\1/p; s/^# (CONFIG_[A-Z0-9_]+) is not set$/\1/p' "$linefrag")
		{ grep -vwF -e "$opts" "$frag" || true; cat "$linefrag"; } >"$dir/fragment"
	else
		cp "$frag" "$dir/fragment"
	fi
	lost=""
	while IFS= read -r l; do
		case $l in
		CONFIG_*=*) want=$l ;;
		"# CONFIG_"*" is not set") want=$l ;;
		*) continue ;;
		esac
		opt=$(printf '%s\n' "$want" | sed -E 's/^# (CONFIG_[A-Z0-9_]+) is not set$/\1/; s/=.*//')
		got=$(grep -E "^$opt=|^# $opt is not set" .config || true)
		case $want in
		"# "*) [ -z "$got" ] || [ "$got" = "$want" ] || lost="$lost $want(got:$got)" ;;
		*) [ "$got" = "$want" ] || lost="$lost $want(got:${got:-unset})" ;;
		esac
	done <"$dir/fragment"
	[ -z "$lost" ] || die "options of the fragment lost in .config:$lost"
	touch .stap-pmu-configured
fi

# ---- build, with a progress line a minute ----
say "building $image and modules for $karch with -j$jobs (log: $dir/build.log); an hour or more on 2 cores"
(
	while sleep 60; do
		n=$(grep -c '^  CC' "$dir/build.log" 2>/dev/null || true)
		say "$(( ($(date +%s) - start) / 60 )) min: $n files compiled"
	done
) &
progress=$!
trap 'kill $progress 2>/dev/null || true' EXIT
rc=0
kmake -j"$jobs" "$image" modules >"$dir/build.log" 2>&1 || rc=$?
kill $progress 2>/dev/null || true
if [ "$rc" != 0 ]; then
	tail -n 30 "$dir/build.log" >&2
	die "make failed (exit $rc); full log: $dir/build.log"
fi
rel=$(kmake -s kernelrelease)
rm -rf "$dir/lib"
kmake -s INSTALL_MOD_PATH="$dir" INSTALL_MOD_STRIP=1 modules_install >>"$dir/build.log" 2>&1
# modules_install links build/source at the tree; keep them pointing into the cache
ln -sfn "$dir/build" "$dir/lib/modules/$rel/build"
rm -f "$dir/lib/modules/$rel/source"
ln -sfn "build/arch/$karch/boot/$image" "$dir/$image"
ln -sfn build/vmlinux "$dir/vmlinux"
ln -sfn build/System.map "$dir/System.map"
echo "$rel" >"$dir/release"
echo "$karch" >"$dir/arch"
touch "$dir/complete"
say "built $rel in $(( ($(date +%s) - start) / 60 )) min: $dir"
echo "$dir"
