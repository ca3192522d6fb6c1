#!/usr/bin/env python3
"""A second, independent engine: Arm NN (Debian python3-pyarmnn, TfLite parser, CpuRef
backend) against `arenaplan run --input FILE --output DIR`, on the oracle's input rule
(shared/oracle/tflm/README.md, written again here), seeds 1..3.

Which check applies, per model (each is printed):
- float models Arm NN runs (hello_world_float, magic_wand_float, tflm_test_conv,
  mlperf_ic_resnet_float): every output element within 1e-5 relative (|a-b| <= 1e-5 *
  max(|a|, |b|), plus 1e-30 for exact zeros). Arm NN's float sums in another order, so bits
  may differ; the oracle README measured <= 3.7e-7 absolute against TFLite Micro.
- mobilenet_v1_025_128_uint8 (TFLite Micro refuses it): Arm NN's quantized rounding is not
  TFLite's (it requantizes through float; TFLite uses a fixed-point multiplier), so the check
  is the same top-5 classes (as a set: neighbours one step apart may swap places) and at most
  18 steps on any element: 18 is what the oracle README measured between Arm NN and TFLite
  Micro itself on a softmax output (mlperf_ic_resnet_int8). Issue 4 hoped for 2 steps; this
  model's differences start at its first convolution (1 step on 56 of 32768 elements) and
  grow over its 28 layers, so the measured maximum is printed, not asserted to be <= 2.
  Because Arm NN cannot settle exactness here, the model is also checked op by op: with
  --dump-tensors (seed 1), every CONV_2D, DEPTHWISE_CONV_2D and AVERAGE_POOL_2D output equals,
  exactly, TFLite's uint8 reference arithmetic computed in numpy below from that op's input.
- mlperf_kws_dscnn_hybrid (TFLite Micro refuses it; Arm NN cannot run hybrid convolutions):
  the model with its int8 weights turned back into float32 (w = scale * (q - zero_point),
  patched into a copy of the file here) runs in Arm NN as a float model. Our hybrid kernels
  quantize the activations to int8 per batch row, as TFLite's do, so they are not exact: the
  check is max |difference| <= 0.0072 in the softmax probabilities, and the same top class.
  The twin itself also runs through arenaplan (float kernels) and must match Arm NN within
  1e-5, and each of the 5 hybrid convolutions is checked op by op (seed 1) against TFLite's
  hybrid arithmetic computed in numpy below, within 1e-5 relative.

Arm NN imports only from /usr/bin/python3 (Debian's package): when this runs under another
python, it re-runs itself there. scripts/setup.sh installs it, so a missing pyarmnn FAILS.
Environment: AP_CLI, AP_SHARED. Exit 77 (skipped) only when the shared folder is absent.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

SHARED = os.environ.get("AP_SHARED") or os.path.join(os.path.dirname(__file__), "../../../shared")
CLI = os.environ.get("AP_CLI") or "build/arenaplan"
SEEDS = (1, 2, 3)

if not os.path.exists(os.path.join(SHARED, "models", "MANIFEST.tsv")):
    print("SKIPPED: this test needs the shared data folder, not found at " + SHARED)
    sys.exit(77)

try:
    import numpy as np
    import pyarmnn as ann
except ImportError as e:
    if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and \
            os.path.exists("/usr/bin/python3"):
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    print("FAIL: %s; Debian's python3-pyarmnn and python3-numpy are needed for "
          "/usr/bin/python3 (make setup installs them)" % e, file=sys.stderr)
    sys.exit(1)

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


# --- the oracle's input rule -------------------------------------------------------------
M64 = (1 << 64) - 1


def oracle_input(dtype, count, seed, k):
    x = ((seed + k) * 0x9E3779B97F4A7C15 + 1) & M64
    draws = []
    for _ in range(count):
        x ^= x >> 12
        x ^= (x << 25) & M64
        x ^= x >> 27
        draws.append((x * 0x2545F4914F6CDD1D) & M64)
    r = np.array(draws, dtype=np.uint64)
    if dtype == np.float32:
        return ((r >> np.uint64(40)).astype(np.float32) / np.float32(16777216.0)) * 2 - 1
    if dtype == np.uint8:
        return (r >> np.uint64(56)).astype(np.uint8)
    if dtype == np.int8:
        return (r >> np.uint64(56)).astype(np.uint8).view(np.int8)
    raise ValueError("no input of type %s in these models" % dtype)


# --- Arm NN ------------------------------------------------------------------------------
ARMNN_TYPES = {ann.DataType_Float32: np.float32, ann.DataType_QAsymmU8: np.uint8,
               ann.DataType_QAsymmS8: np.int8}


class ArmNN:
    def __init__(self, path):
        self.parser = ann.ITfLiteParser()
        net = self.parser.CreateNetworkFromBinaryFile(path)
        self.ins = [self.parser.GetNetworkInputBindingInfo(0, n)
                    for n in self.parser.GetSubgraphInputTensorNames(0)]
        self.outs = [self.parser.GetNetworkOutputBindingInfo(0, n)
                     for n in self.parser.GetSubgraphOutputTensorNames(0)]
        self.rt = ann.IRuntime(ann.CreationOptions())
        opt, _ = ann.Optimize(net, [ann.BackendId("CpuRef")], self.rt.GetDeviceSpec(),
                              ann.OptimizerOptions())
        self.net_id, _ = self.rt.LoadNetwork(opt)

    def input_specs(self):
        return [(ARMNN_TYPES[b[1].GetDataType()], b[1].GetNumElements()) for b in self.ins]

    def run(self, arrays):
        it = ann.make_input_tensors(self.ins, arrays)
        ot = ann.make_output_tensors(self.outs)
        self.rt.EnqueueWorkload(self.net_id, it, ot)
        return [a.flatten() for a in ann.workload_tensors_to_ndarray(ot)]


def arenaplan_run(model, arrays, tmp):
    files = []
    for k, a in enumerate(arrays):
        files.append(os.path.join(tmp, "input%d.bin" % k))
        a.tofile(files[-1])
    out = os.path.join(tmp, "out")
    r = subprocess.run([CLI, "run", model, "--iterations", "1", "--input"] + files +
                       ["--output", out], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    check(r.returncode == 0, "%s: arenaplan run exit %d: %s" % (model, r.returncode,
                                                                r.stderr.decode()))
    return out


def read_output(out, k, dtype):
    return np.fromfile(os.path.join(out, "output%d.bin" % k), dtype=dtype)


# --- the hybrid model's float twin -------------------------------------------------------
def fb_table(buf, pos):
    """(table position, vtable position) of the table at pos."""
    return pos, pos - struct.unpack_from("<i", buf, pos)[0]


def fb_field(buf, table, field):
    """Absolute position of field `field` of a table, or None when absent."""
    pos, vt = table
    vt_size = struct.unpack_from("<H", buf, vt)[0]
    if 4 + 2 * field >= vt_size:
        return None
    off = struct.unpack_from("<H", buf, vt + 4 + 2 * field)[0]
    return pos + off if off else None


def fb_deref(buf, at):
    return at + struct.unpack_from("<I", buf, at)[0]


def fb_vector(buf, table, field):
    """(count, position of element 0) of a vector field."""
    at = fb_field(buf, table, field)
    if at is None:
        return 0, 0
    v = fb_deref(buf, at)
    return struct.unpack_from("<I", buf, v)[0], v + 4


def fb_vector_tables(buf, table, field):
    n, p = fb_vector(buf, table, field)
    return [fb_table(buf, fb_deref(buf, p + 4 * i)) for i in range(n)]


def dequantized_copy(path, dst):
    """Writes a copy of the model whose constant int8 tensors are float32 (scale * (q - zp)).
    FlatBuffers offsets point forward, so the new data goes at the end of the file and the
    buffers' `data` offsets are redirected there; each tensor's type byte becomes FLOAT32."""
    buf = bytearray(open(path, "rb").read())
    model = fb_table(buf, struct.unpack_from("<I", buf, 0)[0])
    buffers = fb_vector_tables(buf, model, 4)   # Model.buffers
    count = 0
    for sg in fb_vector_tables(buf, model, 2):  # Model.subgraphs
        for t in fb_vector_tables(buf, sg, 0):  # SubGraph.tensors
            type_at = fb_field(buf, t, 1)       # Tensor.type
            if type_at is None or buf[type_at] != 9:  # INT8
                continue
            b = buffers[struct.unpack_from("<I", buf, fb_field(buf, t, 2))[0]]
            n, data = fb_vector(buf, b, 0)       # Buffer.data
            if n == 0:
                continue
            q = fb_table(buf, fb_deref(buf, fb_field(buf, t, 4)))  # Tensor.quantization
            ns, ps = fb_vector(buf, q, 2)        # scale
            nz, pz = fb_vector(buf, q, 3)        # zero_point
            qdim_at = fb_field(buf, q, 6)
            qdim = struct.unpack_from("<i", buf, qdim_at)[0] if qdim_at else 0
            scales = np.frombuffer(bytes(buf[ps:ps + 4 * ns]), dtype="<f4").astype(np.float64)
            zps = np.frombuffer(bytes(buf[pz:pz + 8 * nz]), dtype="<i8") if nz else \
                np.zeros(ns, dtype=np.int64)
            nd, pd = fb_vector(buf, t, 0)        # Tensor.shape
            shape = struct.unpack_from("<%di" % nd, buf, pd)
            w = np.frombuffer(bytes(buf[data:data + n]), dtype=np.int8).astype(np.float64)
            w = w.reshape(shape)
            bshape = [1] * nd
            if ns > 1:
                bshape[qdim] = ns
            real = ((w - zps.reshape(bshape)) * scales.reshape(bshape)).astype("<f4")
            # New vector: 16-byte aligned data, preceded by its uint32 length.
            while (len(buf) + 4) % 16:
                buf.append(0)
            vec = len(buf)
            buf += struct.pack("<I", real.size * 4) + real.tobytes()
            at = fb_field(buf, b, 0)
            struct.pack_into("<I", buf, at, vec - at)
            buf[type_at] = 0                      # FLOAT32
            count += 1
    open(dst, "wb").write(bytes(buf))
    return count


# --- TFLite's uint8 arithmetic, op by op ------------------------------------------------
# Written from the semantics of TFLite's reference kernels (kernel_util QuantizeMultiplier,
# MultiplyByQuantizedMultiplier, reference_ops Conv / DepthwiseConv / AveragePool for uint8):
# an independent reading to check each layer of our run exactly, given that layer's input as
# our run computed it.
def fb_tensor(buf, model, sg, index):
    t = fb_vector_tables(buf, sg, 0)[index]
    nd, pd = fb_vector(buf, t, 0)
    shape = struct.unpack_from("<%di" % nd, buf, pd)
    b = fb_vector_tables(buf, model, 4)[struct.unpack_from("<I", buf, fb_field(buf, t, 2))[0]]
    n, data = fb_vector(buf, b, 0)
    scale, zp = 0.0, 0
    qa = fb_field(buf, t, 4)
    if qa is not None:
        q = fb_table(buf, fb_deref(buf, qa))
        ns, ps = fb_vector(buf, q, 2)
        nz, pz = fb_vector(buf, q, 3)
        scale = struct.unpack_from("<f", buf, ps)[0] if ns else 0.0
        zp = struct.unpack_from("<q", buf, pz)[0] if nz else 0
    return shape, bytes(buf[data:data + n]) if n else None, scale, zp


def quantize_multiplier(m):
    if m == 0:
        return 0, 0
    import math
    q, shift = math.frexp(m)
    fixed = int(math.floor(abs(q) * (1 << 31) + 0.5)) * (1 if q >= 0 else -1)  # std::round
    if fixed == 1 << 31:
        fixed //= 2
        shift += 1
    if shift < -31:
        return 0, 0
    return fixed, shift


def multiply_by_quantized_multiplier(x, mult, shift):
    left = shift if shift > 0 else 0
    right = -shift if shift < 0 else 0
    ab = (x * (1 << left)) * mult
    s = ab + np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    high = np.where(s >= 0, s >> 31, -((-s) >> 31))  # C++ division truncates toward zero
    if right == 0:
        return high
    mask = (1 << right) - 1
    threshold = (mask >> 1) + (high < 0)
    return (high >> right) + ((high & mask) > threshold)


def act_range(act, scale, zp):
    lo, hi = 0, 255
    if act in (1, 3):  # RELU, RELU6
        lo = max(lo, zp)
    if act == 3:
        hi = min(hi, zp + int(np.round(np.float32(6.0) / np.float32(scale))))
    return lo, hi


def same_padding(in_size, filt, stride, padding):
    out = (in_size + stride - 1) // stride if padding == 0 else (in_size - filt + stride) // stride
    total = max((out - 1) * stride + filt - in_size, 0)
    return out, total // 2


def conv_like(x, w, bias, in_zp, w_zp, stride, padding, depthwise, mult):
    n, h, wd, c = x.shape
    if depthwise:
        _, fh, fw, oc = w.shape
    else:
        oc, fh, fw, _ = w.shape
    oh, ph = same_padding(h, fh, stride[0], padding)
    ow, pw = same_padding(wd, fw, stride[1], padding)
    xs = x.astype(np.int64) - in_zp
    ws = w.astype(np.int64) - w_zp
    padded = np.zeros((n, h + 2 * fh + ph, wd + 2 * fw + pw, c), dtype=np.int64)
    padded[:, ph:ph + h, pw:pw + wd, :] = xs  # zero after the offset: no contribution
    acc = np.zeros((n, oh, ow, oc), dtype=np.int64)
    for i in range(fh):
        for j in range(fw):
            patch = padded[:, i:i + stride[0] * oh:stride[0], j:j + stride[1] * ow:stride[1], :]
            if depthwise:
                acc += np.repeat(patch, mult, axis=3) * ws[0, i, j, :]
            else:
                acc += np.tensordot(patch, ws[:, i, j, :], axes=([3], [1]))
    return acc + bias


def uint8_ops(name, model_path, dump):
    """Every CONV_2D, DEPTHWISE_CONV_2D and AVERAGE_POOL_2D of the model: our output from our
    input equals TFLite's uint8 arithmetic exactly. Returns (ops checked, ops skipped)."""
    info = json.loads(subprocess.run([CLI, "info", "--ops", "--json", model_path],
                                     stdout=subprocess.PIPE, check=True).stdout)
    buf = bytearray(open(model_path, "rb").read())
    model = fb_table(buf, struct.unpack_from("<I", buf, 0)[0])
    sg = fb_vector_tables(buf, model, 2)[0]
    checked, skipped = 0, []

    def ours(index):
        shape, _, scale, zp = fb_tensor(buf, model, sg, index)
        a = np.fromfile(os.path.join(dump, "tensor%d.bin" % index), dtype=np.uint8)
        return a.reshape(shape), scale, zp

    for op in info["subgraphs"][0]["operators"]:
        kind, f = op["builtin"], op["options"]["fields"]
        if kind not in ("CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D"):
            skipped.append(kind)
            continue
        x, xs, xz = ours(op["inputs"][0])
        y, ys, yz = ours(op["outputs"][0])
        lo, hi = act_range(f["fused_activation_function"], ys, yz)
        stride = (f["stride_h"], f["stride_w"])
        if kind == "AVERAGE_POOL_2D":
            fh, fw = f["filter_height"], f["filter_width"]
            n, h, wd, c = x.shape
            oh, ph = same_padding(h, fh, stride[0], f["padding"])
            ow, pw = same_padding(wd, fw, stride[1], f["padding"])
            want = np.zeros((n, oh, ow, c), dtype=np.int64)
            for r in range(oh):
                for q in range(ow):
                    r0, q0 = max(r * stride[0] - ph, 0), max(q * stride[1] - pw, 0)
                    r1, q1 = min(r * stride[0] - ph + fh, h), min(q * stride[1] - pw + fw, wd)
                    win = x[:, r0:r1, q0:q1, :].astype(np.int64)
                    cnt = (r1 - r0) * (q1 - q0)
                    want[:, r, q, :] = (win.sum(axis=(1, 2)) + cnt // 2) // cnt
        else:
            wshape, wdata, wsc, wz = fb_tensor(buf, model, sg, op["inputs"][1])
            bshape, bdata, _, _ = fb_tensor(buf, model, sg, op["inputs"][2])
            w = np.frombuffer(wdata, dtype=np.uint8).reshape(wshape)
            b = np.frombuffer(bdata, dtype="<i4").astype(np.int64)
            mult, shift = quantize_multiplier(float(np.float64(xs) * np.float64(wsc)) /
                                              float(np.float64(ys)))
            acc = conv_like(x, w, b, xz, wz, stride, f["padding"], kind != "CONV_2D",
                            f.get("depth_multiplier", 1))
            want = multiply_by_quantized_multiplier(acc, mult, shift) + yz
        want = np.clip(want, lo, hi)
        got = y.astype(np.int64)
        check(want.shape == got.shape and np.array_equal(want, got),
              "%s op %d %s: %d of %d elements differ from TFLite's uint8 arithmetic" %
              (name, op["index"], kind, int(np.count_nonzero(want != got)) if
               want.shape == got.shape else -1, got.size))
        checked += 1
    return checked, skipped


def hybrid_ops(name, model_path, dump):
    """Every CONV_2D with int8 weights and float activations: our output from our input equals
    TFLite's hybrid arithmetic (numpy, float32) within 1e-5 relative: the input quantized
    symmetrically to int8 per batch row (scale max|x| / 127, round half away from zero), an
    int32 convolution, times input scale * weight scale, plus the float bias, then the fused
    activation. Returns (convs checked, max relative difference)."""
    info = json.loads(subprocess.run([CLI, "info", "--ops", "--json", model_path],
                                     stdout=subprocess.PIPE, check=True).stdout)
    buf = bytearray(open(model_path, "rb").read())
    model = fb_table(buf, struct.unpack_from("<I", buf, 0)[0])
    sg = fb_vector_tables(buf, model, 2)[0]
    checked, worst = 0, 0.0
    for op in info["subgraphs"][0]["operators"]:
        if op["builtin"] != "CONV_2D":
            continue
        f = op["options"]["fields"]
        xshape, _, _, _ = fb_tensor(buf, model, sg, op["inputs"][0])
        yshape, _, _, _ = fb_tensor(buf, model, sg, op["outputs"][0])
        wshape, wdata, wsc, wz = fb_tensor(buf, model, sg, op["inputs"][1])
        _, bdata, _, _ = fb_tensor(buf, model, sg, op["inputs"][2])
        x = np.fromfile(os.path.join(dump, "tensor%d.bin" % op["inputs"][0]), dtype="<f4")
        y = np.fromfile(os.path.join(dump, "tensor%d.bin" % op["outputs"][0]), dtype="<f4")
        x = x.reshape((1,) + tuple(xshape[1:]))
        rng = np.float32(np.max(np.abs(x)))
        if rng == 0:
            xq, xs = np.zeros(x.shape, dtype=np.int64), np.float32(0)
        else:
            xs = rng / np.float32(127)
            v = x * (np.float32(127) / rng)
            xq = np.clip(np.sign(v) * np.floor(np.abs(v) + np.float32(0.5)), -127, 127)
            xq = xq.astype(np.int64)
        w = np.frombuffer(wdata, dtype=np.int8).reshape(wshape)
        acc = conv_like(xq, w, 0, 0, wz, (f["stride_h"], f["stride_w"]), f["padding"], False, 1)
        want = acc.astype(np.float32) * (xs * np.float32(wsc)) + \
            np.frombuffer(bdata, dtype="<f4")
        act = f["fused_activation_function"]
        if act in (1, 3):
            want = np.maximum(want, np.float32(0))
        if act == 3:
            want = np.minimum(want, np.float32(6))
        want = want.reshape(-1)
        d = np.abs(want.astype(np.float64) - y.astype(np.float64))
        rel = float(np.max(d / np.maximum(np.abs(want.astype(np.float64)), 1e-6)))
        worst = max(worst, rel)
        check(want.size == y.size and rel <= 1e-5,
              "%s op %d: %.3g relative from TFLite's hybrid arithmetic" % (name, op["index"], rel))
        checked += 1
    return checked, worst


# --- the checks --------------------------------------------------------------------------
def rel_ok(a, b):
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    d = np.abs(a - b)
    return bool(np.all(d <= 1e-5 * np.maximum(np.abs(a), np.abs(b)) + 1e-30)), \
        float(np.max(d / np.maximum(np.maximum(np.abs(a), np.abs(b)), 1e-30)))


def top5(v):
    order = sorted(range(len(v)), key=lambda i: (-int(v[i]), i))
    return order[:5]


def float_model(name, tmp):
    path = os.path.join(SHARED, "models", name + ".tflite")
    nn = ArmNN(path)
    worst = 0.0
    for seed in SEEDS:
        arrays = [oracle_input(t, n, seed, k) for k, (t, n) in enumerate(nn.input_specs())]
        want = nn.run(arrays)
        out = arenaplan_run(path, arrays, tmp)
        for k, w in enumerate(want):
            got = read_output(out, k, np.float32)
            ok, rel = rel_ok(got, w)
            worst = max(worst, rel)
            check(got.size == w.size and ok,
                  "%s seed %d output %d: relative difference %.3g > 1e-5" % (name, seed, k, rel))
    print("%-28s float: within 1e-5 relative of Arm NN CpuRef (max relative diff %.3g, "
          "seeds %s)" % (name, worst, list(SEEDS)))


def uint8_model(name, tmp):
    path = os.path.join(SHARED, "models", name + ".tflite")
    nn = ArmNN(path)
    worst = 0
    differ = 0
    for seed in SEEDS:
        arrays = [oracle_input(t, n, seed, k) for k, (t, n) in enumerate(nn.input_specs())]
        want = nn.run(arrays)[0].astype(np.int64)
        out = arenaplan_run(path, arrays, tmp)
        got = read_output(out, 0, np.uint8).astype(np.int64)
        check(got.size == want.size, "%s: output sizes %d, %d" % (name, got.size, want.size))
        steps = int(np.max(np.abs(got - want)))
        worst = max(worst, steps)
        differ += int(np.count_nonzero(got != want))
        check(set(top5(got)) == set(top5(want)),
              "%s seed %d: top-5 %s, Arm NN %s" % (name, seed, top5(got), top5(want)))
        check(steps <= 18, "%s seed %d: %d steps from Arm NN" % (name, seed, steps))
    dump = os.path.join(tmp, "dump")
    a0 = oracle_input(np.uint8, int(np.prod(nn.ins[0][1].GetNumElements())), 1, 0)
    a0.tofile(os.path.join(tmp, "u8in.bin"))
    r = subprocess.run([CLI, "run", path, "--iterations", "1", "--input",
                        os.path.join(tmp, "u8in.bin"), "--dump-tensors", dump],
                       stdout=subprocess.DEVNULL)
    check(r.returncode == 0, "%s: --dump-tensors exit %d" % (name, r.returncode))
    checked, skipped = uint8_ops(name, path, dump)
    check(checked == 29, "%s: %d layers checked, expected its 15 convs, 13 depthwise and 1 "
          "pool" % (name, checked))
    print("%-28s uint8, op by op (seed 1): %d conv / depthwise / pool layers equal TFLite's "
          "uint8 arithmetic (numpy) exactly, given our input of each; not checked: %s" %
          (name, checked, ", ".join(skipped)))
    print("%-28s uint8: same top-5 classes as Arm NN CpuRef and <= 18 steps (max %d steps, "
          "%d of %d elements differ, seeds %s; the issue's 2-step bound %s)" %
          (name, worst, differ, 1001 * len(SEEDS), list(SEEDS),
           "holds" if worst <= 2 else "does NOT hold"))


def hybrid_model(name, tmp):
    path = os.path.join(SHARED, "models", name + ".tflite")
    twin = os.path.join(tmp, name + "_dequantized.tflite")
    n = dequantized_copy(path, twin)
    check(n == 5, "%s: %d int8 weight tensors dequantized, expected its 5 convolutions" %
          (name, n))
    nn = ArmNN(twin)
    worst = twin_rel = 0.0
    for seed in SEEDS:
        arrays = [oracle_input(t, c, seed, k) for k, (t, c) in enumerate(nn.input_specs())]
        want = nn.run(arrays)[0].astype(np.float64)
        # The twin itself through our float kernels: proves the patched file means what we
        # think (same weights, same graph) before the hybrid is compared with it.
        out = arenaplan_run(twin, arrays, tmp)
        ok, rel = rel_ok(read_output(out, 0, np.float32), want)
        twin_rel = max(twin_rel, rel)
        check(ok, "%s seed %d: the float twin in arenaplan is %.3g relative from Arm NN" %
              (name, seed, rel))
        out = arenaplan_run(path, arrays, tmp)
        got = read_output(out, 0, np.float32).astype(np.float64)
        d = float(np.max(np.abs(got - want)))
        worst = max(worst, d)
        check(d <= 0.0072, "%s seed %d: max |diff| %.4g > 0.0072" % (name, seed, d))
        check(int(np.argmax(got)) == int(np.argmax(want)),
              "%s seed %d: top class %d, float reference %d" % (name, seed, int(np.argmax(got)),
                                                               int(np.argmax(want))))
    dump = os.path.join(tmp, "hdump")
    a0 = oracle_input(np.float32, 490, 1, 0)
    a0.tofile(os.path.join(tmp, "hin.bin"))
    r = subprocess.run([CLI, "run", path, "--iterations", "1", "--input",
                        os.path.join(tmp, "hin.bin"), "--dump-tensors", dump],
                       stdout=subprocess.DEVNULL)
    check(r.returncode == 0, "%s: --dump-tensors exit %d" % (name, r.returncode))
    convs, rel = hybrid_ops(name, path, dump)
    check(convs == 5, "%s: %d hybrid convolutions checked, expected 5" % (name, convs))
    print("%-28s hybrid, op by op (seed 1): its %d int8-weight convolutions equal TFLite's "
          "hybrid arithmetic (numpy) within %.3g relative, given our input of each" %
          (name, convs, rel))
    print("%-28s hybrid: within 0.0072 of the dequantized float model in Arm NN CpuRef, same "
          "top class (max |diff| %.4g, seeds %s; the float model itself in arenaplan: %.3g "
          "relative from Arm NN)" % (name, worst, list(SEEDS), twin_rel))


def main():
    with tempfile.TemporaryDirectory(prefix="ap_armnn_") as tmp:
        for name in ("hello_world_float", "magic_wand_float", "tflm_test_conv",
                     "mlperf_ic_resnet_float"):
            float_model(name, tmp)
        uint8_model("mobilenet_v1_025_128_uint8", tmp)
        hybrid_model("mlperf_kws_dscnn_hybrid", tmp)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
