#!/bin/bash
# host.sh STAP_PMU SOURCE_DIR - deployment without a guest (docs/deploy.md):
#  - -p4 -m NAME writes NAME.ko; modinfo shows the script hash, the PMU
#    targets and the stap-pmu version;
#  - the module cache: a second identical run says "using cached module" and
#    runs no make (STAP_PMU_KBUILD_LOG records every make run); a changed -D
#    misses; --no-cache builds; --clean-cache empties it;
#  - --initramfs IMAGE appends /stap-pmu/NAME.ko and /stap-pmu/init;
#  - --stop / --attach of a module that is not loaded: a clear error.
set -u
stap_pmu=$1 src=$2
# shellcheck source=../lib/isolated-cache.sh
source "$(dirname "$(realpath "$0")")/../lib/isolated-cache.sh"
script='probe begin { printf("%d\n", @pmu("perf::cpu-clock")) }'
version=$("$stap_pmu" -V | awk 'NR == 1 {print $2}')

# 1. -p4 -m NAME and modinfo
"$stap_pmu" -v -p4 -m deploy_t --pmu-targets skl -e "$script" >out 2>err || { say "-p4 failed"; cat err; }
[[ $(cat out) == "$work/deploy_t.ko" ]] || say "-p4 printed '$(cat out)', expected $work/deploy_t.ko"
[[ $(modinfo -F name ./deploy_t.ko) == deploy_t ]] || say "modinfo name"
[[ $(modinfo -F stp_pmu_targets ./deploy_t.ko) == skl,perf ]] || say "modinfo stp_pmu_targets: $(modinfo -F stp_pmu_targets ./deploy_t.ko)"
[[ $(modinfo -F stp_script_hash ./deploy_t.ko) =~ ^[0-9a-f]{16}$ ]] || say "modinfo stp_script_hash: $(modinfo -F stp_script_hash ./deploy_t.ko)"
[[ $(modinfo -F stp_pmu_version ./deploy_t.ko) == "$version" ]] || say "modinfo stp_pmu_version: $(modinfo -F stp_pmu_version ./deploy_t.ko), expected $version"
[[ $(makes) == 1 ]] || say "first run: $(makes) make runs, expected 1"
grep -q '^Pass 4: stored in the module cache' err || say "first run did not store the module"

# 2. the cache
rm -f deploy_t.ko
"$stap_pmu" -v -p4 -m deploy_t --pmu-targets skl -e "$script" >out 2>err || { say "cached -p4 failed"; cat err; }
grep -Eq "^Pass 3-4: using cached module $work/cache/[0-9a-f]{32}/deploy_t.ko$" err || { say "second run: no cache hit"; cat err; }
grep -q '^Pass 2' err && say "second run ran pass 2"
[[ $(makes) == 1 ]] || say "second run invoked kbuild ($(makes) make runs)"
[[ -f deploy_t.ko ]] || say "second run did not write deploy_t.ko"
"$stap_pmu" -v -p4 -m deploy_t --pmu-targets skl -D STP_BUFSIZE=65536 -e "$script" >out 2>err
[[ $(makes) == 2 ]] || say "-D did not change the cache key"
"$stap_pmu" -v -p4 -m deploy_t --pmu-targets skl --no-cache -e "$script" >out 2>err
[[ $(makes) == 3 ]] || say "--no-cache did not build"
grep -q 'cached module' err && say "--no-cache used the cache"
"$stap_pmu" --clean-cache >out 2>&1
[[ $(cat out) == "removed 2 cached modules from $work/cache" ]] || say "--clean-cache: $(cat out)"
"$stap_pmu" -v -p4 -m deploy_t --pmu-targets skl -e "$script" >out 2>err
[[ $(makes) == 4 ]] || say "after --clean-cache the module was not rebuilt"

# 3. --initramfs: an existing (tiny) image gets the module and the hook appended
mkdir -p img && printf '#!/bin/sh\necho original init\n' >img/init && chmod 755 img/init
(cd img && echo init | cpio -o -H newc -R 0:0 --quiet | gzip -c) >initrd.img
cp initrd.img initrd.img.orig
"$stap_pmu" --initramfs initrd.img -m deploy_t --pmu-targets skl -e "$script" >out 2>err ||
	{ say "--initramfs failed"; cat err; }
[[ $(cat out) == "added deploy_t.ko to initrd.img; boot with rdinit=/stap-pmu/init to load it before /init" ]] ||
	say "--initramfs said: $(cat out)"
size0=$(stat -c %s initrd.img.orig)
((pad = (4 - size0 % 4) % 4))
# the original image is unchanged, then zero padding to 4 bytes, then a gzip cpio
cmp -s -n "$size0" initrd.img initrd.img.orig || say "--initramfs changed the original image"
listing=$(tail -c +$((size0 + pad + 1)) initrd.img | zcat | cpio -t --quiet 2>&1 | sort | tr '\n' ' ')
[[ $listing == "stap-pmu stap-pmu/deploy_t.ko stap-pmu/init " ]] || say "appended archive holds: $listing"
mkdir un && (cd un && tail -c +$((size0 + pad + 1)) ../initrd.img | zcat | cpio -id --quiet)
grep -qx 'insmod /stap-pmu/deploy_t.ko || echo "stap-pmu: insmod /stap-pmu/deploy_t.ko failed" >&2' un/stap-pmu/init &&
	grep -qx 'exec /init "$@"' un/stap-pmu/init && [[ -x un/stap-pmu/init ]] ||
	{ say "hook script:"; cat un/stap-pmu/init; }
cmp -s un/stap-pmu/deploy_t.ko deploy_t.ko || say "the module in the image differs from deploy_t.ko"

# 4. --sign-module: the tree's sign-file appends a sha256 signature; the cached
#    module itself stays unsigned
openssl req -new -nodes -utf8 -sha256 -days 36500 -batch -x509 -subj "/CN=stap-pmu test/" \
	-outform PEM -out cert.pem -keyout key.pem >/dev/null 2>&1 || say "openssl could not make a key"
rm -f deploy_t.ko
"$stap_pmu" -p4 -m deploy_t --pmu-targets skl --sign-module key.pem cert.pem -e "$script" >out 2>err ||
	{ say "--sign-module failed"; cat err; }
[[ $(modinfo -F sig_hashalgo ./deploy_t.ko) == sha256 && $(modinfo -F signer ./deploy_t.ko) == "stap-pmu test" ]] ||
	say "deploy_t.ko is not signed: $(modinfo ./deploy_t.ko)"
[[ $(tail -c 28 deploy_t.ko) == "~Module signature appended~" ]] || say "no signature marker"
[[ -z $(modinfo -F signer "$(find cache -name deploy_t.ko | head -1)") ]] || say "the cached module was signed"
"$stap_pmu" -p4 -m deploy_t --sign-module key.pem nosuch.pem -e "$script" >out 2>err
grep -q '^stap-pmu: error: cannot sign: nosuch.pem: No such file or directory$' err || { say "missing cert"; cat err; }

# 5. --stop / --attach of a module that is not loaded
"$stap_pmu" --stop no_such_mod >out 2>err; rc=$?
((rc == 1)) && grep -qx 'stap-pmu: error: module no_such_mod is not loaded (no /proc/no_such_mod/output)' err ||
	{ say "--stop no_such_mod: exit $rc"; cat err; }
"$stap_pmu" --attach no_such_mod >out 2>err; rc=$?
((rc == 1)) && grep -q 'module no_such_mod is not loaded' err || say "--attach no_such_mod: exit $rc"

((fail)) && exit 1
echo "ok: deploy host checks"
