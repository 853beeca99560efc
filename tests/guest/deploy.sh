#!/bin/bash
# deploy.sh STAP_PMU SOURCE_DIR KERNEL - boot-time probing and load refusals in x86
# guests (docs/deploy.md). Three boots:
#  1. --vm-at-boot: the guest's /init insmods the module before anything else;
#     the command (pmu-workload getpid 1000, then ps) runs with no stap-pmu
#     process in the guest; the output is read afterwards with the loader's
#     -S (what --stop does): begin's line from load time, the exact count and
#     the end probe's perf::cpu-clock check.
#  2. module.sig_enforce=1: the unsigned module is refused with the clear
#     message (the module is built and stored in an empty cache: one make);
#     on a kernel without CONFIG_MODULE_SIG (the debugging kernel) it runs.
#  3. the same again: a cache hit (-v says so) and no make run, same message.
set -u
stap_pmu=$1 src=$2 kernel_spec=${3:?a kernel spec (tests/lib/kernel.sh)}
cd "$src" || exit 1
# KERNEL: the guest kernel, a tests/lib/kernel.sh spec ("suite:6.1", "6.12")
# shellcheck source=tests/lib/kernel.sh
source tests/lib/kernel.sh
release=$(test_kernel "$kernel_spec" amd64) || { echo "FAIL: no kernel"; exit 1; }
echo "kernel: $release"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export STAP_PMU_MODULE_CACHE=$work/cache STAP_PMU_KBUILD_LOG=$work/kbuild.log
fail=0
say() { echo "FAIL: $*"; fail=1; }
makes() { [[ -f $STAP_PMU_KBUILD_LOG ]] && wc -l <"$STAP_PMU_KBUILD_LOG" || echo 0; }

# 1. at boot
"$stap_pmu" -r "$release" --vm --vm-at-boot --vm-smp 1 -c 'pmu-workload getpid 1000; ps' \
	tests/guest/scripts/deploy_at_boot.stp >"$work/out" 2>"$work/err"
rc=$?
((rc == 0)) || say "--vm-at-boot: exit status $rc"
grep -qx 'begin ran at load' "$work/out" || say "--vm-at-boot: no begin output"
grep -qx 'getpid=1000 clock_advanced=1' "$work/out" || say "--vm-at-boot: count or clock wrong"
# ps ran while the module was probing: init, the command's shell, ps; no loader
grep -Eq '^ +1 .*/init$' "$work/out" || say "--vm-at-boot: no ps listing"
grep -q 'stap-pmu-loader' "$work/out" && say "--vm-at-boot: a stap-pmu-loader ran during the workload"
# the end line comes last: it was produced by the stop after the workload
[[ $(tail -1 "$work/out") == 'getpid=1000 clock_advanced=1' ]] || say "--vm-at-boot: end output not last"
((fail)) && { echo "--- stdout"; cat "$work/out"; echo "--- stderr"; cat "$work/err"; }
at_boot_fail=$fail

# 2, 3. sig_enforce, then the same run from the cache. module.sig_enforce
# exists only in a kernel with CONFIG_MODULE_SIG (Debian's; the debugging
# kernel has none): there the unsigned module must load and run instead.
config=
for t in /usr/src/linux-headers-$release /lib/modules/$release/build; do
	[[ -f $t/.config ]] && config=$t/.config && break
done
for d in $(built_kernel_dirs amd64); do
	[[ $(cat "$d/release") == "$release" ]] && config=$d/build/.config
done
[[ -f $config ]] || { echo "FAIL: no .config for $release"; exit 1; }
signing=1
grep -qx 'CONFIG_MODULE_SIG=y' "$config" || signing=0
((signing)) || echo "kernel: no CONFIG_MODULE_SIG: module.sig_enforce=1 must change nothing"
msg_re='^stap-pmu: error: the kernel requires signed modules \(module\.sig_enforce=1\) and stap_pmu_[0-9a-f]{10} is not signed; sign it with --sign-module KEY CERT using a key the kernel trusts$'
base=$(makes) # the at-boot run built its module
for run in 1 2; do
	"$stap_pmu" -r "$release" -v --vm --vm-append module.sig_enforce=1 -c 'pmu-workload getpid 1' \
		-e 'probe begin { printf("loaded\n") }' >"$work/out" 2>"$work/err"
	rc=$?
	if ((signing)); then
		((rc == 1)) || say "sig_enforce run $run: exit status $rc, expected 1"
		grep -Eqx "$msg_re" "$work/err" || say "sig_enforce run $run: no clear message"
		grep -q loaded "$work/out" && say "sig_enforce run $run: the module ran"
	else
		((rc == 0)) || say "sig_enforce run $run: exit status $rc, expected 0 (no module signing)"
		grep -qx loaded "$work/out" || say "sig_enforce run $run: the module did not run"
	fi
	(($(makes) == base + 1)) || say "sig_enforce run $run: $(($(makes) - base)) make runs, expected 1 in all"
	if ((run == 2)); then
		grep -Eq '^Pass 3-4: using cached module ' "$work/err" || say "run 2: no cache hit"
		grep -q '^Pass 4: compiled' "$work/err" && say "run 2: kbuild ran"
	fi
	((fail > at_boot_fail)) && { echo "--- stderr of run $run"; grep -v '^\[' "$work/err"; at_boot_fail=$fail; }
done
((fail)) && exit 1
((signing)) && echo "ok: at-boot, sig_enforce refusal, cache hit without kbuild"
((signing)) || echo "ok: at-boot, no signing to enforce, cache hit without kbuild"
