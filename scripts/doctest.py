#!/usr/bin/env python3
"""Runs the examples of README.md and docs/ and compares their output with the page.

An example is a fenced block whose info string is `console`:

    ```console
    $ arenaplan plan ../shared/models/hello_world_float.tflite
    model:        ../shared/models/hello_world_float.tflite
    plan time:    <...> ms
    ...
    ```

Lines starting with `$ ` are commands (a line ending in `\\` continues on the next); the lines
after one, up to the next command or the block's end, are its output (stdout and stderr).
Volatile parts are marked in the page:
  - `<...>` inside a line matches any text on that line (times, SIMD levels);
  - a line holding only `...` matches any number of lines (an output cut short).
A command `echo $?` prints the exit status of the command before it. Other blocks (```sh,
```c, plain ```) are not run: use them for commands too slow or too
machine-specific to check.

Each page's commands run in order, in one temporary directory holding links to the tree's
top-level entries (so docs/examples/... resolve and written files land outside the tree), with
`arenaplan` on PATH (AP_CLI, default build/arenaplan) and `../shared` meaning AP_SHARED (default
the tree's ../shared). A page whose examples need ../shared is skipped when it is absent. The
fast kernels' level is pinned to AP_SIMD=avx2 (DOCTEST_SIMD overrides it): their scratch, and so
some arenas, differ between levels, and the pages show what an AVX2 machine prints.

  scripts/doctest.py [--update] [--cli PATH] [PAGE.md...]   (default: README.md and docs/)
  --update  rewrites each failing output in place with what the command printed, keeping the
            page's <...> and ... marks where they still match (after a change of output:
            review the diff, then commit it)
Exit status: 0 all match, 1 a mismatch, 77 nothing could run (no ../shared).
"""
import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WILD = "<...>"
LINK = re.compile(r"\]\(([^)\s]+)\)")
# Pages other branches add (the server's and the TFLite C API's): links to them are not
# reported as broken while they are absent.
PENDING = {"docs/serve.md", "docs/c-api.md"}
FENCE = re.compile(r"^(\s*)```(.*)$")


def pages(args):
    if args:
        return args
    found = [os.path.join(ROOT, "README.md")]
    found += sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))
    return found


def blocks(lines):
    """(start, end) line indices of each console block's body: lines[start:end]."""
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m:
            j = i + 1
            while j < len(lines) and not FENCE.match(lines[j]):
                j += 1
            if m.group(2).strip() == "console":
                out.append((i + 1, j))
            i = j + 1
        else:
            i += 1
    return out


def examples(body):
    """[(command, [expected lines], first index, end index)] of one block's body lines."""
    out, i = [], 0
    while i < len(body):
        if not body[i].startswith("$ "):
            i += 1
            continue
        cmd = [body[i][2:]]
        while cmd[-1].endswith("\\") and i + 1 < len(body):
            i += 1
            cmd.append(body[i])
        j = i + 1
        while j < len(body) and not body[j].startswith("$ "):
            j += 1
        out.append(("\n".join(cmd), body[i + 1:j], i + 1, j))
        i = j
    return out


def line_regex(line):
    return ".*?".join(re.escape(part) for part in line.rstrip().split(WILD))


def matches(expected, actual):
    parts = []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(line_regex(line) + r"[ \t]*\n")
    text = "".join(l.rstrip() + "\n" for l in actual)
    return re.fullmatch("".join(parts), text) is not None


def merge(expected, actual):
    """The expected lines updated to actual: an LCS alignment where a line matches when its
    regex does; matched lines keep the page's text (and marks), a `...` line keeps the actual
    lines of its gap covered, the rest is replaced by what was printed."""
    n, m = len(expected), len(actual)
    ok = [[re.fullmatch(line_regex(e), a.rstrip()) is not None and e.strip() != "..."
           for a in actual] for e in expected]
    lcs = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            lcs[i][j] = (lcs[i + 1][j + 1] + 1 if ok[i][j]
                         else max(lcs[i + 1][j], lcs[i][j + 1]))
    out, i, j, gap_e, gap_a = [], 0, 0, [], []

    def flush():
        # A gap with a `...`: the page's lines before it take the first printed lines, those
        # after it the last ones, and `...` covers the rest (the page keeps its shape).
        dots = [k for k, e in enumerate(gap_e) if e.strip() == "..."]
        if dots:
            k = dots[0]
            before, after = k, len(gap_e) - k - 1
            head = gap_a[:min(before, len(gap_a))]
            tail = gap_a[len(head):][-after:] if after else []
            out.extend(a.rstrip() for a in head)
            out.append(gap_e[k])
            out.extend(a.rstrip() for a in tail)
        else:
            out.extend(a.rstrip() for a in gap_a)
        gap_e.clear()
        gap_a.clear()

    while i < n or j < m:
        if i < n and j < m and ok[i][j] and lcs[i][j] == lcs[i + 1][j + 1] + 1:
            flush()
            out.append(expected[i])
            i, j = i + 1, j + 1
        elif j < m and (i == n or lcs[i][j + 1] >= lcs[i + 1][j]):
            gap_a.append(actual[j])
            j += 1
        else:
            gap_e.append(expected[i])
            i += 1
    flush()
    return out


def workdir(tmp):
    for name in os.listdir(ROOT):
        if name.startswith(".") or name.startswith("build"):
            continue
        os.symlink(os.path.join(ROOT, name), os.path.join(tmp, name))


def broken_links(path, lines):
    """Relative links of the page whose file does not exist."""
    out, fenced = [], False
    for n, line in enumerate(lines):
        if FENCE.match(line):
            fenced = not fenced
        if fenced:
            continue
        for target in LINK.findall(line):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            file = os.path.normpath(os.path.join(os.path.dirname(path), target.split("#")[0]))
            if not os.path.exists(file) and os.path.relpath(file, ROOT) not in PENDING:
                out.append((n + 1, target))
    return out


def run_page(path, cli, shared, update):
    with open(path) as f:
        lines = f.read().split("\n")
    rel = os.path.relpath(path, ROOT)
    links = broken_links(path, lines)
    for n, target in links:
        print("FAIL %s:%d: broken link %s" % (rel, n, target))
    todo = [(s, e) for s, e in blocks(lines)]
    if not todo:
        return 0, len(links), 0
    needs_shared = any("../shared" in l for s, e in todo for l in lines[s:e])
    if needs_shared and not os.path.isdir(shared):
        print("skip %s: no %s" % (rel, shared))
        return 0, len(links), 1
    failed, ran = len(links), 0
    edits = []
    with tempfile.TemporaryDirectory(prefix="doctest.") as tmp:
        bindir = os.path.join(tmp, ".bin")
        os.mkdir(bindir)
        os.symlink(os.path.abspath(cli), os.path.join(bindir, "arenaplan"))
        work = os.path.join(tmp, "work")
        os.mkdir(work)
        workdir(work)
        # ../shared through a link of the same length wherever the tree is cloned: a model
        # handle keeps its path, so `pool`'s byte counts would follow the clone's folder.
        link = os.path.join(tmp, "shared")
        os.symlink(os.path.abspath(shared), link)
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""),
                   LC_ALL="C", LANG="C", COLUMNS="100", AP_SHARED=shared,
                   AP_SIMD=os.environ.get("DOCTEST_SIMD", "avx2"))
        shell = shutil.which("bash") or "sh"
        status = 0
        for s, e in todo:
            for cmd, expected, a, b in examples(lines[s:e]):
                real = cmd.replace("../shared", link)
                if cmd.strip() == "echo $?":  # each command has its own shell: say the last's
                    real = "echo %d" % status
                r = subprocess.run([shell, "-c", real], cwd=work, env=env, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   timeout=300, errors="replace")
                status = r.returncode
                actual = r.stdout.replace(link, "../shared").replace(shared, "../shared")
                actual = actual.replace(work + "/", "")
                actual = actual.rstrip("\n").split("\n") if actual.strip() else []
                ran += 1
                if matches(expected, actual):
                    continue
                failed += 1
                print("FAIL %s:%d: $ %s" % (rel, s + a, cmd.split("\n")[0]))
                for line in merge_diff(expected, actual):
                    print("    " + line)
                if update:
                    edits.append((s + a, s + b, merge(expected, actual)))
    if edits:
        for first, end, new in sorted(edits, reverse=True):
            lines[first:end] = new
        with open(path, "w") as f:
            f.write("\n".join(lines))
        print("updated %s (%d examples)" % (rel, len(edits)))
    return ran, failed, 0


def merge_diff(expected, actual):
    import difflib
    # Against the page updated to the output (marks kept): only the real changes show.
    return list(difflib.unified_diff(expected, merge(expected, actual), "page", "output",
                                     lineterm="", n=1))[2:]


def main():
    ap = argparse.ArgumentParser(description="Runs the console examples of the docs.")
    ap.add_argument("--update", action="store_true", help="rewrite failing outputs in place")
    ap.add_argument("--cli", default=os.environ.get("AP_CLI",
                                                    os.path.join(ROOT, "build", "arenaplan")))
    ap.add_argument("pages", nargs="*")
    args = ap.parse_args()
    if not os.path.exists(args.cli):
        print("doctest: %s: no such CLI (build it: make, or pass --cli)" % args.cli,
              file=sys.stderr)
        return 2
    shared = os.path.abspath(os.environ.get("AP_SHARED") or os.path.join(ROOT, "..", "shared"))
    ran = failed = skipped = 0
    for page in pages(args.pages):
        r, f, s = run_page(os.path.abspath(page), args.cli, shared, args.update)
        ran, failed, skipped = ran + r, failed + f, skipped + s
    print("doctest: %d examples, %d failed%s, %d pages skipped" %
          (ran, failed, " (updated)" if args.update and failed else "", skipped))
    if failed and not args.update:
        print("doctest: after an intended change of output: scripts/doctest.py --update, "
              "then review the diff", file=sys.stderr)
        return 1
    return 77 if ran == 0 and skipped else 0


if __name__ == "__main__":
    sys.exit(main())
