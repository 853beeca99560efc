"""C source as the runtime checkers read it (fault-sites.sh, layers.sh)."""
import re


def blank(text):
    """Comments, strings and char literals become spaces; newlines stay, so
    offsets and line numbers are the file's own."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j])); i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i)); i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + " " * (min(j, n) - i - 1) + c); i = j + 1
        else:
            out.append(c); i += 1
    return "".join(out)
