#!/usr/bin/env python3
"""README.md stays a README (issue 28): at most 250 lines, no table cell over 40 words, the
tour's commands shown as checked examples (```console blocks, run by docs_test_doctest_py),
and every page of the docs index reachable from it.
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def table_rows(text, heading):
    """The rows of the first table after `heading`, as lists of cells."""
    at = text.find(heading)
    if at < 0:
        return []
    rows = []
    for line in text[at:].split("\n")[1:]:
        if line.startswith("|"):
            if not set(line) <= set("|- "):
                rows.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif rows:
            break
    return rows[1:]  # the header row


def check_switching(text):
    """The README's table of what differs from TFLite holds only what the tested pages say:
    each TfLite* call it names is a refusal of docs/c-api.md's table (compat_test_c_api_docs
    makes every call there and checks its message), each Python name is in the Python
    reference's table of differences (bindings/python/tests), and each arenaplan_ call is
    declared by the compat header."""
    rows = table_rows(text, "## Switching from TFLite")
    check(rows, "README has a table of what differs from TFLite")
    with open(os.path.join(ROOT, "docs", "c-api.md")) as f:
        capi = f.read()
    refused = {r[0].strip("`") for r in table_rows(capi, "## What differs from TFLite")}
    with open(os.path.join(ROOT, "docs", "reference", "python.md")) as f:
        python = f.read()
    with open(os.path.join(ROOT, "include", "tflite-compat", "arenaplan_c_api.h")) as f:
        header = f.read()
    for row in rows:
        for name in re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", " ".join(row)):
            if name.startswith("TfLite"):
                check(name in refused, "README names %s, not a refusal docs/c-api.md tests" % name)
            elif name.startswith("arenaplan_"):
                check(name + "(" in header, "README names %s, which the compat header lacks" % name)
            else:
                check(name in python, "README names %s, not in docs/reference/python.md" % name)


def main():
    with open(os.path.join(ROOT, "README.md")) as f:
        text = f.read()
    lines = text.rstrip("\n").split("\n")
    check(len(lines) <= 250, "README.md has %d lines (at most 250)" % len(lines))
    fenced = False
    for n, line in enumerate(lines, 1):
        if line.startswith("```"):
            fenced = not fenced
        if fenced or not line.startswith("|"):
            continue
        for cell in line.strip().strip("|").split("|"):
            words = len(cell.split())
            check(words <= 40, "README.md:%d: a table cell of %d words" % (n, words))
    tour = set()
    for block in re.findall(r"^```console\n(.*?)^```", text, re.M | re.S):
        for c in re.findall(r"^\$ arenaplan (\S+)", block, re.M):
            tour.add("headline" if c.startswith("../") else c)
    for cmd in ("headline", "info", "plan", "report", "tflm", "run", "header"):
        check(cmd in tour, "the tour shows `arenaplan %s` as a ```console example" % cmd)
    check("](docs/README.md)" in text, "README links the docs index")
    check_switching(text)
    print("test_readme: %d lines, %s" % (len(lines), "ok" if not failed else
                                         "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
