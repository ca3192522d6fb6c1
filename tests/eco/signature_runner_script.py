#!/usr/bin/env python3
"""A script written against tflite_runtime's SignatureRunner API only, as TFLite users write
them. tests/eco/test_tflite_api.py runs it with its import line changed to
`import arenaplan as tflite` on multi_signatures.tflite (signatures in two subgraphs) and
compares what it prints with TFLite's values for that model.

usage: signature_runner_script.py MODEL VALUE...
Prints one line per signature: its key, then each output name and its values for input x =
the given values (as float32).
"""
import sys

import numpy as np
import tflite_runtime.interpreter as tflite


def main():
    model, values = sys.argv[1], [float(v) for v in sys.argv[2:]]
    interpreter = tflite.Interpreter(model_path=model)
    for key, sig in interpreter.get_signature_list().items():
        runner = interpreter.get_signature_runner(key)
        details = runner.get_input_details()
        inputs = {name: np.array(values, dtype=details[name]["dtype"]) for name in sig["inputs"]}
        outputs = runner(**inputs)
        print(key, " ".join("%s=%s" % (name, outputs[name].tolist()) for name in sig["outputs"]))


if __name__ == "__main__":
    main()
