#!/usr/bin/env python3
"""arenaplan.Interpreter as TensorFlow Lite's Python API: `pip install bindings/python` offline
(--no-index) into a venv made with --system-site-packages (numpy from the system); then, from
that venv and outside the source tree, tflite_runtime_script.py (tflite_runtime's API only) with
its import changed to `import arenaplan as tflite` writes the same output bytes and prints the
same detections as `arenaplan run` (person_detect_int8 seeds 1-2, the SSD detector seed 1 at
score 0.1), signature_runner_script.py (SignatureRunner only) prints TFLite's values for both
signatures of multi_signatures.tflite (two subgraphs), and tflite_api_checks.py checks details,
errors, resize and signatures.

Environment: AP_CLI (the arenaplan binary; libarenaplan.so beside it), AP_SHARED.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.abspath(os.environ.get("AP_CLI", os.path.join(ROOT, "build", "arenaplan")))
BUILD = os.path.dirname(CLI)
SHARED = os.path.abspath(os.environ.get("AP_SHARED", os.path.join(ROOT, "..", "shared")))
IMPORT = "import tflite_runtime.interpreter as tflite"
failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def has_numpy(py):
    return subprocess.run([py, "-c", "import numpy, venv"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def read(path):
    with open(path, "rb") as f:
        return f.read()


def compare(model, input_file, tmp, py, env, script, threshold, outputs):
    cli_dir, py_dir = os.path.join(tmp, "cli"), os.path.join(tmp, "py")
    for d in (cli_dir, py_dir):
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    cli = subprocess.run([CLI, "run", model, "--iterations", "1", "--input", input_file,
                          "--output", cli_dir, "--score-threshold", str(threshold)],
                         stdout=subprocess.PIPE, text=True)
    check(cli.returncode == 0, "arenaplan run %s" % model)
    r = subprocess.run([py, script, model, input_file, py_dir, str(threshold)], env=env,
                       cwd=tmp, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(r.returncode == 0, "the tflite_runtime script on %s: %s" % (model, r.stderr))
    for k in range(outputs):
        a, b = os.path.join(cli_dir, "output%d.bin" % k), os.path.join(py_dir, "output%d.bin" % k)
        same = os.path.exists(a) and os.path.exists(b) and read(a) == read(b)
        check(same, "%s output %d: the script's bytes differ from arenaplan run's" % (model, k))
    if "detections  " in cli.stdout:
        table = cli.stdout[cli.stdout.index("detections  "):]
        check(r.stdout == table, "detections differ:\n%s\nvs the CLI's\n%s" % (r.stdout, table))
    else:
        # The CLI's top-N line starts with the same class and value.
        top = r.stdout.strip().split(": ", 1)[-1]
        check(re.search(r"top-\d+: " + re.escape(top), cli.stdout) is not None,
              "top-1 %s does not start the CLI's top-N line" % top)
    print("%s: %s" % (os.path.basename(model), r.stdout.strip().splitlines()[0]
                      if r.stdout.strip() else "(nothing printed)"))


def main():
    if not os.path.isdir(os.path.join(SHARED, "models")):
        print("skipped: no shared data at %s" % SHARED)
        return 77
    pythons = [p for p in (sys.executable, "/usr/bin/python3") if p and os.path.exists(p)]
    py = next((p for p in pythons if has_numpy(p)), None)
    if py is None:
        print("FAIL: no python3 with numpy and venv among %s" % pythons, file=sys.stderr)
        return 1
    with open(os.path.join(BUILD, "CMakeCache.txt")) as f:
        sanitized = "AP_SANITIZE:BOOL=ON" in f.read()
    tmp = tempfile.mkdtemp(prefix="ap_tflite_api_")
    try:
        venv = os.path.join(tmp, "venv")
        r = subprocess.run([py, "-m", "venv", "--system-site-packages", venv],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        check(r.returncode == 0, "venv: %s" % r.stdout)
        vpy = os.path.join(venv, "bin", "python")
        env = dict(os.environ, ARENAPLAN_LIB=os.path.join(BUILD, "libarenaplan.so"),
                   PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
        r = subprocess.run([vpy, "-m", "pip", "install", "--no-index", "--no-cache-dir",
                            os.path.join(ROOT, "bindings", "python")], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        check(r.returncode == 0, "pip install bindings/python (offline): %s" % r.stdout)
        if failed:
            return 1
        # The installed package with its bundled library, not the source tree's.
        run_env = {k: v for k, v in os.environ.items() if k not in ("ARENAPLAN_LIB",
                                                                    "PYTHONPATH")}
        if sanitized:
            libs = [subprocess.run(["cc", "-print-file-name=" + n], stdout=subprocess.PIPE,
                                   text=True).stdout.strip() for n in ("libasan.so", "libubsan.so")]
            run_env["LD_PRELOAD"] = " ".join(libs)
            run_env["ASAN_OPTIONS"] = "detect_leaks=0"
        where = subprocess.run([vpy, "-c", "import arenaplan, sys; sys.stdout.write("
                                "arenaplan.__file__ + ' ' + arenaplan._find_library())"],
                               env=run_env, cwd=tmp, stdout=subprocess.PIPE, text=True).stdout
        check(where.startswith(venv), "arenaplan imported from %s, not the venv" % where)
        with open(os.path.join(ROOT, "tests", "eco", "tflite_runtime_script.py")) as f:
            text = f.read()
        check(text.count(IMPORT) == 1, "the script imports tflite_runtime once")
        script = os.path.join(tmp, "script.py")
        with open(script, "w") as f:
            f.write(text.replace(IMPORT, "import arenaplan as tflite"))
        oracle = os.path.join(SHARED, "oracle", "tflm")
        person = os.path.join(SHARED, "models", "person_detect_int8.tflite")
        for seed in (1, 2):
            compare(person, os.path.join(oracle, "person_detect_int8.seed%d.input0.bin" % seed),
                    tmp, vpy, run_env, script, 0.5, 1)
        ssd = os.path.join(SHARED, "detection", "ssd_mobilenet_v1_coco_uint8.tflite")
        if not sanitized:  # the detector takes tens of seconds per invoke there
            compare(ssd, os.path.join(SHARED, "detection", "oracle_tflite_ref",
                                      "ssd_mobilenet_v1_coco_uint8.seed1.input0.bin"),
                    tmp, vpy, run_env, script, 0.1, 4)
        # The SignatureRunner script on signatures of two subgraphs (LiteRT's test model:
        # add is x + 2, sub is x - 3; two values: both runners resize their inputs).
        with open(os.path.join(ROOT, "tests", "eco", "signature_runner_script.py")) as f:
            text = f.read()
        check(text.count(IMPORT) == 1, "the runner script imports tflite_runtime once")
        runner = os.path.join(tmp, "runner.py")
        with open(runner, "w") as f:
            f.write(text.replace(IMPORT, "import arenaplan as tflite"))
        r = subprocess.run([vpy, runner, os.path.join(SHARED, "models", "multi_signatures.tflite"),
                            "2.5", "-1"], env=run_env, cwd=tmp, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        want = "add output_0=[4.5, 1.0]\nsub output_0=[-0.5, -4.0]\n"
        check(r.returncode == 0 and r.stdout == want,
              "signature_runner_script.py printed %r, want %r" % (r.stdout, want))
        r = subprocess.run([vpy, os.path.join(ROOT, "tests", "eco", "tflite_api_checks.py"),
                            SHARED], env=run_env, cwd=tmp, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        check(r.returncode == 0, "tflite_api_checks.py:\n%s" % r.stdout)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("test_tflite_api: %s" % ("ok" if not failed else "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
