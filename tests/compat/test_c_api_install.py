#!/usr/bin/env python3
"""TFLite's C API as installed: `cmake --install` into a temporary prefix, then
tests/compat/minimal.c (TFLite's minimal C API example, unchanged) built three ways against the
installed tree: `pkg-config --cflags --libs tensorflowlite_c`, docs/c-api.md's two flags
(-I PREFIX/include/arenaplan/compat, -L PREFIX/lib -ltensorflowlite_c), and CMake's
find_package(arenaplan) with arenaplan::tensorflowlite_c. Each must give TFLite Micro's output
bytes for hello_world_int8 seed 1 (shared/oracle/tflm).

Environment: AP_CLI (the arenaplan binary; its folder is the build tree), AP_SHARED.
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.dirname(os.path.abspath(os.environ.get("AP_CLI", "build/arenaplan")))
SHARED = os.environ.get("AP_SHARED", os.path.join(HERE, "..", "..", "..", "shared"))
MODEL = "hello_world_int8"
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def run(cmd, **kw):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if r.returncode != 0:
        print("$ " + " ".join(cmd) + "\n" + r.stdout, file=sys.stderr)
    return r


def sanitized():
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        return "AP_SANITIZE:BOOL=ON" in f.read()


def check_run(exe, tmp, what, env=None):
    out = os.path.join(tmp, what + "-out")
    os.makedirs(out)
    model = os.path.join(SHARED, "models", MODEL + ".tflite")
    r = run([exe, model, "1", out], env=env)
    check(r.returncode == 0 and "output 0 name=StatefulPartitionedCall:0 type=INT8" in r.stdout,
          what + ": " + r.stdout)
    with open(os.path.join(SHARED, "oracle", "tflm", MODEL + ".seed1.output0.bin"), "rb") as f:
        want = f.read()
    got = b""
    if os.path.exists(os.path.join(out, "output0.bin")):
        with open(os.path.join(out, "output0.bin"), "rb") as f:
            got = f.read()
    check(got == want, what + ": output %r, TFLite Micro's %r" % (got, want))


def main():
    if not os.path.isdir(os.path.join(SHARED, "models")):
        print("test_c_api_install: no shared data at %s" % SHARED, file=sys.stderr)
        return 77
    for tool in ("cmake", "pkg-config", "cc"):
        if shutil.which(tool) is None:
            print("FAIL: %s not found (run scripts/setup.sh)" % tool, file=sys.stderr)
            return 1
    san = ["-fsanitize=address,undefined"] if sanitized() else []
    tmp = tempfile.mkdtemp(prefix="ap_capi_install_")
    try:
        prefix = os.path.join(tmp, "prefix")
        r = run(["cmake", "--install", BUILD, "--prefix", prefix])
        check(r.returncode == 0, "cmake --install")
        if r.returncode != 0:
            return 1
        inc = os.path.join(prefix, "include", "arenaplan", "compat")
        for rel in ("tensorflow/lite/c/c_api.h", "tensorflow/lite/c/c_api_types.h",
                    "tensorflow/lite/c/common.h", "tensorflow/lite/c/c_api_experimental.h",
                    "arenaplan_c_api.h"):
            check(os.path.exists(os.path.join(inc, rel)), "installed " + rel)
        lib = os.path.join(prefix, "lib")
        for rel in ("libtensorflowlite_c.so", "pkgconfig/tensorflowlite_c.pc"):
            check(os.path.exists(os.path.join(lib, rel)), "installed lib/" + rel)
        r = run(["objdump", "-p", os.path.join(lib, "libtensorflowlite_c.so")])
        check("NEEDED               libarenaplan.so.0\n" in r.stdout and "$ORIGIN" in r.stdout,
              "libtensorflowlite_c.so needs libarenaplan.so.0 beside it ($ORIGIN)")
        r = run(["objdump", "-T", os.path.join(lib, "libarenaplan.so")])
        check(" TfLiteInterpreterCreate\n" in r.stdout, "libarenaplan.so exports the C API")
        env = dict(os.environ, LD_LIBRARY_PATH=lib)
        src = os.path.join(HERE, "minimal.c")

        pc_env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(lib, "pkgconfig"))
        r = run(["pkg-config", "--cflags", "--libs", "tensorflowlite_c"], env=pc_env)
        check(r.returncode == 0, "pkg-config tensorflowlite_c")
        exe = os.path.join(tmp, "minimal_pc")
        r = run(["cc", "-std=c11", "-Wall", "-Werror"] + san + [src, "-o", exe] + r.stdout.split())
        check(r.returncode == 0, "build with pkg-config tensorflowlite_c")
        if r.returncode == 0:
            check_run(exe, tmp, "pkg-config", env)

        exe = os.path.join(tmp, "minimal_flags")
        r = run(["cc", "-std=c11", "-Wall", "-Werror"] + san +
                [src, "-o", exe, "-I" + inc, "-L" + lib, "-ltensorflowlite_c"])
        check(r.returncode == 0, "build with the two flags")
        if r.returncode == 0:
            check_run(exe, tmp, "flags", env)
            r = run(["objdump", "-p", exe])
            check("NEEDED               libtensorflowlite_c.so\n" in r.stdout,
                  "the program needs libtensorflowlite_c.so")

        cm = os.path.join(tmp, "cm")
        os.makedirs(cm)
        shutil.copy(src, cm)
        with open(os.path.join(cm, "CMakeLists.txt"), "w") as f:
            f.write("cmake_minimum_required(VERSION 3.16)\nproject(minimal C)\n"
                    "find_package(arenaplan 0.1 REQUIRED)\n"
                    "add_executable(minimal minimal.c)\n"
                    "target_link_libraries(minimal PRIVATE arenaplan::tensorflowlite_c)\n")
        out = os.path.join(tmp, "cm-build")
        r = run(["cmake", "-S", cm, "-B", out, "-DCMAKE_PREFIX_PATH=" + prefix,
                 "-DCMAKE_C_FLAGS=" + " ".join(san)])
        check(r.returncode == 0, "cmake configure with find_package(arenaplan)")
        r = run(["cmake", "--build", out])
        check(r.returncode == 0, "cmake build with arenaplan::tensorflowlite_c")
        if r.returncode == 0:
            check_run(os.path.join(out, "minimal"), tmp, "cmake")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("test_c_api_install: %s" % ("ok" if failed == 0 else "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
