#!/usr/bin/env python3
"""coverage.py SOURCE_DIR [--list] - every diagnostic kind is produced by a test.

A diagnostic kind is the message template at one call of the translator's
reporters in translator/**/*.cpp:
  - Diagnostics::error / ::warning on any object (diags.error(loc, MSG, hint)),
  - their wrappers: error(loc, MSG) (sema's Checker), error_here(MSG) and
    error_at(loc, MSG) (the parser), warning(loc, MSG),
  - the parser's expect("X", "CONTEXT"): "expected 'X' CONTEXT, found ...",
  - fail(MSG[, hint]) in translator/driver/ and translator/builder/ (command-line
    and environment errors: support/result.h's Error, printed by main() as
    "stap-pmu: error: MSG").
MSG is the first argument holding a string literal; its template is the
literals of its top-level '+' chain with '*' for everything else
("function '" + name + "' is defined twice" -> "function '*' is defined twice").
A call whose message is only a variable (fail(err)) passes on a message made
elsewhere and is not a kind of its own. Pass-5 reporters (the loader's and the
VM runner's error(), in loader*.cpp and vm*.cpp) are left out: they report the
running module and the guest, not the script.

A kind is covered when its template (literals in order, anything between them,
on one line) matches a line of a test's expectations and no other kind's
template that is a more specific form of it matches that line (a generic
"expected * in '*'" does not take the line of "expected
kernel.function(\"GLOB\") in '*'"). The expectations are: tests/cli/cases/*.case,
tests/guest/cases/*.case, the test scripts tests/{cli,deploy,guest}/*.sh, the
"# expect:" lines of tests/corpus/*/*.stp and the string literals of
tests/unit/*_test.cpp. Kinds that no script can produce are listed with a
reason in allowlist.txt ("TEMPLATE  # reason"); an entry that is covered or no
longer exists is an error too, so the list stays short and true.
--list prints every kind with its call site and where it is covered.
"""
import glob
import os
import re
import sys

src = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".")
list_all = "--list" in sys.argv

PASS5 = re.compile(r"^(loader.*|vm.*)\.cpp$")
# folders whose fail(MSG) calls are kinds: the driver and pass 4
FAIL_DIRS = ("translator/driver/", "translator/builder/")


def strip_comments(text):
    """C++ text with comments blanked (newlines kept), strings untouched."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def unquoted(text, j):
    """(index, char, depth change) for each character of text from j that is
    outside string and character literals; depth counts (, [ and {."""
    n = len(text)
    while j < n:
        c = text[j]
        if c in "\"'":
            k = j + 1
            while k < n and text[k] != c:
                k += 2 if text[k] == "\\" else 1
            j = k + 1
            continue
        yield j, c, 1 if c in "([{" else -1 if c in ")]}" else 0
        j += 1


def call_args(text, i):
    """The top-level arguments of the call whose '(' is at i, and the end."""
    args, depth, start = [], 0, i + 1
    for j, c, step in unquoted(text, i):
        depth += step
        if step < 0 and depth == 0:
            args.append(text[start:j].strip())
            return args, j
        if c == "," and depth == 1:
            args.append(text[start:j].strip())
            start = j + 1
    return None, len(text)


C_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'", "?": "?", "a": "\a", "r": "\r"}


def unescape(s):
    return re.sub(r"\\(.)", lambda m: C_ESCAPES.get(m.group(1), m.group(1)), s)


LITERAL = re.compile(r'^(?:std::string\s*\(\s*)?((?:"(?:[^"\\]|\\.)*"\s*)+)\)?$', re.S)


def split_plus(expr):
    """Top-level '+' operands of expr."""
    parts, depth, start = [], 0, 0
    for j, c, step in unquoted(expr, 0):
        depth += step
        if c == "+" and depth == 0 and expr[j + 1:j + 2] not in "+=" and expr[j - 1:j] != "+":
            parts.append(expr[start:j].strip())
            start = j + 1
    parts.append(expr[start:].strip())
    return parts


def template_of(expr):
    """[literal or None (a wildcard), ...] for a message expression."""
    pieces = []
    for p in split_plus(expr):
        m = LITERAL.match(p)
        if m:
            lit = "".join(unescape(s) for s in re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
            if pieces and pieces[-1] is not None:
                pieces[-1] += lit
            else:
                pieces.append(lit)
        elif not pieces or pieces[-1] is not None:
            pieces.append(None)
    return pieces


def has_literal(arg):
    return re.search(r'"', arg) is not None


REPORTER = re.compile(
    r"(?:\b(?P<obj>\w+)\s*(?:\.|->)\s*(?P<meth>error|warning)"
    r"|(?<![\w.:>])(?P<bare>error|warning|error_here|error_at|expect|fail))\s*\(")


def kinds():
    files = sorted(glob.glob(os.path.join(src, "translator", "**", "*.cpp"), recursive=True))
    out = []
    for path in files:
        base = os.path.basename(path)
        rel = os.path.relpath(path, src)
        text = strip_comments(open(path, encoding="utf-8", errors="replace").read())
        for m in REPORTER.finditer(text):
            bare = m.group("bare")
            if m.group("obj") and not re.match(r"^diags?_?$", m.group("obj")):
                continue  # rep.error(...): a VM report, r.error = ...: a field
            if bare and PASS5.match(base):
                continue
            if bare == "fail" and not rel.replace(os.sep, "/").startswith(FAIL_DIRS):
                continue
            args, _ = call_args(text, m.end() - 1)
            if not args:
                continue
            line = text.count("\n", 0, m.start()) + 1
            if bare == "expect":
                if len(args) == 2 and all(LITERAL.match(a) for a in args):
                    t = ["expected '" + template_of(args[0])[0] + "' " + template_of(args[1])[0] +
                         ", found ", None]
                    out.append((t, rel, line))
                continue
            msg = next((a for a in args if has_literal(a)), None)
            if msg is None:
                continue
            t = template_of(msg)
            if bare == "error_here" and t == ["expected '", None, "' ", None, ", found ", None]:
                continue  # Parser::expect() itself: each expect("X", "CONTEXT") is a kind
            if not any(p for p in t if p is not None and re.search(r"\w", p)):
                continue  # no words of its own: not a template
            out.append((t, rel, line))
    return out


def show(t):
    return "".join("*" if p is None else p for p in t)


def regex_of(t):
    return re.compile("".join(r"[^\n]*?" if p is None else re.escape(p) for p in t))


def expectations():
    texts = []
    for pattern in ("tests/cli/cases/*.case", "tests/guest/cases/*.case", "tests/cli/*.sh",
                    "tests/deploy/*.sh", "tests/guest/*.sh"):
        for path in sorted(glob.glob(os.path.join(src, pattern))):
            t = open(path, encoding="utf-8", errors="replace").read()
            t = t.replace("'\\''", "'")
            # regexps: \( \. \[ ... stand for the character itself
            t = re.sub(r"\\([^\w\s])", r"\1", t)
            texts.append((os.path.relpath(path, src), t))
    for path in sorted(glob.glob(os.path.join(src, "tests/corpus/*/*.stp"))):
        lines = [l for l in open(path, encoding="utf-8", errors="replace")
                 if l.startswith("# expect:")]
        texts.append((os.path.relpath(path, src), "".join(lines)))
    for path in sorted(glob.glob(os.path.join(src, "tests/unit/*_test.cpp"))):
        t = open(path, encoding="utf-8", errors="replace").read()
        # adjacent literals, then each literal on a line of its own
        t = re.sub(r'"\s*\n\s*"', "", t)
        lits = re.findall(r'"((?:[^"\\\n]|\\.)*)"', t)
        texts.append((os.path.relpath(path, src), "\n".join(unescape(l) for l in lits)))
    return texts


def main():
    ks = kinds()
    texts = expectations()
    allow = {}
    allow_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "allowlist.txt")
    for n, l in enumerate(open(allow_path, encoding="utf-8"), 1):
        l = l.rstrip("\n")
        if not l.strip() or l.startswith("#"):
            continue
        if "  # " not in l:
            print(f"FAIL: allowlist.txt:{n}: no '  # reason'")
            return 1
        tmpl, why = l.split("  # ", 1)
        allow[tmpl] = why
    # A line that several templates match is credited to each of them but
    # those that are only a more generic form of another match: a generic
    # "expected * in '*'" does not take the line of "expected
    # kernel.function(\"GLOB\") in '*'" (its regex matches that template's
    # text), while "* (warnings are errors with -W)" and the warning it wraps
    # both produce theirs.
    seen = {}
    for t, rel, line in ks:
        seen.setdefault(show(t), (t, rel, line))
    compiled = []
    for key, (t, rel, line) in seen.items():
        lits = [p for p in t if p]
        compiled.append((key, regex_of(t), max(lits, key=len), sum(len(p) for p in lits)))
    covered_by = {}
    for name, text in texts:
        for tl in text.split("\n"):
            hits = [c for c in compiled if c[2] in tl and c[1].search(tl)]
            for key, rx, _, score in hits:
                if any(o[3] > score and rx.search(o[0]) for o in hits):
                    continue
                covered_by.setdefault(key, name)
    uncovered, used_allow = [], set()
    for key, (t, rel, line) in seen.items():
        where = covered_by.get(key)
        seen[key] = (rel, line, where)
        if where:
            if key in allow:
                uncovered.append(f"{key}  (allowlisted, but covered by {where}: remove it)")
            continue
        if key in allow:
            used_allow.add(key)
            continue
        uncovered.append(f"{key}  ({rel}:{line})")
    if list_all:
        for key, (rel, line, where) in sorted(seen.items(), key=lambda kv: kv[1][:2]):
            print(f"{rel}:{line}: {key}  -> {where or 'allowlisted: ' + allow.get(key, '?')}")
    stale = [k for k in allow if k not in seen]
    for k in stale:
        uncovered.append(f"{k}  (allowlisted, but no call site has it any more: remove it)")
    covered = len(seen) - len(used_allow) - sum(1 for u in uncovered if "allowlisted" not in u)
    print(f"{len(seen)} diagnostic kinds: {covered} covered by tests, {len(used_allow)} allowlisted, "
          f"{len(seen) - covered - len(used_allow)} uncovered")
    if uncovered:
        print("FAIL: diagnostic kinds no test produces:")
        for u in uncovered:
            print("  " + u)
        return 1
    return 0


sys.exit(main())
