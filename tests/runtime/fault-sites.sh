#!/bin/bash
# fault-sites.sh SOURCE_DIR - every allocation and registration call in
# runtime/*.h goes through a fault-injection wrapper (runtime/stp_fault.h:
# stp_fail_null, stp_fail_rc, stp_fail_errptr), so tests/guest/faultinj.sh,
# which fails each wrapped site in turn, reaches every one. A new kmalloc,
# proc_create, register_kprobe, perf_event_create_kernel_counter, ... that
# is not wrapped fails this test with its file and line.
#  - Calls are found after comments and strings are blanked; a call counts as
#    wrapped when it lies inside the parentheses of a wrapper.
#  - The only calls left bare are definitions of the project's compat shims
#    in runtime/stp_compat.h (stp_uprobe_register() calls uprobe_register();
#    its callers wrap the shim).
#  - Self-check: the checker must flag an unwrapped call in a sample and
#    accept the same call wrapped, and it must find at least one wrapped call
#    of each wrapper in runtime/, so it cannot pass by matching nothing.
set -u
src=${1:?usage: fault-sites.sh SOURCE_DIR}
exec python3 - "$src" <<'PY'
import os, re, sys

src = sys.argv[1]
sys.path.insert(0, os.path.join(src, "tests", "runtime"))
from csource import blank  # noqa: E402
WRAPPERS = {"stp_fail_null", "stp_fail_rc", "stp_fail_errptr"}
# kernel calls that allocate or register something (and the compat shim)
ALLOC = re.compile(r"^(?:k|kv|v)(?:m|z|c)alloc(?:_node|_array)?$|^vmalloc(?:_node)?$|"
                   r"^vzalloc(?:_node)?$|^(?:__)?alloc_percpu(?:_gfp)?$|^kstrdup|^kmemdup|"
                   r"^alloc_pages|^__get_free_pages?$|^kmem_cache_(?:z?alloc|create)$")
REGISTER = {"proc_create", "proc_create_data", "proc_create_single", "proc_mkdir",
            "proc_mkdir_mode", "perf_event_create_kernel_counter", "register_kprobe",
            "register_kprobes", "register_kretprobe", "register_kretprobes",
            "tracepoint_probe_register", "tracepoint_probe_register_prio",
            "register_ftrace_function", "ftrace_set_filter_ip", "ftrace_set_filter_ips",
            "cpuhp_setup_state", "cpuhp_setup_state_nocalls",
            "cpuhp_setup_state_cpuslocked", "cpuhp_setup_state_nocalls_cpuslocked",
            "uprobe_register", "uprobe_register_refctr", "stp_uprobe_register",
            "register_nmi_handler", "debugfs_create_file", "debugfs_create_dir",
            "kthread_create", "kthread_run", "alloc_workqueue", "register_trace_event"}
# (file, function) pairs allowed bare: the compat shims' own bodies
SHIMS = {("stp_compat.h", "stp_uprobe_register")}


def check(name, text):
    """(bare calls as (line, callee), wrapped counts per wrapper)"""
    t = blank(text)
    bare, wrapped = [], {w: 0 for w in WRAPPERS}
    stack = []          # per open parenthesis: the identifier before it
    func = None         # the function whose body we are in (depth-0 name)
    brace = 0
    for m in re.finditer(r"[A-Za-z_]\w*|[(){}]|#[^\n]*", t):
        tok = m.group(0)
        if tok.startswith("#"):
            if re.match(r"#\s*define\b", tok):
                continue            # macro bodies: the wrappers themselves
            continue
        if tok == "(":
            prev = getattr(check, "last", None)
            stack.append(prev)
            if brace == 0 and len(stack) == 1 and prev:
                func = prev
        elif tok == ")":
            if stack:
                stack.pop()
        elif tok == "{":
            brace += 1
        elif tok == "}":
            brace -= 1
        check.last = tok if tok not in "(){}" else None
        if tok in WRAPPERS and t[m.end():].lstrip().startswith("("):
            wrapped[tok] += 1
        if tok in "(){}" or not t[m.end():].lstrip().startswith("("):
            continue
        if not (ALLOC.match(tok) or tok in REGISTER):
            continue
        if brace == 0:
            continue                # a declaration or definition
        if any(s in WRAPPERS for s in stack):
            continue
        if (os.path.basename(name), func) in SHIMS:
            continue
        bare.append((t.count("\n", 0, m.start()) + 1, tok))
    return bare, wrapped


fails = []
# self-check on samples
b, _ = check("x.h", "static int f(void)\n{\n\tp = kzalloc(8, GFP_KERNEL);\n}\n")
if b != [(3, "kzalloc")]:
    fails.append("self-check: an unwrapped kzalloc was not flagged (%r)" % b)
b, w = check("x.h", "static int f(void)\n{\n\tp = stp_fail_null(\"x\",\n\t\tkzalloc(8, GFP_KERNEL));\n"
             "\trc = stp_fail_rc(\"k\", -EINVAL, register_kprobe(&kp)); /* kmalloc( */\n}\n")
if b or w["stp_fail_null"] != 1 or w["stp_fail_rc"] != 1:
    fails.append("self-check: wrapped calls flagged or not counted (%r, %r)" % (b, w))

total = {w: 0 for w in WRAPPERS}
rt = os.path.join(src, "runtime")
for f in sorted(os.listdir(rt)):
    if not f.endswith(".h"):
        continue
    path = os.path.join(rt, f)
    bare, wrapped = check(path, open(path).read())
    for line, callee in bare:
        fails.append("runtime/%s:%d: %s() is not wrapped in stp_fail_null/rc/errptr "
                     "(runtime/stp_fault.h)" % (f, line, callee))
    for k, v in wrapped.items():
        total[k] += v
for k, v in sorted(total.items()):
    if not v:
        fails.append("no call of %s found in runtime/: the checker matches nothing" % k)
for f in fails:
    print("FAIL:", f)
if fails:
    sys.exit(1)
print("ok: %d wrapped sites in runtime/ (%s), none bare" %
      (sum(total.values()), ", ".join("%s %d" % kv for kv in sorted(total.items()))))
PY
