"""arenaplan.Interpreter: TensorFlow Lite's Python interpreter API over libarenaplan, so a script
written for tflite_runtime runs by changing its import:

    import arenaplan as tflite          # was: import tflite_runtime.interpreter as tflite
    it = tflite.Interpreter(model_path="detect.tflite", num_threads=1)
    it.allocate_tensors()
    inp = it.get_input_details()[0]
    it.set_tensor(inp["index"], image)
    it.invoke()
    boxes = it.get_tensor(it.get_output_details()[0]["index"])

Details are dicts with TFLite's keys: name, index (the tensor's index in subgraph 0), shape and
shape_signature (int32 arrays), dtype (a numpy type such as numpy.uint8), quantization
((scale, zero_point), (0.0, 0) when the tensor is not quantized per tensor),
quantization_parameters (scales float32, zero_points int32, quantized_dimension) and
sparsity_parameters. Argument errors raise ValueError, failures while running RuntimeError.
Beyond TFLite's API: memory() (bytes of each region), plan() (the arena plan) and the keyword
arguments strategy= and arena_bytes= (run inside one caller-owned buffer).

arenaplan runs subgraph 0 as the entry: a signature of another subgraph is listed by
get_signature_list() but get_signature_runner() refuses it. Delegates are not supported.
"""
import ctypes
import os

import numpy as np

from . import (Error, Model, _lib, _text, _dtype_name, _AP_ERR_ARENA_TOO_SMALL, ap_tensor,
               ap_tensor_info, ap_memory_usage, ap_ivec, c_size, c_status, AP_MAX_DIMS)

__all__ = ["Interpreter", "SignatureRunner"]


class ap_signature_info(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("subgraph", ctypes.c_uint32),
                ("input_count", c_size), ("output_count", c_size)]


class ap_tensor_map(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("tensor", ctypes.c_uint32)]


_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
for _name, (_res, _args) in {
    "ap_model_from_buffer": (c_status, [_P, c_size, ctypes.c_char_p, _P, _PP]),
    "ap_model_subgraph_inputs": (ap_ivec, [_P, c_size]),
    "ap_model_subgraph_outputs": (ap_ivec, [_P, c_size]),
    "ap_model_signature_count": (c_size, [_P]),
    "ap_model_signature": (c_status, [_P, c_size, ctypes.POINTER(ap_signature_info)]),
    "ap_model_signature_input": (c_status, [_P, c_size, c_size, ctypes.POINTER(ap_tensor_map)]),
    "ap_model_signature_output": (c_status, [_P, c_size, c_size,
                                             ctypes.POINTER(ap_tensor_map)]),
    "ap_interpreter_tensor": (c_status, [_P, c_size, c_size, ctypes.POINTER(ap_tensor)]),
    "ap_interpreter_resize_input": (c_status, [_P, c_size, ctypes.POINTER(ctypes.c_int32),
                                               ctypes.c_int]),
}.items():
    _f = getattr(_lib, _name)
    _f.restype = _res
    _f.argtypes = _args

_NP = {
    "FLOAT32": np.float32, "FLOAT16": np.float16, "FLOAT64": np.float64, "INT8": np.int8,
    "UINT8": np.uint8, "INT16": np.int16, "UINT16": np.uint16, "INT32": np.int32,
    "UINT32": np.uint32, "INT64": np.int64, "UINT64": np.uint64, "BOOL": np.bool_,
    "COMPLEX64": np.complex64, "COMPLEX128": np.complex128, "STRING": np.bytes_,
}


class _ModelBytes(Model):
    """A model over bytes kept alive here (ap_model_from_buffer reads them in place)."""

    def __init__(self, content):
        self._h = None
        data = bytes(content)
        # 8-byte aligned storage for the flatbuffer's in-place vectors.
        self._buf = (ctypes.c_uint64 * ((len(data) + 7) // 8 or 1))()
        ctypes.memmove(self._buf, data, len(data))
        h = ctypes.c_void_p()
        s = _lib.ap_model_from_buffer(self._buf, len(data), b"model_content", None,
                                      ctypes.byref(h))
        if s != 0:
            msg = _text(_lib.ap_model_error(h))
            _lib.ap_model_destroy(h)
            raise ValueError(msg or "model_content is not a model")
        self._h = h
        self.path = "model_content"


class Interpreter:
    """TensorFlow Lite's Interpreter (tf.lite.Interpreter, tflite_runtime.interpreter) over
    arenaplan's runtime."""

    def __init__(self, model_path=None, model_content=None, experimental_delegates=None,
                 num_threads=None, experimental_op_resolver_type=None,
                 experimental_preserve_all_tensors=False,
                 experimental_disable_delegate_clustering=False, *, strategy="best",
                 arena_bytes=None):
        self._h = None
        if isinstance(model_path, Model):  # arenaplan's own form: Interpreter(model, ...)
            self._model = model_path
        elif model_path is not None and model_content is None:
            try:
                self._model = Model(model_path)
            except Error as e:
                raise ValueError(str(e)) from None
        elif model_content is not None and model_path is None:
            self._model = _ModelBytes(model_content)
        else:
            raise ValueError("Exactly one of model_path and model_content must be given")
        if experimental_delegates:
            raise ValueError("arenaplan runs no delegates")
        if num_threads is not None:
            if not isinstance(num_threads, int):
                raise ValueError("type of num_threads should be int")
            if num_threads < -1:
                raise ValueError("num_threads should >= 1 or just -1 to let TFLite runtime set "
                                 "the value.")
        if arena_bytes is not None and arena_bytes <= 0:
            raise ValueError("arena_bytes must be positive, got %d" % arena_bytes)
        self._strategy = strategy.encode()
        self._threads = num_threads if num_threads and num_threads > 0 else 1
        self._preserve_all = bool(experimental_preserve_all_tensors)
        self._arena_bytes = arena_bytes
        self._buffer = None
        m = self._model._h
        ins, outs = _lib.ap_model_subgraph_inputs(m, 0), _lib.ap_model_subgraph_outputs(m, 0)
        self._inputs = [ins.v[i] for i in range(ins.n)]
        self._outputs = [outs.v[i] for i in range(outs.n)]
        self._create()
        self._allocate()

    # ---- the handle ----

    def _create(self):
        opt = _lib.ap_interpreter_defaults()
        opt.strategy = self._strategy
        opt.threads = self._threads
        opt.preserve_all = self._preserve_all
        if self._arena_bytes is not None:
            self._buffer = ctypes.create_string_buffer(self._arena_bytes)
            opt.arena = ctypes.cast(self._buffer, ctypes.c_void_p)
            opt.arena_size = self._arena_bytes
        h = ctypes.c_void_p()
        s = _lib.ap_interpreter_create(self._model._h, ctypes.byref(opt), ctypes.byref(h))
        if s != 0:
            msg = _text(_lib.ap_interpreter_error(h)) if h else ""
            if not h and s == _AP_ERR_ARENA_TOO_SMALL:
                msg = ("arena too small: a buffer of %d bytes cannot hold the interpreter "
                       "itself" % self._arena_bytes)
            _lib.ap_interpreter_destroy(h)
            raise ValueError(msg or _text(_lib.ap_status_name(s)))
        self._h = h
        self._stale = True

    def _allocate(self):
        s = _lib.ap_interpreter_allocate(self._h)
        if s != 0:
            raise RuntimeError(_text(_lib.ap_interpreter_error(self._h)))
        self._stale = False

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.ap_interpreter_destroy(self._h)
            self._h = None

    def _tensor(self, index, subgraph_index=0):
        if not isinstance(index, (int, np.integer)) or index < 0:
            raise ValueError("Tensor with no shape found.")
        t = ap_tensor()
        s = _lib.ap_interpreter_tensor(self._h, subgraph_index, int(index), ctypes.byref(t))
        if s != 0:
            raise ValueError("Invalid tensor index %d exceeds max tensor index %d" % (
                index, _lib.ap_model_tensor_count(self._model._h, subgraph_index) - 1))
        return t

    def _details(self, index, t=None):
        t = t or self._tensor(index)
        info = ap_tensor_info()
        _lib.ap_model_tensor(self._model._h, 0, index, ctypes.byref(info))
        shape = np.array(list(t.dims[:t.rank]), dtype=np.int32)
        sig = info.shape_signature
        signature = (np.array([sig.v[i] for i in range(sig.n)], dtype=np.int32)
                     if sig.v else shape.copy())
        n = int(t.quant_count)
        scales = np.array([t.scales[i] for i in range(n)] if t.scales else [], dtype=np.float32)
        zps = np.array([t.zero_points[i] for i in range(n)] if t.zero_points else [],
                       dtype=np.int32)
        # TFLite keeps the per-tensor pair only for tensors with one scale.
        quant = (float(t.scale), int(t.zero_point)) if n == 1 else (0.0, 0)
        return {
            "name": _text(t.name), "index": int(index), "shape": shape,
            "shape_signature": signature, "dtype": _NP.get(_dtype_name(t.type), np.uint8),
            "quantization": quant,
            "quantization_parameters": {"scales": scales, "zero_points": zps,
                                        "quantized_dimension": int(t.quantized_dimension)},
            "sparsity_parameters": {},
        }

    # ---- TFLite's API ----

    def allocate_tensors(self):
        if self._stale:
            self._allocate()

    def get_input_details(self):
        return [self._details(i) for i in self._inputs]

    def get_output_details(self):
        return [self._details(i) for i in self._outputs]

    def get_tensor_details(self):
        out = []
        for i in range(_lib.ap_model_tensor_count(self._model._h, 0)):
            try:
                out.append(self._details(i))
            except ValueError:
                pass
        return out

    def _array(self, t, copy):
        dtype = _NP.get(_dtype_name(t.type))
        shape = list(t.dims[:t.rank])
        if dtype is None or dtype is np.bytes_:
            raise ValueError("tensor \"%s\" of type %s has no numpy form here"
                             % (_text(t.name), _dtype_name(t.type)))
        if not t.data or not t.bytes:
            return np.zeros(shape, dtype=dtype)
        raw = (ctypes.c_char * t.bytes).from_address(t.data)
        a = np.frombuffer(raw, dtype=dtype).reshape(shape)
        return a.copy() if copy else a

    def get_tensor(self, tensor_index, subgraph_index=0):
        return self._array(self._tensor(tensor_index, subgraph_index), True)

    def tensor(self, tensor_index):
        """A function returning a numpy view of the tensor's current bytes (no copy), as
        TFLite's: do not keep the view across allocate_tensors() or invoke()."""
        self._tensor(tensor_index)
        return lambda: self._array(self._tensor(tensor_index), False)

    def set_tensor(self, tensor_index, value):
        t = self._tensor(tensor_index)
        if t.is_constant:
            raise ValueError("Cannot set tensor: tensor %d is a constant" % tensor_index)
        name = _dtype_name(t.type)
        want = _NP.get(name)
        value = np.asarray(value)
        where = ("input %d" % self._inputs.index(tensor_index) if tensor_index in self._inputs
                 else "tensor %d" % tensor_index)
        if want is None or value.dtype != np.dtype(want):
            got = {np.dtype(v): k for k, v in _NP.items()}.get(value.dtype, str(value.dtype))
            raise ValueError("Cannot set tensor: Got value of type %s but expected type %s for "
                             "%s, name: %s " % (got, name, where, _text(t.name)))
        dims = list(t.dims[:t.rank])
        if value.ndim != t.rank:
            raise ValueError("Cannot set tensor: Dimension mismatch. Got %d but expected %d for "
                             "%s." % (value.ndim, t.rank, where))
        for d in range(t.rank):
            if value.shape[d] != dims[d]:
                raise ValueError("Cannot set tensor: Dimension mismatch. Got %d but expected %d "
                                 "for dimension %d of %s." % (value.shape[d], dims[d], d, where))
        if self._stale:
            raise RuntimeError("set_tensor after resize_tensor_input: call allocate_tensors() "
                               "first")
        raw = np.ascontiguousarray(value).tobytes()
        if len(raw) != t.bytes:
            raise ValueError("Cannot set tensor: %d bytes for a %d-byte tensor"
                             % (len(raw), t.bytes))
        if raw:
            ctypes.memmove(t.data, raw, len(raw))

    def resize_tensor_input(self, input_index, tensor_size, strict=False):
        if input_index not in self._inputs:
            raise ValueError("Tensor %s is not an input" % input_index)
        k = self._inputs.index(input_index)
        dims = [int(d) for d in np.asarray(tensor_size).reshape(-1)]
        if strict:
            sig = self._details(input_index)["shape_signature"]
            for d, (old, new) in enumerate(zip(sig, dims)):
                if old != -1 and old != new:
                    raise ValueError("ResizeInputTensorStrict only allows mutating unknown "
                                     "dimensions identified by -1.")
            if len(sig) != len(dims):
                raise ValueError("ResizeInputTensorStrict only allows mutating unknown "
                                 "dimensions identified by -1.")
        if len(dims) > AP_MAX_DIMS or any(d < 0 for d in dims):
            raise ValueError("resize_tensor_input: bad dims %s" % dims)
        arr = (ctypes.c_int32 * max(1, len(dims)))(*dims)
        s = _lib.ap_interpreter_resize_input(self._h, k, arr, len(dims))
        if s != 0:
            raise ValueError(_text(_lib.ap_interpreter_error(self._h)))
        self._stale = True

    def invoke(self):
        if self._stale:
            raise RuntimeError("Invoke called on model that is not ready: call "
                               "allocate_tensors() first")
        s = _lib.ap_interpreter_invoke(self._h)
        if s != 0:
            raise RuntimeError(_text(_lib.ap_interpreter_error(self._h)))

    def reset_all_variables(self):
        _lib.ap_interpreter_reset_variables(self._h)

    def _signatures(self):
        m = self._model._h
        out = {}
        for i in range(_lib.ap_model_signature_count(m)):
            info = ap_signature_info()
            if _lib.ap_model_signature(m, i, ctypes.byref(info)) != 0:
                continue
            ins, outs = {}, {}
            for k in range(info.input_count):
                tm = ap_tensor_map()
                if _lib.ap_model_signature_input(m, i, k, ctypes.byref(tm)) == 0:
                    ins[_text(tm.name)] = tm.tensor
            for k in range(info.output_count):
                tm = ap_tensor_map()
                if _lib.ap_model_signature_output(m, i, k, ctypes.byref(tm)) == 0:
                    outs[_text(tm.name)] = tm.tensor
            out[_text(info.key)] = (info.subgraph, ins, outs)
        return out

    def get_signature_list(self):
        return {key: {"inputs": sorted(ins), "outputs": sorted(outs)}
                for key, (_, ins, outs) in self._signatures().items()}

    def get_signature_runner(self, signature_key=None):
        sigs = self._signatures()
        if signature_key is None:
            if len(sigs) != 1:
                raise ValueError("SignatureDef signature_key is None and model has %d "
                                 "Signatures. None is only allowed when the model has 1 "
                                 "SignatureDef" % len(sigs))
            signature_key = next(iter(sigs))
        if signature_key not in sigs:
            raise ValueError("Invalid signature_key provided.")
        subgraph, ins, outs = sigs[signature_key]
        if subgraph != 0:
            raise ValueError("signature %s runs subgraph %d: arenaplan's interpreter enters "
                             "subgraph 0 only" % (signature_key, subgraph))
        return SignatureRunner(self, ins, outs)

    # ---- arenaplan's extras ----

    def memory(self):
        """Bytes of each region: arena, persistent, tables, total, arena_lower_bound."""
        u = ap_memory_usage()
        s = _lib.ap_interpreter_memory(self._h, ctypes.byref(u))
        if s != 0:
            raise RuntimeError(_text(_lib.ap_interpreter_error(self._h)))
        return {name: int(getattr(u, name)) for name, _ in ap_memory_usage._fields_}

    def plan(self, strategy="best", alignment=0):
        """The model's arena plan (arenaplan.Plan)."""
        return self._model.plan(strategy, alignment)


class SignatureRunner:
    """TFLite's SignatureRunner: runner(**inputs) -> {output name: array}."""

    def __init__(self, interpreter, inputs, outputs):
        self._it = interpreter
        self._inputs = inputs
        self._outputs = outputs

    def get_input_details(self):
        return {n: self._it._details(t) for n, t in self._inputs.items()}

    def get_output_details(self):
        return {n: self._it._details(t) for n, t in self._outputs.items()}

    def allocate_tensors(self):
        self._it.allocate_tensors()

    def __call__(self, **kwargs):
        if len(kwargs) != len(self._inputs):
            raise ValueError("Invalid number of inputs provided for running a SignatureDef, "
                             "expected %d vs provided %d" % (len(self._inputs), len(kwargs)))
        for name, value in kwargs.items():
            if name not in self._inputs:
                raise ValueError("Invalid Input name (%s) for SignatureDef" % name)
            value = np.asarray(value)
            t = self._inputs[name]
            if list(value.shape) != list(self._it._details(t)["shape"]):
                self._it.resize_tensor_input(t, value.shape)
                self._it.allocate_tensors()
            self._it.set_tensor(t, value)
        self._it.invoke()
        return {n: self._it.get_tensor(t) for n, t in self._outputs.items()}
