#!/usr/bin/env python3
"""The generated man page (build/arenaplan.1, from scripts/manpage.py) against the CLI: every
command of `arenaplan --help` is listed with its summary, and every line of every
`arenaplan help COMMAND` text appears verbatim in the page as man(1) renders it (ASCII, wide).
Checks the roff source when man is not installed.

Environment: AP_CLI (the arenaplan binary; arenaplan.1 is beside it).
"""
import os
import shutil
import subprocess
import sys

CLI = os.path.abspath(os.environ.get("AP_CLI", "build/arenaplan"))
PAGE = os.path.join(os.path.dirname(CLI), "arenaplan.1")
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def out(*args):
    r = subprocess.run([CLI] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                       text=True)
    return r.returncode, r.stdout


def main():
    if not os.path.exists(PAGE):
        print("FAIL: %s not generated" % PAGE, file=sys.stderr)
        return 1
    if shutil.which("man"):
        r = subprocess.run(["man", "-l", PAGE], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, env=dict(os.environ, LANG="C", LC_ALL="C", MANWIDTH="200"))
        check(r.returncode == 0 and r.stderr == "", "man -l renders cleanly: " + r.stderr)
        text = r.stdout
    else:
        with open(PAGE) as f:
            text = f.read().replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")
    lines = {line.strip() for line in text.splitlines()}
    _, overview = out("--help")
    commands = [line.split(None, 1) for line in overview.split("\n\n", 1)[1].splitlines()
                if line.startswith("  ") and line.strip()]
    check(len(commands) >= 12, "the overview lists the commands")
    with_usage = 0
    for name, summary in commands:
        check(name in lines or any(l.startswith(name + " ") for l in lines),
              "command %s listed" % name)
        check(summary in text, "summary of %s" % name)
        rc, usage = out("help", name)
        if rc != 0:
            continue
        with_usage += 1
        check(("ARENAPLAN " + name.upper()) in lines, "section for " + name)
        for line in usage.splitlines():
            if line.strip():
                check(line.strip() in lines, "%s: line %r" % (name, line))
    check(with_usage == len(commands) - 2, "every command but help and version has a usage")
    print("test_manpage: %d commands, %s" % (len(commands), "ok" if not failed else
                                              "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
