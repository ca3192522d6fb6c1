#!/usr/bin/env python3
"""A script written against tflite_runtime's API only (classification and detection), as TFLite
users write them. tests/eco/test_tflite_api.py runs it with its import line changed to
`import arenaplan as tflite` and compares what it writes and prints with `arenaplan run`.

usage: tflite_runtime_script.py MODEL INPUT.bin OUTDIR [SCORE_THRESHOLD]
Writes OUTDIR/outputK.bin (each output's raw bytes) and prints the top class of a classifier or
the detections of a detector (the CLI's table format).
"""
import sys

import numpy as np
import tflite_runtime.interpreter as tflite


def main():
    model, input_file, outdir = sys.argv[1:4]
    threshold = float(sys.argv[4]) if len(sys.argv) > 4 else 0.5
    interpreter = tflite.Interpreter(model_path=model, num_threads=1)
    interpreter.allocate_tensors()
    inp = interpreter.get_input_details()[0]
    x = np.fromfile(input_file, dtype=inp["dtype"]).reshape(inp["shape"])
    interpreter.set_tensor(inp["index"], x)
    interpreter.invoke()
    outputs = interpreter.get_output_details()
    values = []
    for k, d in enumerate(outputs):
        y = interpreter.get_tensor(d["index"])
        y.tofile("%s/output%d.bin" % (outdir, k))
        values.append(y)
    if len(outputs) == 4 and outputs[0]["dtype"] == np.float32 and values[0].ndim == 3:
        boxes, classes, scores, count = values
        n = int(count[0])
        shown = [i for i in range(n) if scores[0][i] >= threshold]
        print("detections  %d reported by TFLite_Detection_PostProcess, %d with score >= %g"
              % (n, len(shown), threshold))
        if shown:
            print("  class  score     ymin      xmin      ymax      xmax")
        for i in shown:
            b = boxes[0][i]
            print("  %5d  %.6f  %.6f  %.6f  %.6f  %.6f" % (int(classes[0][i]), scores[0][i],
                                                         b[0], b[1], b[2], b[3]))
    else:
        d, y = outputs[0], values[0]
        scale, zero_point = d["quantization"]
        real = (y.astype(np.float64) - zero_point) * scale if scale else y.astype(np.float64)
        top = int(np.argmax(real.reshape(-1)))
        print("top-1: %d (%.6g)" % (top, real.reshape(-1)[top]))


if __name__ == "__main__":
    main()
