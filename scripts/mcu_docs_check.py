#!/usr/bin/env python3
"""The fast firmware's figures in README.md and docs/reference/footprint.md against the
footprint.tsv make test-mcu just measured: instructions per invoke (to three significant
digits, in millions), flash (code + rodata) and RAM (data + bss + buffer + stack), exact.
A figure that no longer matches fails test-mcu, so the pages stay true.
Usage: mcu_docs_check.py FOOTPRINT_TSV [REPO_DIR]"""
import csv
import os
import re
import sys

MODELS = ("person_detect_int8", "mlperf_kws_dscnn_int8")
CORES = {"cortex-m4": ("M4", "DSP"), "cortex-m55": ("M55", "Helium")}


def figures(tsv):
    out = {}
    with open(tsv, newline="") as f:
        for r in csv.DictReader(f, delimiter="\t"):
            if r["kernels"] != "fast" or r["model"] not in MODELS or r["core"] not in CORES:
                continue
            n = lambda k: int(r[k])
            out[(r["model"], r["core"])] = {
                "instructions": "%.3g M" % (n("invoke_instructions") / 1e6),
                "flash": "{:,} B".format(n("code_bytes") + n("rodata_bytes")),
                "ram": "{:,} B".format(n("data_bytes") + n("bss_bytes") + n("buffer_bytes") +
                                       n("stack_bytes")),
            }
    return out


def cells(text, prefix):
    """The cells after the first of a table row that starts with prefix."""
    for line in text.splitlines():
        if line.startswith(prefix):
            return [c.strip().replace("**", "") for c in line.strip().strip("|").split("|")]
    return None


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    fig = figures(sys.argv[1])
    repo = sys.argv[2] if len(sys.argv) > 2 else "."
    bad = []
    readme = open(os.path.join(repo, "README.md")).read()
    page = open(os.path.join(repo, "docs/reference/footprint.md")).read()
    for core, (short, family) in CORES.items():
        row = cells(readme, "| %s, arenaplan fast (%s)" % (short, family))
        for i, model in enumerate(MODELS):
            f = fig.get((model, core))
            if not f:
                bad.append("footprint.tsv: no fast row for %s on %s" % (model, core))
                continue
            want = [f["instructions"]] + ([f["flash"], f["ram"]] if core == "cortex-m4" else [])
            got = row[1 + i] if row else "(no row)"
            if got != ", ".join(want):
                bad.append("README.md: %s fast on %s is \"%s\", measured \"%s\"" %
                           (model, short, got, ", ".join(want)))
            prow = cells(page, "| %s | %s | arenaplan fast (%s) |" % (model, short, family))
            pwant = [f["flash"][:-2], f["ram"][:-2], f["instructions"]]
            if not prow or prow[3:6] != pwant:
                bad.append("docs/reference/footprint.md: %s fast on %s is %s, measured %s" %
                           (model, short, prow[3:6] if prow else "(no row)", pwant))
    for b in bad:
        print("mcu_docs_check: " + b)
    print("mcu_docs_check: %s" % ("ok" if not bad else "%d figures differ" % len(bad)))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
