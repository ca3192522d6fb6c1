#!/usr/bin/env python3
"""docs/reference/cli.md against the CLI: the page holds `$ arenaplan --help` and, for every
command that overview lists (but help and version), a `$ arenaplan COMMAND --help` example, so
scripts/doctest.py (docs_test_doctest_py) checks each against the CLI's own text and a command
cannot be left out of the reference. README.md's tour shows `arenaplan MODEL`'s headline.

Environment: AP_CLI (the arenaplan binary).
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("AP_CLI", os.path.join(ROOT, "build", "arenaplan"))
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def main():
    with open(os.path.join(ROOT, "docs", "reference", "cli.md")) as f:
        page = f.read()
    shown = set(re.findall(r"^\$ arenaplan ([a-z]+) --help$", page, re.M))
    check("$ arenaplan --help\n" in page, "the page shows arenaplan --help")
    overview = subprocess.run([CLI, "--help"], stdout=subprocess.PIPE, text=True).stdout
    commands = [l.split()[0] for l in overview.split("\n\n", 1)[1].splitlines()
                if l.startswith("  ") and l.strip()]
    for name in commands:
        if name in ("help", "version"):
            continue
        check(name in shown, "docs/reference/cli.md has no `$ arenaplan %s --help`: add a section "
              "with that console block, then scripts/doctest.py --update docs/reference/cli.md" % name)
    for name in shown:
        check(name in commands, "docs/reference/cli.md shows %s, not a command" % name)
    with open(os.path.join(ROOT, "README.md")) as f:
        check("$ arenaplan ../shared/models/" in f.read(), "README shows the headline")
    print("test_cli_reference: %d commands, %s" % (len(shown), "ok" if not failed else
                                                   "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
