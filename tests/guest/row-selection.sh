#!/bin/bash
# row-selection.sh STAP_PMU SOURCE_DIR KERNEL - one module with rows for six x86
# PMUs booted with six QEMU CPU models: with -v each CPU reports the row its
# CPUID selected (TCG has no hardware PMU, so the load then fails creating
# the counter: the selection is what is tested). qemu64 matches no row: the
# error names the CPU and the rows (--pmu-fallback none), or it takes the
# generic row (default). Eight boots.
set -u
stap_pmu=$1 src=$2 kernel_spec=${3:?a kernel spec (tests/lib/kernel.sh)}
cd "$src" || exit 1
# KERNEL: the guest kernel, a tests/lib/kernel.sh spec ("suite:6.1", "6.12")
# shellcheck source=tests/lib/kernel.sh
source tests/lib/kernel.sh
release=$(test_kernel "$kernel_spec" amd64) || { echo "FAIL: no kernel"; exit 1; }
echo "kernel: $release"
targets=skl,skx,clx,hsw,amd64_fam17h_zen1,amd64_fam19h_zen3
script='probe begin { printf("%d\n", @pmu("cycles")); exit() }'
fail=0
while IFS='|' read -r model ident row; do
	err=$("$stap_pmu" -r "$release" -v --vm --vm-cpu "$model" --pmu-targets "$targets" -e "$script" 2>&1 >/dev/null)
	for cpu in 0 1; do
		re="^stap_pmu_[0-9a-f]+: cpu$cpu: $ident selects PMU row $row\$"
		if grep -Eq "$re" <<<"$err"; then
			echo "$model: cpu$cpu selects $row"
		else
			echo "FAIL: $model: no line matches $re"; fail=1
		fi
	done
	grep -q 'guest kernel: ' <<<"$err" && { echo "FAIL: $model: guest kernel problems"; echo "$err"; fail=1; }
done <<'EOF_MODELS'
Skylake-Client|GenuineIntel family 6 model 94 stepping 3|skl
Skylake-Server|GenuineIntel family 6 model 85 stepping 4|skx
Cascadelake-Server|GenuineIntel family 6 model 85 stepping 6|clx
Haswell|GenuineIntel family 6 model 60 stepping [0-9]+|hsw
EPYC|AuthenticAMD family 23 model 1 stepping 2|amd64_fam17h_zen1
EPYC-Milan|AuthenticAMD family 25 model 1 stepping 1|amd64_fam19h_zen3
EOF_MODELS
err=$("$stap_pmu" -r "$release" --vm --vm-cpu qemu64 --pmu-targets "$targets" --pmu-fallback none -e "$script" 2>&1 >/dev/null)
rc=$?
re="^stap_pmu_[0-9a-f]+: cpu0: no PMU row for AuthenticAMD family 15 model 107 stepping 1 \(module built for: skl, skx, clx, hsw, amd64_fam17h_zen1, amd64_fam19h_zen3\)\$"
if ((rc != 0)) && grep -Eq "$re" <<<"$err"; then
	echo "qemu64: no row (error names the CPU and the rows)"
else
	echo "FAIL: qemu64: exit $rc, expected the no-row error:"; echo "$err"; fail=1
fi
# with the default fallback the module also carries the generic row
err=$("$stap_pmu" -r "$release" -v --vm --vm-cpu qemu64 --pmu-targets "$targets" -e "$script" 2>&1 >/dev/null)
re="^stap_pmu_[0-9a-f]+: cpu0: AuthenticAMD family 15 model 107 stepping 1 selects PMU row perf\$"
if grep -Eq "$re" <<<"$err"; then
	echo "qemu64: generic row perf"
else
	echo "FAIL: qemu64: no line matches $re"; echo "$err"; fail=1
fi
((fail)) && exit 1
echo "ok: row selection"
