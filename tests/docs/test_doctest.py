#!/usr/bin/env python3
"""The docs are tested (issue 28): every ```console example of README.md and docs/ is run and
its output compared with the page (scripts/doctest.py; `<...>` and `...` mark volatile parts).
A changed output fails here; after an intended change, `scripts/doctest.py --update` rewrites
the pages (review the diff).

Environment: AP_CLI (the arenaplan binary), AP_SHARED (../shared; pages that need it are
skipped without it, and the test reports skipped when nothing could run).
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI = os.path.abspath(os.environ.get("AP_CLI", os.path.join(ROOT, "build", "arenaplan")))

if __name__ == "__main__":
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "doctest.py"), "--cli",
                        CLI])
    sys.exit(r.returncode)
