"""Models the tests write themselves, through libarenaplan's model writer (include/arenaplan/
writer.h) over ctypes: tensors, ops, subgraphs, signatures, as TFLite's converter would lay them
out."""
import ctypes

import arenaplan
from arenaplan import _lib, _text

# BuiltinOperator codes (schema.fbs).
ADD, MUL, SUB, GATHER = 0, 18, 41, 36
FLOAT32, INT32, UINT8, INT64, STRING, INT8 = 0, 2, 3, 4, 5, 9


class ap_writer_tensor(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("type", ctypes.c_int),
                ("shape", ctypes.POINTER(ctypes.c_int32)), ("rank", ctypes.c_size_t),
                ("shape_signature", ctypes.POINTER(ctypes.c_int32)), ("has_rank", ctypes.c_bool),
                ("buffer", ctypes.c_uint32), ("is_variable", ctypes.c_bool),
                ("scale", ctypes.POINTER(ctypes.c_float)), ("scale_count", ctypes.c_size_t),
                ("zero_point", ctypes.POINTER(ctypes.c_int64)),
                ("zero_point_count", ctypes.c_size_t), ("quantized_dimension", ctypes.c_int32)]


class ap_option_field(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint16), ("kind", ctypes.c_int), ("i", ctypes.c_int64),
                ("f", ctypes.c_double), ("data", ctypes.c_void_p), ("n", ctypes.c_size_t)]


class ap_options(ctypes.Structure):
    _fields_ = [("type", ctypes.c_uint8), ("count", ctypes.c_size_t),
                ("fields", ap_option_field * 24)]


class ap_writer_op(ctypes.Structure):
    _fields_ = [("opcode", ctypes.c_uint32), ("inputs", ctypes.POINTER(ctypes.c_int32)),
                ("input_count", ctypes.c_size_t), ("outputs", ctypes.POINTER(ctypes.c_int32)),
                ("output_count", ctypes.c_size_t),
                ("intermediates", ctypes.POINTER(ctypes.c_int32)),
                ("intermediate_count", ctypes.c_size_t),
                ("options", ctypes.POINTER(ap_options)), ("options2", ctypes.POINTER(ap_options)),
                ("custom_options", ctypes.c_void_p), ("custom_options_size", ctypes.c_size_t)]


STRUCTS = [ap_writer_tensor, ap_option_field, ap_options, ap_writer_op]

_P, _U32P = ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32)
for _name, (_res, _args) in {
    "ap_writer_create": (ctypes.c_int, [_P, ctypes.POINTER(_P)]),
    "ap_writer_destroy": (None, [_P]),
    "ap_writer_error": (ctypes.c_char_p, [_P]),
    "ap_writer_add_buffer": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_size_t, _U32P]),
    "ap_writer_add_opcode": (ctypes.c_int, [_P, ctypes.c_int32, ctypes.c_int32, _U32P]),
    "ap_writer_add_custom_opcode": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_int32, _U32P]),
    "ap_writer_add_subgraph": (ctypes.c_int, [_P, ctypes.c_char_p, _U32P]),
    "ap_writer_set_subgraph_io": (ctypes.c_int, [_P, ctypes.c_uint32,
                                                 ctypes.POINTER(ctypes.c_int32), ctypes.c_size_t,
                                                 ctypes.POINTER(ctypes.c_int32), ctypes.c_size_t]),
    "ap_writer_add_tensor": (ctypes.c_int, [_P, ctypes.c_uint32, ctypes.POINTER(ap_writer_tensor),
                                            ctypes.POINTER(ctypes.c_int32)]),
    "ap_writer_add_op": (ctypes.c_int, [_P, ctypes.c_uint32, ctypes.POINTER(ap_writer_op),
                                        _U32P]),
    "ap_writer_add_signature": (ctypes.c_int, [_P, ctypes.c_char_p, ctypes.c_uint32, _P,
                                               ctypes.c_size_t, _P, ctypes.c_size_t, _U32P]),
    "ap_writer_finish": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_void_p),
                                        ctypes.POINTER(ctypes.c_size_t)]),
    "ap_options_add": (ap_options, [ctypes.c_int]),
    "ap_options_mul": (ap_options, [ctypes.c_int]),
}.items():
    _f = getattr(_lib, _name)
    _f.restype = _res
    _f.argtypes = _args


def _ints(values, ctype=ctypes.c_int32):
    values = list(values)
    return (ctype * max(1, len(values)))(*values), len(values)


class Writer:
    def __init__(self):
        self._w = ctypes.c_void_p()
        assert _lib.ap_writer_create(None, ctypes.byref(self._w)) == 0
        self._codes = {}

    def __del__(self):
        if getattr(self, "_w", None):
            _lib.ap_writer_destroy(self._w)

    def _ok(self, s):
        if s != 0:
            raise arenaplan.Error(_text(_lib.ap_writer_error(self._w)))

    def opcode(self, builtin=None, custom=None):
        key = custom or builtin
        if key not in self._codes:
            i = ctypes.c_uint32()
            if custom:
                self._ok(_lib.ap_writer_add_custom_opcode(self._w, custom.encode(), 1,
                                                          ctypes.byref(i)))
            else:
                self._ok(_lib.ap_writer_add_opcode(self._w, builtin, 1, ctypes.byref(i)))
            self._codes[key] = i.value
        return self._codes[key]

    def buffer(self, data):
        i = ctypes.c_uint32()
        self._ok(_lib.ap_writer_add_buffer(self._w, bytes(data), len(data), ctypes.byref(i)))
        return i.value

    def subgraph(self, name=None):
        i = ctypes.c_uint32()
        self._ok(_lib.ap_writer_add_subgraph(self._w, name.encode() if name else None,
                                             ctypes.byref(i)))
        return i.value

    def tensor(self, sg, name, dtype, shape, data=None, signature=None, scales=None,
               zero_points=None, quantized_dimension=0, variable=False):
        t = ap_writer_tensor()
        t.name = name.encode() if name else None
        t.type = dtype
        keep = []
        arr, t.rank = _ints(shape)
        t.shape = arr
        keep.append(arr)
        if signature is not None:
            sig, _ = _ints(signature)
            t.shape_signature = sig
            keep.append(sig)
        t.buffer = self.buffer(data) if data is not None else 0
        t.is_variable = variable
        if scales is not None:
            sc, t.scale_count = _ints(scales, ctypes.c_float)
            zp, t.zero_point_count = _ints(zero_points, ctypes.c_int64)
            t.scale, t.zero_point = sc, zp
            keep += [sc, zp]
        t.quantized_dimension = quantized_dimension
        i = ctypes.c_int32()
        self._ok(_lib.ap_writer_add_tensor(self._w, sg, ctypes.byref(t), ctypes.byref(i)))
        return i.value

    def op(self, sg, code, inputs, outputs, options=None):
        o = ap_writer_op()
        o.opcode = code
        ins, o.input_count = _ints(inputs)
        outs, o.output_count = _ints(outputs)
        o.inputs, o.outputs = ins, outs
        if options is not None:
            o.options = ctypes.pointer(options)
        self._ok(_lib.ap_writer_add_op(self._w, sg, ctypes.byref(o), None))

    def io(self, sg, inputs, outputs):
        ins, ni = _ints(inputs)
        outs, no = _ints(outputs)
        self._ok(_lib.ap_writer_set_subgraph_io(self._w, sg, ins, ni, outs, no))

    def signature(self, key, sg, inputs, outputs):
        from arenaplan.tflite_api import ap_tensor_map
        maps = []
        for d in (inputs, outputs):
            arr = (ap_tensor_map * max(1, len(d)))()
            for k, (name, t) in enumerate(d.items()):
                arr[k].name = name.encode()
                arr[k].tensor = t
            maps.append(arr)
        self._ok(_lib.ap_writer_add_signature(self._w, key.encode(), sg, maps[0], len(inputs),
                                              maps[1], len(outputs), None))

    def finish(self):
        p, n = ctypes.c_void_p(), ctypes.c_size_t()
        self._ok(_lib.ap_writer_finish(self._w, ctypes.byref(p), ctypes.byref(n)))
        return ctypes.string_at(p, n.value)


def add_options():
    return _lib.ap_options_add(0)


def mul_options():
    return _lib.ap_options_mul(0)
