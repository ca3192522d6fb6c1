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
    print("test_readme: %d lines, %s" % (len(lines), "ok" if not failed else
                                         "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
