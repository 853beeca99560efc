#!/bin/bash
# bpftrace-setup.sh - bpftrace 0.17 (Debian's bpftrace package) and every
# shared library it loads (LLVM, clang, bcc, libbpf: about 200 MB) laid out
# for the guest initramfs, like stap-setup.sh does for staprun. Idempotent:
# rebuilt only when /usr/bin/bpftrace changes. Prints the overlay directory.
set -eu
. "$(dirname "$0")/lib.sh"
command -v bpftrace >/dev/null || die "no bpftrace (bench/run.sh's deps phase installs it)"
B=$BENCH_WORK/bpftrace
stamp="$(bpftrace --version 2>&1) $(stat -c %Y /usr/bin/bpftrace)"
if [ "$(cat "$B/overlay/.complete" 2>/dev/null)" != "$stamp" ]; then
	rm -rf "$B/overlay"
	mkdir -p "$B"
	overlay_with_libs "$B/overlay" /usr/bin/bpftrace || die "bpftrace overlay"
	echo "$stamp" >"$B/overlay/.complete"
fi
echo "$B/overlay"
