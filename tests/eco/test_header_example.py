#!/usr/bin/env python3
"""The worked example at the top of include/arenaplan/arenaplan.h compiles (-Wall -Wextra
-Werror, C11) against this build's static library and runs: on hello_world_float (tensors of
4, 64, 64 and 4 bytes; the two 64-byte activations are live together at step 1 and nothing
else is then, so the lower bound is 128 and `best` reaches it) it prints arena 128, lower bound
128, and runs one inference in a buffer of exactly the total the runtime reports. On a missing
file it prints the library's message and exits 1.

Environment: AP_CLI (its folder is the build tree), AP_SHARED.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.dirname(os.path.abspath(os.environ.get("AP_CLI", "build/arenaplan")))
SHARED = os.environ.get("AP_SHARED", os.path.join(ROOT, "..", "shared"))


def main():
    with open(os.path.join(ROOT, "include", "arenaplan", "arenaplan.h")) as f:
        text = f.read()
    body = text[text.index(" *   #include <arenaplan/arenaplan.h>"):]
    body = body[:body.index(" *\n * Conventions")]
    code = "\n".join(re.sub(r"^ \*(   )?", "", line) for line in body.splitlines()) + "\n"
    code = code.replace("\\\\n", "\\n")
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        san = ["-fsanitize=address,undefined"] if "AP_SANITIZE:BOOL=ON" in f.read() else []
    tmp = tempfile.mkdtemp(prefix="ap_example_")
    try:
        src = os.path.join(tmp, "example.c")
        with open(src, "w") as f:
            f.write(code)
        exe = os.path.join(tmp, "example")
        r = subprocess.run(["cc", "-std=c11", "-D_GNU_SOURCE", "-Wall", "-Wextra", "-Werror"] +
                           san + ["-I", os.path.join(ROOT, "include"), src, "-o", exe,
                                  os.path.join(BUILD, "libarenaplan.a"), "-lm", "-lpthread"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            print("FAIL: the example does not compile:\n" + r.stdout + "\n" + code,
                  file=sys.stderr)
            return 1
        r = subprocess.run([exe, "/nonexistent.tflite"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        ok = r.returncode == 1 and r.stderr == \
            "/nonexistent.tflite: cannot open: No such file or directory\n"
        if not ok:
            print("FAIL: missing file: %d %r" % (r.returncode, r.stderr), file=sys.stderr)
        model = os.path.join(SHARED, "models", "hello_world_float.tflite")
        if not os.path.exists(model):
            print("skipped: ../shared is absent")
            return 77
        r = subprocess.run([exe, model], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        total = subprocess.run([os.path.join(BUILD, "arenaplan"), "report", model, "--json"],
                               stdout=subprocess.PIPE, text=True).stdout
        m = re.search(r'"device_bytes": (\d+)', total)
        want = ("arena 128 lower bound 128\nin a buffer of %s bytes: output 0 has 4 bytes\n"
                % (m.group(1) if m else "?"))
        if r.returncode != 0 or r.stdout != want:
            print("FAIL: got %r (%s), want %r" % (r.stdout, r.stderr, want), file=sys.stderr)
            ok = False
        print("test_header_example: " + ("ok" if ok else "failed"))
        return 0 if ok else 1
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
