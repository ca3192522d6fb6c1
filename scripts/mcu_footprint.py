#!/usr/bin/env python3
"""One row of footprint.tsv from a firmware's ELF and its QEMU output (scripts/test_mcu.sh).
Exit status 1 when the outputs differ from the oracle's (seed 1) or the run failed.
    mcu_footprint.py MODEL CORE KERNELS fw.elf run.txt ORACLE_DIR
KERNELS names the kernels the firmware runs (fast, small or reference), printed beside CORE.
Budgets, when set in the environment (test-mcu sets them to TFLite Micro's figures for the plan
issue 18 names): FW_MAX_FLASH (code + rodata), FW_MAX_RAM (data + bss + buffer + stack) and
FW_MAX_INSTRUCTIONS (per invoke); and FW_BUDGETS, a TSV of the same three per model, core and
kernels (scripts/mcu_budgets.tsv); a row over one fails with the figure and the budget."""
import os
import subprocess
import sys


def sections(elf):
    out = subprocess.run(["arm-none-eabi-size", "-A", elf], capture_output=True, text=True,
                         check=True).stdout
    s = {}
    for line in out.splitlines()[2:]:
        f = line.split()
        if len(f) >= 2 and f[1].isdigit():
            s[f[0]] = int(f[1])
    return s


def heap_bytes(elf):
    """The static heap's size as linked (startup.c's `heap`): 0 when nothing calls malloc, so
    that --gc-sections dropped it with _sbrk."""
    out = subprocess.run(["arm-none-eabi-nm", "-S", elf], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] == "heap" and f[2] in "bB":
            return int(f[1], 16)
    return 0


def row_budget(path, model, core, kernels):
    """(max_flash, max_ram, max_instructions) of the budgets file's row for this firmware, or
    None (no file, or no row: nothing to hold it to)."""
    if not path:
        return None
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if line.startswith("#") or len(f) != 6 or f[0] == "model":
            continue
        if f[:3] == [model, core, kernels]:
            return f[3], f[4], f[5]
    return None


def main():
    model, core, kernels, elf, run, oracle = sys.argv[1:7]
    s = sections(elf)
    vals, outputs = {}, {}
    for line in open(run, errors="replace"):
        f = line.split()
        if len(f) == 2 and f[0].startswith("output") and f[0][6:].isdigit():
            outputs[int(f[0][6:])] = bytes.fromhex(f[1])
        elif len(f) == 2 and f[1].isdigit():
            vals[f[0]] = int(f[1])
    match = bool(outputs) and "timer_hz" in vals
    for k, got in outputs.items():
        want = open("%s/%s.seed1.output%d.bin" % (oracle, model, k), "rb").read()
        match = match and got == want
    if not match:
        sys.stderr.write("%s on %s: %s\n" % (model, core, open(run, errors="replace").read()))
    buf = vals.get("buffer_bytes", 0)
    # The static heap counts at its high-water mark: a firmware sized by this run needs no
    # more (malloc holds the model handle and allocate's planning temporaries).
    bss = s.get(".bss", 0) - buf - heap_bytes(elf) + vals.get("heap_peak_bytes", 0)
    stack = max(vals.get("stack_setup_bytes", 0), vals.get("stack_invoke_bytes", 0))
    instr = vals.get("timer_ticks", 0) * 1000000000 // max(vals.get("timer_hz", 1), 1)
    row = [model, core, kernels, s.get(".text", 0) + s.get(".ARM.exidx", 0), s.get(".rodata", 0),
           s.get(".model", 0), s.get(".data", 0), bss, buf, stack, instr,
           "yes" if match else "no"]
    print("\t".join(str(v) for v in row))
    over = []
    budget = row_budget(os.environ.get("FW_BUDGETS"), model, core, kernels)
    for i, (name, got) in enumerate((("FW_MAX_FLASH", row[3] + row[4]),
                                     ("FW_MAX_RAM", sum(row[6:10])),
                                     ("FW_MAX_INSTRUCTIONS", instr))):
        for limit, where in ((os.environ.get(name), name),
                             (budget[i] if budget else None, "FW_BUDGETS %s" % name[7:].lower())):
            if limit and got > int(limit):
                over.append("%s %d > %s" % (where, got, limit))
    if over:
        sys.stderr.write("%s on %s: over budget: %s\n" % (model, core, ", ".join(over)))
    sys.exit(0 if match and not over else 1)


main()
