#!/usr/bin/env python3
"""Writes a copy of src/kernels/registry.c that registers only the ops a model uses, so a
firmware links only their kernels (like TFLite Micro's MicroMutableOpResolver, generated).

    arenaplan header model.tflite --ops ops.txt > model_arena.h
    python3 scripts/mcu_kernels.py ops.txt src/kernels/registry.c registry_model.c \
        [PATH [TYPES [FAMILY]]]

PATH (the conv family's kernels, AP_REGISTRY_PATH in registry.c): both (default: fast where
it covers the op, else reference), fast (the fast kernels only: the board's create refuses an
op they do not cover) or reference (the reference kernels only; plan with
`arenaplan header --plan-kernels reference`).

TYPES (AP_REGISTRY_TYPES): the tensor types whose fast paths the adapters link, a comma list of
int8, float, uint8, int16 (default: all four). An int8 model's firmware passes int8: the float,
uint8 and 16x8 fast kernels are then not linked (an op of a type left out runs its reference
kernel, or is refused when the registration has none: never a wrong result). Without int16 and
float the int16 and float SOFTMAX, reference kernels of their own, are refused too.

FAMILY (AP_REGISTRY_FAMILY): the DSP level's kernels a planned interpreter runs on a Cortex-M
core: fast (default: src/kernels/fast/int8_dsp.c and its dsp_*.c) or small (dsp_small.c: less
flash, more time). Only the family named is linked.

Compile registry_model.c with -I src and link it before libarenaplan.a: the linker then takes
the registry from it and never pulls the library's, and the kernels nobody registers are
dropped by --gc-sections. An op left out makes allocate fail with "unsupported op", never a
wrong result. The streamed segments' row kernels (kernels/stream_kernels.h) follow the same
ops, path and types: with PATH fast no reference rows are linked, and a member the fast rows do
not cover is refused when the interpreter is created. Stdlib only."""
import re
import sys


# The ops a streamed segment runs (registry.c's AP_REG_STREAM_*): those with row kernels of
# their own, and the element-wise members (graph/segment.c's list), which run their registered
# kernel on rows.
STREAMED = (("CONV_2D", ("CONV_2D",)), ("DEPTHWISE_CONV_2D", ("DEPTHWISE_CONV_2D",)),
            ("POOL_2D", ("AVERAGE_POOL_2D", "MAX_POOL_2D")), ("PAD", ("PAD", "PADV2")),
            ("ADD", ("ADD",)),
            ("ELEM", ("DEQUANTIZE", "LOGISTIC", "RELU", "RELU_N1_TO_1", "RELU6", "TANH", "CAST",
                      "LEAKY_RELU", "QUANTIZE", "HARD_SWISH", "ADD", "SUB", "MUL")))


def row_name(row):
    """The op a row registers: {CODE, "NAME", ...}, or an entry macro's first argument,
    an identifier (KX_ENTRY(SQRT, ...)) or a string (SIG_ENTRY("SignalWindow", ...))."""
    m = re.match(r'\s*[A-Za-z_]\w*\(\s*(?:"([^"]+)"|(\w+))', row)
    if m:
        return m.group(1) or m.group(2)
    m = re.search(r'"([^"]+)"', row)
    return m.group(1) if m else None


def filter_table(lines, start, keep):
    """Drops the rows of the array opening at lines[start] whose op is not in keep."""
    out, i = [lines[start]], start + 1
    row = []
    while not lines[i].startswith("};"):
        line = lines[i]
        # A row starts at the table's indent; continuation lines are indented deeper.
        if re.match(r"    [^ ]", line) and row:
            out += flush(row, keep)
            row = []
        row.append(line)
        i += 1
    out += flush(row, keep)
    return out, i


def flush(row, keep):
    text = "".join(row)
    name = row_name(text)
    if text.strip().startswith("/*") or name is None or name in keep:
        return row
    return []


def main():
    if len(sys.argv) not in (4, 5, 6, 7):
        sys.exit("usage: mcu_kernels.py OPS.txt src/kernels/registry.c OUT.c "
                 "[both|fast|reference [int8,float,uint8,int16 [fast|small]]]")
    paths = {"both": 0, "fast": 1, "reference": 2}
    path = sys.argv[4] if len(sys.argv) >= 5 else "both"
    if path not in paths:
        sys.exit("mcu_kernels.py: path %s: expected both, fast or reference" % path)
    bits = {"int8": 1, "float": 2, "uint8": 4, "int16": 8}
    types = sys.argv[5].split(",") if len(sys.argv) >= 6 else list(bits)
    if not types or any(t not in bits for t in types):
        sys.exit("mcu_kernels.py: types %s: expected a comma list of int8, float, uint8, int16"
                 % (sys.argv[5] if len(sys.argv) >= 6 else ""))
    families = {"fast": 0, "small": 1}
    family = sys.argv[6] if len(sys.argv) == 7 else "fast"
    if family not in families:
        sys.exit("mcu_kernels.py: family %s: expected fast or small" % family)
    keep = {l.strip() for l in open(sys.argv[1]) if l.strip()}
    lines = open(sys.argv[2]).readlines()
    out, i = [], 0
    while i < len(lines):
        if re.match(r"static const ap_kernel \w+\[\] = \{", lines[i]):
            part, i = filter_table(lines, i, keep)
            out += part
        else:
            out.append(lines[i])
            i += 1
    head = ("/* Generated by scripts/mcu_kernels.py from %s: only %s. Do not edit. */\n"
            "#pragma GCC diagnostic ignored \"-Wunused-function\"\n"
            "#define AP_REGISTRY_PATH %d /* %s */\n"
            "#define AP_REGISTRY_TYPES %d /* %s */\n"
            "#define AP_REGISTRY_FAMILY %d /* %s */\n"
            % (sys.argv[2].split("/")[-1], ", ".join(sorted(keep)), paths[path], path,
               sum(bits[t] for t in set(types)), ",".join(sorted(set(types))), families[family],
               family))
    # The DSP fast family's kernels of the model's ops only (registry.c's board_level).
    head += "#define AP_REGISTRY_OPS 1\n"
    for op in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"):
        head += "#define AP_REG_OP_%s %d\n" % (op, int(op in keep))
    # The streamed segments' row kernels (kernels/stream_kernels.h) of the model's ops only.
    for macro, ops in STREAMED:
        head += "#define AP_REG_STREAM_%s %d\n" % (macro, int(any(o in keep for o in ops)))
    open(sys.argv[3], "w").write(head + "".join(out))


main()
