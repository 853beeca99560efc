# guest-script.sh - sourced (from the source directory) by the x86 guest test
# scripts that boot their own guests: guest_script_init KERNEL_SPEC resolves
# the spec (tests/lib/kernel.sh) to an installed amd64 release in $release
# (a missing kernel fails the test) and makes $work, a temporary directory
# removed at exit.
# shellcheck source=tests/lib/kernel.sh
source tests/lib/kernel.sh

guest_script_init()
{
	release=$(test_kernel "$1" amd64) || { echo "FAIL: no kernel"; exit 1; }
	echo "kernel: $release"
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
}
