#!/usr/bin/env python3
"""src/kernels/op_types.c (the types `arenaplan ops` prints) is what scripts/gen_op_types.py
derives from shared/oracle/ops and tests/runtime/oracle_ops_refused.tsv today."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
shared = os.environ.get("AP_SHARED_DIR", os.path.join(ROOT, "..", "shared"))
if not os.path.isfile(os.path.join(shared, "oracle", "ops", "MODELS.tsv")):
    print("needs ../shared (oracle/ops/MODELS.tsv): skipped")
    sys.exit(77)
r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "gen_op_types.py"), "--check",
                    shared], capture_output=True, text=True)
print(r.stdout, end="")
print("1 passed, 0 failed" if r.returncode == 0 else "0 passed, 1 failed")
sys.exit(r.returncode)
