#!/usr/bin/env python3
"""Runs the Python binding's pytest suite (bindings/python/tests) against this build's
libarenaplan.so, with the first of this python and Debian's /usr/bin/python3 that has pytest.
In a sanitizer build the library needs the sanitizer runtimes loaded first: they are preloaded
(leak checking off: the Python interpreter itself does not free everything at exit).

Environment: AP_CLI (the arenaplan binary; its folder holds libarenaplan.so), AP_SHARED.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.path.dirname(os.path.abspath(os.environ.get("AP_CLI", "build/arenaplan")))


def has_pytest(py):
    return subprocess.run([py, "-m", "pytest", "--version"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def main():
    pythons = [p for p in (sys.executable, "/usr/bin/python3") if os.path.exists(p)]
    py = next((p for p in pythons if has_pytest(p)), None)
    if py is None:
        print("FAIL: no python3 with pytest among %s (scripts/setup.sh installs "
              "python3-pytest)" % pythons, file=sys.stderr)
        return 1
    env = dict(os.environ, ARENAPLAN_LIB=os.path.join(BUILD, "libarenaplan.so"),
               AP_CLI=os.path.join(BUILD, "arenaplan"))
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        if "AP_SANITIZE:BOOL=ON" in f.read():
            libs = [subprocess.run(["cc", "-print-file-name=" + n], stdout=subprocess.PIPE,
                                   text=True).stdout.strip() for n in ("libasan.so", "libubsan.so")]
            env["LD_PRELOAD"] = " ".join(libs)
            env["ASAN_OPTIONS"] = "detect_leaks=0"
    r = subprocess.run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                        os.path.join(ROOT, "bindings", "python", "tests")], env=env, cwd=ROOT)
    return r.returncode


if __name__ == "__main__":
    sys.exit(main())
