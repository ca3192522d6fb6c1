#!/usr/bin/env python3
"""Prints the functions a public header declares, each with the comment above it: the C API
reference by header (docs/reference/c.md shows `scripts/api.py HEADER` for every header, and
scripts/doctest.py checks it, so the page follows the headers).

  scripts/api.py include/arenaplan/model.h
"""
import re
import sys
import textwrap


def declarations(text):
    text = re.sub(r"#[^\n]*(\\\n[^\n]*)*", "", text)  # preprocessor lines
    text = text.replace("extern \"C\" {", "")  # inside #ifdef __cplusplus
    out, comment, depth = [], "", 0
    token = re.compile(r"/\*.*?\*/|//[^\n]*|[^;{}/]*[;{}]|.", re.S)
    for m in token.finditer(text):
        t = m.group(0)
        if t.startswith("/*") or t.startswith("//"):
            body = re.sub(r"^/\*|\*/$", "", t) if t.startswith("/*") else t[2:]
            lines = [re.sub(r"^\s*\* ?", "", l).rstrip() for l in body.split("\n")]
            comment = " ".join(l.strip() for l in lines if l.strip())
            continue
        if not t.strip():
            continue
        decl = " ".join(t.split())
        if (depth == 0 and t.endswith(";") and re.search(r"\bap_\w+\s*\(", decl) and
                not decl.startswith("typedef")):
            out.append((decl, comment))
        depth += t.count("{") - t.count("}")
        comment = ""
    return out


def main():
    if len(sys.argv) != 2:
        print("usage: api.py HEADER", file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        decls = declarations(f.read())
    for decl, comment in decls:
        print(decl)
        for line in textwrap.wrap(comment, 88):
            print("    " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
