#!/usr/bin/env python3
"""README.md's command table against the CLI: every command of `arenaplan --help` with a usage
of its own has a row (the headline is `arenaplan MODEL`, shown above the table), every row's
command exists, every option a row names is in `arenaplan help COMMAND`, and every option the
usage's synopsis (its lines up to the first blank one) names is in the row.

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


def options(text):
    return set(re.findall(r"(?<![\w-])--[a-z][a-z-]*", text))


def main():
    with open(os.path.join(ROOT, "README.md")) as f:
        readme = f.read()
    rows = {}
    for m in re.finditer(r"^\| `([a-z]+)([^`]*)` \|", readme, re.M):
        rows[m.group(1)] = m.group(2)
    overview = subprocess.run([CLI, "--help"], stdout=subprocess.PIPE, text=True).stdout
    commands = [l.split()[0] for l in overview.split("commands:\n")[1].splitlines() if l.strip()]
    for name in commands:
        r = subprocess.run([CLI, "help", name], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True)
        if r.returncode != 0 or name == "headline":
            continue
        check(name in rows, "README has no row for %s" % name)
        if name not in rows:
            continue
        help_opts = options(r.stdout)
        synopsis = r.stdout.split("\n\n")[0]
        row_opts = options(rows[name])
        for o in sorted(row_opts - help_opts):
            check(False, "README's %s row names %s, which `arenaplan help %s` does not" %
                  (name, o, name))
        for o in sorted(options(synopsis) - row_opts):
            check(False, "`arenaplan help %s` synopsis names %s, README's row does not" %
                  (name, o))
    for name in rows:
        check(name in commands, "README row %s is not a command" % name)
    check("`arenaplan MODEL` prints the headline" in readme, "README shows the headline")
    print("test_readme_help: %d rows, %s" % (len(rows), "ok" if not failed else
                                             "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
