"""arenaplan for Python: plan and run TFLite models with libarenaplan, through ctypes.

    import arenaplan
    m = arenaplan.Model("model.tflite")
    p = m.plan(strategy="best")
    print(p.arena_bytes, p.lower_bound_bytes)
    it = m.interpreter()
    it.set_input(0, data)        # a numpy array or bytes of exactly the input's size
    it.invoke()
    y = it.output(0)             # a numpy array when numpy is importable, else bytes

With numpy, arenaplan.Interpreter is TensorFlow Lite's Python interpreter API (see
tflite_api.py): a tflite_runtime script runs with `import arenaplan as tflite` (or
`import arenaplan.interpreter as tflite`, the module path of tflite_runtime.interpreter).

No compiled extension: the shared library is found through $ARENAPLAN_LIB, then the copy `pip
install bindings/python` bundles, then build/ of the source tree this package sits in, then the
system's library path. Failures raise
arenaplan.Error with the library's message.
"""
import ctypes
import ctypes.util
import os

try:
    import numpy as _np
except ImportError:  # numpy is optional: outputs are then bytes
    _np = None

__all__ = ["Error", "Model", "Plan", "Interpreter", "ModelInterpreter", "SignatureRunner",
           "InterpreterWithCustomOps", "OpResolverType", "load_delegate", "library_version"]


class Error(Exception):
    """A failure reported by libarenaplan; str(e) is its message, e.status its status name."""

    def __init__(self, message, status=""):
        super().__init__(message)
        self.status = status


# ---- C declarations: field for field as in include/arenaplan/*.h (checked by
# tests/test_layout.py against a compiled probe). ----

c_status = ctypes.c_int
_AP_ERR_ARENA_TOO_SMALL = 8  # ap_status in base.h
c_size = ctypes.c_size_t


class ap_ivec(ctypes.Structure):
    _fields_ = [("v", ctypes.POINTER(ctypes.c_int32)), ("n", c_size)]


class ap_tensor_info(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("type", ctypes.c_int),
        ("shape", ap_ivec),
        ("shape_signature", ap_ivec),
        ("has_rank", ctypes.c_bool),
        ("buffer", ctypes.c_uint32),
        ("is_variable", ctypes.c_bool),
        ("is_constant", ctypes.c_bool),
        ("bytes", c_size),
        ("scale", ctypes.POINTER(ctypes.c_float)),
        ("scale_count", c_size),
        ("zero_point", ctypes.POINTER(ctypes.c_int64)),
        ("zero_point_count", c_size),
        ("quantized_dimension", ctypes.c_int32),
    ]


class ap_lifetime(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int),
        ("planned", ctypes.c_bool),
        ("first", ctypes.c_int32),
        ("last", ctypes.c_int32),
        ("bytes", ctypes.c_uint64),
        ("producer", ctypes.c_int32),
        ("last_reader", ctypes.c_int32),
    ]


class ap_model_plan_options(ctypes.Structure):
    _fields_ = [
        ("strategy", ctypes.c_char_p),
        ("rules", ctypes.c_int),
        ("preserve_inputs", ctypes.c_bool),
        ("alignment", ctypes.c_uint64),
        ("subgraph", ctypes.c_int),
        ("budget_seconds", ctypes.c_double),
        ("tensor_bytes", ctypes.POINTER(ctypes.c_uint64)),
        ("tensor_bytes_count", c_size),
        ("scratch", ctypes.c_void_p),
        ("scratch_count", c_size),
        ("inplace", ctypes.c_bool),
    ]


AP_MAX_DIMS = 8


class ap_tensor(ctypes.Structure):
    _fields_ = [
        ("name", ctypes.c_char_p),
        ("type", ctypes.c_int),
        ("rank", ctypes.c_int),
        ("dims", ctypes.c_int32 * AP_MAX_DIMS),
        ("data", ctypes.c_void_p),
        ("bytes", c_size),
        ("scale", ctypes.c_float),
        ("zero_point", ctypes.c_int32),
        ("scales", ctypes.POINTER(ctypes.c_float)),
        ("zero_points", ctypes.POINTER(ctypes.c_int64)),
        ("quant_count", c_size),
        ("quantized_dimension", ctypes.c_int32),
        ("is_constant", ctypes.c_bool),
        ("is_variable", ctypes.c_bool),
        ("is_dynamic", ctypes.c_bool),
    ]


class ap_interpreter_options(ctypes.Structure):
    _fields_ = [
        ("strategy", ctypes.c_char_p),
        ("alignment", ctypes.c_uint64),
        ("allocator", ctypes.c_void_p),
        ("arena", ctypes.c_void_p),
        ("arena_size", c_size),
        ("threads", ctypes.c_int),
        # 0: auto (each op's kernel chosen within budget), 1: reference, 2: small, 3: fast
        ("kernels", ctypes.c_int),
        ("small_scratch", c_size),  # small's bytes over the reference total (0: 8192)
        ("custom_ops", ctypes.c_void_p),
        ("custom_op_count", c_size),
        ("preserve_all", ctypes.c_bool),
        ("max_input_dims", ctypes.c_void_p),
        ("max_input_count", c_size),
        ("max_loop_iterations", ctypes.c_uint64),
        ("inplace", ctypes.c_bool),
        ("stream", ctypes.c_bool),
        ("prepare", ctypes.c_int),  # 0: builtins prepared at each invoke, 1: once
        ("preserve_inputs", ctypes.c_bool),  # inputs kept intact across invokes (TFLite's C API)
        ("budget", ctypes.c_uint64),  # auto's bytes for the total (0: 1.02 x reference's)
    ]


class ap_memory_usage(ctypes.Structure):
    _fields_ = [
        ("arena", ctypes.c_uint64),
        ("persistent", ctypes.c_uint64),
        ("tables", ctypes.c_uint64),
        ("total", ctypes.c_uint64),
        ("arena_lower_bound", ctypes.c_uint64),
    ]


STRUCTS = [ap_ivec, ap_tensor_info, ap_lifetime, ap_model_plan_options, ap_tensor,
           ap_interpreter_options, ap_memory_usage]

_P = ctypes.c_void_p
_PP = ctypes.POINTER(ctypes.c_void_p)
# name: (restype, argtypes)
_FUNCS = {
    "ap_version": (ctypes.c_char_p, []),
    "ap_status_name": (ctypes.c_char_p, [c_status]),
    "ap_dtype_name": (ctypes.c_char_p, [ctypes.c_int]),
    "ap_model_open": (c_status, [ctypes.c_char_p, _P, _PP]),
    "ap_model_destroy": (None, [_P]),
    "ap_model_error": (ctypes.c_char_p, [_P]),
    "ap_model_subgraph_count": (c_size, [_P]),
    "ap_model_tensor_count": (c_size, [_P, c_size]),
    "ap_model_tensor": (c_status, [_P, c_size, c_size, ctypes.POINTER(ap_tensor_info)]),
    "ap_model_plan_defaults": (ap_model_plan_options, []),
    "ap_model_plan_create": (c_status, [_P, ctypes.POINTER(ap_model_plan_options), _P, _PP]),
    "ap_model_plan_destroy": (None, [_P]),
    "ap_model_plan_error": (ctypes.c_char_p, [_P]),
    "ap_model_plan_graph": (_P, [_P]),
    "ap_model_plan_arena": (ctypes.c_uint64, [_P]),
    "ap_model_plan_lower_bound": (ctypes.c_uint64, [_P]),
    "ap_model_plan_optimal": (ctypes.c_bool, [_P]),
    "ap_model_plan_tensor_offset": (ctypes.c_bool, [_P, c_size, c_size,
                                                    ctypes.POINTER(ctypes.c_uint64)]),
    "ap_graph_tensor": (c_status, [_P, c_size, c_size, ctypes.POINTER(ap_lifetime)]),
    "ap_graph_error": (ctypes.c_char_p, [_P]),
    "ap_interpreter_defaults": (ap_interpreter_options, []),
    "ap_interpreter_create": (c_status, [_P, ctypes.POINTER(ap_interpreter_options), _PP]),
    "ap_interpreter_destroy": (None, [_P]),
    "ap_interpreter_error": (ctypes.c_char_p, [_P]),
    "ap_interpreter_allocate": (c_status, [_P]),
    "ap_interpreter_invoke": (c_status, [_P]),
    "ap_interpreter_input_count": (c_size, [_P]),
    "ap_interpreter_output_count": (c_size, [_P]),
    "ap_interpreter_input": (c_status, [_P, c_size, ctypes.POINTER(ap_tensor)]),
    "ap_interpreter_output": (c_status, [_P, c_size, ctypes.POINTER(ap_tensor)]),
    "ap_interpreter_memory": (c_status, [_P, ctypes.POINTER(ap_memory_usage)]),
    "ap_interpreter_reset_variables": (c_status, [_P]),
    "ap_interpreter_set_profile": (c_status, [_P, ctypes.POINTER(ctypes.c_uint64), c_size]),
    "ap_model_op_count": (c_size, [_P, c_size]),
}


def _find_library():
    env = os.environ.get("ARENAPLAN_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    bundled = os.path.join(here, "libarenaplan.so")  # put in the wheel by pip install
    if os.path.exists(bundled):
        return bundled
    built = os.path.normpath(os.path.join(here, "..", "..", "..", "build", "libarenaplan.so"))
    if os.path.exists(built):
        return built
    return ctypes.util.find_library("arenaplan") or "libarenaplan.so.0"


def _load():
    path = _find_library()
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        raise ImportError("arenaplan: cannot load the shared library %s (%s); set ARENAPLAN_LIB"
                          % (path, e)) from None
    for name, (res, args) in _FUNCS.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    return lib


_lib = _load()


def library_version():
    """libarenaplan's version, "MAJOR.MINOR.PATCH"."""
    return _lib.ap_version().decode()


def _text(b):
    return b.decode("utf-8", "replace") if b else ""


def _raise(status, message):
    raise Error(message or _text(_lib.ap_status_name(status)), _text(_lib.ap_status_name(status)))


def _dtype_name(t):
    return _text(_lib.ap_dtype_name(t))


_NUMPY_TYPES = {
    "FLOAT32": "float32", "FLOAT16": "float16", "FLOAT64": "float64", "INT8": "int8",
    "UINT8": "uint8", "INT16": "int16", "UINT16": "uint16", "INT32": "int32",
    "UINT32": "uint32", "INT64": "int64", "UINT64": "uint64", "BOOL": "bool",
}


class Model:
    """A .tflite model, mapped read-only and verified by the library."""

    def __init__(self, path):
        self._h = None
        h = ctypes.c_void_p()
        s = _lib.ap_model_open(os.fsencode(path), None, ctypes.byref(h))
        if s != 0:
            msg = _text(_lib.ap_model_error(h))
            _lib.ap_model_destroy(h)
            _raise(s, msg)
        self._h = h
        self.path = os.fspath(path)

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.ap_model_destroy(self._h)
            self._h = None

    def _tensor_info(self, sg, t):
        info = ap_tensor_info()
        s = _lib.ap_model_tensor(self._h, sg, t, ctypes.byref(info))
        if s != 0:
            _raise(s, _text(_lib.ap_model_error(self._h)))
        return info

    def plan(self, strategy="best", alignment=0):
        """The arena plan of the whole model under arenaplan's lifetimes."""
        return Plan(self, strategy, alignment)

    def interpreter(self, arena_bytes=None, strategy="best"):
        """An allocated interpreter. arena_bytes: run inside one caller-owned buffer of that
        many bytes (arena, persistent and tables), allocated here and kept by the object."""
        return ModelInterpreter(self, arena_bytes, strategy)


class Plan:
    """arena_bytes, lower_bound_bytes, optimal, strategy, and tensors: one dict per planned
    tensor (subgraph, index, name, shape, dtype, bytes, first, last, offset), bytes being the
    request's size and [first, last] its lifetime in steps."""

    def __init__(self, model, strategy, alignment):
        opt = _lib.ap_model_plan_defaults()
        sname = strategy.encode()
        opt.strategy = sname
        opt.alignment = alignment
        h = ctypes.c_void_p()
        s = _lib.ap_model_plan_create(model._h, ctypes.byref(opt), None, ctypes.byref(h))
        try:
            if s != 0:
                _raise(s, _text(_lib.ap_model_plan_error(h)) if h else "")
            self.strategy = strategy
            self.arena_bytes = int(_lib.ap_model_plan_arena(h))
            self.lower_bound_bytes = int(_lib.ap_model_plan_lower_bound(h))
            self.optimal = bool(_lib.ap_model_plan_optimal(h))
            self.tensors = self._tensors(model, h)
        finally:
            _lib.ap_model_plan_destroy(h)

    @staticmethod
    def _tensors(model, h):
        g = _lib.ap_model_plan_graph(h)
        out = []
        for sg in range(_lib.ap_model_subgraph_count(model._h)):
            for t in range(_lib.ap_model_tensor_count(model._h, sg)):
                life = ap_lifetime()
                s = _lib.ap_graph_tensor(g, sg, t, ctypes.byref(life))
                if s != 0:
                    _raise(s, _text(_lib.ap_graph_error(g)))
                off = ctypes.c_uint64()
                if not life.planned or not _lib.ap_model_plan_tensor_offset(h, sg, t,
                                                                            ctypes.byref(off)):
                    continue
                info = model._tensor_info(sg, t)
                out.append({
                    "subgraph": sg, "index": t, "name": _text(info.name),
                    "shape": [info.shape.v[i] for i in range(info.shape.n)],
                    "dtype": _dtype_name(info.type), "bytes": int(life.bytes),
                    "first": life.first, "last": life.last, "offset": int(off.value),
                })
        return out


class ModelInterpreter:
    """Runs the model in its planned arena (subgraph 0's inputs and outputs)."""

    def __init__(self, model, arena_bytes, strategy):
        self._h = None
        self._model = model  # the model must outlive the interpreter
        opt = _lib.ap_interpreter_defaults()
        self._strategy = strategy.encode()  # must outlive the interpreter too
        opt.strategy = self._strategy
        self._buffer = None
        if arena_bytes is not None:
            if arena_bytes <= 0:
                raise Error("arena_bytes must be positive, got %d" % arena_bytes, "AP_ERR_ARG")
            self._buffer = ctypes.create_string_buffer(arena_bytes)
            opt.arena = ctypes.cast(self._buffer, ctypes.c_void_p)
            opt.arena_size = arena_bytes
        h = ctypes.c_void_p()
        s = _lib.ap_interpreter_create(model._h, ctypes.byref(opt), ctypes.byref(h))
        if s == 0:
            s = _lib.ap_interpreter_allocate(h)
        if s != 0:
            msg = _text(_lib.ap_interpreter_error(h)) if h else ""
            if not h and arena_bytes is not None and s == _AP_ERR_ARENA_TOO_SMALL:
                # The library had no object to keep its message in.
                msg = ("arena too small: a buffer of %d bytes cannot hold the interpreter "
                       "itself" % arena_bytes)
            _lib.ap_interpreter_destroy(h)
            _raise(s, msg)
        self._h = h

    def __del__(self):
        if getattr(self, "_h", None):
            _lib.ap_interpreter_destroy(self._h)
            self._h = None

    def _check(self, s):
        if s != 0:
            _raise(s, _text(_lib.ap_interpreter_error(self._h)))

    @property
    def input_count(self):
        return int(_lib.ap_interpreter_input_count(self._h))

    @property
    def output_count(self):
        return int(_lib.ap_interpreter_output_count(self._h))

    def _tensor(self, getter, i, what):
        t = ap_tensor()
        s = getter(self._h, i, ctypes.byref(t))
        if s != 0:
            _raise(s, "%s %d out of range (the model has %d)" % (
                what, i, self.input_count if what == "input" else self.output_count))
        return t

    def _describe(self, t):
        return {"name": _text(t.name), "shape": list(t.dims[:t.rank]),
                "dtype": _dtype_name(t.type), "bytes": int(t.bytes),
                "scale": t.scale, "zero_point": t.zero_point}

    def input_details(self, i):
        return self._describe(self._tensor(_lib.ap_interpreter_input, i, "input"))

    def output_details(self, i):
        return self._describe(self._tensor(_lib.ap_interpreter_output, i, "output"))

    def set_input(self, i, data):
        """Copies data (a numpy array, bytes, bytearray or any buffer) into input i; its size
        must be exactly the input's bytes (a numpy array's dtype must match the input's)."""
        t = self._tensor(_lib.ap_interpreter_input, i, "input")
        if _np is not None and isinstance(data, _np.ndarray):
            want = _NUMPY_TYPES.get(_dtype_name(t.type))
            if want is not None and data.dtype != _np.dtype(want):
                raise Error("input %d is %s, got a numpy array of %s"
                            % (i, _dtype_name(t.type), data.dtype), "AP_ERR_ARG")
            data = _np.ascontiguousarray(data).tobytes()
        raw = memoryview(data).cast("B")
        if raw.nbytes != t.bytes:
            raise Error("input %d (%s) needs %d bytes, got %d"
                        % (i, _text(t.name), t.bytes, raw.nbytes), "AP_ERR_ARG")
        if raw.nbytes:
            ctypes.memmove(t.data, bytes(raw), raw.nbytes)

    def invoke(self):
        self._check(_lib.ap_interpreter_invoke(self._h))

    def set_profile(self, on=True):
        """From the next invoke on, time each op of subgraph 0 (off by default); profile() then
        gives the last invoke's times."""
        if on:
            n = int(_lib.ap_model_op_count(self._model._h, 0))
            self._profile = (ctypes.c_uint64 * max(n, 1))()
            self._check(_lib.ap_interpreter_set_profile(self._h, self._profile if n else None, n))
        else:
            self._check(_lib.ap_interpreter_set_profile(self._h, None, 0))
            self._profile = None

    def profile(self):
        """The last invoke's wall time of each op of subgraph 0 in nanoseconds (a streamed
        segment's time is its first op's), or None when profiling is off."""
        p = getattr(self, "_profile", None)
        return None if p is None else [int(v) for v in p[:int(_lib.ap_model_op_count(
            self._model._h, 0))]]

    def output(self, i):
        """Output i: a numpy array of its dtype and shape when numpy is importable and the
        dtype has a numpy equivalent, else its raw bytes."""
        t = self._tensor(_lib.ap_interpreter_output, i, "output")
        raw = ctypes.string_at(t.data, t.bytes) if t.bytes else b""
        want = _NUMPY_TYPES.get(_dtype_name(t.type))
        if _np is None or want is None:
            return raw
        return _np.frombuffer(raw, dtype=want).reshape(list(t.dims[:t.rank]))

    def memory(self):
        """Bytes of each region: arena, persistent, tables, total, arena_lower_bound."""
        u = ap_memory_usage()
        self._check(_lib.ap_interpreter_memory(self._h, ctypes.byref(u)))
        return {name: int(getattr(u, name)) for name, _ in ap_memory_usage._fields_}


if _np is not None:
    from .tflite_api import (Interpreter, InterpreterWithCustomOps, SignatureRunner,  # noqa
                             OpResolverType, load_delegate, Delegate)  # (needs the above)
    from . import tflite_api as _tflite_api
    STRUCTS = STRUCTS + _tflite_api.STRUCTS
else:  # TFLite's API is numpy's; without numpy arenaplan's own interpreter stands in
    Interpreter = ModelInterpreter
    SignatureRunner = InterpreterWithCustomOps = OpResolverType = load_delegate = None
