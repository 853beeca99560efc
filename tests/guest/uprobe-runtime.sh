#!/bin/bash
# uprobe-runtime.sh STAP_PMU SOURCE_DIR KERNEL [arm64] - the user-space probe
# runtime (runtime/stp_uprobes.h) end to end in a guest, without the
# translator's process provider: tests/runtime/uprobe_runtime_module.c,
# built against the guest kernel with the file offset and link-time address
# of pmu-workload's syscall() (from its symbol table and program headers),
# is loaded next to a trivial script (--vm-module). Exact totals:
#  - 1000 + 7 getpid calls through syscall(): the uprobe fires 1007 times
#    with $nr (a register location) = SYS_getpid, and (x86) the return
#    address read from the user stack lies in the text;
#  - the uretprobe fires 1007 times; @entry($nr) was saved per call in the
#    entry table and @entry(pid()) by the entry function, $return is the pid;
#  - a bad user pointer is a fault each time (1007), never a value;
#  - process(PATH).begin/.end fire for each of the 3 runs, one of them
#    killed in the middle of its loop;
#  - after rmmod the workload runs again without a leftover breakpoint
#    (a SIGTRAP would kill it);
#  - loaded again with _stp_target (what -c/-x set): the target shell's
#    children are probed, then nothing of a process outside the target's
#    tree (the target a sleeping sibling).
set -u
stap_pmu=$1 src=$2 kernel_spec=${3:?a kernel spec (tests/lib/kernel.sh)} arch=${4:-x86_64}
cd "$src" || exit 1
# shellcheck source=tests/lib/kernel.sh
source tests/lib/kernel.sh
karch=amd64 nr=39 nrreg=5 aflags=() mflags=()
if [[ $arch == arm64 ]]; then
	karch=arm64 nr=172 nrreg=0 aflags=(-a arm64)
	mflags=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
fi
release=$(test_kernel "$kernel_spec" "$karch") || { echo "FAIL: no kernel"; exit 1; }
echo "kernel: $release"
tree=/usr/src/linux-headers-$release
# a kernel built by scripts/debug-kernel.sh: its module tree in its cache entry
[[ -d $tree || $karch == arm64 ]] || tree=$(kernel_modules_dir "$release")/build
if [[ $karch == arm64 ]]; then
	for root in ${STAP_PMU_ARM64_ROOT:+"$STAP_PMU_ARM64_ROOT"} /var/cache/stap-pmu/arm64 \
		"${XDG_CACHE_HOME:-$HOME/.cache}/stap-pmu/arm64"; do
		[[ -f $root/$release/.complete ]] && { tree=$root/$release/usr/src/linux-headers-$release; break; }
	done
fi
gbin=${STAP_PMU_GUEST_BIN:-$(dirname "$(realpath "$stap_pmu")")/guest}
[[ $karch == arm64 ]] && gbin=$gbin/arm64
wl=$gbin/pmu-workload
[[ -x $wl ]] || { echo "FAIL: no $wl"; exit 1; }
va=$(nm "$wl" | awk '$2 == "T" && $3 == "syscall" { print $1 }')
[[ -n $va ]] || { echo "FAIL: no syscall() in $wl"; exit 1; }
# the executable LOAD segment holding it: file offset, and the text's bounds
off=
while read -r type o v _ s _ flags; do
	[[ $type == LOAD && $flags == *E* ]] || continue
	if ((16#$va >= v && 16#$va < v + s)); then
		printf -v off '0x%x' $((16#$va - v + o))
		printf -v tstart '0x%x' $((v))
		printf -v tend '0x%x' $((v + s))
	fi
done < <(readelf -lW "$wl")
[[ -n ${off:-} ]] || { echo "FAIL: syscall() at 0x$va is in no executable segment"; exit 1; }
echo "syscall(): vaddr 0x$va, file offset $off"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp tests/runtime/uprobe_runtime_module.c "$work/"
{
	echo 'obj-m := uprobe_runtime_module.o'
	echo "ccflags-y := -I$src/runtime -Werror -DWL='\"/stap-pmu/bin/pmu-workload\"'" \
		"-DOFF=${off}ULL -DVA=0x${va}ULL -DTEXT_START=$tstart -DTEXT_END=$tend"
} >"$work/Kbuild"
make -s -C "$tree" M="$work" "${mflags[@]}" modules >"$work/make.log" 2>&1 ||
	{ echo "FAIL: the module does not build:"; cat "$work/make.log"; exit 1; }
m=/proc/uprobe_runtime_module
cmd="pmu-workload getpid 1000; pmu-workload getpid 7
pmu-workload read 100000000 & p=\$!; sleep 1; kill -9 \$p; wait \$p
echo stop > $m/control; cat $m/output; rmmod uprobe_runtime_module
pmu-workload getpid 3 && echo after-unload-ok
ko=/stap-pmu/extra/uprobe_runtime_module.ko
insmod \$ko _stp_target=\$\$; pmu-workload getpid 5
echo stop > $m/control; cat $m/output; rmmod uprobe_runtime_module
sleep 100 & s=\$!; insmod \$ko _stp_target=\$s; pmu-workload getpid 5
echo stop > $m/control; cat $m/output; rmmod uprobe_runtime_module; kill \$s"
out=$("$stap_pmu" -r "$release" "${aflags[@]}" --vm --vm-module "$work/uprobe_runtime_module.ko" \
	-c "$cmd" -e 'probe begin { printf("script\n") }' 2>&1)
fail=0
want="totals: hits=1007 raok=1007 rets=1007 retok=1007 begins=3 ends=3 faults=1007"
# -c/-x scoping (_stp_target): the shell's children count, a process
# outside the target's tree does not
in_tree="totals: hits=5 raok=5 rets=5 retok=5 begins=1 ends=1 faults=5"
outside="totals: hits=0 raok=0 rets=0 retok=0 begins=0 ends=0 faults=0"
for line in "first entry: nr=$nr bias=0" "$want" after-unload-ok "$in_tree" "$outside"; do
	grep -qxF "$line" <<<"$out" || { echo "FAIL: no line '$line'"; fail=1; }
done
if grep -q "uprobe_runtime_module: .*\(cannot\|not measured\)\|BUG\|WARNING" <<<"$out"; then
	echo "FAIL: kernel complaints"; fail=1
fi
((fail)) && echo "$out"
((fail)) || echo "ok: $want"
exit $fail
