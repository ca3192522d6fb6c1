#!/usr/bin/env python3
"""Flash bytes per source file of libarenaplan in a linked firmware, from its GNU ld map, with
the layer (src/<layer>/) each file is in: what each kernel family, and each layer, costs.
Link with every kernel (FW_KERNELS=all scripts/test_mcu.sh) for the whole price list.
    mcu_kernel_cost.py fw.map SRC_DIR > cost.tsv"""
import os
import re
import sys
from collections import defaultdict


def main():
    text = open(sys.argv[1]).read()
    src = sys.argv[2]
    layer = {"registry": "kernels", "strategies": "plan"}
    for d in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, d)):
            for f in os.listdir(os.path.join(src, d)):
                if f.endswith(".c") and f[:-2] not in layer:
                    layer[f[:-2]] = d
    text = text[text.find("Linker script and memory map"):]
    # Long section names put address, size and object on the next line: join them.
    text = re.sub(r"\n\s{16,}(?=0x[0-9a-f]+\s+0x[0-9a-f]+\s+\S)", " ", text)
    cost = defaultdict(lambda: [0, 0])
    for name, size, obj in re.findall(
            r"^ (\.(?:text|rodata)\S*)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S+)$", text, re.M):
        m = re.search(r"libarenaplan\.a\((\w+)\.c\.obj\)$", obj) or \
            re.search(r"/(registry|strategies)(?:_all)?\.o$", obj)
        if not m:
            continue
        f = m.group(1)
        cost[f][0 if name.startswith(".text") else 1] += int(size, 16)
    print("layer\tfile\tcode_bytes\trodata_bytes")
    for f, (c, r) in sorted(cost.items(), key=lambda kv: (layer.get(kv[0], "plan"), -sum(kv[1]))):
        print("%s\t%s\t%d\t%d" % (layer.get(f, "?"), f, c, r))


main()
