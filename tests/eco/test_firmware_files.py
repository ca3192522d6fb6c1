#!/usr/bin/env python3
"""What a firmware build takes from `arenaplan header` and scripts/mcu_kernels.py, checked on
the host (no Arm toolchain needed; `make test-mcu` runs the firmware itself in QEMU):
- --model-array writes C that compiles (-Wall -Wextra -Werror) to an array holding the model
  file byte for byte, 16-byte aligned, in section .rodata.model_array.PREFIX;
- --ops lists each op the model uses once (person_detect_int8: its five);
- --inplace plans in place: the header says MODEL_INPLACE 1 and its buffer is no larger;
- mcu_kernels.py keeps exactly the listed ops' rows of src/kernels/registry.c and the streamed
  segments' row kernels of those ops only (AP_REG_STREAM_*), and the copy compiles -Werror
  against src/, so a change to the registry's layout that the script no longer understands
  fails here; its FAMILY argument picks the DSP kernels (AP_REGISTRY_FAMILY);
- bad options are usage errors.

Environment: AP_CLI, AP_SHARED.
"""
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.environ.get("AP_CLI", os.path.join(ROOT, "build", "arenaplan"))
SHARED = os.environ.get("AP_SHARED", os.path.join(ROOT, "..", "shared"))
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL:", what)


def run(*args):
    return subprocess.run([CLI, *args], capture_output=True, text=True)


def buffer_bytes(header):
    return int(re.search(r"#define MODEL_BUFFER_BYTES (\d+)u", header).group(1))


def main():
    model = os.path.join(SHARED, "models", "person_detect_int8.tflite")
    if not os.path.exists(model):
        print("skipped: %s absent" % model)
        sys.exit(77)
    data = open(model, "rb").read()
    with tempfile.TemporaryDirectory() as d:
        arr, ops = os.path.join(d, "model_data.c"), os.path.join(d, "ops.txt")
        r = run("header", model, "--prefix", "MODEL", "--inplace", "--model-array", arr,
                "--ops", ops)
        check(r.returncode == 0, "header: " + r.stderr)
        check("#define MODEL_INPLACE 1" in r.stdout, "MODEL_INPLACE in the in-place header")
        plain = run("header", model, "--prefix", "MODEL")
        check("INPLACE" not in plain.stdout, "no MODEL_INPLACE without --inplace")
        check(buffer_bytes(r.stdout) <= buffer_bytes(plain.stdout), "in place is no larger")
        check(sorted(open(ops).read().split()) ==
              ["AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "RESHAPE", "SOFTMAX"],
              "ops: " + open(ops).read())
        src = open(arr).read()
        check('section(".rodata.model_array.MODEL")' in src and "aligned(16)" in src,
              "array attributes")
        prog = os.path.join(d, "check.c")
        with open(prog, "w") as f:
            f.write('#include <stdint.h>\n#include <stdio.h>\n#include <string.h>\n'
                    'extern const unsigned char MODEL_DATA[%d];\n'
                    'int main(int argc, char **argv) {\n'
                    '  (void)argc;\n  static unsigned char b[%d];\n'
                    '  FILE *f = fopen(argv[1], "rb");\n'
                    '  if (!f || fread(b, 1, sizeof b, f) != sizeof b) return 2;\n'
                    '  fclose(f);\n'
                    '  return (uintptr_t)MODEL_DATA %% 16 ? 3 : memcmp(b, MODEL_DATA, sizeof b) != 0;\n'
                    '}\n' % (len(data), len(data)))
        exe = os.path.join(d, "check")
        c = subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", prog, arr, "-o", exe],
                           capture_output=True, text=True)
        check(c.returncode == 0, "array compiles: " + c.stderr)
        if c.returncode == 0:
            check(subprocess.run([exe, model]).returncode == 0, "the array is the model's bytes")

        reg = os.path.join(d, "registry_model.c")
        s = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "mcu_kernels.py"), ops,
                            os.path.join(ROOT, "src", "kernels", "registry.c"), reg],
                           capture_output=True, text=True)
        check(s.returncode == 0, "mcu_kernels.py: " + s.stderr)
        text = open(reg).read()
        table = text[text.index("static const ap_kernel kernels[] = {"):]
        table = table[:table.index("\n};")]
        # Every row left, whatever its form ({CODE, "NAME", ...} or an ENTRY(NAME, ...)
        # macro), must be one of the model's ops, and each op must have its row.
        names = []
        for row in re.findall(r"^    ([{A-Za-z_].*)$", table, re.M):
            m = re.match(r'[A-Za-z_]\w*\(\s*"?(\w+)', row) or re.search(r'"(\w+)"', row)
            names.append(m.group(1) if m else row)
        check(sorted(names) == sorted(open(ops).read().split()), "rows kept: %s" % names)
        # The streamed segments' row kernels follow the ops (person_detect: conv, depthwise,
        # average pool; no PAD, ADD or element-wise member).
        want = {"CONV_2D": 1, "DEPTHWISE_CONV_2D": 1, "POOL_2D": 1, "PAD": 0, "ADD": 0, "ELEM": 0}
        got = dict((k, int(v)) for k, v in re.findall(r"#define AP_REG_STREAM_(\w+) (\d)",
                                                          text[:text.index("#include")]))
        check(got == want, "streamed row kernels: %s" % got)
        c = subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-D_GNU_SOURCE",
                            "-I" + os.path.join(ROOT, "src"), "-I" + os.path.join(ROOT, "include"),
                            "-c", reg, "-o", os.path.join(d, "registry_model.o")],
                           capture_output=True, text=True)
        check(c.returncode == 0, "the filtered registry compiles: " + c.stderr)

        # The DSP family (AP_REGISTRY_FAMILY): fast by default, small when named, else refused.
        check("#define AP_REGISTRY_FAMILY 0 /* fast */" in text, "family fast by default")
        for fam, want_rc in (("small", 0), ("tiny", 1)):
            s = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "mcu_kernels.py"),
                                ops, os.path.join(ROOT, "src", "kernels", "registry.c"), reg,
                                "fast", "int8", fam], capture_output=True, text=True)
            check(s.returncode == want_rc, "family %s: %d %s" % (fam, s.returncode, s.stderr))
        check("#define AP_REGISTRY_FAMILY 1 /* small */" in open(reg).read(), "family small")

        r = run("header", model, "--model-array")
        check(r.returncode == 2 and "--model-array" in r.stderr, "missing value: " + r.stderr)
        r = run("header", model, "--model-array", "/nonexistent/dir/m.c")
        check(r.returncode != 0 and "cannot create" in r.stderr, "unwritable: " + r.stderr)
    print("%s" % ("ok" if not failed else "%d failed" % failed))
    sys.exit(1 if failed else 0)


main()
