#!/usr/bin/env python3
"""The CLI's help (issue 28): `arenaplan --help` lists every command once, in groups, one line
each; `arenaplan COMMAND --help` (and `arenaplan help COMMAND`, the same text) shows a usage
and one example, and every example runs as written beside the shared models (exit 0); a
mistyped option gets the nearest one of its command ("did you mean --tensors?"), a mistyped
command the nearest command, and a word near nothing gets no guess.

Environment: AP_CLI (the arenaplan binary), AP_SHARED (../shared: the examples' models; without
it the examples are not run and the test reports skipped after its other checks).
"""
import os
import re
import subprocess
import sys
import tempfile

CLI = os.path.abspath(os.environ.get("AP_CLI", "build/arenaplan"))
SHARED = os.environ.get("AP_SHARED", "../shared")
# Commands that do not return (a server): their example is shown, not run, and their options
# are not tried.
NOT_RUN = {"serve"}
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def cli(*args, cwd=None):
    return subprocess.run([CLI] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, cwd=cwd)


def overview():
    r = cli("--help")
    check(r.returncode == 0 and r.stderr == "", "--help exits 0 quietly")
    groups, names = [], []
    for line in r.stdout.split("\n\n", 1)[1].splitlines():
        if line.endswith(":") and not line.startswith(" "):
            groups.append(line[:-1])
        elif line.startswith("  ") and line.strip():
            check(re.match(r"^  [a-z]+ +\S", line) is not None, "one line per command: %r" % line)
            names.append(line.split()[0])
    check(len(groups) >= 3, "commands in groups (%d)" % len(groups))
    check(len(names) == len(set(names)), "each command listed once")
    return names


def example_of(name, text):
    lines = text.splitlines()
    check("example:" in lines, "%s --help has an example:" % name)
    if "example:" not in lines:
        return None
    i = lines.index("example:")
    ex = lines[i + 1] if i + 1 < len(lines) else ""
    check(ex.startswith("  arenaplan "), "%s's example is a command line: %r" % (name, ex))
    return ex.strip()


def options(usage):
    return sorted(set(re.findall(r"(?<![\w-])--[a-z][a-z0-9]*(?:-[a-z0-9]+)*", usage)))


def main():
    names = overview()
    for must in ("info", "plan", "report", "run", "header", "tflm", "example"):
        check(must in names, "overview lists " + must)
    examples = {}
    for name in names:
        if name in ("help", "version"):
            continue
        r = cli(name, "--help")
        check(r.returncode == 0, "%s --help exits 0" % name)
        check(r.stdout.startswith("usage: arenaplan"), "%s --help starts with its usage" % name)
        check(cli("help", name).stdout == r.stdout, "help %s is %s --help" % (name, name))
        ex = example_of(name, r.stdout)
        if ex:
            check(ex.split()[1] == name or name == "headline",
                  "%s's example runs %s: %r" % (name, name, ex))
            examples[name] = ex
        # Every option its usage names, mistyped by one letter, is suggested back (not for a
        # server: given a model it would start serving).
        for opt in options(r.stdout) if name not in NOT_RUN else []:
            if opt == "--help" or len(opt) < 5:
                continue
            typo = opt[:-1]
            e = cli(name, typo, "x.tflite") if name not in ("ops", "example") else cli(name, typo)
            check(e.returncode == 2, "%s %s: exit 2 (%d)" % (name, typo, e.returncode))
            check("(did you mean %s?)" % opt in e.stderr or typo in options(r.stdout),
                  "%s %s suggests %s: %r" % (name, typo, opt, e.stderr))
    # The issue's own case, a command, and a word near nothing.
    e = cli("plan", "m.tflite", "--tensor")
    check(e.returncode == 2 and e.stderr.startswith(
        "arenaplan: plan: unknown option --tensor (did you mean --tensors?)\n"), repr(e.stderr))
    e = cli("pln", "m.tflite")
    check(e.returncode == 2 and e.stderr == "arenaplan: pln: unknown command (did you mean "
          "plan?)\n", repr(e.stderr))
    e = cli("plan", "m.tflite", "--zzzzzzzz")
    check(e.returncode == 2 and "did you mean" not in e.stderr and
          "unknown option --zzzzzzzz" in e.stderr, repr(e.stderr))
    models = os.path.join(SHARED, "models")
    if not os.path.isdir(models):
        print("test_help: %d commands, no %s: examples not run" % (len(examples), models))
        return 1 if failed else 77
    with tempfile.TemporaryDirectory() as tmp:
        for f in os.listdir(models):
            os.symlink(os.path.abspath(os.path.join(models, f)), os.path.join(tmp, f))
        with open(os.path.join(tmp, "problem.csv"), "w") as f:
            f.write("id,lower,upper,size\n0,0,2,100\n1,1,3,50\n2,2,4,100\n")
        env = dict(os.environ, PATH=os.path.dirname(CLI) + os.pathsep + os.environ["PATH"])
        for name, ex in sorted(examples.items()):
            if name in NOT_RUN:
                continue
            r = subprocess.run(["sh", "-c", ex], cwd=tmp, env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=300)
            check(r.returncode == 0,
                  "example of %s: %s: exit %d %s" % (name, ex, r.returncode, r.stderr[:300]))
    print("test_help: %d commands, %d examples, %s" %
          (len(names), len(examples), "ok" if not failed else "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
