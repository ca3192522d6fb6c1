"""arenaplan.Interpreter: TensorFlow Lite's Python interpreter API (tflite_runtime.interpreter,
ai_edge_litert.interpreter) over libarenaplan, so a script written for TFLite runs by changing its
import:

    import arenaplan as tflite          # was: import tflite_runtime.interpreter as tflite
    it = tflite.Interpreter(model_path="detect.tflite", num_threads=1)
    it.allocate_tensors()
    inp = it.get_input_details()[0]
    it.set_tensor(inp["index"], image)
    it.invoke()
    boxes = it.get_tensor(it.get_output_details()[0]["index"])

The same names, arguments, defaults and exception types as TFLite's, and TFLite's message text
where its own tests check it. Details are dicts with TFLite's keys: name, index (the tensor's
index in its subgraph), shape and shape_signature (int32 arrays), dtype (a numpy type such as
numpy.uint8), quantization ((scale, zero_point), (0.0, 0) when the tensor is not quantized per
tensor), quantization_parameters (scales float32, zero_points int32, quantized_dimension) and
sparsity_parameters.

What differs from TFLite:
- Delegates: arenaplan runs none. load_delegate() raises ValueError naming the library (TFLite's
  own answer to a delegate that fails to load), and experimental_delegates must be empty.
- OpResolverType: AUTO, BUILTIN and BUILTIN_WITHOUT_DEFAULT_DELEGATES run arenaplan's fast
  kernels, BUILTIN_REF its reference kernels (the same output bytes).
- Custom ops (InterpreterWithCustomOps): a registerer is a Python callable taking a
  CustomOpResolver (add kernels written in Python with numpy), or the name of a C function
  `size_t NAME(const ap_custom_op **ops)` in a loaded library (it points *ops at its table).
- Signatures of every subgraph run (and resize their inputs, as TFLite's runner does), but the
  entries share one arena: read a runner's outputs (it returns copies) before invoking another
  entry.
- num_threads must be >= 1 or None (TFLite's own tests refuse -1).
- String tensors run through GATHER, GATHER_ND, RESHAPE, SQUEEZE, EXPAND_DIMS, CONCATENATION,
  SLICE, FILL, TILE, EQUAL, NOT_EQUAL and the hash table ops; get_tensor gives an object array
  of bytes, as TFLite's; tensor() has no view of them.
Beyond TFLite's API: memory() (bytes of each region), plan() (the arena plan) and the keyword
arguments strategy= and arena_bytes= (run inside one caller-owned buffer).
"""
import ctypes
import enum
import os
import sys

import numpy as np

from . import (Error, Model, _lib, _text, _dtype_name, _AP_ERR_ARENA_TOO_SMALL, ap_tensor,
               ap_tensor_info, ap_memory_usage, ap_ivec, c_size, c_status, AP_MAX_DIMS)

__all__ = ["Interpreter", "InterpreterWithCustomOps", "SignatureRunner", "OpResolverType",
           "load_delegate", "Delegate", "CustomOpResolver", "OpContext"]


class ap_signature_info(ctypes.Structure):
    _fields_ = [("key", ctypes.c_char_p), ("subgraph", ctypes.c_uint32),
                ("input_count", c_size), ("output_count", c_size)]


class ap_tensor_map(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("tensor", ctypes.c_uint32)]


class ap_op_info(ctypes.Structure):
    _fields_ = [("opcode_index", ctypes.c_uint32), ("builtin", ctypes.c_int32),
                ("custom", ctypes.c_char_p), ("version", ctypes.c_int32),
                ("inputs", ap_ivec), ("outputs", ap_ivec), ("intermediates", ap_ivec),
                ("options_type", ctypes.c_uint8), ("custom_options", ctypes.c_void_p),
                ("custom_options_size", c_size)]


_KERNEL_FN = ctypes.CFUNCTYPE(c_status, ctypes.c_void_p)


class ap_op_kernel(ctypes.Structure):
    _fields_ = [("prepare", _KERNEL_FN), ("eval", _KERNEL_FN)]


class ap_custom_op(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("builtin", ctypes.c_int32), ("kernel", ap_op_kernel)]


class ap_sparsity(ctypes.Structure):
    _fields_ = [("present", ctypes.c_bool), ("traversal_order", ap_ivec), ("block_map", ap_ivec),
                ("dim_count", c_size), ("dims_table", c_size)]


class ap_sparse_index(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("values", ctypes.c_void_p), ("count", c_size)]


class ap_sparse_dim(ctypes.Structure):
    _fields_ = [("format", ctypes.c_int), ("dense_size", ctypes.c_int32),
                ("array_segments", ap_sparse_index), ("array_indices", ap_sparse_index)]


# Checked against the headers by tests/test_layout.py, as arenaplan.STRUCTS.
STRUCTS = [ap_signature_info, ap_tensor_map, ap_op_info, ap_op_kernel, ap_custom_op, ap_sparsity,
           ap_sparse_index, ap_sparse_dim]

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
    "ap_model_op": (c_status, [_P, c_size, c_size, ctypes.POINTER(ap_op_info)]),
    "ap_builtin_name": (ctypes.c_char_p, [ctypes.c_int32]),
    "ap_op_supported": (c_status, [_P, c_size, c_size, ctypes.c_char_p, c_size]),
    "ap_interpreter_tensor": (c_status, [_P, c_size, c_size, ctypes.POINTER(ap_tensor)]),
    "ap_interpreter_resize_input": (c_status, [_P, c_size, ctypes.POINTER(ctypes.c_int32),
                                               ctypes.c_int]),
    "ap_interpreter_invoke_subgraph": (c_status, [_P, c_size]),
    "ap_interpreter_resize_tensor": (c_status, [_P, c_size, c_size,
                                                ctypes.POINTER(ctypes.c_int32), ctypes.c_int]),
    "ap_model_tensor_sparsity": (c_status, [_P, c_size, c_size, ctypes.POINTER(ap_sparsity)]),
    "ap_model_tensor_sparse_dim": (c_status, [_P, c_size, c_size, c_size,
                                              ctypes.POINTER(ap_sparse_dim)]),
    "ap_interpreter_set_string": (c_status, [_P, c_size, c_size, ctypes.c_char_p, c_size,
                                             ctypes.POINTER(ctypes.c_int32), ctypes.c_int]),
    "ap_op_input_count": (c_size, [_P]),
    "ap_op_output_count": (c_size, [_P]),
    "ap_op_input": (ctypes.c_bool, [_P, c_size, ctypes.POINTER(ap_tensor)]),
    "ap_op_output": (ctypes.c_bool, [_P, c_size, ctypes.POINTER(ap_tensor)]),
    "ap_op_set_output_shape": (c_status, [_P, c_size, ctypes.POINTER(ctypes.c_int32),
                                          ctypes.c_int]),
}.items():
    _f = getattr(_lib, _name)
    _f.restype = _res
    _f.argtypes = _args

_AP_KERNELS_AUTO, _AP_KERNELS_REFERENCE, _AP_KERNELS_FAST = 0, 1, 3  # runtime.h
_AP_ERR_UNSUPPORTED = 5  # ap_status in base.h
_AP_MAX_THREADS = 64

_NP = {
    "FLOAT32": np.float32, "FLOAT16": np.float16, "FLOAT64": np.float64, "INT8": np.int8,
    "UINT8": np.uint8, "INT16": np.int16, "UINT16": np.uint16, "INT32": np.int32,
    "UINT32": np.uint32, "INT64": np.int64, "UINT64": np.uint64, "BOOL": np.bool_,
    "COMPLEX64": np.complex64, "COMPLEX128": np.complex128, "STRING": np.bytes_,
}
_TYPE_NAME = {np.dtype(v): k for k, v in _NP.items() if k != "STRING"}


@enum.unique
class OpResolverType(enum.Enum):
    """TFLite's op resolvers, mapped to arenaplan's kernel choices: AUTO the default (the
    fastest kernels whose plan stays within 1.02 x the reference kernels' bytes), BUILTIN and
    BUILTIN_WITHOUT_DEFAULT_DELEGATES the fast kernels, BUILTIN_REF the reference kernels."""
    AUTO = 0
    BUILTIN = 1
    BUILTIN_REF = 2
    BUILTIN_WITHOUT_DEFAULT_DELEGATES = 3


def _kernels_for(resolver_type):
    return {OpResolverType.AUTO: _AP_KERNELS_AUTO, OpResolverType.BUILTIN: _AP_KERNELS_FAST,
            OpResolverType.BUILTIN_REF: _AP_KERNELS_REFERENCE,
            OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES: _AP_KERNELS_FAST,
            }.get(resolver_type) if isinstance(resolver_type, OpResolverType) else None


class Delegate:
    """TFLite's delegate wrapper. arenaplan runs no delegates: constructing one always fails."""

    def __init__(self, library, options=None):
        raise ValueError("arenaplan runs no delegates: %s was not loaded (the model runs on "
                         "arenaplan's own kernels without it)" % (library,))


def load_delegate(library, options=None):
    """TFLite's load_delegate: raises ValueError naming the library, as TFLite does for a
    delegate that fails to load (scripts then fall back to the CPU)."""
    try:
        return Delegate(library, options)
    except ValueError as e:
        raise ValueError("Failed to load delegate from {}\n{}".format(library, e)) from None


class _ModelBytes(Model):
    """A model over bytes kept alive here (ap_model_from_buffer reads them in place)."""

    def __init__(self, content):
        self._h = None
        data = bytes(content)
        if data[4:8] != b"TFL3":
            raise ValueError("Model provided has model identifier '%s', should be 'TFL3'\n"
                             % data[4:8].decode("latin-1"))
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


class _View:
    """What a tensor() array points into: keeps the interpreter (whose memory it is) alive and
    holds a reference to its `_live` token, which _safe_to_run counts."""

    def __init__(self, owner, address, shape, dtype):
        self._owner = owner
        self._token = owner._live
        self.__array_interface__ = {"data": (address, False), "shape": tuple(shape),
                                    "typestr": np.dtype(dtype).str, "version": 3}


class OpContext:
    """What a Python custom kernel sees of its op (prepare and eval)."""

    def __init__(self, c):
        self._c = c

    def input_count(self):
        return int(_lib.ap_op_input_count(self._c))

    def output_count(self):
        return int(_lib.ap_op_output_count(self._c))

    def _get(self, fn, i, what):
        t = ap_tensor()
        if not fn(self._c, i, ctypes.byref(t)):
            raise IndexError("%s %d of the op is absent" % (what, i))
        return t

    def input_shape(self, i):
        t = self._get(_lib.ap_op_input, i, "input")
        return tuple(t.dims[:t.rank])

    def input(self, i):
        """Input i as a numpy array over its bytes (None in prepare unless constant)."""
        return _array(self._get(_lib.ap_op_input, i, "input"), self, allow_null=True)

    def output(self, i):
        """Output i as a writable numpy array over its bytes (eval only)."""
        return _array(self._get(_lib.ap_op_output, i, "output"), self, allow_null=True)

    def set_output_shape(self, i, shape):
        dims = [int(d) for d in shape]
        arr = (ctypes.c_int32 * max(1, len(dims)))(*dims)
        s = _lib.ap_op_set_output_shape(self._c, i, arr, len(dims))
        if s != 0:
            raise ValueError("set_output_shape(%d, %s) failed: %s"
                             % (i, dims, _text(_lib.ap_status_name(s))))


class CustomOpResolver:
    """Passed to a Python registerer of InterpreterWithCustomOps: add(name, eval, prepare=None)
    registers custom op `name` (its custom_code) with kernels taking an OpContext; prepare may
    set output shapes, eval writes the outputs. An exception in a kernel fails the invoke (or
    allocate_tensors) with that exception."""

    def __init__(self):
        self._ops = []

    def add(self, name, eval, prepare=None):  # noqa: A002  (TFLite's word)
        if not isinstance(name, str) or not name:
            raise ValueError("a custom op needs a name (its custom_code)")
        if not callable(eval) or (prepare is not None and not callable(prepare)):
            raise ValueError("custom op %s: eval (and prepare) must be callables" % name)
        self._ops.append((name, prepare, eval))


class _CustomOps:
    """The C table of custom ops an interpreter is created with, and the Python callbacks it
    points to (kept alive as long as the interpreter)."""

    def __init__(self, registerers):
        self.table = None
        self.count = 0
        self.names = set()
        self.error = None  # the exception a Python kernel raised
        self._keep = []
        entries = []
        for r in registerers:
            if isinstance(r, str):
                entries += self._by_name(r)
            elif callable(r):
                res = CustomOpResolver()
                r(res)
                for name, prepare, ev in res._ops:
                    entries.append((name.encode(), self._wrap(prepare), self._wrap(ev)))
            else:
                raise ValueError("custom_op_registerers: %r is neither a name nor a callable"
                                 % (r,))
        if entries:
            self.table = (ap_custom_op * len(entries))()
            for k, (name, prepare, ev) in enumerate(entries):
                self._keep.append(name)
                self.table[k].name = name
                self.table[k].builtin = 32
                if prepare is not None:
                    self.table[k].kernel.prepare = prepare
                if ev is not None:
                    self.table[k].kernel.eval = ev
                self.names.add(name.decode())
            self.count = len(entries)

    def _by_name(self, symbol):
        # The process's global symbols (libraries loaded with RTLD_GLOBAL), as TFLite looks
        # registerers up; libarenaplan's own functions are no registerers.
        try:
            fn = getattr(ctypes.CDLL(None), symbol)
        except AttributeError:
            raise ValueError("Looking up symbol '%s' failed" % symbol) from None
        fn.restype = c_size
        fn.argtypes = [ctypes.POINTER(ctypes.POINTER(ap_custom_op))]
        ops = ctypes.POINTER(ap_custom_op)()
        n = fn(ctypes.byref(ops))
        out = []
        for k in range(n):
            o = ops[k]
            if not o.name:
                raise ValueError("registerer '%s': custom op %d has no name" % (symbol, k))
            out.append((o.name, o.kernel.prepare, o.kernel.eval))
        return out

    def _wrap(self, fn):
        if fn is None:
            return None

        def call(c):
            try:
                fn(OpContext(c))
                return 0
            except BaseException as e:  # noqa: BLE001  (re-raised by the interpreter)
                self.error = e
                return _AP_ERR_UNSUPPORTED
        cb = _KERNEL_FN(call)
        self._keep.append(cb)
        return cb

    def take_error(self):
        e, self.error = self.error, None
        return e


def _encode_strings(value):
    """TFLite's string buffer (count, offsets, bytes) of a numpy array of bytes or str."""
    if value.dtype.kind == "S" and value.ndim == 0:
        items = [value.tobytes()]  # a 0-d value keeps its trailing NULs, as TFLite's
    else:
        items = [v if isinstance(v, bytes) else str(v).encode("utf-8")
                 for v in value.reshape(-1).tolist()]
    n = len(items)
    offsets, at = [], 4 * (n + 2)
    for v in items:
        offsets.append(at)
        at += len(v)
    offsets.append(at)
    return np.array([n] + offsets, dtype="<i4").tobytes() + b"".join(items)


def _decode_strings(t):
    """A string tensor's values: an object array of bytes of its shape (TFLite's form)."""
    shape = list(t.dims[:t.rank])
    out = np.empty(shape, dtype=object)
    if not t.data or not t.bytes:
        if out.size:
            raise ValueError("Tensor data is null. Run allocate_tensors() first")
        return out
    raw = ctypes.string_at(t.data, t.bytes)
    n = int.from_bytes(raw[:4], "little", signed=True)
    off = np.frombuffer(raw, dtype="<i4", count=n + 1, offset=4)
    flat = out.reshape(-1)
    for i in range(min(n, flat.size)):
        flat[i] = raw[off[i]:off[i + 1]]
    return out


def elements(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _ivec_array(v):
    return np.array([v.v[i] for i in range(v.n)] if v.v else [], dtype=np.int32)


def _index_array(x):
    types = {2: np.int32, 16: np.uint16, 3: np.uint8}  # ap_dtype INT32, UINT16, UINT8
    if not x.values or x.type not in types:
        return np.array([], dtype=np.int32)
    dtype = np.dtype(types[x.type])
    raw = ctypes.string_at(x.values, x.count * dtype.itemsize)
    return np.frombuffer(raw, dtype=dtype).astype(np.int32)


def _sparsity(model, sg, index):
    """TFLite's sparsity_parameters: {} for a dense tensor."""
    sp = ap_sparsity()
    if _lib.ap_model_tensor_sparsity(model._h, sg, index, ctypes.byref(sp)) != 0 or \
            not sp.present:
        return {}
    dims = []
    for k in range(sp.dim_count):
        d = ap_sparse_dim()
        _lib.ap_model_tensor_sparse_dim(model._h, sg, index, k, ctypes.byref(d))
        if d.format == 0:
            dims.append({"format": 0, "dense_size": int(d.dense_size)})
        else:
            dims.append({"format": int(d.format),
                         "array_segments": _index_array(d.array_segments),
                         "array_indices": _index_array(d.array_indices)})
    return {"traversal_order": _ivec_array(sp.traversal_order),
            "block_map": _ivec_array(sp.block_map), "dim_metadata": dims}


def _array(t, owner, allow_null=False):
    """A numpy array over tensor t's bytes (no copy); owner keeps the memory alive."""
    dtype = _NP.get(_dtype_name(t.type))
    shape = list(t.dims[:t.rank])
    if dtype is np.bytes_ and owner is None:
        return _decode_strings(t)
    if dtype is None or dtype is np.bytes_:
        raise ValueError("tensor \"%s\" of type %s has no numpy form here"
                         % (_text(t.name), _dtype_name(t.type)))
    if not t.data:
        if allow_null:
            return None
        if t.bytes:
            raise ValueError("Tensor data is null. Run allocate_tensors() first")
        return np.zeros(shape, dtype=dtype)
    if dtype is not np.bytes_ and t.bytes != elements(shape) * np.dtype(dtype).itemsize:
        # A sparse constant: its compressed values, flat, as TFLite gives them.
        shape = [t.bytes // np.dtype(dtype).itemsize]
    if isinstance(owner, Interpreter):
        return np.asarray(_View(owner, t.data, shape, dtype))
    raw = (ctypes.c_char * t.bytes).from_address(t.data)
    return np.frombuffer(raw, dtype=dtype).reshape(shape)


class Interpreter:
    """TensorFlow Lite's Interpreter (tf.lite.Interpreter, tflite_runtime.interpreter,
    ai_edge_litert.interpreter) over arenaplan's runtime."""

    def __init__(self, model_path=None, model_content=None, experimental_delegates=None,
                 num_threads=None, experimental_op_resolver_type=OpResolverType.AUTO,
                 experimental_preserve_all_tensors=False,
                 experimental_disable_delegate_clustering=False,
                 experimental_default_delegate_latest_features=False, *, strategy="best",
                 arena_bytes=None):
        self._h = None
        self._live = object()  # counted by _safe_to_run: one reference per live tensor() array
        if not hasattr(self, "_custom_op_registerers"):
            self._custom_op_registerers = []
        kernels = _kernels_for(experimental_op_resolver_type)
        if kernels is None:
            raise ValueError("Unrecognized passed in op resolver type: {}".format(
                experimental_op_resolver_type))
        if num_threads is not None:
            if not isinstance(num_threads, int) or isinstance(num_threads, bool):
                raise ValueError("type of num_threads should be int")
            if num_threads < 1:
                raise ValueError("num_threads should >= 1")
        if isinstance(model_path, Model):  # arenaplan's own form: Interpreter(model, ...)
            self._model = model_path
        elif model_path and not model_content:
            try:
                self._model = Model(model_path)
            except Error as e:
                raise ValueError("Could not open '%s'. (%s)" % (os.fspath(model_path), e)) \
                    from None
        elif model_content and not model_path:
            self._model = _ModelBytes(model_content)
        elif not model_content and not model_path:
            raise ValueError("`model_path` or `model_content` must be specified.")
        else:
            raise ValueError("Can't both provide `model_path` and `model_content`")
        self._delegates = []
        if experimental_delegates:
            raise ValueError("arenaplan runs no delegates: experimental_delegates must be "
                             "empty (got %d)" % len(experimental_delegates))
        if arena_bytes is not None and arena_bytes <= 0:
            raise ValueError("arena_bytes must be positive, got %d" % arena_bytes)
        self._custom = _CustomOps(self._custom_op_registerers)
        self._check_ops()
        self._strategy = strategy.encode()
        self._threads = min(num_threads or 1, _AP_MAX_THREADS)
        self._kernels = kernels
        self._preserve_all = bool(experimental_preserve_all_tensors)
        self._arena_bytes = arena_bytes
        self._buffer = None
        m = self._model._h
        ins, outs = _lib.ap_model_subgraph_inputs(m, 0), _lib.ap_model_subgraph_outputs(m, 0)
        self._inputs = [ins.v[i] for i in range(ins.n)]
        self._outputs = [outs.v[i] for i in range(outs.n)]
        self._create()
        self._signature_defs = self.get_signature_list()

    # ---- the handle ----

    def _check_ops(self):
        """Every op has a kernel (TFLite refuses a model it cannot run when it is created)."""
        m = self._model._h
        why = ctypes.create_string_buffer(256)
        for sg in range(_lib.ap_model_subgraph_count(m)):
            for k in range(_lib.ap_model_op_count(m, sg)):
                op = ap_op_info()
                if _lib.ap_model_op(m, sg, k, ctypes.byref(op)) != 0:
                    continue
                if op.custom and _text(op.custom) in self._custom.names:
                    continue
                if _lib.ap_op_supported(m, sg, k, why, len(why)) != 0:
                    name = ("custom op '%s'" % _text(op.custom) if op.custom else
                            "builtin opcode '%s'" % _text(_lib.ap_builtin_name(op.builtin)))
                    raise ValueError("Didn't find %s (subgraph %d op %d): %s"
                                     % (name, sg, k, _text(why.value)))

    def _create(self):
        opt = _lib.ap_interpreter_defaults()
        opt.strategy = self._strategy
        opt.threads = self._threads
        opt.kernels = self._kernels
        opt.preserve_all = self._preserve_all
        if self._custom.count:
            opt.custom_ops = ctypes.cast(self._custom.table, ctypes.c_void_p)
            opt.custom_op_count = self._custom.count
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
        self._ready = False

    def _fail(self, exc=RuntimeError):
        err = self._custom.take_error()
        if err is not None:
            raise err
        raise exc(_text(_lib.ap_interpreter_error(self._h)))

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.ap_interpreter_destroy(self._h)
            self._h = None

    def _safe_to_run(self):
        """True when no numpy array from tensor() is alive (TFLite's guard: allocate_tensors,
        invoke and resize_tensor_input refuse to run while one is, so none can dangle)."""
        return sys.getrefcount(self._live) == 2

    def _ensure_safe(self):
        if not self._safe_to_run():
            raise RuntimeError("""There is at least 1 reference to internal data
      in the interpreter in the form of a numpy array or slice. Be sure to
      only hold the function returned from tensor() if you are using raw
      data access.""")

    def _tensor(self, index, subgraph_index=0):
        subgraph_index = self._subgraph(subgraph_index)
        count = _lib.ap_model_tensor_count(self._model._h, subgraph_index)
        if not isinstance(index, (int, np.integer)) or isinstance(index, bool):
            raise ValueError("Invalid tensor index %r" % (index,))
        if index < 0 or index >= count:
            raise ValueError("Invalid tensor index %d exceeds max tensor index %d"
                             % (index, count - 1))
        t = ap_tensor()
        s = _lib.ap_interpreter_tensor(self._h, subgraph_index, int(index), ctypes.byref(t))
        if s != 0:
            raise ValueError(_text(_lib.ap_interpreter_error(self._h)))
        return t

    def _subgraph(self, subgraph_index):
        n = _lib.ap_model_subgraph_count(self._model._h)
        if not isinstance(subgraph_index, (int, np.integer)) or not 0 <= subgraph_index < n:
            raise ValueError("Invalid subgraph index %s exceeds max subgraph index %d"
                             % (subgraph_index, n - 1))
        return int(subgraph_index)

    # ---- TFLite's API ----

    def allocate_tensors(self):
        self._ensure_safe()
        if not self._ready:
            if _lib.ap_interpreter_allocate(self._h) != 0:
                self._fail()
            self._ready = True

    def _get_tensor_details(self, tensor_index, subgraph_index):
        tensor_index, subgraph_index = int(tensor_index), int(subgraph_index)
        try:
            t = self._tensor(tensor_index, subgraph_index)
        except ValueError:
            raise ValueError("Tensor with no shape found.") from None
        dtype = _NP.get(_dtype_name(t.type))
        if dtype is None:
            raise ValueError("Could not get tensor details")
        info = ap_tensor_info()
        _lib.ap_model_tensor(self._model._h, subgraph_index, tensor_index, ctypes.byref(info))
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
            "name": _text(t.name), "index": tensor_index, "shape": shape,
            "shape_signature": signature, "dtype": dtype, "quantization": quant,
            "quantization_parameters": {"scales": scales, "zero_points": zps,
                                        "quantized_dimension": int(t.quantized_dimension)},
            "sparsity_parameters": _sparsity(self._model, subgraph_index, tensor_index),
        }

    def _op(self, op_index):
        m = self._model._h
        count = _lib.ap_model_op_count(m, 0)
        if not isinstance(op_index, (int, np.integer)) or not 0 <= op_index < count:
            raise ValueError("Invalid node index %s exceeds max node index %d"
                             % (op_index, count - 1))
        op = ap_op_info()
        if _lib.ap_model_op(m, 0, int(op_index), ctypes.byref(op)) != 0:
            raise ValueError(_text(_lib.ap_model_error(m)))
        return op

    def _get_op_details(self, op_index):
        op = self._op(op_index)
        ins = np.array([op.inputs.v[i] for i in range(op.inputs.n)], dtype=np.int32)
        outs = np.array([op.outputs.v[i] for i in range(op.outputs.n)], dtype=np.int32)
        return {
            "index": int(op_index),
            "op_name": _text(op.custom) if op.custom else _text(_lib.ap_builtin_name(op.builtin)),
            "inputs": ins, "outputs": outs,
            "operand_types": [self._get_tensor_details(i, 0)["dtype"] for i in ins if i != -1],
            "result_types": [self._get_tensor_details(i, 0)["dtype"] for i in outs if i != -1],
        }

    def _get_ops_details(self):
        return [self._get_op_details(k) for k in range(_lib.ap_model_op_count(self._model._h, 0))]

    def num_subgraphs(self):
        return int(_lib.ap_model_subgraph_count(self._model._h))

    def get_tensor_details(self, subgraph_index=0):
        n = self.num_subgraphs()
        if subgraph_index < 0 or subgraph_index >= n:
            raise ValueError("subgraph_index is out of range: %s for the model, which has %d "
                             "subgraphs." % (subgraph_index, n))
        out = []
        for i in range(_lib.ap_model_tensor_count(self._model._h, subgraph_index)):
            try:
                out.append(self._get_tensor_details(i, subgraph_index))
            except ValueError:
                pass
        return out

    def get_input_details(self):
        return [self._get_tensor_details(i, 0) for i in self._inputs]

    def get_output_details(self):
        return [self._get_tensor_details(i, 0) for i in self._outputs]

    def get_tensor(self, tensor_index, subgraph_index=0):
        a = _array(self._tensor(tensor_index, subgraph_index), None)
        return a if a.dtype == object else a.copy()

    def tensor(self, tensor_index):
        """A function returning a numpy view of the tensor's current bytes (no copy). While a
        view is alive, allocate_tensors(), invoke() and resize_tensor_input() raise
        RuntimeError (as TFLite's): hold the function, not the array."""
        self._tensor(tensor_index)
        return lambda: _array(self._tensor(tensor_index), self)

    def set_tensor(self, tensor_index, value):
        self._set_tensor(tensor_index, value, 0)

    def _set_tensor(self, tensor_index, value, subgraph_index):
        t = self._tensor(tensor_index, subgraph_index)
        if t.is_constant:
            raise ValueError("Cannot set tensor: tensor %d is a constant" % tensor_index)
        name = _dtype_name(t.type)
        want = _NP.get(name)
        value = np.asarray(value)
        where = "input %d" % tensor_index
        if want is np.bytes_ and value.dtype.kind in "SUO":
            pass  # strings: bytes, str or objects, encoded below
        elif want is None or value.dtype != np.dtype(want):
            got = _TYPE_NAME.get(value.dtype, str(value.dtype).upper())
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
        if not self._ready or (not t.data and t.bytes and want is not np.bytes_):
            raise ValueError("Cannot set tensor: Tensor is unallocated. Try calling "
                             "allocate_tensors() first")
        if want is np.bytes_:
            buf = _encode_strings(value)
            arr = (ctypes.c_int32 * max(1, t.rank))(*dims)
            if _lib.ap_interpreter_set_string(self._h, subgraph_index, tensor_index, buf,
                                              len(buf), arr, t.rank) != 0:
                self._fail(ValueError)
            return
        raw = np.ascontiguousarray(value).tobytes()
        if len(raw) != t.bytes:
            raise ValueError("Cannot set tensor: %d bytes for a %d-byte tensor"
                             % (len(raw), t.bytes))
        if raw:
            ctypes.memmove(t.data, raw, len(raw))

    def resize_tensor_input(self, input_index, tensor_size, strict=False):
        self._ensure_safe()
        if input_index not in self._inputs:
            raise ValueError("Tensor %s is not an input of subgraph 0 (its inputs: %s)"
                             % (input_index, self._inputs))
        k = self._inputs.index(input_index)
        size = np.array(tensor_size, dtype=np.int32)
        if size.ndim != 1:
            raise ValueError("tensor_size must be a 1-D list of dims, got shape %s"
                             % (size.shape,))
        dims = [int(d) for d in size]
        if strict:
            sig = self._get_tensor_details(input_index, 0)["shape_signature"]
            if len(sig) != len(dims) or any(old != -1 and old != new
                                            for old, new in zip(sig, dims)):
                raise ValueError("ResizeInputTensorStrict only allows mutating unknown "
                                 "dimensions identified by -1.")
        if len(dims) > AP_MAX_DIMS or any(d < 0 for d in dims):
            raise ValueError("resize_tensor_input: bad dims %s" % dims)
        if self._same_dims(input_index, dims, 0):
            return  # TFLite's short cut: the plan stays valid
        arr = (ctypes.c_int32 * max(1, len(dims)))(*dims)
        if _lib.ap_interpreter_resize_input(self._h, k, arr, len(dims)) != 0:
            self._fail(ValueError)
        self._ready = False

    def _same_dims(self, index, dims, subgraph_index):
        if not self._ready:
            return False
        t = self._tensor(index, subgraph_index)
        return list(t.dims[:t.rank]) == list(dims)

    def _resize(self, index, tensor_size, subgraph_index):
        """Resizes input `index` of an entry subgraph (0 or a signature's)."""
        self._ensure_safe()
        dims = [int(d) for d in np.array(tensor_size, dtype=np.int32).reshape(-1)]
        if len(dims) > AP_MAX_DIMS or any(d < 0 for d in dims):
            raise ValueError("resize: bad dims %s" % dims)
        if self._same_dims(index, dims, subgraph_index):
            return
        arr = (ctypes.c_int32 * max(1, len(dims)))(*dims)
        if _lib.ap_interpreter_resize_tensor(self._h, subgraph_index, index, arr, len(dims)) != 0:
            self._fail(ValueError)
        self._ready = False

    def invoke(self):
        self._invoke(0)

    def _invoke(self, subgraph_index):
        self._ensure_safe()
        if not self._ready:
            raise RuntimeError("Invoke called on model that is not ready.")
        if _lib.ap_interpreter_invoke_subgraph(self._h, subgraph_index) != 0:
            self._fail()

    def reset_all_variables(self):
        if self._ready and _lib.ap_interpreter_reset_variables(self._h) != 0:
            self._fail()

    def _get_full_signature_list(self):
        """{key: {"inputs": {name: tensor index}, "outputs": {...}}}, as TFLite's."""
        return {k: {"inputs": v["inputs"], "outputs": v["outputs"]}
                for k, v in self._signatures().items()}

    def _signatures(self):
        """_get_full_signature_list with each signature's subgraph_index."""
        m = self._model._h
        out = {}
        for i in range(_lib.ap_model_signature_count(m)):
            info = ap_signature_info()
            if _lib.ap_model_signature(m, i, ctypes.byref(info)) != 0:
                continue
            maps = []
            for count, getter in ((info.input_count, _lib.ap_model_signature_input),
                                  (info.output_count, _lib.ap_model_signature_output)):
                d = {}
                for k in range(count):
                    tm = ap_tensor_map()
                    if getter(m, i, k, ctypes.byref(tm)) == 0:
                        d[_text(tm.name)] = int(tm.tensor)
                maps.append(dict(sorted(d.items())))  # TFLite keeps them in a std::map
            out[_text(info.key)] = {"inputs": maps[0], "outputs": maps[1],
                                    "subgraph_index": int(info.subgraph)}
        return out

    def get_signature_list(self):
        return {key: {"inputs": list(s["inputs"]), "outputs": list(s["outputs"])}
                for key, s in self._get_full_signature_list().items()}

    def get_signature_runner(self, signature_key=None):
        if signature_key is None:
            if len(self._signature_defs) != 1:
                raise ValueError(
                    "SignatureDef signature_key is None and model has {0} Signatures. "
                    "None is only allowed when the model has 1 SignatureDef".format(
                        len(self._signature_defs)))
            signature_key = next(iter(self._signature_defs))
        return SignatureRunner(interpreter=self, signature_key=signature_key)

    def _native_handle(self):
        """The ap_interpreter pointer (an arenaplan handle, not a tflite::Interpreter)."""
        return self._h.value

    # ---- arenaplan's extras ----

    def memory(self):
        """Bytes of each region: arena, persistent, tables, total, arena_lower_bound."""
        u = ap_memory_usage()
        if _lib.ap_interpreter_memory(self._h, ctypes.byref(u)) != 0:
            self._fail()
        return {name: int(getattr(u, name)) for name, _ in ap_memory_usage._fields_}

    def plan(self, strategy="best", alignment=0):
        """The model's arena plan (arenaplan.Plan)."""
        return self._model.plan(strategy, alignment)


class InterpreterWithCustomOps(Interpreter):
    """TFLite's Interpreter with custom ops: custom_op_registerers is a list of names (C
    functions `size_t NAME(const ap_custom_op **ops)` in a loaded library) or Python callables
    taking a CustomOpResolver."""

    def __init__(self, custom_op_registerers=None, **kwargs):
        self._custom_op_registerers = custom_op_registerers or []
        super().__init__(**kwargs)


class SignatureRunner:
    """TFLite's SignatureRunner: runner(**inputs) -> {output name: array}, for a signature of
    any subgraph."""

    def __init__(self, interpreter=None, signature_key=None):
        if not interpreter:
            raise ValueError("None interpreter provided.")
        if not signature_key:
            raise ValueError("None signature_key provided.")
        self._interpreter = interpreter
        self._signature_key = signature_key
        defs = interpreter._signatures()
        if signature_key not in defs:
            raise ValueError("Invalid signature_key provided.")
        self._signature_def = defs[signature_key]
        self._inputs = self._signature_def["inputs"]
        self._outputs = self._signature_def["outputs"].items()
        self._subgraph_index = self._signature_def["subgraph_index"]

    def __call__(self, **kwargs):
        it, sg = self._interpreter, self._subgraph_index
        if len(kwargs) != len(self._inputs):
            raise ValueError("Invalid number of inputs provided for running a SignatureDef, "
                             "expected %s vs provided %s" % (len(self._inputs), len(kwargs)))
        values = {}
        for name, value in kwargs.items():
            if name not in self._inputs:
                raise ValueError("Invalid Input name (%s) for SignatureDef" % name)
            values[name] = np.asarray(value)
            t = self._inputs[name]
            current = list(it._get_tensor_details(t, sg)["shape"])
            if list(values[name].shape) != current:
                it._resize(t, values[name].shape, sg)
        it.allocate_tensors()
        for name, value in values.items():
            it._set_tensor(self._inputs[name], value, sg)
        it._invoke(sg)
        return {name: it.get_tensor(t, sg) for name, t in self._outputs}

    def get_input_details(self):
        return {n: self._interpreter._get_tensor_details(t, self._subgraph_index)
                for n, t in self._inputs.items()}

    def get_output_details(self):
        return {n: self._interpreter._get_tensor_details(t, self._subgraph_index)
                for n, t in self._outputs}
