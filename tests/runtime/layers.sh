#!/bin/bash
# layers.sh SOURCE_DIR - runtime/ is a stack of layers in one written order
# (runtime/stp_runtime.h, then the generated file's tables and bodies, then
# runtime/stp_module.h), and each header uses only what the headers before it
# define:
#  - no runtime header uses (calls, or takes the address of, or names in a
#    macro) a function that is defined only in a header later in the order;
#  - the one exception is runtime/stp_decls.h: what it declares is what the
#    generated file defines after the runtime (stp_entry_dispatch() ...);
#    a prototype of a runtime function anywhere else, in a file other than
#    the one that defines it, is a cross-layer prototype and fails;
#  - #include lines stand only at the top of a header (after its guard),
#    never after code; only stp_runtime.h includes the layers, and only
#    stp_kernel.h includes the kernel's headers (it is precompiled);
#  - LINUX_VERSION_CODE appears in runtime/stp_compat.h only.
# Definitions and uses are found after comments, strings and character
# literals are blanked. Self-check: the checker must flag each kind of fault
# in a small sample tree and accept the same tree put in order, and it must
# find at least 200 runtime functions, so it cannot pass by reading nothing.
set -u
src=${1:?usage: layers.sh SOURCE_DIR}
exec python3 - "$src" <<'PY'
import os, re, sys, tempfile

sys.path.insert(0, os.path.join(sys.argv[1], "tests", "runtime"))
from csource import blank  # noqa: E402

IDENT = re.compile(r"[A-Za-z_]\w*")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else",
            "case", "typeof", "__typeof__", "defined", "__has_include",
            "__attribute__", "asm", "__asm__", "_Static_assert", "offsetof"}


def join_continuations(text):
    """Keeps line numbers: a continued line's newline becomes a space and
    the lost newlines are added after the joined line."""
    lines, out, pending = text.split("\n"), [], 0
    buf = ""
    for line in lines:
        if line.endswith("\\"):
            buf += line[:-1] + " "; pending += 1
            continue
        out.append(buf + line); out.extend([""] * pending)
        buf, pending = "", 0
    if buf:
        out.append(buf)
    return "\n".join(out)


def match_paren(s, i):
    depth = 0
    for j in range(i, len(s)):
        if s[j] == "(":
            depth += 1
        elif s[j] == ")":
            depth -= 1
            if depth == 0:
                return j
    return -1


class Header:
    def __init__(self, path):
        self.name = os.path.basename(path)
        with open(path) as f:
            self.raw = f.read()
        self.text = join_continuations(blank(self.raw))
        self.defs, self.protos, self.uses = {}, {}, []
        self.scan()

    def line(self, pos):
        return self.text.count("\n", 0, pos) + 1

    def scan(self):
        s, depth, i = self.text, 0, 0
        directive = False
        while i < len(s):
            c = s[i]
            if c == "\n":
                directive = False; i += 1; continue
            if c == "#" and s[s.rfind("\n", 0, i) + 1:i].strip() == "":
                directive = True
                m = re.match(r"#\s*define\s+([A-Za-z_]\w*)", s[i:])
                if m:       # a macro's name is no use of itself
                    i += m.end(); continue
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
            m = IDENT.match(s, i) if (c.isalpha() or c == "_") and \
                (i == 0 or not (s[i - 1].isalnum() or s[i - 1] == "_")) else None
            if not m:
                i += 1; continue
            name, end = m.group(0), m.end()
            k = end
            while k < len(s) and s[k] in " \t\n":
                k += 1
            if depth == 0 and not directive and k < len(s) and s[k] == "(" \
               and name not in KEYWORDS:
                close = match_paren(s, k)
                after = s[close + 1:close + 400].lstrip() if close > 0 else ""
                # skip attributes such as __acquires(x) between ) and { or ;
                after = re.sub(r"^(?:__\w+(?:\s*\([^()]*\))?\s*)*", "", after)
                before = s[s.rfind("\n", 0, i) + 1:i]
                typed = bool(re.search(r"[\w*]\s*$", before)) or before.strip() == "" \
                    and re.search(r"[\w*]\s*\n\s*$", s[:i] or "") is not None
                if after.startswith("{") and typed:
                    self.defs.setdefault(name, self.line(i))
                    i = end; continue
                if after.startswith(";") and typed and re.search(
                        r"\b(static|inline|void|int|long|u64|s64|u32|bool|char|"
                        r"struct\s+\w+|unsigned|size_t|ssize_t)\b[\w\s*]*$", before):
                    self.protos.setdefault(name, self.line(i))
                    i = end; continue
            self.uses.append((name, self.line(i)))
            i = end

    def includes(self):
        return [(m.group(1), self.line(m.start())) for m in
                re.finditer(r'^[ \t]*#[ \t]*include[ \t]+[<"]([^>"]+)[>"]',
                            self.raw, re.M)]

    def first_code_line(self):
        for n, line in enumerate(self.text.split("\n"), 1):
            t = line.strip()
            if t and not t.startswith("#"):
                return n
        return 10 ** 9


def order_of(rt):
    """limits, then stp_runtime.h's includes in order, the generated file,
    then stp_module.h."""
    names = ["stp_kernel.h", "stp_limits.h"]
    top = Header(os.path.join(rt, "stp_runtime.h"))
    for inc, _ in top.includes():
        if inc.startswith("stp_") and inc not in names:
            names.append(inc)
    names += ["<generated>", "stp_module.h"]
    return names


def check(rt):
    errors = []
    order = order_of(rt)
    listed = set(order)
    headers = {}
    for f in sorted(os.listdir(rt)):
        if f.endswith(".h"):
            headers[f] = Header(os.path.join(rt, f))
    for f in headers:
        if f not in listed and f != "stp_runtime.h":
            errors.append(f"{f}: not in the layer order of stp_runtime.h")
    rank = {n: i for i, n in enumerate(order)}
    decls = headers.get("stp_decls.h")
    declared = dict(decls.protos) if decls else {}
    where = {}
    for f in order:
        if f in headers:
            for name in headers[f].defs:
                where.setdefault(name, f)
    for f, h in headers.items():
        first = h.first_code_line()
        for inc, line in h.includes():
            if line > first:
                errors.append(f"{f}:{line}: #include after code (line {first})")
            if not inc.startswith("stp_") and f != "stp_kernel.h":
                errors.append(f"{f}:{line}: includes <{inc}>: the kernel's headers "
                              "are stp_kernel.h's")
            if inc.startswith("stp_") and f != "stp_runtime.h" and \
               not (inc == "stp_kernel.h" and f in ("stp_limits.h", "stp_compat.h")) and \
               not (inc == "stp_limits.h" and f == "stp_runtime.h"):
                errors.append(f"{f}:{line}: includes {inc}: only stp_runtime.h "
                              "includes the layers")
        if f != "stp_compat.h":
            for n, line in enumerate(h.text.split("\n"), 1):
                if "LINUX_VERSION_CODE" in line:
                    errors.append(f"{f}:{n}: LINUX_VERSION_CODE outside stp_compat.h")
        for name, line in h.protos.items():
            home = where.get(name)
            if f != "stp_decls.h" and home is not None and home != f:
                errors.append(f"{f}:{line}: prototype of {name}() of {home}: "
                              "a prototype that crosses layers belongs in stp_decls.h")
        if f not in rank:
            continue
        for name, line in h.uses:
            home = where.get(name)
            if home is None or home == f or rank[home] < rank[f]:
                continue
            if name in declared and rank.get("stp_decls.h", 10 ** 9) < rank[f]:
                continue
            errors.append(f"{f}:{line}: uses {name}(), defined later in {home}")
    nfuncs = len(where)
    return errors, nfuncs


def self_check():
    samples = {
        "stp_runtime.h": '#include "stp_limits.h"\n#include "stp_a.h"\n#include "stp_b.h"\n',
        "stp_limits.h": "#define X 1\n",
        "stp_kernel.h": "",
        "stp_module.h": "static int init(void) { return b_one(); }\n",
        "stp_a.h": '#ifndef A\n#define A\nstatic int b_one(void);\n'
                   'static int a_one(void) { return b_one(); }\n'
                   '#include "stp_b.h"\n#if LINUX_VERSION_CODE > 1\n#endif\n#endif\n',
        "stp_b.h": "#include <linux/sort.h>\nstatic int b_one(void)\n{\n\treturn 1;\n}\n",
    }
    fixed = dict(samples)
    fixed["stp_a.h"] = "static int a_one(void) { return 1; }\n"
    fixed["stp_b.h"] = "static int b_one(void)\n{\n\treturn a_one();\n}\n"
    got = []
    for tree in (samples, fixed):
        with tempfile.TemporaryDirectory() as d:
            for n, t in tree.items():
                with open(os.path.join(d, n), "w") as f:
                    f.write(t)
            got.append(check(d)[0])
    bad, good = got
    want = ["uses b_one(), defined later", "prototype of b_one()",
            "#include after code", "only stp_runtime.h includes",
            "LINUX_VERSION_CODE outside", "the kernel's headers are stp_kernel.h's"]
    for w in want:
        if not any(w in e for e in bad):
            sys.exit(f"layers.sh self-check: the sample's fault '{w}' was not found: {bad}")
    if good:
        sys.exit(f"layers.sh self-check: the sample in order was refused: {good}")


self_check()
errors, nfuncs = check(os.path.join(sys.argv[1], "runtime"))
if nfuncs < 200:
    sys.exit(f"layers.sh: only {nfuncs} runtime functions found; the scan is broken")
for e in errors:
    print("runtime/" + e)
if errors:
    sys.exit(f"{len(errors)} layering fault(s) in runtime/")
print(f"runtime layers: {nfuncs} functions, no header uses a later one")
PY
