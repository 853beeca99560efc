#!/bin/bash
# kbuild_replay.sh STAP_PMU - pass 4 without make once kbuild's commands for
# a kernel are known (translator/builder/kbuild_replay.h):
#  - the first build of a kernel runs make and records its commands, with
#    the runtime's kernel headers and NAME.mod.c's precompiled;
#  - the next build, of another script under another name, runs no make;
#  - its module is make's: the same modinfo, symbols and sections, and
#    without the precompiled headers the same bytes, though modpost read
#    only the lines of the kernel's Module.symvers the module imports;
#  - a compile error still reaches the user through make, as without a
#    recipe; --kbuild-make runs make and records nothing;
#  - another compiler first in PATH records the recipe again in its place;
#  - a recipe that fails where make succeeds is marked broken, and make
#    builds for its kernel from then on;
#  - STAP_PMU_KBUILD_CACHE moves the recipes.
set -u
stap_pmu=$(realpath "$1")
source "$(dirname "$(realpath "$0")")/../lib/isolated-cache.sh"
export XDG_CACHE_HOME=$work/xdg # recipes of its own
recipes=$XDG_CACHE_HOME/stap-pmu/kbuild
one='global n
probe kprobe.function("__x64_sys_getpid") { n++ }
probe end { printf("%d\n", n) }'
two='global s
probe kernel.function("vfs_read") { s <<< 1 }
probe timer.s(1) { printf("%d\n", @count(s)) }'

"$stap_pmu" -p4 -v -m rp_one -e "$one" >/dev/null 2>err || { say "first build failed"; cat err; }
grep -q "^kbuild: make; kbuild's commands recorded in $recipes/[0-9a-f]\{32\} for the next builds$" err ||
	{ say "first build: no 'kbuild: make; ... recorded' line"; grep 'kbuild' err; }
mapfile -t dirs < <(ls -d "$recipes"/* 2>/dev/null)
((${#dirs[@]} == 1)) || say "expected one recipe, found ${#dirs[@]}"
recipe=${dirs[0]:-none}
for h in stp_pch.h stp_modc_pch.h; do
	[[ -s $recipe/$h.gch ]] || say "no precompiled $h in $recipe"
done
grep -q '^step .*scripts/mod/modpost' "$recipe/recipe" || say "the recipe has no modpost step"
[[ $(makes) == 1 ]] || say "expected one make run, got $(makes)"

"$stap_pmu" -p4 -v -k --no-cache -m rp_two -e "$two" >/dev/null 2>err || { say "second build failed"; cat err; }
grep -q "^kbuild: replayed kbuild's commands recorded in $recipe\$" err ||
	{ say "second build: not a replay"; grep 'kbuild' err; }
tail -1 "$STAP_PMU_KBUILD_LOG" | grep -q "M=.* modules  # replayed from $recipe\$" ||
	say "the build log does not show the replay: $(tail -1 "$STAP_PMU_KBUILD_LOG")"
[[ -f rp_two.ko ]] || say "the replay left no rp_two.ko"
mv rp_two.ko replayed.ko

"$stap_pmu" -p4 -v --no-cache --kbuild-make -m rp_two -e "$two" >/dev/null 2>err || { say "--kbuild-make build failed"; cat err; }
grep -q "^kbuild: make$" err || { say "--kbuild-make: not make alone"; grep 'kbuild' err; }
mv rp_two.ko make.ko
[[ $(ls -d "$recipes"/* | wc -l) == 1 ]] || say "--kbuild-make recorded another recipe"

# the same module: what the kernel checks at load and what it links
info() { modinfo "$1" | grep -v '^filename:'; }
[[ $(info replayed.ko) == "$(info make.ko)" ]] ||
	{ say "modinfo differs"; diff <(info replayed.ko) <(info make.ko); }
[[ $(nm replayed.ko) == "$(nm make.ko)" ]] || { say "symbols differ"; diff <(nm replayed.ko) <(nm make.ko) | head; }
sections() { readelf -SW "$1" | sed -n 's/^ *\[ *[0-9]*\] \([^ ]*\) .*/\1/p'; }
[[ $(sections replayed.ko) == "$(sections make.ko)" ]] || say "sections differ"
# Byte for byte without the PCHs: gcc then parses stp_pch.h as a header, the
# commands stay the replay's. (With them gcc's instruction scheduling may
# differ in a few places; the code is the same C compiled with the same flags.)
kept=$(ls -d "$TMPDIR"/stap-pmu* | head -1)
mkdir -p held
mv "$recipe"/*.gch held/
rm -f "$kept"/rp_two.ko
(cd "$kept" && sh .stp_kbuild.sh >/dev/null 2>&1 && sh .stp_kbuild2.sh >/dev/null 2>&1) ||
	say "the kept replay scripts failed without the PCHs"
mv held/*.gch "$recipe"/
strip_ko() { objcopy --strip-debug --remove-section=.note.gnu.build-id "$1" "$2"; }
strip_ko "$kept/rp_two.ko" nopch.ko && strip_ko make.ko make.s.ko && cmp -s nopch.ko make.s.ko ||
	say "without the PCHs the replayed module is not make's byte for byte"

# modpost read only the kernel's exports the module imports (and the
# module is make's, above, byte for byte)
grep -q "scripts/mod/modpost .* -i '$kept/.stp_symvers'" "$kept/.stp_kbuild2.sh" ||
	say "the replayed modpost does not read the module's own lines of Module.symvers"
grep -q "$(printf '\tregister_kprobes\tvmlinux\tEXPORT_SYMBOL_GPL')" "$kept/.stp_symvers" ||
	say "the selected Module.symvers lines lack register_kprobes"
tree=$(sed -n "s/^cd '\(.*\)'$/\1/p" "$kept/.stp_kbuild.sh")
(($(wc -l <"$kept/.stp_symvers") * 10 < $(wc -l <"$tree/Module.symvers"))) ||
	say "the selected Module.symvers lines are not a small part of the kernel's"

# a compile error: the replay fails, make reports it as it always does
bad='probe begin { %{ this is not C %} }'
before=$(makes)
"$stap_pmu" -g -p4 -m rp_bad -e "$bad" >/dev/null 2>err.replay && say "bad C compiled"
[[ $(makes) == $((before + 1)) ]] || say "a failed replay and make's run after it logged $(($(makes) - before)) builds, not 1"
[[ -d $recipe ]] || say "a compile error removed the recipe"
"$stap_pmu" -g -p4 --kbuild-make -m rp_bad -e "$bad" >/dev/null 2>err.make && say "bad C compiled with make"
norm() { sed -e "s|$TMPDIR/stap-pmu[A-Za-z0-9]*|DIR|g" "$1"; }
grep -q "error: the generated C does not compile: unknown type name 'this'" err.replay ||
	{ say "no compile error reported after the replay"; cat err.replay; }
[[ $(norm err.replay) == "$(norm err.make)" ]] ||
	{ say "the compile error differs from make's"; diff <(norm err.replay) <(norm err.make); }

# another compiler first in PATH (a wrapper of the same gcc): the recipe is
# recorded again in its place, then replayed with that PATH
cc=$(sed -n 's/^step *\([^ ]*\) -Wp,-MMD,@DIR@\/\.@NAME@\.o\.d .*/\1/p' "$recipe/recipe")
[[ -n $cc ]] || say "no compiler in the recipe's first step"
mkdir -p wrap
printf '#!/bin/sh\nexec %s "$@"\n' "$(command -v "$cc")" >"wrap/$cc"
chmod +x "wrap/$cc"
PATH=$work/wrap:$PATH "$stap_pmu" -p4 -v --no-cache -m rp_four -e "$one" >/dev/null 2>err || { say "build with the wrapper failed"; cat err; }
grep -q "^kbuild: make; kbuild's commands recorded in $recipe for the next builds$" err ||
	{ say "another compiler: the recipe was not recorded again in its place"; grep kbuild err; }
grep -q "^program $work/wrap/$cc " "$recipe/recipe" || say "the recipe does not name the wrapper"
PATH=$work/wrap:$PATH "$stap_pmu" -p4 -v --no-cache -m rp_five -e "$one" >/dev/null 2>err || { say "second build with the wrapper failed"; cat err; }
grep -q "^kbuild: replayed kbuild's commands recorded in $recipe\$" err || { say "the wrapper's recipe was not replayed"; grep kbuild err; }
[[ $(ls -d "$recipes"/* | wc -l) == 1 ]] || say "another compiler left $(ls -d "$recipes"/* | wc -l) recipes, not 1"

# a recipe that fails where make succeeds (here: a step writing into a
# directory that does not exist) is marked broken; later builds run make
# and record nothing
sed -i 's|> @DIR@/modules.order|> @DIR@/no/such/dir/modules.order|' "$recipe/recipe"
export PATH=$work/wrap:$PATH
"$stap_pmu" -p4 -v --no-cache -m rp_six -e "$one" >/dev/null 2>err || { say "build with a broken recipe failed"; cat err; }
grep -q "^kbuild: the replay of kbuild's commands in $recipe failed (status [1-9]" err ||
	{ say "the failed replay is not reported"; grep -A3 kbuild err; }
grep -q "; make; the recipe is marked broken, make builds for it from now on$" err ||
	{ say "the broken recipe is not marked"; grep -A3 kbuild err; }
[[ -f rp_six.ko ]] || say "make did not build after the failed replay"
"$stap_pmu" -p4 -v --no-cache -m rp_seven -e "$one" >/dev/null 2>err || { say "build after the broken recipe failed"; cat err; }
grep -q "^kbuild: make (the recipe in $recipe failed before: status [1-9][0-9]*: .*modules.order" err ||
	{ say "a build after the broken recipe did not run make alone"; grep kbuild err; }
grep -q 'no/such/dir' "$recipe/recipe" || say "the broken recipe was recorded again"

# STAP_PMU_KBUILD_CACHE puts the recipes elsewhere
STAP_PMU_KBUILD_CACHE=$work/other "$stap_pmu" -p4 -v --no-cache -m rp_eight -e "$one" >/dev/null 2>err ||
	{ say "build with STAP_PMU_KBUILD_CACHE failed"; cat err; }
grep -q "^kbuild: make; kbuild's commands recorded in $work/other/[0-9a-f]\{32\} for the next builds$" err ||
	{ say "STAP_PMU_KBUILD_CACHE: not recorded there"; grep kbuild err; }

((fail)) && exit 1
echo "ok: kbuild's commands recorded once, replayed into make's module"
