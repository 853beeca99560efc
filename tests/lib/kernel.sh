#!/bin/bash
# kernel.sh - which installed kernel a guest test boots. Sourced by
# tests/run-case.sh and tests/guest/*.sh, or run: `tests/lib/kernel.sh SPEC [ARCH]`
# prints the release.
#
#   test_kernel SPEC [ARCH]   prints the release SPEC names for ARCH (amd64, the
#                             default, or arm64); on stderr why there is none
#                             (status 1: a missing kernel fails the test).
# SPEC is
#   LINE[-VARIANT]   "6.1", "6.12", "6.12-rt", "6.12-cloud": the newest installed
#                    release of that line and flavour (no VARIANT: the stock
#                    flavour, "-amd64" / "-arm64");
#   RELEASE          "6.12.117+deb12-rt-amd64": that release (for the other
#                    architecture: the newest of the same line and variant);
#   suite:SPEC       the whole suite's kernel: $STAP_PMU_TEST_KERNEL (a line or a
#                    release) when it is set, else SPEC; arm64 cases then boot
#                    the stock arm64 kernel of that line (install-deps.sh
#                    unpacks no other arm64 flavour).
# Installed means: amd64, /boot/vmlinuz-R with /usr/src/linux-headers-R or
# /lib/modules/R/build; arm64, R/.complete in $STAP_PMU_ARM64_ROOT,
# /var/cache/stap-pmu/arm64 or ~/.cache/stap-pmu/arm64 (scripts/install-deps.sh);
# for both, a kernel built by scripts/debug-kernel.sh [--arch arm64] (release
# 6.1.N-debug-amd64 / 6.1.N-debug-arm64: the "6.1-debug" spec) in
# $STAP_PMU_KERNEL_CACHE or ~/.cache/stap-pmu/kernels.
#
#   kernel_modules_dir R      prints /lib/modules/R, or a built kernel's copy of it
#                             (run: `tests/lib/kernel.sh --modules-dir R`).

# The entries of scripts/debug-kernel.sh's cache that are complete; with an
# architecture (amd64, arm64), those built for it (an entry without an arch
# file is x86's: the script wrote none before --arch).
built_kernel_dirs() {
	local f d a
	for f in "${STAP_PMU_KERNEL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/stap-pmu/kernels}"/*/complete; do
		d=${f%/complete}
		[[ -f $f && -f $d/release ]] || continue
		a=$(cat "$d/arch" 2>/dev/null || echo x86)
		[[ $a == x86 ]] && a=amd64
		[[ -z ${1:-} || $a == "$1" ]] && echo "$d"
	done
}

kernel_modules_dir() {
	local d
	if [[ ! -d /lib/modules/$1 ]]; then
		for d in $(built_kernel_dirs); do
			if [[ $(cat "$d/release") == "$1" ]]; then
				echo "$d/lib/modules/$1"
				return
			fi
		done
	fi
	echo "/lib/modules/$1"
}

# Every installed release for an architecture, one a line.
installed_kernels() {
	local f r d
	if [[ $1 == arm64 ]]; then
		for d in ${STAP_PMU_ARM64_ROOT:+"$STAP_PMU_ARM64_ROOT"} /var/cache/stap-pmu/arm64 \
			"${XDG_CACHE_HOME:-$HOME/.cache}/stap-pmu/arm64"; do
			for f in "$d"/*/.complete; do
				[[ -f $f ]] && basename "$(dirname "$f")"
			done
		done
	else
		for f in /boot/vmlinuz-*; do
			r=${f#/boot/vmlinuz-}
			[[ -f $f && ( -d /usr/src/linux-headers-$r || -d /lib/modules/$r/build ) ]] &&
				echo "$r"
		done
	fi
	for d in $(built_kernel_dirs "$1"); do
		cat "$d/release"
	done
}

test_kernel() {
	local spec=$1 arch=${2:-amd64} line variant flavour re r override=
	if [[ $spec == suite:* ]]; then
		[[ -n ${STAP_PMU_TEST_KERNEL:-} && $arch == arm64 ]] && override=1
		spec=${STAP_PMU_TEST_KERNEL:-${spec#suite:}}
	fi
	# a release: "6.1.0-57-amd64", "6.12.117+deb12-rt-amd64"
	if [[ $spec =~ ^([0-9]+\.[0-9]+)\.[0-9][0-9.]*(-[0-9]+)?(\+[a-z0-9]+)?-(.+)$ ]]; then
		if [[ ${BASH_REMATCH[4]} == "$arch" || ${BASH_REMATCH[4]} == *-"$arch" ]]; then
			if installed_kernels "$arch" | grep -qxF -- "$spec"; then
				echo "$spec"
				return 0
			fi
			echo "kernel.sh: kernel $spec ($arch) is not installed; run scripts/install-deps.sh" >&2
			return 1
		fi
		line=${BASH_REMATCH[1]}
		variant=${BASH_REMATCH[4]%-*}
		[[ $variant == "${BASH_REMATCH[4]}" ]] && variant=
	elif [[ $spec =~ ^([0-9]+\.[0-9]+)(-([a-z0-9]+))?$ ]]; then
		line=${BASH_REMATCH[1]}
		variant=${BASH_REMATCH[3]}
	else
		echo "kernel.sh: bad kernel '$spec': expected a release or a line such as 6.1, 6.12-rt" >&2
		return 1
	fi
	[[ -n $override ]] && variant=
	flavour=${variant:+$variant-}$arch
	re="^${line//./\\.}\.[0-9][0-9.]*(-[0-9]+)?(\+[a-z0-9]+)?-$flavour\$"
	r=$(installed_kernels "$arch" | grep -E -- "$re" | sort -V | tail -n 1)
	if [[ -z $r ]]; then
		local how=scripts/install-deps.sh
		[[ $variant == debug ]] && how=scripts/debug-kernel.sh
		[[ $variant == debug && $arch == arm64 ]] && how="scripts/debug-kernel.sh --arch arm64"
		echo "kernel.sh: no $line kernel of the $flavour flavour installed (wanted by '$1');" \
			"run $how" >&2
		return 1
	fi
	echo "$r"
}

# The architecture of a stap-pmu command line: arm64 with -a/--vm-arch arm64.
args_arch() {
	local prev='' a
	for a in "$@"; do
		case "$prev $a" in
		"-a arm64" | "-a aarch64" | "--vm-arch arm64" | "--vm-arch aarch64" | \
			*" --vm-arch=arm64" | *" -aarm64")
			echo arm64
			return
			;;
		esac
		prev=$a
	done
	echo amd64
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
	if [[ ${1:-} == --modules-dir ]]; then
		kernel_modules_dir "$2"
	else
		test_kernel "$@"
	fi
fi
