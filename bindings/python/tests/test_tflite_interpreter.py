"""TensorFlow Lite's Python Interpreter API (tflite_runtime.interpreter / ai_edge_litert) as
arenaplan gives it, written from TFLite's documented behaviour and its own interpreter tests:
constructor arguments and their errors, OpResolverType, load_delegate, custom ops, the lifecycle
(_safe_to_run), subgraph and op details, signatures of any subgraph, variables, resize and
quantization. Models: ../shared and models written here (modelwriter)."""
import ctypes
import gc
import os
import pathlib
import weakref

import pytest

np = pytest.importorskip("numpy")

import arenaplan  # noqa: E402
import arenaplan as tflite  # noqa: E402  (the drop-in spelling)
import modelwriter as mw  # noqa: E402

SHARED = os.environ.get("AP_SHARED", os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                                  "..", "shared"))
MODELS = os.path.join(SHARED, "models")
needs_shared = pytest.mark.skipif(not os.path.isdir(MODELS), reason="../shared is absent")
PERSON = os.path.join(MODELS, "person_detect_int8.tflite")
MULTI = os.path.join(MODELS, "multi_signatures.tflite")


def entries_model():
    """Subgraph 0: y = x + c (c = [10, 20, 30]); subgraph 1 "twice": y = x + x; subgraph 2
    "square": y = x * x; signatures "main" (0), "twice" (1), "square" (2)."""
    w = mw.Writer()
    add, mul = w.opcode(mw.ADD), w.opcode(mw.MUL)
    c = np.array([10, 20, 30], np.float32).tobytes()
    x = w.tensor(0, "x", mw.FLOAT32, [3])
    k = w.tensor(0, "c", mw.FLOAT32, [3], data=c)
    y = w.tensor(0, "y", mw.FLOAT32, [3])
    w.op(0, add, [x, k], [y], mw.add_options())
    w.io(0, [x], [y])
    w.signature("main", 0, {"x": x}, {"y": y})
    for key, code, opts in (("twice", add, mw.add_options()), ("square", mul, mw.mul_options())):
        sg = w.subgraph(key)
        a = w.tensor(sg, key + "_in", mw.FLOAT32, [3])
        b = w.tensor(sg, key + "_out", mw.FLOAT32, [3])
        w.op(sg, code, [a, a], [b], opts)
        w.io(sg, [a], [b])
        w.signature(key, sg, {"value": a}, {"result": b})
    return w.finish()


def custom_model(name="TimesTwo"):
    w = mw.Writer()
    code = w.opcode(custom=name)
    x = w.tensor(0, "x", mw.FLOAT32, [2, 2])
    y = w.tensor(0, "y", mw.FLOAT32, [2, 2])
    w.op(0, code, [x], [y])
    w.io(0, [x], [y])
    return w.finish()


# ---- constructor ----

def test_unknown_resolver_type_is_a_value_error():
    with pytest.raises(ValueError, match="^Unrecognized passed in op resolver type: test$"):
        tflite.Interpreter(model_content=entries_model(), experimental_op_resolver_type="test")


@pytest.mark.parametrize("n,msg", [(4.2, "type of num_threads should be int"),
                                   ("2", "type of num_threads should be int"),
                                   (-1, "num_threads should >= 1"),
                                   (0, "num_threads should >= 1")])
def test_num_threads_is_checked(n, msg):
    with pytest.raises(ValueError, match="^%s$" % msg):
        tflite.Interpreter(model_content=entries_model(), num_threads=n)


def test_model_arguments(tmp_path):
    with pytest.raises(ValueError, match="^`model_path` or `model_content` must be specified.$"):
        tflite.Interpreter()
    with pytest.raises(ValueError, match="^`model_path` or `model_content` must be specified.$"):
        tflite.Interpreter(model_path="", model_content=b"")
    content = entries_model()
    path = tmp_path / "m.tflite"
    path.write_bytes(content)
    with pytest.raises(ValueError, match="^Can't both provide `model_path` and `model_content`$"):
        tflite.Interpreter(model_path=str(path), model_content=content)
    with pytest.raises(ValueError, match="^Could not open 'totally_invalid_file_name'"):
        tflite.Interpreter(model_path="totally_invalid_file_name")
    with pytest.raises(ValueError, match="^Model provided has model identifier 'age', should be "
                                         "'TFL3'\n$"):
        tflite.Interpreter(model_content=b"garbage")
    # A path-like model_path (pathlib, bytes) is a path.
    for p in (path, os.fsencode(path)):
        it = tflite.Interpreter(model_path=p)
        assert it.get_input_details()[0]["name"] == "x"


def test_delegates_are_refused_naming_the_library():
    with pytest.raises(ValueError) as e:
        tflite.load_delegate("libedgetpu.so.1", {"device": "usb"})
    assert str(e.value).startswith("Failed to load delegate from libedgetpu.so.1\n")
    assert "arenaplan runs no delegates" in str(e.value)
    with pytest.raises(ValueError, match="^arenaplan runs no delegates"):
        tflite.Interpreter(model_content=entries_model(), experimental_delegates=[object()])
    # An empty list is no delegate at all.
    tflite.Interpreter(model_content=entries_model(), experimental_delegates=[])


def test_experimental_flags_are_accepted():
    it = tflite.Interpreter(entries_model() and None, entries_model(), None, 2,
                            tflite.OpResolverType.AUTO, True, True, True)
    it.allocate_tensors()
    it.set_tensor(0, np.array([1, 2, 3], np.float32))
    it.invoke()
    assert it.get_tensor(2).tolist() == [11, 22, 33]


def kernels_in_use(it):
    fn = arenaplan._lib.ap_interpreter_kernels
    fn.restype, fn.argtypes = ctypes.c_char_p, [ctypes.c_void_p]
    return fn(it._native_handle()).decode()


@needs_shared
def test_resolver_types_choose_kernels_and_agree():
    x = (np.arange(96 * 96, dtype=np.int64) % 251 - 125).astype(np.int8).reshape(1, 96, 96, 1)
    outputs, kernels = [], {}
    for r in tflite.OpResolverType:
        it = tflite.Interpreter(model_path=PERSON, experimental_op_resolver_type=r)
        it.allocate_tensors()
        kernels[r] = kernels_in_use(it)
        it.set_tensor(it.get_input_details()[0]["index"], x)
        it.invoke()
        outputs.append(it.get_tensor(it.get_output_details()[0]["index"]))
    assert kernels[tflite.OpResolverType.BUILTIN_REF] == "reference"
    assert kernels[tflite.OpResolverType.AUTO] != "reference"
    assert kernels[tflite.OpResolverType.BUILTIN] == kernels[tflite.OpResolverType.AUTO]
    for o in outputs[1:]:
        assert o.tobytes() == outputs[0].tobytes()
    assert [r.value for r in tflite.OpResolverType] == [0, 1, 2, 3]


def test_module_path_of_tflite_runtime():
    import arenaplan.interpreter as interp
    assert interp.Interpreter is tflite.Interpreter
    assert interp.OpResolverType.BUILTIN_REF.name == "BUILTIN_REF"


# ---- custom ops ----

def test_unknown_registerer_name_is_refused():
    bogus = "CompletelyBogusRegistererName"
    with pytest.raises(ValueError, match="^Looking up symbol '%s' failed$" % bogus):
        tflite.InterpreterWithCustomOps(model_content=custom_model(),
                                        custom_op_registerers=[bogus])
    # libarenaplan's own functions are no registerers (its symbols are not global).
    with pytest.raises(ValueError, match="^Looking up symbol 'ap_version' failed$"):
        tflite.InterpreterWithCustomOps(model_content=custom_model(),
                                        custom_op_registerers=["ap_version"])
    with pytest.raises(ValueError, match="neither a name nor a callable"):
        tflite.InterpreterWithCustomOps(model_content=custom_model(), custom_op_registerers=[3])


def test_no_custom_ops():
    it = tflite.InterpreterWithCustomOps(model_content=entries_model())
    assert it._safe_to_run()


def test_custom_op_without_a_kernel_is_refused_at_creation():
    with pytest.raises(ValueError) as e:
        tflite.Interpreter(model_content=custom_model("Nope"))
    assert str(e.value) == ("Didn't find custom op 'Nope' (subgraph 0 op 0): custom op, not "
                            "built in")


def test_python_custom_op():
    calls = []

    def register(resolver):
        def prepare(ctx):
            calls.append("prepare")
            ctx.set_output_shape(0, ctx.input_shape(0))

        def evaluate(ctx):
            calls.append("eval")
            assert (ctx.input_count(), ctx.output_count()) == (1, 1)
            ctx.output(0)[...] = ctx.input(0) * 2
        resolver.add("TimesTwo", evaluate, prepare)

    it = tflite.InterpreterWithCustomOps(model_content=custom_model(),
                                         custom_op_registerers=[register])
    it.allocate_tensors()
    it.set_tensor(0, np.array([[1, -2], [3.5, 0]], np.float32))
    it.invoke()
    assert it.get_tensor(1).tolist() == [[2, -4], [7, 0]]
    assert calls[0] == "prepare" and calls[-1] == "eval"


def test_python_custom_op_exception_reaches_invoke():
    def register(resolver):
        def evaluate(ctx):
            raise KeyError("from the kernel")
        resolver.add("TimesTwo", evaluate)

    it = tflite.InterpreterWithCustomOps(model_content=custom_model(),
                                         custom_op_registerers=[register])
    it.allocate_tensors()
    with pytest.raises(KeyError, match="from the kernel"):
        it.invoke()


# ---- lifecycle ----

def test_invoke_before_allocate_tensors():
    it = tflite.Interpreter(model_content=entries_model())
    # Details are known before allocate_tensors, as in TFLite.
    assert list(it.get_input_details()[0]["shape"]) == [3]
    with pytest.raises(RuntimeError, match="^Invoke called on model that is not ready.$"):
        it.invoke()
    with pytest.raises(ValueError, match="^Cannot set tensor: Tensor is unallocated"):
        it.set_tensor(0, np.zeros(3, np.float32))
    it.allocate_tensors()
    it.set_tensor(0, np.zeros(3, np.float32))
    it.invoke()


def test_safe_to_run_counts_live_views():
    # TFLite's testBase.
    it = tflite.Interpreter(model_content=entries_model())
    it.allocate_tensors()
    assert it._safe_to_run()
    fn = it.tensor(0)
    assert it._safe_to_run()
    a = fn()
    assert not it._safe_to_run()
    b = it.tensor(0)()
    part = b[1:]
    del b
    assert not it._safe_to_run()
    del a
    assert not it._safe_to_run()  # the slice still points into the interpreter
    del part
    assert it._safe_to_run()


def test_live_view_blocks_replanning():
    # TFLite's testBaseProtectsFunctions, and resize.
    it = tflite.Interpreter(model_content=entries_model())
    it.allocate_tensors()
    view = it.tensor(0)()
    for call in (it.allocate_tensors, it.invoke, lambda: it.resize_tensor_input(0, [3])):
        with pytest.raises(RuntimeError, match="^There is at least 1 reference"):
            call()
    view[...] = [1, 2, 3]  # writing through the view is how TFLite feeds without a copy
    del view
    it.invoke()
    assert it.get_tensor(2).tolist() == [11, 22, 33]


def test_view_reads_and_writes_in_place():
    it = tflite.Interpreter(model_content=entries_model())
    it.allocate_tensors()
    inp = it.tensor(0)
    np.copyto(inp(), np.array([-1, -2, -3], np.float32))
    assert it.get_tensor(0).tolist() == [-1, -2, -3]
    copy = it.get_tensor(0)
    it.set_tensor(0, copy + 1)
    assert copy.tolist() == [-1, -2, -3]  # get_tensor copies
    assert inp().tolist() == [0, -1, -2]


def test_view_keeps_the_interpreter_alive():
    it = tflite.Interpreter(model_content=entries_model())
    it.allocate_tensors()
    it.set_tensor(0, np.array([4, 5, 6], np.float32))
    gone = weakref.ref(it)
    view = it.tensor(0)()
    del it
    gc.collect()
    assert gone() is not None  # the array holds the memory's owner
    assert view.tolist() == [4, 5, 6]
    del view
    gc.collect()
    assert gone() is None


# ---- subgraphs, tensors and ops ----

def test_subgraph_details():
    it = tflite.Interpreter(model_content=entries_model())
    assert it.num_subgraphs() == 3
    names = [d["name"] for d in it.get_tensor_details(2)]
    assert names == ["square_in", "square_out"]
    assert [d["index"] for d in it.get_tensor_details(1)] == [0, 1]
    with pytest.raises(ValueError, match="^subgraph_index is out of range: 3 for the model, "
                                         "which has 3 subgraphs.$"):
        it.get_tensor_details(3)
    it.allocate_tensors()
    with pytest.raises(ValueError, match="^Invalid tensor index 7 exceeds max tensor index 2$"):
        it.get_tensor(7)
    with pytest.raises(ValueError, match="^Invalid subgraph index 5 exceeds max subgraph "
                                         "index 2$"):
        it.get_tensor(0, subgraph_index=5)
    with pytest.raises(ValueError, match="^Tensor with no shape found.$"):
        it._get_tensor_details(4, 0)
    c = it._get_tensor_details(1, 0)
    assert c["name"] == "c" and it.get_tensor(1).tolist() == [10, 20, 30]


def test_op_details():
    it = tflite.Interpreter(model_content=entries_model())
    ops = it._get_ops_details()
    assert len(ops) == 1
    d = it._get_op_details(0)
    assert d["index"] == 0 and d["op_name"] == "ADD"
    assert d["inputs"].tolist() == [0, 1] and d["outputs"].tolist() == [2]
    assert d["operand_types"] == [np.float32, np.float32] and d["result_types"] == [np.float32]
    assert ops[0]["op_name"] == d["op_name"]
    with pytest.raises(ValueError, match="^Invalid node index 4 exceeds max node index 0$"):
        it._get_op_details(4)
    with pytest.raises(ValueError, match="Invalid node index"):
        it._get_op_details(-1)


def test_custom_op_name():
    def register(r):
        r.add("TimesTwo", lambda ctx: None)
    it = tflite.InterpreterWithCustomOps(model_content=custom_model(),
                                         custom_op_registerers=[register])
    assert it._get_op_details(0)["op_name"] == "TimesTwo"


# ---- signatures ----

def test_signature_list_and_runners_in_every_subgraph():
    it = tflite.Interpreter(model_content=entries_model())
    assert it.get_signature_list() == {
        "main": {"inputs": ["x"], "outputs": ["y"]},
        "twice": {"inputs": ["value"], "outputs": ["result"]},
        "square": {"inputs": ["value"], "outputs": ["result"]}}
    with pytest.raises(ValueError, match="^SignatureDef signature_key is None and model has 3 "
                                         "Signatures. None is only allowed when the model has 1 "
                                         "SignatureDef$"):
        it.get_signature_runner()
    with pytest.raises(ValueError, match="^Invalid signature_key provided.$"):
        it.get_signature_runner("nope")
    assert it._get_full_signature_list()["square"] == {"inputs": {"value": 0},
                                                       "outputs": {"result": 1}}
    x = np.array([1, -2, 0.5], np.float32)
    twice, square, main = (it.get_signature_runner(k) for k in ("twice", "square", "main"))
    assert twice(value=x)["result"].tolist() == [2, -4, 1]
    assert square(value=x)["result"].tolist() == [1, 4, 0.25]
    # get_tensor reads any subgraph: subgraph 2's output as the runner left it (entries share
    # one arena: read it before invoking another entry).
    assert it.get_tensor(1, subgraph_index=2).tolist() == [1, 4, 0.25]
    assert main(x=x)["y"].tolist() == [11, 18, 30.5]
    # Each runner's details are its own subgraph's tensors.
    d = square.get_input_details()["value"]
    assert d["name"] == "square_in" and d["index"] == 0 and d["dtype"] == np.float32
    o = square.get_output_details()["result"]
    assert o["name"] == "square_out" and o["index"] == 1
    with pytest.raises(ValueError, match="^Invalid number of inputs provided for running a "
                                         "SignatureDef, expected 1 vs provided 2$"):
        twice(value=x, other=x)
    with pytest.raises(ValueError, match=r"^Invalid Input name \(x\) for SignatureDef$"):
        twice(x=x)


def test_signature_runner_arguments():
    it = tflite.Interpreter(model_content=entries_model())
    with pytest.raises(ValueError, match="^None interpreter provided.$"):
        tflite.SignatureRunner(None, "main")
    with pytest.raises(ValueError, match="^None signature_key provided.$"):
        tflite.SignatureRunner(it, None)
    assert tflite.SignatureRunner(it, "twice")(value=np.ones(3, np.float32))["result"] \
        .tolist() == [2, 2, 2]


@needs_shared
def test_multi_signatures_model():
    # LiteRT's test model: "add" (subgraph 0) is x + 2, "sub" (subgraph 1) is x - 3.
    it = tflite.Interpreter(model_path=MULTI)
    assert it.get_signature_list() == {"add": {"inputs": ["x"], "outputs": ["output_0"]},
                                       "sub": {"inputs": ["x"], "outputs": ["output_0"]}}
    add, sub = it.get_signature_runner("add"), it.get_signature_runner("sub")
    assert list(sub.get_input_details()["x"]["shape_signature"]) == [-1]
    assert add(x=np.array([2], np.float32))["output_0"].tolist() == [4]
    assert sub(x=np.array([2], np.float32))["output_0"].tolist() == [-1]
    # Each runner resizes its subgraph's input to the value's shape, as TFLite's does (LiteRT's
    # signature runner test: add [-1, 2] -> [1, 4], sub -> [-4, -1]).
    assert add(x=np.array([-1, 2], np.float32))["output_0"].tolist() == [1, 4]
    assert sub(x=np.array([-1, 2], np.float32))["output_0"].tolist() == [-4, -1]
    assert list(sub.get_output_details()["output_0"]["shape"]) == [2]
    assert sub(x=np.array([10], np.float32))["output_0"].tolist() == [7]
    # An empty input runs (TFLite's testEmptyInputTensor).
    assert sub(x=np.zeros([0], np.float32))["output_0"].shape == (0,)


# ---- variables, resize, quantization ----

@needs_shared
def test_reset_all_variables():
    path = os.path.join(MODELS, "mnist_lstm_float.tflite")  # its LSTM state is variable
    it = tflite.Interpreter(model_path=path)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    x = np.random.RandomState(0).randint(-20, 20, size=d["shape"]).astype(d["dtype"])
    out = it.get_output_details()[0]["index"]
    runs = []
    for _ in range(2):
        it.set_tensor(d["index"], x)
        it.invoke()
        runs.append(it.get_tensor(out))
    assert runs[0].tobytes() != runs[1].tobytes()  # the state moved on
    it.reset_all_variables()
    it.set_tensor(d["index"], x)
    it.invoke()
    assert it.get_tensor(out).tobytes() == runs[0].tobytes()


@needs_shared
def test_resize_tensor_input_strict():
    it = tflite.Interpreter(model_path=os.path.join(MODELS, "mlperf_ic_resnet_float.tflite"))
    d = it.get_input_details()[0]
    assert list(d["shape_signature"]) == [-1, 32, 32, 3]
    for dims in ([2, 32, 32, 4], [2, 32, 32]):
        with pytest.raises(ValueError, match="^ResizeInputTensorStrict only allows mutating "
                                             "unknown dimensions identified by -1.$"):
            it.resize_tensor_input(d["index"], dims, strict=True)
    it.allocate_tensors()
    # The same dims again keep the plan (TFLite short-cuts it): invoke needs no allocate.
    it.resize_tensor_input(d["index"], [1, 32, 32, 3])
    it.invoke()
    it.resize_tensor_input(d["index"], [3, 32, 32, 3], strict=True)
    with pytest.raises(RuntimeError, match="^Invoke called on model that is not ready.$"):
        it.invoke()
    it.allocate_tensors()
    assert list(it.get_input_details()[0]["shape"]) == [3, 32, 32, 3]
    assert list(it.get_output_details()[0]["shape"]) == [3, 10]
    with pytest.raises(ValueError, match="is not an input"):
        it.resize_tensor_input(it.get_output_details()[0]["index"], [1, 10])


def test_quantization_per_tensor_and_per_channel():
    w = mw.Writer()
    x = w.tensor(0, "x", mw.INT8, [1, 2], scales=[0.5], zero_points=[-3])
    k = w.tensor(0, "k", mw.INT8, [1, 2], data=b"\x01\x02", scales=[0.25, 0.125],
                 zero_points=[0, 0], quantized_dimension=1)
    y = w.tensor(0, "y", mw.INT8, [1, 2], scales=[0.5], zero_points=[-3])
    w.op(0, w.opcode(mw.ADD), [x, k], [y], mw.add_options())
    w.io(0, [x], [y])
    it = tflite.Interpreter(model_content=w.finish())
    d = it.get_input_details()[0]
    assert d["quantization"] == (0.5, -3)
    q = d["quantization_parameters"]
    assert q["scales"].dtype == np.float32 and q["scales"].tolist() == [0.5]
    assert q["zero_points"].dtype == np.int32 and q["zero_points"].tolist() == [-3]
    assert q["quantized_dimension"] == 0
    pc = it._get_tensor_details(k, 0)
    assert pc["quantization"] == (0.0, 0)  # TFLite: per-tensor pair only for one scale
    assert pc["quantization_parameters"]["scales"].tolist() == [0.25, 0.125]
    assert pc["quantization_parameters"]["zero_points"].tolist() == [0, 0]
    assert pc["quantization_parameters"]["quantized_dimension"] == 1
    assert pc["sparsity_parameters"] == {}
    f = tflite.Interpreter(model_content=entries_model()).get_input_details()[0]
    assert f["quantization"] == (0.0, 0)
    assert f["quantization_parameters"]["scales"].tolist() == []


# ---- TFLite's own outputs ----

@needs_shared
@pytest.mark.parametrize("name", ["mobilenet_v1_025_128_uint8", "mlperf_kws_dscnn_hybrid"])
@pytest.mark.parametrize("seed", [1, 2])
def test_classic_script_gives_tflites_outputs(name, seed):
    # The two models TFLite Micro refuses, against TFLite's own outputs (oracle/tflite_ref).
    ref = os.path.join(SHARED, "oracle", "tflite_ref")
    it = tflite.Interpreter(model_path=os.path.join(MODELS, name + ".tflite"), num_threads=1)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    x = np.fromfile(os.path.join(ref, "%s.seed%d.input0.bin" % (name, seed)),
                    dtype=d["dtype"]).reshape(d["shape"])
    it.set_tensor(d["index"], x)
    it.invoke()
    y = it.get_tensor(it.get_output_details()[0]["index"])
    want = pathlib.Path(ref, "%s.seed%d.output0.bin" % (name, seed)).read_bytes()
    assert y.tobytes() == want


# ---- strings ----

def string_buffer(items):
    n = len(items)
    offsets, at = [], 4 * (n + 2)
    for s in items:
        offsets.append(at)
        at += len(s)
    return np.array([n] + offsets + [at], dtype="<i4").tobytes() + b"".join(items)


def gather_string_model():
    """TFLite's testdata/gather_string: GATHER(input string[10], indices int64[3])."""
    w = mw.Writer()
    p = w.tensor(0, "input", mw.STRING, [10])
    i = w.tensor(0, "indices", mw.INT64, [3])
    o = w.tensor(0, "output", mw.STRING, [3])
    w.op(0, w.opcode(mw.GATHER), [p, i], [o])
    w.io(0, [p, i], [o])
    return w.finish()


def test_string_gather_as_tflites_test():
    # TFLite's testString, step for step.
    interpreter = tflite.Interpreter(model_content=gather_string_model())
    interpreter.allocate_tensors()
    input_details = interpreter.get_input_details()
    assert len(input_details) == 2
    assert input_details[0]["name"] == "input" and input_details[0]["dtype"] == np.bytes_
    assert ([10] == input_details[0]["shape"]).all()
    assert input_details[0]["quantization"] == (0.0, 0)
    assert input_details[1]["name"] == "indices" and input_details[1]["dtype"] == np.int64
    output_details = interpreter.get_output_details()
    assert output_details[0]["dtype"] == np.bytes_ and ([3] == output_details[0]["shape"]).all()
    interpreter.set_tensor(input_details[1]["index"], np.array([1, 2, 3], dtype=np.int64))
    interpreter.set_tensor(input_details[0]["index"],
                           np.array(["a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]))
    interpreter.invoke()
    output_data = interpreter.get_tensor(output_details[0]["index"])
    assert (np.array([b"b", b"c", b"d"]) == output_data).all()
    assert output_data.shape == (3,)
    # Bytes and objects are strings too; values longer than before grow the tensors.
    interpreter.set_tensor(input_details[0]["index"],
                           np.array([b"x" * 40 + bytes([k]) for k in range(10)], dtype=object))
    interpreter.set_tensor(input_details[1]["index"], np.array([9, 0, 9], dtype=np.int64))
    interpreter.invoke()
    assert interpreter.get_tensor(output_details[0]["index"]).tolist() == [
        b"x" * 40 + b"\x09", b"x" * 40 + b"\x00", b"x" * 40 + b"\x09"]


def test_string_table_gather():
    # The done-when model: GATHER over a constant string table.
    w = mw.Writer()
    table = w.tensor(0, "labels", mw.STRING, [4],
                     data=string_buffer([b"cat", b"dog", "\u00e9l\u00e8ve".encode(), b""]))
    i = w.tensor(0, "class", mw.INT32, [2])
    o = w.tensor(0, "label", mw.STRING, [2])
    w.op(0, w.opcode(mw.GATHER), [table, i], [o])
    w.io(0, [i], [o])
    it = tflite.Interpreter(model_content=w.finish())
    it.allocate_tensors()
    assert it.get_tensor(table).tolist() == [b"cat", b"dog", "\u00e9l\u00e8ve".encode(), b""]
    it.set_tensor(i, np.array([2, 0], np.int32))
    it.invoke()
    assert [s.decode() for s in it.get_tensor(o)] == ["\u00e9l\u00e8ve", "cat"]
    it.set_tensor(i, np.array([3, 4], np.int32))
    with pytest.raises(RuntimeError, match=r"^subgraph 0 op 0 \(GATHER\): index 4 out of range "
                                           r"\(the dimension has 4\)$"):
        it.invoke()


def test_string_zero_dim_keeps_its_bytes():
    # TFLite's testStringZeroDim: a 0-d value keeps its trailing NULs.
    w = mw.Writer()
    s = w.tensor(0, "s", mw.STRING, [])
    shape = w.tensor(0, "shape", mw.INT32, [1], data=np.array([1], np.int32).tobytes())
    o = w.tensor(0, "o", mw.STRING, [1])
    w.op(0, w.opcode(22), [s, shape], [o])  # RESHAPE
    w.io(0, [s], [o])
    data = b"abcd" + bytes(16)
    interpreter = tflite.Interpreter(model_content=w.finish())
    interpreter.allocate_tensors()
    interpreter.set_tensor(s, np.array(data))
    assert len(interpreter.get_tensor(s).item(0)) == len(data)
    interpreter.invoke()
    assert interpreter.get_tensor(o).tolist() == [data]


def test_string_set_tensor_errors():
    it = tflite.Interpreter(model_content=gather_string_model())
    it.allocate_tensors()
    with pytest.raises(ValueError, match="^Cannot set tensor: Dimension mismatch. Got 9 but "
                                         "expected 10 for dimension 0 of input 0.$"):
        it.set_tensor(0, np.array(list("abcdefghi")))
    with pytest.raises(ValueError, match="^Cannot set tensor: Got value of type FLOAT32 but "
                                         "expected type STRING"):
        it.set_tensor(0, np.zeros(10, np.float32))
    with pytest.raises(RuntimeError, match=r"input 0 has no value yet"):
        it.set_tensor(1, np.array([0, 1, 2], np.int64))
        it.invoke()


# ---- sparse tensors ----

SCHEMA = os.path.join(SHARED, "tflite", "schema.fbs")


@pytest.mark.skipif(not os.path.exists(SCHEMA) or not __import__("shutil").which("flatc"),
                    reason="needs flatc and ../shared/tflite/schema.fbs")
def test_sparse_tensor_access(tmp_path):
    # TFLite's testSparseTensorAccess: a 4x4 float constant in 2x2 blocks, block rows dense,
    # block columns CSR (segments [0, 2, 3], indices [0, 1, 1]): 3 blocks, 12 values.
    import json
    import subprocess
    values = np.array([1, 0, 0, 4, 2, 3, 0, 0, 5, 0, 0, 6], np.float32)
    model = {
        "version": 3,
        "operator_codes": [],
        "buffers": [{}, {"data": list(values.tobytes())}],
        "subgraphs": [{
            "tensors": [
                {"name": "sparse", "type": "FLOAT32", "shape": [4, 4], "buffer": 1,
                 "sparsity": {
                     "traversal_order": [0, 1, 2, 3], "block_map": [0, 1],
                     "dim_metadata": [
                         {"format": "DENSE", "dense_size": 2},
                         {"format": "SPARSE_CSR",
                          "array_segments_type": "Int32Vector",
                          "array_segments": {"values": [0, 2, 3]},
                          "array_indices_type": "Uint8Vector",
                          "array_indices": {"values": [0, 1, 1]}},
                         {"format": "DENSE", "dense_size": 2},
                         {"format": "DENSE", "dense_size": 2}]}},
                {"name": "x", "type": "FLOAT32", "shape": [1]}],
            "inputs": [1], "outputs": [1], "operators": []}],
    }
    src = tmp_path / "sparse.json"
    src.write_text(json.dumps(model))
    subprocess.run(["flatc", "-b", "-o", str(tmp_path), SCHEMA, str(src)], check=True)
    interpreter = tflite.Interpreter(model_path=tmp_path / "sparse.tflite")  # the file_extension
    interpreter.allocate_tensors()
    compressed_buffer = interpreter.get_tensor(0)
    assert len(compressed_buffer) == 12
    assert compressed_buffer.tolist() == values.tolist()
    s_params = interpreter.get_tensor_details()[0]["sparsity_parameters"]
    assert s_params["traversal_order"].tolist() == [0, 1, 2, 3]
    assert s_params["block_map"].tolist() == [0, 1]
    dense_dim_metadata = {"format": 0, "dense_size": 2}
    for k in (0, 2, 3):
        assert s_params["dim_metadata"][k] == dense_dim_metadata
    assert s_params["dim_metadata"][1]["format"] == 1
    assert s_params["dim_metadata"][1]["array_segments"].tolist() == [0, 2, 3]
    assert s_params["dim_metadata"][1]["array_indices"].tolist() == [0, 1, 1]
    assert list(interpreter.get_tensor_details()[0]["shape"]) == [4, 4]  # the dense shape
    assert interpreter.get_tensor_details()[1]["sparsity_parameters"] == {}


@needs_shared
def test_preserve_all_tensors_gives_every_intermediate():
    # experimental_preserve_all_tensors: after invoke every intermediate of subgraph 0 is
    # readable, byte-equal to TFLite Micro's for the oracle's seed-1 input.
    oracle = os.path.join(SHARED, "oracle", "tflm")
    it = tflite.Interpreter(model_path=PERSON, experimental_preserve_all_tensors=True)
    it.allocate_tensors()
    d = it.get_input_details()[0]
    x = np.fromfile(os.path.join(oracle, "person_detect_int8.seed1.input0.bin"),
                    dtype=d["dtype"]).reshape(d["shape"])
    it.set_tensor(d["index"], x)
    it.invoke()
    files = [f for f in os.listdir(os.path.join(oracle, "tensors"))
             if f.startswith("person_detect_int8.seed1.tensor")]
    assert len(files) > 20
    for f in files:
        t = int(f.split("tensor")[1].split(".")[0])
        want = pathlib.Path(oracle, "tensors", f).read_bytes()
        assert it.get_tensor(t).tobytes() == want, f


REGISTERER_C = r"""
#include <arenaplan/arenaplan.h>
#include <string.h>
static ap_status prepare(ap_op_context *c) {
  ap_tensor in;
  if (!ap_op_input(c, 0, &in)) return AP_ERR_ARG;
  return ap_op_set_output_shape(c, 0, in.dims, in.rank);
}
static ap_status eval(ap_op_context *c) {
  ap_tensor in, out;
  if (!ap_op_input(c, 0, &in) || !ap_op_output(c, 0, &out)) return AP_ERR_ARG;
  const float *x = in.data;
  float *y = out.data;
  for (size_t i = 0; i < in.bytes / 4; i++) y[i] = 2 * x[i];
  return AP_OK;
}
static const ap_custom_op ops[] = {{"TimesTwo", 0, {prepare, eval}}};
size_t ApTestRegisterer(const ap_custom_op **out) { *out = ops; return 1; }
"""


@pytest.mark.skipif(__import__("shutil").which("cc") is None, reason="no C compiler")
def test_registerer_by_name(tmp_path):
    # A C registerer in a loaded library, found by name (TFLite's testRegistererByName).
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__)))))
    src = tmp_path / "registerer.c"
    src.write_text(REGISTERER_C)
    lib = tmp_path / "libregisterer.so"
    arenaplan_so = os.path.realpath(arenaplan._find_library())
    subprocess.run(["cc", "-std=c11", "-shared", "-fPIC", "-I", os.path.join(root, "include"),
                    str(src), arenaplan_so, "-Wl,-rpath," + os.path.dirname(arenaplan_so),
                    "-o", str(lib)], check=True)
    ctypes.CDLL(str(lib), mode=ctypes.RTLD_GLOBAL)
    it = tflite.InterpreterWithCustomOps(model_content=custom_model(),
                                         custom_op_registerers=["ApTestRegisterer"])
    assert it._safe_to_run()
    it.allocate_tensors()
    it.set_tensor(0, np.array([[1, 2], [-3, 0.25]], np.float32))
    it.invoke()
    assert it.get_tensor(1).tolist() == [[2, 4], [-6, 0.5]]


def test_hashtable_vocabulary_lookup():
    # A vocabulary as TF's StaticHashTable converts: HASHTABLE, HASHTABLE_IMPORT of constant
    # keys and ids, HASHTABLE_FIND with a default of -1, HASHTABLE_SIZE.
    w = mw.Writer()
    opts = mw.ap_options()
    opts.type, opts.count = 107, 3  # HashtableOptions: table_id, key_dtype, value_dtype
    for k, (kind, v) in enumerate([(6, 1), (2, mw.STRING), (2, mw.INT64)]):  # INT32, INT8, INT8
        opts.fields[k].id, opts.fields[k].kind, opts.fields[k].i = k, kind, v
    h = w.tensor(0, "table", 13, [1])  # RESOURCE
    keys = w.tensor(0, "keys", mw.STRING, [3], data=string_buffer([b"the", b"cat", b"sat"]))
    ids = w.tensor(0, "ids", mw.INT64, [3], data=np.array([0, 1, 2], np.int64).tobytes())
    dflt = w.tensor(0, "oov", mw.INT64, [], data=np.array([-1], np.int64).tobytes())
    words = w.tensor(0, "words", mw.STRING, [4])
    out = w.tensor(0, "token_ids", mw.INT64, [4])
    size = w.tensor(0, "size", mw.INT64, [1])
    w.op(0, w.opcode(136), [], [h], opts)
    w.op(0, w.opcode(138), [h, keys, ids], [])
    w.op(0, w.opcode(137), [h, words, dflt], [out])
    w.op(0, w.opcode(139), [h], [size])
    w.io(0, [words], [out, size])
    it = tflite.Interpreter(model_content=w.finish())
    it.allocate_tensors()
    it.set_tensor(words, np.array(["sat", "the", "dog", "cat"]))
    it.invoke()
    assert it.get_tensor(out).tolist() == [2, 0, -1, 1]
    assert it.get_tensor(size).tolist() == [3]
