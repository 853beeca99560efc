# isolated-cache.sh - sourced by host-side tests that build modules: a work
# directory removed on exit (and the current directory), a module cache of
# its own, a TMPDIR of its own (what a run leaves behind there is this
# test's, whatever else runs on the machine), every make run logged to
# $STAP_PMU_KBUILD_LOG, and failure helpers.
#   say MSG   record a failure        makes   make runs so far
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
export STAP_PMU_MODULE_CACHE=$work/cache STAP_PMU_KBUILD_LOG=$work/kbuild.log TMPDIR=$work/tmp
mkdir -p "$TMPDIR"
fail=0
say() { echo "FAIL: $*"; fail=1; }
makes() { [[ -f $STAP_PMU_KBUILD_LOG ]] && wc -l <"$STAP_PMU_KBUILD_LOG" || echo 0; }
