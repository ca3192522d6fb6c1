#!/usr/bin/env python3
"""`cmake --install` into a temporary prefix, then a consumer program (tests/eco/consumer.c)
built against the installed tree three ways: pkg-config (shared library), and CMake's
find_package(arenaplan) with arenaplan::arenaplan (shared) and arenaplan::static. Each must
print the plan and the run that consumer.c's comment derives by hand: arena 1200 = lower bound
1200 for its three-ADD model, and y = 5x.

Environment: AP_CLI (the arenaplan binary; its folder is the build tree). Needs cmake, a C
compiler and pkg-config (scripts/setup.sh installs them).
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.dirname(os.path.abspath(os.environ.get("AP_CLI", "build/arenaplan")))
EXPECTED = "arenaplan 0.1.0\narena 1200 lower_bound 1200\ny[1] 5 y[99] 495\n"
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def run(cmd, quiet=False, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0 and not quiet:
        print("$ " + " ".join(cmd) + "\n" + r.stdout, file=sys.stderr)
    return r


def sanitized():
    # An ASan build's libraries need the sanitizer runtime in the consumer too.
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        return "AP_SANITIZE:BOOL=ON" in f.read()


def main():
    for tool in ("cmake", "pkg-config", "cc"):
        if shutil.which(tool) is None:
            print("FAIL: %s not found (run scripts/setup.sh)" % tool, file=sys.stderr)
            return 1
    san = ["-fsanitize=address,undefined"] if sanitized() else []
    tmp = tempfile.mkdtemp(prefix="ap_install_")
    try:
        prefix = os.path.join(tmp, "prefix")
        r = run(["cmake", "--install", BUILD, "--prefix", prefix])
        check(r.returncode == 0, "cmake --install")
        if r.returncode != 0:
            return 1
        for rel in ("include/arenaplan/arenaplan.h", "include/arenaplan/runtime.h",
                    "lib/libarenaplan.a", "lib/libarenaplan.so", "lib/libarenaplan.so.0",
                    "lib/libarenaplan.so.0.1.0", "bin/arenaplan", "lib/pkgconfig/arenaplan.pc",
                    "lib/cmake/arenaplan/arenaplanConfig.cmake",
                    "lib/cmake/arenaplan/arenaplanConfigVersion.cmake",
                    "share/man/man1/arenaplan.1"):
            check(os.path.exists(os.path.join(prefix, rel)), "installed " + rel)
        check(os.path.realpath(os.path.join(prefix, "lib/libarenaplan.so")) ==
              os.path.join(os.path.realpath(prefix), "lib/libarenaplan.so.0.1.0"),
              "libarenaplan.so -> libarenaplan.so.0.1.0")
        if shutil.which("objdump"):
            r = run(["objdump", "-p", os.path.join(prefix, "lib/libarenaplan.so")])
            check("SONAME               libarenaplan.so.0\n" in r.stdout, "SONAME libarenaplan.so.0")
        r = run([os.path.join(prefix, "bin/arenaplan"), "--help"])
        check(r.returncode == 0 and "usage: arenaplan" in r.stdout, "installed CLI runs")

        env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(prefix, "lib/pkgconfig"))
        r = run(["pkg-config", "--modversion", "arenaplan"], env=env)
        check(r.stdout == "0.1.0\n", "pkg-config --modversion: " + r.stdout)
        r = run(["pkg-config", "--cflags", "--libs", "arenaplan"], env=env)
        flags = r.stdout.split()
        incs = [os.path.normpath(x[2:]) for x in flags if x.startswith("-I")]
        check(incs == [os.path.join(prefix, "include")], "pkg-config --cflags: " + r.stdout)
        exe = os.path.join(tmp, "consumer_pc")
        r = run(["cc", "-std=c11", "-Wall", "-Werror"] + san +
                [os.path.join(HERE, "consumer.c"), "-o", exe] + flags, env=env)
        check(r.returncode == 0, "build with pkg-config")
        if r.returncode == 0:
            r = run([exe, os.path.join(tmp, "pc.tflite")],
                    env=dict(os.environ, LD_LIBRARY_PATH=os.path.join(prefix, "lib")))
            check(r.returncode == 0 and r.stdout == EXPECTED, "pkg-config consumer: " + r.stdout)

        src = os.path.join(tmp, "cm")
        os.makedirs(src)
        shutil.copy(os.path.join(HERE, "consumer.c"), src)
        with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.16)\nproject(consumer C)\n"
                    "find_package(arenaplan 0.1 REQUIRED)\n"
                    "add_executable(consumer_shared consumer.c)\n"
                    "target_link_libraries(consumer_shared PRIVATE arenaplan::arenaplan)\n"
                    "add_executable(consumer_static consumer.c)\n"
                    "target_link_libraries(consumer_static PRIVATE arenaplan::static)\n")
        out = os.path.join(tmp, "cm-build")
        r = run(["cmake", "-S", src, "-B", out, "-DCMAKE_PREFIX_PATH=" + prefix,
                 "-DCMAKE_C_FLAGS=" + " ".join(san)])
        check(r.returncode == 0, "cmake configure with find_package(arenaplan)")
        r = run(["cmake", "--build", out])
        check(r.returncode == 0, "cmake build of the consumer")
        for name in ("consumer_shared", "consumer_static"):
            exe = os.path.join(out, name)
            r = run([exe, os.path.join(tmp, name + ".tflite")]) if os.path.exists(exe) else None
            check(r is not None and r.returncode == 0 and r.stdout == EXPECTED,
                  name + ": " + (r.stdout if r else "not built"))
        if os.path.exists(os.path.join(out, "consumer_static")):
            r = run(["objdump", "-p", os.path.join(out, "consumer_static")])
            check("libarenaplan" not in r.stdout, "consumer_static needs no libarenaplan.so")
            r = run(["objdump", "-p", os.path.join(out, "consumer_shared")])
            check("NEEDED               libarenaplan.so.0\n" in r.stdout,
                  "consumer_shared needs libarenaplan.so.0")
        # A version the package does not promise is refused.
        with open(os.path.join(src, "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.16)\nproject(consumer C)\n"
                    "find_package(arenaplan 1.0 REQUIRED)\n")
        r = run(["cmake", "-S", src, "-B", os.path.join(tmp, "cm-bad"),
                 "-DCMAKE_PREFIX_PATH=" + prefix], quiet=True)
        check(r.returncode != 0 and "0.1.0" in r.stdout, "find_package(arenaplan 1.0) refused")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("test_install: %s" % ("ok" if failed == 0 else "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
