#!/bin/bash
# generated-c.sh STAP_PMU SOURCE_DIR MODE SCRIPT|DIR... - the C that stap-pmu
# generates (-p3) must compile with kbuild against the installed Debian
# kernel headers, warnings included (-Werror).
#   MODE all:     every script must translate; each must compile
#   MODE passing: scripts that fail -p3 (fuzz inputs, e.g. ones the CLI
#                 refuses as binary files) are left out, the
#                 others must compile; at least one must remain
# Translated with -x 1 (a target process, as @pmu_thread needs; nothing
# is loaded). All modules are built by one kbuild run (make -k -j2), one object each,
# so a failure names the script whose C did not compile.
set -u
stap_pmu=$(realpath "$1") src=$(realpath "$2") mode=$3
shift 3
arch=$(dpkg --print-architecture)
tree=$(ls -d /usr/src/linux-headers-*-"$arch" 2>/dev/null | sort -V | tail -1)
if [[ -z $tree ]]; then
	echo "FAIL: no /usr/src/linux-headers-*-$arch (scripts/install-deps.sh installs them)"
	exit 1
fi
work=$(mktemp -d)
trap '[[ -n ${KEEP:-} ]] || rm -rf "$work"' EXIT
scripts=()
for p in "$@"; do
	if [[ -d $p ]]; then
		while IFS= read -r f; do scripts+=("$f"); done < <(find "$p" -maxdepth 1 -type f | sort)
	else
		scripts+=("$p")
	fi
done
fail=0 n=0 left=0
SECONDS=0
declare -A name_of
objs=
for s in "${scripts[@]}"; do
	g=()
	grep -q '%{' "$s" 2>/dev/null && g=(-g)
	m=gen_$n
	if ! "$stap_pmu" -p3 "${g[@]}" --pmu-targets all -x 1 -m "$m" "$s" >"$work/$m.c" 2>"$work/$m.err"; then
		if [[ $mode == all ]]; then
			echo "FAIL: $s does not translate:"; head -5 "$work/$m.err"; fail=1
		fi
		left=$((left + 1))
		rm -f "$work/$m.c"
		continue
	fi
	name_of[$m]=$s
	objs+=" $m.o"
	n=$((n + 1))
done
if ((n == 0)); then
	echo "FAIL: no script translated"
	exit 1
fi
t_translate=$SECONDS
SECONDS=0
printf 'obj-m :=%s\nccflags-y := -I%s -Wno-unused-function -Werror\n' "$objs" \
	"$src/runtime" >"$work/Kbuild"
make -k -j2 -C "$tree" M="$work" modules >"$work/make.log" 2>&1
# modpost (and so every .ko) is skipped once any object failed: judge each
# script by its object, then require the modules when all compiled
for m in "${!name_of[@]}"; do
	if [[ ! -f $work/$m.o ]]; then
		echo "FAIL: the C of ${name_of[$m]} does not compile:"
		grep -E "$m\.c:[0-9]+:[0-9]+: (fatal error|error|warning)" "$work/make.log" | head -5
		fail=1
	fi
done
if ((!fail)); then
	for m in "${!name_of[@]}"; do
		if [[ ! -f $work/$m.ko ]]; then
			echo "FAIL: no $m.ko for ${name_of[$m]} (modpost):"
			grep -E "^(ERROR|WARNING): modpost" "$work/make.log" | head -5
			fail=1
		fi
	done
fi
echo "$n scripts compiled, $left left out (do not translate); translating took ${t_translate} s, kbuild $SECONDS s"
exit $fail
