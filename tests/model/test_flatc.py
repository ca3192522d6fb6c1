#!/usr/bin/env python3
"""Our reading of every shared model against flatc's, an independent FlatBuffers reader.

For each ../shared/models/*.tflite: `flatc --json --strict-json --raw-binary --defaults-json`
with ../shared/tflite/schema.fbs, and `arenaplan info --tensors --ops --json`; compares counts,
every tensor (name, type, shape, shape_signature, buffer, is_variable, quantization, whether it
is constant and its byte size), the weight bytes, every
operator (resolved builtin, opcode version, inputs, outputs, intermediates, and every field of
its typed builtin options against flatc's builtin_options), subgraph inputs
and outputs, signature defs and metadata. The builtin codes are resolved from the schema text
itself (this script parses the BuiltinOperator enum), not from our C name table.

Environment: AP_CLI (the arenaplan binary), AP_SHARED (the shared folder). Exit 77 (skipped)
when the shared folder is absent.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def enum_values(schema_text, name):
    body = re.search(r"enum\s+" + name + r"\s*:\s*\w+\s*\{([^}]*)\}",
                     re.sub(r"//[^\n]*", "", schema_text)).group(1)
    values, nxt = {}, 0
    for item in [s.strip() for s in body.split(",") if s.strip()]:
        m = re.match(r"(\w+)\s*(?:=\s*(-?\d+))?", item)
        v = int(m.group(2)) if m.group(2) is not None else nxt
        values[m.group(1)] = v
        nxt = v + 1
    return values


def schema_tables(schema_text):
    """{table: {field: type}} from the schema text."""
    text = re.sub(r"//[^\n]*", "", schema_text)
    tables = {}
    for m in re.finditer(r"\btable\s+(\w+)\s*(?:\([^)]*\))?\s*\{([^}]*)\}", text):
        fields = {}
        for f in [x.strip() for x in m.group(2).split(";") if x.strip()]:
            fm = re.match(r"(\w+)\s*:\s*(\[?\s*\w+\s*\]?)", f)
            fields[fm.group(1)] = fm.group(2).replace(" ", "")
        tables[m.group(1)] = fields
    return tables


def all_enums(schema_text):
    names = re.findall(r"\benum\s+(\w+)", re.sub(r"//[^\n]*", "", schema_text))
    return {n: enum_values(schema_text, n) for n in names}


def compare_options(ow, a, b, tables, enums):
    """Our typed options `b` against flatc's builtin_options of operator `a`."""
    if b["builtin_code"] == 32:  # CUSTOM: options are the custom_options bytes
        return
    check(b["options"] is not None, f"{ow}: {b['builtin']} has no typed options")
    if b["options"] is None or b["options"]["kind"] == "none":
        return
    fo, ftype = a.get("builtin_options"), a.get("builtin_options_type", "NONE")
    check(b["options"]["stored"] == (fo is not None), f"{ow}: options stored")
    if fo is None:
        return
    fields = tables[ftype]
    for k, v in b["options"]["fields"].items():
        check(k in fields, f"{ow}: {ftype} has no field {k}")
        want = fo.get(k)
        if isinstance(want, str) and fields.get(k) in enums:
            want = enums[fields[k]][want]
        if isinstance(v, float) or isinstance(want, float):
            check(want is not None and abs(want - v) <= 5.0001e-7, f"{ow}: {ftype}.{k} {v} != {want}")
        else:
            check(want == v, f"{ow}: {ftype}.{k} {v} != {want}")


def same_floats(flatc, ours):
    """flatc 2.0.8 prints floats in fixed notation with 6 decimals (0.00392054766 as 0.003921),
    so it can confirm a scale only to within half a unit of the 6th decimal."""
    return len(flatc) == len(ours) and all(abs(x - y) <= 5.0001e-7 for x, y in zip(flatc, ours))


# Bits per element of each TensorType, from the type names (0: no fixed size).
DTYPE_BITS = {"FLOAT32": 32, "FLOAT16": 16, "INT32": 32, "UINT8": 8, "INT64": 64, "STRING": 0,
              "BOOL": 8, "INT16": 16, "COMPLEX64": 64, "INT8": 8, "FLOAT64": 64,
              "COMPLEX128": 128, "UINT64": 64, "RESOURCE": 0, "VARIANT": 0, "UINT32": 32,
              "UINT16": 16, "INT4": 4, "BFLOAT16": 16, "INT2": 2, "UINT4": 4,
              "FLOAT8_E4M3FN": 8, "FLOAT8_E5M2": 8}


def buffer_bytes(fj, index):
    bufs = fj.get("buffers", [])
    if index >= len(bufs):
        return 0
    b = bufs[index]
    if b.get("data"):
        return len(b["data"])
    return b.get("size", 0) if b.get("offset", 0) > 1 else 0


def compare(name, fj, oj, builtins, names_by_code, tables, enums):
    where = name
    fsgs = fj.get("subgraphs", [])
    check(len(fsgs) == len(oj["subgraphs"]),
          f"{where}: subgraphs {len(oj['subgraphs'])} != flatc {len(fsgs)}")
    check(fj.get("version", 0) == oj["version"], f"{where}: version")
    check(len(fj.get("buffers", [])) == oj["buffer_count"], f"{where}: buffer count")
    codes = fj.get("operator_codes", [])
    check(len(codes) == len(oj["opcodes"]), f"{where}: operator code count")
    for sg, (fs, os_) in enumerate(zip(fsgs, oj["subgraphs"])):
        w = f"{where}: subgraph {sg}"
        ft, ot = fs.get("tensors", []), os_["tensors"]
        fo, oo = fs.get("operators", []), os_["operators"]
        check(len(ft) == len(ot), f"{w}: tensors {len(ot)} != flatc {len(ft)}")
        check(len(fo) == len(oo), f"{w}: operators {len(oo)} != flatc {len(fo)}")
        check(fs.get("name", "") == os_["name"], f"{w}: name")
        check(fs.get("inputs", []) == [t["index"] for t in os_["inputs"]], f"{w}: inputs")
        check(fs.get("outputs", []) == [t["index"] for t in os_["outputs"]], f"{w}: outputs")
        for i, (a, b) in enumerate(zip(ft, ot)):
            tw = f"{w} tensor {i}"
            check(a.get("name", "") == b["name"], f"{tw}: name {b['name']!r} != {a.get('name')!r}")
            check(a.get("type", "FLOAT32") == b["type"], f"{tw}: type {b['type']} != {a.get('type')}")
            check(a.get("shape", []) == b["shape"], f"{tw}: shape {b['shape']} != {a.get('shape')}")
            check(a.get("shape_signature") == b["shape_signature"], f"{tw}: shape_signature")
            check(a.get("buffer", 0) == b["buffer"], f"{tw}: buffer {b['buffer']} != {a.get('buffer')}")
            check(a.get("is_variable", False) == b["is_variable"], f"{tw}: is_variable")
            data = buffer_bytes(fj, a.get("buffer", 0))
            check(b["constant"] == (a.get("buffer", 0) != 0 and data > 0), f"{tw}: constant")
            elems = 1
            for d in a.get("shape", []):
                elems *= d
            bits = DTYPE_BITS[a.get("type", "FLOAT32")]
            check(b["bytes"] == (elems * bits + 7) // 8, f"{tw}: bytes {b['bytes']}")
            if b["constant"] and bits:
                check(data >= b["bytes"], f"{tw}: constant data {data} < {b['bytes']}")
            q = a.get("quantization") or {}
            scale, zp = q.get("scale", []), q.get("zero_point", [])
            if not scale and not zp:
                check(b["quantization"] is None, f"{tw}: quantization should be absent")
            else:
                bq = b["quantization"] or {}
                check(same_floats(scale, bq.get("scale", [])), f"{tw}: scale")
                check(zp == bq.get("zero_point"), f"{tw}: zero_point")
                check(q.get("quantized_dimension", 0) == bq.get("quantized_dimension"),
                      f"{tw}: quantized_dimension")
        for i, (a, b) in enumerate(zip(fo, oo)):
            ow = f"{w} operator {i}"
            oc = codes[a.get("opcode_index", 0)]
            bc = oc.get("builtin_code", "ADD")
            code = max(oc.get("deprecated_builtin_code", 0),
                       builtins[bc] if isinstance(bc, str) else bc)
            check(b["builtin_code"] == code, f"{ow}: builtin {b['builtin_code']} != {code}")
            check(b["builtin"] == names_by_code.get(code, "UNKNOWN"), f"{ow}: builtin name")
            check(b["version"] == oc.get("version", 1), f"{ow}: version")
            check(b["custom"] == oc.get("custom_code"), f"{ow}: custom code")
            check(a.get("opcode_index", 0) == b["opcode_index"], f"{ow}: opcode_index")
            for k in ("inputs", "outputs", "intermediates"):
                check(a.get(k, []) == b[k], f"{ow}: {k} {b[k]} != {a.get(k, [])}")
            compare_options(ow, a, b, tables, enums)
    fsig = fj.get("signature_defs", [])
    check(len(fsig) == len(oj["signatures"]), f"{where}: signature count")
    for a, b in zip(fsig, oj["signatures"]):
        check(a.get("signature_key", "") == b["key"], f"{where}: signature key")
        check(a.get("subgraph_index", 0) == b["subgraph"], f"{where}: signature subgraph")
        for k in ("inputs", "outputs"):
            check([(t.get("name", ""), t.get("tensor_index", 0)) for t in a.get(k, [])] ==
                  [(t["name"], t["tensor"]) for t in b[k]], f"{where}: signature {k}")
    fmd = fj.get("metadata", [])
    check([(x.get("name", ""), x.get("buffer", 0), buffer_bytes(fj, x.get("buffer", 0)))
           for x in fmd] == [(x["name"], x["buffer"], x["bytes"]) for x in oj["metadata"]],
          f"{where}: metadata")
    used = set()
    for sg in fsgs:
        for t in sg.get("tensors", []):
            if not t.get("is_variable", False) and t.get("buffer", 0):
                used.add(t["buffer"])
    weights = sum(buffer_bytes(fj, i) for i in used)
    check(oj["weights"]["bytes"] == weights, f"{where}: weights {oj['weights']['bytes']} != {weights}")
    check(fj.get("description") == oj["description"], f"{where}: description")


def main():
    shared = os.environ.get("AP_SHARED") or os.path.join(os.path.dirname(__file__), "../../../shared")
    cli = os.environ.get("AP_CLI") or "build/arenaplan"
    models_dir = os.path.join(shared, "models")
    if not os.path.isfile(os.path.join(models_dir, "MANIFEST.tsv")):
        print(f"SKIPPED: this test needs the shared data folder, not found at {shared}")
        return 77
    flatc = shutil.which("flatc")
    if not flatc:
        print("FAIL: flatc not found (scripts/setup.sh installs flatbuffers-compiler)")
        return 1
    schema = os.path.join(shared, "tflite/schema.fbs")
    schema_text = open(schema).read()
    builtins = enum_values(schema_text, "BuiltinOperator")
    names_by_code = {v: k for k, v in builtins.items()}
    tables, enums = schema_tables(schema_text), all_enums(schema_text)
    models = sorted(f for f in os.listdir(models_dir) if f.endswith(".tflite"))
    check(len(models) > 0, "no models found")
    with tempfile.TemporaryDirectory() as tmp:
        for name in models:
            path = os.path.join(models_dir, name)
            r = subprocess.run([flatc, "--json", "--strict-json", "--raw-binary", "--defaults-json",
                                "-o", tmp, schema, "--", path], capture_output=True, text=True)
            check(r.returncode == 0, f"{name}: flatc failed: {r.stderr.strip()}")
            if r.returncode:
                continue
            jpath = os.path.join(tmp, name[:-len(".tflite")] + ".json")
            with open(jpath) as f:
                fj = json.load(f)
            os.unlink(jpath)
            r = subprocess.run([cli, "info", "--tensors", "--ops", "--json", path],
                               capture_output=True, text=True)
            check(r.returncode == 0, f"{name}: arenaplan info failed: {r.stderr.strip()}")
            if r.returncode:
                continue
            compare(name, fj, json.loads(r.stdout), builtins, names_by_code, tables, enums)
    print(f"{len(models)} models compared with flatc")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
