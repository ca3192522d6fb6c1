#!/usr/bin/env python3
"""TFLite's Python Interpreter API as arenaplan.Interpreter gives it: details' keys and types,
model_content, tensor() views, set_tensor's errors, resize_tensor_input, signatures. Run by
tests/eco/test_tflite_api.py in a venv where the package is pip-installed.

usage: tflite_api_checks.py SHARED_DIR
"""
import os
import sys

import numpy as np
import arenaplan as tflite

failed = 0


def check(cond, what):
    global failed
    if not cond:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def raises(exc, fn, what):
    try:
        fn()
    except exc:
        return
    except Exception as e:  # noqa: BLE001
        check(False, "%s: raised %r, want %s" % (what, e, exc.__name__))
        return
    check(False, "%s: no %s" % (what, exc.__name__))


def main():
    shared = sys.argv[1]
    models = os.path.join(shared, "models")
    person = os.path.join(models, "person_detect_int8.tflite")
    it = tflite.Interpreter(model_path=person)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    check(set(d) == {"name", "index", "shape", "shape_signature", "dtype", "quantization",
                     "quantization_parameters", "sparsity_parameters"}, "detail keys %s" % set(d))
    check(d["dtype"] is np.int8, "dtype %r" % d["dtype"])
    check(d["shape"].dtype == np.int32 and list(d["shape"]) == [1, 96, 96, 1], "shape")
    check(isinstance(d["quantization"][0], float) and isinstance(d["quantization"][1], int),
          "quantization tuple types")
    qp = d["quantization_parameters"]
    check(qp["scales"].dtype == np.float32 and qp["zero_points"].dtype == np.int32 and
          qp["scales"][0] == np.float32(d["quantization"][0]), "quantization_parameters")
    # model_content: the same outputs as model_path.
    with open(person, "rb") as f:
        content = f.read()
    it2 = tflite.Interpreter(model_content=content)
    it2.allocate_tensors()
    x = (np.arange(96 * 96, dtype=np.int64) % 251 - 125).astype(np.int8).reshape(1, 96, 96, 1)
    for i in (it, it2):
        i.set_tensor(d["index"], x)
        i.invoke()
    o = it.get_output_details()[0]["index"]
    check(np.array_equal(it.get_tensor(o), it2.get_tensor(o)), "model_content outputs")
    # tensor(): a live view; get_tensor: a copy.
    view = it.tensor(o)
    copy = it.get_tensor(o)
    check(np.array_equal(view(), copy), "tensor() view")
    # set_tensor's errors are ValueErrors, as TFLite's.
    raises(ValueError, lambda: it.set_tensor(d["index"], x.astype(np.float32)), "wrong dtype")
    raises(ValueError, lambda: it.set_tensor(d["index"], x.reshape(96, 96, 1)), "wrong rank")
    raises(ValueError, lambda: it.set_tensor(d["index"], np.zeros((1, 96, 95, 1), np.int8)),
           "wrong dim")
    raises(ValueError, lambda: it.get_tensor(100000), "index out of range")
    raises(ValueError, lambda: tflite.Interpreter(), "no model")
    raises(ValueError, lambda: tflite.Interpreter(model_path=person, model_content=content),
           "both")
    raises(ValueError, lambda: tflite.Interpreter(model_path="/nonexistent.tflite"), "missing")
    raises(ValueError, lambda: tflite.Interpreter(model_content=b"not a model"), "bad bytes")
    raises(ValueError, lambda: tflite.Interpreter(model_path=person, num_threads=-2),
           "num_threads")
    check(it.get_signature_list() == {}, "no signatures")
    raises(ValueError, lambda: it.get_signature_runner(), "runner without signatures")
    check(it.memory()["arena"] > 0, "memory() extra")
    # Signatures: listed by key, runner for subgraph 0's.
    ms = tflite.Interpreter(model_path=os.path.join(models, "multi_signatures.tflite"))
    check(ms.get_signature_list() == {"add": {"inputs": ["x"], "outputs": ["output_0"]},
                                      "sub": {"inputs": ["x"], "outputs": ["output_0"]}},
          "signature list %s" % ms.get_signature_list())
    raises(ValueError, lambda: ms.get_signature_runner(), "two signatures, no key")
    add = ms.get_signature_runner("add")
    shape = add.get_input_details()["x"]["shape"]
    y = add(x=np.full(shape, 2, np.float32))
    check(set(y) == {"output_0"} and y["output_0"].dtype == np.float32, "runner outputs %s" % y)
    raises(ValueError, lambda: add(y=np.zeros(shape, np.float32)), "runner input name")
    check(y["output_0"].tolist() == [4.0], "add(2) = %s" % y["output_0"])
    # "sub" is subgraph 1's: it runs too (TFLite's test model: add is x + 2, sub is x - 3).
    sub = ms.get_signature_runner("sub")
    check(sub(x=np.full(shape, 2, np.float32))["output_0"].tolist() == [-1.0], "sub(2)")
    # resize_tensor_input on the batch dim (-1 in the signature), strict and not.
    rn = tflite.Interpreter(model_path=os.path.join(models, "mlperf_ic_resnet_float.tflite"))
    rd = rn.get_input_details()[0]
    check(list(rd["shape_signature"]) == [-1, 32, 32, 3], "shape_signature %s"
          % rd["shape_signature"])
    raises(ValueError, lambda: rn.resize_tensor_input(rd["index"], [2, 32, 32, 4], strict=True),
           "strict resize of a fixed dim")
    rn.resize_tensor_input(rd["index"], [2, 32, 32, 3], strict=True)
    raises(RuntimeError, rn.invoke, "invoke before allocate_tensors")
    rn.allocate_tensors()
    check(list(rn.get_input_details()[0]["shape"]) == [2, 32, 32, 3], "resized shape")
    xb = np.linspace(0, 255, 2 * 32 * 32 * 3, dtype=np.float32).reshape(2, 32, 32, 3)
    rn.set_tensor(rd["index"], xb)
    rn.invoke()
    both = rn.get_tensor(rn.get_output_details()[0]["index"])
    check(both.shape == (2, 10), "batch-2 output shape %s" % (both.shape,))
    one = tflite.Interpreter(model_path=os.path.join(models, "mlperf_ic_resnet_float.tflite"))
    one.allocate_tensors()
    one.set_tensor(rd["index"], xb[1:2])
    one.invoke()
    check(np.array_equal(one.get_tensor(one.get_output_details()[0]["index"])[0], both[1]),
          "batch 2's second row equals a batch-1 run")
    print("tflite_api_checks: %s" % ("ok" if not failed else "%d failed" % failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
