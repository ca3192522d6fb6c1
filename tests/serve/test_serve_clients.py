#!/usr/bin/env python3
"""`arenaplan serve` with clients that are not ours: curl and Python's urllib, following the
KServe v2 protocol. Starts the real server on 127.0.0.1 port 0 (the port read from its first
line), classifies with mobilenet_v1_025_128_uint8 and detects with the SSD of
shared/detection, and checks the outputs byte for byte against `arenaplan run --output` on the
same inputs, in JSON and in binary form. Then every error status (400, 404, 413, 503 with
Retry-After), hostile requests (malformed and truncated JSON, lying binary sizes, huge declared
lengths, a 10 MB body over a 1 MB limit (on a second server, 1 MB max_body), traversal names), each followed by a good request;
the repository extension, /metrics, SIGHUP (a model added, one removed) and SIGTERM (exit 0).

curl is required (scripts/setup.sh installs it): without it this test fails, it does not skip.
Environment: AP_CLI (the arenaplan binary), AP_SHARED (the shared data folder).
"""
import json
import os
import random
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

CLI = os.path.abspath(os.environ.get("AP_CLI", "build/arenaplan"))
SHARED = os.path.abspath(os.environ.get("AP_SHARED", "../shared"))
MOBILENET = os.path.join(SHARED, "models", "mobilenet_v1_025_128_uint8.tflite")
SSD = os.path.join(SHARED, "detection", "ssd_mobilenet_v1_coco_uint8.tflite")
KWS = os.path.join(SHARED, "models", "mlperf_kws_dscnn_int8.tflite")
CLS_OUT = "MobilenetV1/Predictions/Reshape_1"
failed = 0
passed = 0


def check(cond, what):
    global failed, passed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


class Server:
    def __init__(self, config):
        # The log goes to a file: a pipe nobody reads would stall the server when it fills.
        self.log = tempfile.TemporaryFile(mode="w+")
        self.p = subprocess.Popen([CLI, "serve", config], stdout=subprocess.PIPE,
                                  stderr=self.log, text=True)
        line = self.p.stdout.readline()
        m = re.match(r"arenaplan serve: listening on http://127\.0\.0\.1:(\d+) ", line)
        if not m:
            self.p.kill()
            raise RuntimeError("no listening line: %r %s" % (line, self.stderr()))
        self.port = int(m.group(1))
        self.base = "http://127.0.0.1:%d" % self.port

    def stderr(self):
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        self.p.send_signal(signal.SIGTERM)
        try:
            rc = self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = "hung"
        return rc, self.p.stdout.read(), self.stderr()


def stop_clean(srv):
    """SIGTERM: the server exits 0 with nothing from the sanitizers; returns (out, err)."""
    rc, out, err = srv.stop()
    check(rc == 0, "exit %s on SIGTERM: %s" % (rc, err[-2000:]))
    check("ERROR: AddressSanitizer" not in err and "LeakSanitizer" not in err,
          "sanitizers quiet: %s" % err[-2000:])
    return out, err


def http(base, method, path, body=None, headers=None, timeout=60):
    """(status, headers, body bytes) with urllib; error statuses are answers too."""
    req = urllib.request.Request(base + path, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def curl(base, args, path):
    """(status, body bytes) with curl."""
    r = subprocess.run(["curl", "-s", "-o", "-", "-w", "\n%{http_code}"] + args + [base + path],
                       stdout=subprocess.PIPE, timeout=120)
    body, _, code = r.stdout.rpartition(b"\n")
    return int(code or 0), body


def run_reference(tmp, model, tag, data):
    """`arenaplan run` on the same input: its outputs' raw bytes."""
    inp = os.path.join(tmp, tag + ".bin")
    with open(inp, "wb") as f:
        f.write(data)
    out = os.path.join(tmp, tag + "_out")
    os.makedirs(out, exist_ok=True)
    r = subprocess.run([CLI, "run", model, "--input", inp, "--iterations", "1", "--output", out],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    check(r.returncode == 0, "arenaplan run %s: %s" % (tag, r.stderr))
    outs = []
    k = 0
    while os.path.exists(os.path.join(out, "output%d.bin" % k)):
        with open(os.path.join(out, "output%d.bin" % k), "rb") as f:
            outs.append(f.read())
        k += 1
    return inp, outs


def as_bytes(t):
    """A JSON output tensor's data as its little-endian bytes."""
    fmt = {"UINT8": "B", "INT8": "b", "INT16": "h", "INT32": "i", "INT64": "q", "FP32": "f"}
    return struct.pack("<%d%s" % (len(t["data"]), fmt[t["datatype"]]), *t["data"])


def binary_request(name, dtype, shape, data, extra=None):
    head = {"inputs": [{"name": name, "datatype": dtype, "shape": shape,
                        "parameters": {"binary_data_size": len(data)}}],
            "parameters": {"binary_data_output": True}}
    if extra:
        head.update(extra)
    h = json.dumps(head).encode()
    return h + data, {"Inference-Header-Content-Length": str(len(h)),
                      "Content-Type": "application/octet-stream"}


def split_binary(headers, body):
    hl = int(headers.get("Inference-Header-Content-Length", "0"))
    head = json.loads(body[:hl])
    outs, pos = [], hl
    for t in head["outputs"]:
        n = t["parameters"]["binary_data_size"]
        outs.append(body[pos:pos + n])
        pos += n
    return head, outs, pos == len(body)


def good_classify(base, image, want):
    st, _, body = http(base, "POST", "/v2/models/classifier/infer", json.dumps(
        {"inputs": [{"name": "input", "datatype": "UINT8", "shape": [1, 128, 128, 3],
                     "data": list(image)}]}).encode())
    return st == 200 and as_bytes(json.loads(body)["outputs"][0]) == want


def classify_and_detect(tmp, base, img, ssd_img, cls_ref, ssd_ref):
    # JSON with urllib: data nested row-major for the classifier, flat for the detector.
    nested = [[[list(img[(y * 128 + x) * 3:(y * 128 + x) * 3 + 3]) for x in range(128)]
               for y in range(128)]]
    st, hd, body = http(base, "POST", "/v2/models/classifier/infer", json.dumps(
        {"id": "req-1", "inputs": [{"name": "input", "datatype": "UINT8",
                                    "shape": [1, 128, 128, 3], "data": nested}]}).encode(),
        {"Content-Type": "application/json"})
    check(st == 200, "urllib JSON classify: %d %s" % (st, body[:200]))
    r = json.loads(body)
    check(r.get("id") == "req-1" and r["model_name"] == "classifier", "id echoed: %s" % r.get("id"))
    check(r["outputs"][0]["name"] == CLS_OUT and r["outputs"][0]["shape"] == [1, 1001],
          "classifier output metadata")
    check(as_bytes(r["outputs"][0]) == cls_ref[0], "urllib JSON classify == arenaplan run")
    # The versioned path (the one version there is) is the same model.
    body, headers = binary_request("input", "UINT8", [1, 128, 128, 3], img)
    st, hd, resp = http(base, "POST", "/v2/models/classifier/versions/1/infer", body, headers)
    check(st == 200 and split_binary(hd, resp)[1] == cls_ref, "versions/1/infer: %d" % st)
    st, _, b = http(base, "POST", "/v2/models/classifier/versions/2/infer", body, headers)
    check(st == 404, "versions/2: %d" % st)

    st, hd, body = http(base, "POST", "/v2/models/detector/infer", json.dumps(
        {"inputs": [{"name": "normalized_input_image_tensor", "datatype": "UINT8",
                     "shape": [1, 300, 300, 3], "data": list(ssd_img)}]}).encode())
    check(st == 200, "urllib JSON detect: %d %s" % (st, body[:200]))
    r = json.loads(body)
    check(len(r["outputs"]) == 4, "detector: 4 outputs")
    for k, t in enumerate(r["outputs"]):
        check(as_bytes(t) == ssd_ref[k], "urllib JSON detect output %d == arenaplan run" % k)

    # Binary with urllib: outputs selected (two of four, the second as JSON).
    body, headers = binary_request("normalized_input_image_tensor", "UINT8", [1, 300, 300, 3],
                                   ssd_img, {"outputs": [
                                       {"name": "TFLite_Detection_PostProcess:2",
                                        "parameters": {"binary_data": True}},
                                       {"name": "TFLite_Detection_PostProcess:3",
                                        "parameters": {"binary_data": False}}]})
    st, hd, resp = http(base, "POST", "/v2/models/detector/infer", body, headers)
    check(st == 200, "urllib binary detect: %d" % st)
    hl = int(hd.get("Inference-Header-Content-Length", "0"))
    head = json.loads(resp[:hl])
    check([t["name"] for t in head["outputs"]] ==
          ["TFLite_Detection_PostProcess:2", "TFLite_Detection_PostProcess:3"], "outputs selected")
    check(resp[hl:] == ssd_ref[2], "urllib binary detect scores == arenaplan run")
    check(as_bytes(head["outputs"][1]) == ssd_ref[3], "JSON count beside a binary output")

    body, headers = binary_request("input", "UINT8", [1, 128, 128, 3], img)
    st, hd, resp = http(base, "POST", "/v2/models/classifier/infer", body, headers)
    head, outs, whole = split_binary(hd, resp)
    check(st == 200 and whole and outs == cls_ref, "urllib binary classify == arenaplan run")

    # curl: JSON and binary, the same bytes.
    req = os.path.join(tmp, "cls.json")
    with open(req, "w") as f:
        json.dump({"inputs": [{"name": "input", "datatype": "UINT8", "shape": [1, 128, 128, 3],
                               "data": list(img)}]}, f)
    st, body = curl(base, ["-X", "POST", "-H", "Content-Type: application/json",
                           "--data-binary", "@" + req], "/v2/models/classifier/infer")
    check(st == 200 and as_bytes(json.loads(body)["outputs"][0]) == cls_ref[0],
          "curl JSON classify == arenaplan run (%d)" % st)
    breq = os.path.join(tmp, "ssd.req")
    body, headers = binary_request("normalized_input_image_tensor", "UINT8", [1, 300, 300, 3],
                                   ssd_img)
    with open(breq, "wb") as f:
        f.write(body)
    hdump = os.path.join(tmp, "headers.txt")
    st, resp = curl(base, ["-X", "POST", "-D", hdump, "-H", "Content-Type: application/octet-stream",
                           "-H", "Inference-Header-Content-Length: " +
                           headers["Inference-Header-Content-Length"],
                           "--data-binary", "@" + breq], "/v2/models/detector/infer")
    with open(hdump) as f:
        m = re.search(r"(?im)^inference-header-content-length: (\d+)", f.read())
    check(st == 200 and m, "curl binary detect: %d" % st)
    if m:
        head, outs, whole = split_binary({"Inference-Header-Content-Length": m.group(1)}, resp)
        check(whole and outs == ssd_ref, "curl binary detect == arenaplan run")


def concurrent(tmp, base, rnd):
    """8 clients at once, each with its own images: every answer is its own input's (two
    interpreters serve them in turn; none is shared)."""
    images = [bytes(rnd.randrange(256) for _ in range(49152)) for _ in range(4)]
    refs = [run_reference(tmp, MOBILENET, "c%d" % i, im)[1][0] for i, im in enumerate(images)]
    check(len(set(refs)) == 4, "four different references")
    bad = []

    def client(k):
        for j in range(12):
            i = (k + j) % 4
            body, headers = binary_request("input", "UINT8", [1, 128, 128, 3], images[i])
            st, hd, resp = http(base, "POST", "/v2/models/classifier/infer", body, headers)
            if st != 200 or split_binary(hd, resp)[1] != [refs[i]]:
                bad.append((k, j, st))

    threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    check(not bad, "concurrent answers that were not their input's: %s" % bad[:5])


def errors(base, img, cls_ref):
    def expect(st, body, code, text, what):
        try:
            msg = json.loads(body).get("error", "")
        except ValueError:
            msg = "(not JSON: %r)" % body[:80]
        check(st == code and text in msg, "%s: %d %s (want %d, '%s')" % (what, st, msg, code, text))
        check(good_classify(base, img, cls_ref[0]), "a good request after: " + what)

    def post(path, body, headers=None):
        st, _, b = http(base, "POST", path, body, headers)
        return st, b

    infer = "/v2/models/classifier/infer"
    st, b = post(infer, b'{"inputs": [{"name": "input", "datatype"')
    expect(st, b, 400, "malformed JSON", "truncated JSON")
    st, b = post(infer, b"\x00\xff{{{")
    expect(st, b, 400, "malformed JSON", "garbage")
    st, b = post(infer, json.dumps({"inputs": [{"name": "input", "datatype": "FP32",
                                                "shape": [1, 128, 128, 3], "data": [0.5] * 49152}]}).encode())
    expect(st, b, 400, "input 'input': datatype FP32, the model takes UINT8", "wrong datatype")
    st, b = post(infer, json.dumps({"inputs": [{"name": "input", "datatype": "UINT8",
                                                "shape": [1, 64, 256, 3], "data": [1] * 49152}]}).encode())
    expect(st, b, 400, "shape [1,64,256,3], the model takes [1,128,128,3]", "wrong shape")
    st, b = post(infer, json.dumps({"inputs": [{"name": "input", "datatype": "UINT8",
                                                "shape": [1, 128, 128, 3], "data": [1] * 100}]}).encode())
    expect(st, b, 400, "data has 100 elements, the shape 49152", "too few values")
    st, b = post(infer, json.dumps({"inputs": [{"name": "image", "datatype": "UINT8",
                                                "shape": [1, 128, 128, 3], "data": [1] * 49152}]}).encode())
    expect(st, b, 400, "unknown input 'image'", "unknown input")
    # Binary sizes that lie: fewer bytes than declared, more, and a header length past the body.
    body, headers = binary_request("input", "UINT8", [1, 128, 128, 3], img)
    st, b = post(infer, body[:-10], headers)
    expect(st, b, 400, "binary_data_size 49152 but only 49142 binary bytes remain", "short binary")
    st, b = post(infer, body + b"extra", headers)
    expect(st, b, 400, "the inputs' binary_data_size add up to 49152", "long binary")
    st, b = post(infer, body, {"Inference-Header-Content-Length": str(len(body) + 1)})
    expect(st, b, 400, "is more than the body's", "header length past the body")
    st, b = post(infer, body, {"Inference-Header-Content-Length": "99999999999999999999999"})
    expect(st, b, 400, "is not a byte count", "huge header length")
    st, b = post(infer, json.dumps({"inputs": [{"name": "input", "datatype": "UINT8",
                                                "shape": [2147483647, 2147483647, 3],
                                                "parameters": {"binary_data_size": 3}}]}).encode()
                 + b"abc", {"Inference-Header-Content-Length": "0"})
    expect(st, b, 400, "empty request body", "zero header length")
    huge_shape = json.dumps({"inputs": [{"name": "input", "datatype": "UINT8",
                                         "shape": [2147483647, 2147483647, 3], "data": [1, 2, 3]}]})
    st, b = post(infer, huge_shape.encode())
    expect(st, b, 400, "data has 3 elements", "huge declared shape")
    # Unknown models and traversal: 404, never a file.
    st, b = post("/v2/models/nosuch/infer", b"{}")
    expect(st, b, 404, "unknown model 'nosuch'", "unknown model")
    st, _, b = http(base, "GET", "/v2/models/nosuch")
    expect(st, b, 404, "unknown model 'nosuch'", "unknown model metadata")
    for path in ["/v2/models/..%2F..%2Fetc%2Fpasswd/infer", "/v2/models/%2e%2e/infer",
                 "/v2/models/classifier%2F..%2F..%2Fdetector/infer"]:
        st, b = post(path, b"{}")
        expect(st, b, 404, "unknown ", "traversal " + path)
    st, body = curl(base, ["--path-as-is", "-X", "POST", "-d", "{}"],
                    "/v2/models/../../../etc/passwd/infer")
    expect(st, body, 404, "", "curl --path-as-is traversal")
    st, _, b = http(base, "GET", "/v2/models/classifier/infer")
    expect(st, b, 405, "use POST", "GET on infer")


def repository_and_metrics(base):
    st, _, b = http(base, "POST", "/v2/repository/index", b"{}")
    index = {m["name"]: m for m in json.loads(b)} if st == 200 else {}
    check(set(index) == {"classifier", "detector"}, "repository index: %s" % b[:200])
    st, _, b = http(base, "POST", "/v2/repository/models/classifier/load", b"")
    check(st == 200, "repository load: %d %s" % (st, b))
    st, _, b = http(base, "POST", "/v2/repository/index", b"{}")
    index = {m["name"]: m for m in json.loads(b)}
    check(index["classifier"]["state"] == "READY", "loaded model READY: %s" % index)
    st, _, b = http(base, "POST", "/v2/repository/models/nosuch/load", b"")
    check(st == 404, "repository load of an unknown model: %d" % st)
    st, _, b = http(base, "POST", "/v2/repository/models/detector/unload", b"")
    check(st == 200, "repository unload: %d %s" % (st, b))
    st, _, b = http(base, "POST", "/v2/repository/index", b"{}")
    index = {m["name"]: m for m in json.loads(b)}
    check(index["detector"]["state"] == "UNAVAILABLE" and index["detector"]["reason"] == "unloaded",
          "unloaded model UNAVAILABLE: %s" % index["detector"])
    st, _, b = http(base, "GET", "/v2/models/detector/ready")
    check(st == 400 and "model detector is not ready: unloaded" in json.loads(b)["error"],
          "unloaded model not ready: %d %s" % (st, b))
    for path in ["/v2/health/live", "/v2/health/ready", "/v2/models/classifier/ready"]:
        st, _, b = http(base, "GET", path)
        check(st == 200, "%s: %d" % (path, st))
    st, _, b = http(base, "GET", "/v2")
    meta = json.loads(b)
    check(meta["name"] == "arenaplan" and "binary_tensor_data" in meta["extensions"], "/v2")
    st, _, b = http(base, "GET", "/v2/models/detector")
    meta = json.loads(b)
    check(meta["inputs"] == [{"name": "normalized_input_image_tensor", "datatype": "UINT8",
                              "shape": [1, 300, 300, 3]}], "detector metadata inputs")
    check([o["shape"] for o in meta["outputs"]] == [[1, 10, 4], [1, 10], [1, 10], [1]],
          "detector metadata outputs (shapes from prepare)")
    st, hd, b = http(base, "GET", "/metrics")
    text = b.decode()
    check(st == 200 and hd.get("Content-Type", "").startswith("text/plain"), "/metrics")
    check("arenaplan_budget_bytes 67108864\n" in text, "budget in /metrics")
    m = re.search(r'arenaplan_requests_total\{model="classifier",result="ok"\} (\d+)', text)
    check(m and int(m.group(1)) >= 20, "classifier requests counted: %s" % (m and m.group(1)))
    check(re.search(r'arenaplan_request_seconds_bucket\{model="detector",le="\+Inf"\} [1-9]', text),
          "latency histogram")
    check(re.search(r"arenaplan_overhead_base_bytes [1-9]\d+", text), "overhead in /metrics")
    check("\narenaplan_connections_dropped_total 0\n" in text, "no slow client dropped")
    check(re.search(r'arenaplan_model_state\{model="classifier",state="ready"\} 1', text),
          "classifier state ready")
    # Every family's samples together, each after its TYPE line (the text format's rule).
    seen, current = set(), None
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            current = line.split()[2]
            check(current not in seen, "family %s declared twice" % current)
            seen.add(current)
        elif line and not line.startswith("#"):
            name = re.match(r"[a-z_]+", line).group(0)
            check(name == current or name.startswith(current + "_"),
                  "sample %s outside its family (%s)" % (name, current))


def too_large(base, img, cls_ref):
    """413: a 10 MB body over the 1 MB limit, with Content-Length (curl) and chunked."""
    def expect(st, body, text, what):
        msg = json.loads(body).get("error", "") if body.startswith(b"{") else repr(body[:80])
        check(st == 413 and text in msg, "%s: %d %s" % (what, st, msg))
        check(good_classify(base, img, cls_ref[0]), "a good request after: " + what)

    infer = "/v2/models/classifier/infer"
    big = os.path.join(tempfile.gettempdir(), "ap_serve_big_%d.bin" % os.getpid())
    with open(big, "wb") as f:
        f.write(b"{" * (10 << 20))
    st, body = curl(base, ["-X", "POST", "--data-binary", "@" + big], infer)
    expect(st, body, "over max_body (1048576 bytes)", "10 MB body (curl)")
    st, body = curl(base, ["-X", "POST", "-H", "Transfer-Encoding: chunked",
                           "--data-binary", "@" + big], infer)
    expect(st, body, "over max_body", "10 MB chunked body (curl)")
    os.unlink(big)
    # A declared length far beyond the limit, over a raw socket: refused at once.
    s = socket.create_connection(("127.0.0.1", int(base.rsplit(":", 1)[1])), timeout=30)
    s.sendall(b"POST " + infer.encode() + b" HTTP/1.1\r\nHost: x\r\n"
              b"Content-Length: 99999999999999\r\n\r\n{")
    reply = s.recv(4096)
    s.close()
    check(reply.startswith(b"HTTP/1.1 413"), "huge Content-Length: %r" % reply[:40])
    check(good_classify(base, img, cls_ref[0]), "a good request after a huge Content-Length")
    st, _, b = http(base, "GET", "/metrics")
    m = re.search(r"arenaplan_rejected_too_large_total (\d+)", b.decode())
    check(m and int(m.group(1)) == 3, "413s counted: %s" % (m and m.group(1)))


def busy_503(tmp, img, cls_ref):
    """A budget that holds the detector or the classifier, not both; the detector busy: a
    classify that may not wait gets 503 with Retry-After."""
    cfg = os.path.join(tmp, "tight.yaml")
    with open(cfg, "w") as f:
        f.write("port: 0\nbudget: 6000K\nmax_body: 1M\nrequest_timeout: 0ms\nworkers: 4\n"
                "models:\n"
                "  - name: classifier\n    model: %s\n    threads: 1\n"
                "  - name: detector\n    model: %s\n    threads: 1\n" % (MOBILENET, SSD))
    srv = Server(cfg)
    stop = threading.Event()
    ssd_body, ssd_headers = binary_request("normalized_input_image_tensor", "UINT8",
                                           [1, 300, 300, 3], bytes(270000))

    def hammer():
        while not stop.is_set():
            http(srv.base, "POST", "/v2/models/detector/infer", ssd_body, ssd_headers)

    threads = [threading.Thread(target=hammer) for _ in range(2)]
    for t in threads:
        t.start()
    got, deadline = None, time.time() + 60
    body, headers = binary_request("input", "UINT8", [1, 128, 128, 3], img)
    while got is None and time.time() < deadline:
        st, hd, b = http(srv.base, "POST", "/v2/models/classifier/infer", body, headers)
        if st == 503:
            got = (hd, json.loads(b))
    stop.set()
    for t in threads:
        t.join()
    check(got is not None, "a 503 while the budget is full of a busy model")
    # Nothing busy now: each model in turn makes room by evicting the other.
    st1 = http(srv.base, "POST", "/v2/models/classifier/infer", body, headers)[0]
    st2 = http(srv.base, "POST", "/v2/models/detector/infer", ssd_body, ssd_headers)[0]
    check(st1 == 200 and st2 == 200, "idle budget: %d %d" % (st1, st2))
    if got:
        check(got[0].get("Retry-After") == "1", "503 has Retry-After: %s" % got[0])
        check("classifier: not resident within 0 ms" in got[1]["error"], got[1]["error"])
    st, _, b = http(srv.base, "GET", "/metrics")
    m = re.search(r'arenaplan_rejected_busy_total\{model="classifier"\} (\d+)', b.decode())
    check(m and int(m.group(1)) >= 1, "503s counted in /metrics")
    m = re.search(r'arenaplan_pool_evictions_total\{reason="room"\} (\d+)', b.decode())
    check(m and int(m.group(1)) >= 1, "evictions for room counted")
    per_model = re.findall(r'arenaplan_model_evictions_total\{model="\w+",reason="room"\} (\d+)',
                           b.decode())
    check(m and len(per_model) == 2 and sum(map(int, per_model)) == int(m.group(1)),
          "evictions for room per model add up: %s" % per_model)
    check(re.search(r"arenaplan serve: evict model=\w+ bytes=\d+ reason=room", srv.stderr()),
          "eviction log line")
    too_large(srv.base, img, cls_ref)
    # The process's peak (VmHWM) within the budget plus the overhead the server reports.
    text = http(srv.base, "GET", "/metrics")[2].decode()
    hwm = int(re.search(r"arenaplan_process_peak_resident_bytes (\d+)", text).group(1))
    budget = int(re.search(r"arenaplan_budget_bytes (\d+)", text).group(1))
    overhead = int(re.search(r"arenaplan_overhead_bytes (\d+)", text).group(1))
    check(0 < hwm <= budget + overhead, "VmHWM %d <= budget %d + overhead %d" % (hwm, budget,
                                                                                 overhead))
    rc, out, err = srv.stop()
    check(rc == 0, "tight server exit %s: %s" % (rc, err[-500:]))


def never_fits(tmp):
    cfg = os.path.join(tmp, "small.yaml")
    with open(cfg, "w") as f:
        f.write("budget: 1M\nmodels:\n  - name: classifier\n    model: %s\n"
                "  - name: detector\n    model: %s\n" % (MOBILENET, SSD))
    r = subprocess.run([CLI, "serve", "--check", cfg], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    check(r.returncode == 1, "--check exit %d" % r.returncode)
    check(re.search(r"small\.yaml:5: model detector can never fit: needs 5,8\d\d,\d\d\d B "
                    r"\(5\.\d MiB\), budget 1,048,576 B \(1\.0 MiB\)", r.stdout),
          "--check names the model that never fits: " + r.stdout)
    r = subprocess.run([CLI, "serve", "--check", "--json", cfg], stdout=subprocess.PIPE,
                       text=True)
    j = json.loads(r.stdout)
    check(r.returncode == 1 and j["never_fit"] == 1 and j["budget"] == 1048576 and
          [m["fits"] for m in j["models"]] == [True, False], "--check --json")
    # The server itself refuses it before listening, with the bytes and the budget.
    r = subprocess.run([CLI, "serve", cfg], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60)
    check(r.returncode == 1 and r.stdout == "" and re.match(
        r"arenaplan: .*small\.yaml:5: model detector \(.*\) alone needs 58\d{5} bytes \(weights "
        r"4183312 \+ handle \d+ \+ interpreter \d+\), more than the budget of 1048576 bytes\n$",
        r.stderr), "serve refuses a model that never fits: %d %s" % (r.returncode, r.stderr))
    r = subprocess.run([CLI, "serve", cfg + ".missing"], stderr=subprocess.PIPE, text=True)
    check(r.returncode == 2 and "cannot open" in r.stderr, "missing config: exit 2")


def classifier_cost(base):
    text = http(base, "GET", "/metrics")[2].decode()
    return int(re.search(r'arenaplan_model_cost_bytes\{model="classifier"\} (\d+)', text).group(1))


def reload_and_stop(tmp, srv, cfg, img, cls_ref):
    before = classifier_cost(srv.base)
    with open(cfg, "w") as f:
        f.write("port: 0\nbudget: 64M\nmax_body: 1M\nmodels:\n"
                "  - name: classifier\n    model: %s\n    threads: 1\n    prepare: once\n"
                "  - name: kws\n    model: %s\n    idle_timeout: 300ms\n" % (MOBILENET, KWS))
    srv.p.send_signal(signal.SIGHUP)
    deadline, st = time.time() + 30, 0
    while time.time() < deadline and st != 200:
        st, _, b = http(srv.base, "GET", "/v2/models/kws")
        time.sleep(0.05)
    check(st == 200, "SIGHUP added kws")
    st, _, b = http(srv.base, "GET", "/v2/models/detector")
    check(st == 404, "SIGHUP removed detector: %d" % st)
    st, _, b = http(srv.base, "POST", "/v2/models/kws/infer", json.dumps(
        {"inputs": [{"name": json.loads(http(srv.base, "GET", "/v2/models/kws")[2])["inputs"][0]["name"],
                     "datatype": "INT8", "shape": [1, 49, 10, 1], "data": [0] * 490}]}).encode())
    check(st == 200, "kws infer after SIGHUP: %d %s" % (st, b[:200]))
    # With no traffic, the server's own timer unloads kws once idle past its 300 ms (polled,
    # bounded: the event is checked, not the time it took).
    deadline, state = time.time() + 30, ""
    while time.time() < deadline and state != "1":
        text = http(srv.base, "GET", "/metrics")[2].decode()
        m = re.search(r'arenaplan_model_state\{model="kws",state="unloaded"\} (\d)', text)
        state = m.group(1) if m else ""
        time.sleep(0.1)
    check(state == "1", "kws unloaded when idle")
    check(re.search(r"arenaplan serve: evict model=kws bytes=\d+ reason=idle", srv.stderr()),
          "idle eviction log line")
    # The classifier's options changed: registered again with them, and still the same bytes.
    check(good_classify(srv.base, img, cls_ref[0]), "classifier after SIGHUP changed it")
    after = classifier_cost(srv.base)
    check(after > before, "prepare: once costs more: %d, was %d" % (after, before))
    # SIGTERM while requests run: every answer that comes is a whole 200 (in-flight requests
    # drain); after it, new connections are refused.
    body, headers = binary_request("input", "UINT8", [1, 128, 128, 3], bytes(49152))
    answers, lock, go = [], threading.Lock(), threading.Event()

    def client():
        while True:
            try:
                st, hd, b = http(srv.base, "POST", "/v2/models/classifier/infer", body, headers)
            except (urllib.error.URLError, ConnectionError, OSError):
                return
            with lock:
                answers.append((st, len(b)))
            go.set()

    threads = [threading.Thread(target=client) for _ in range(4)]
    for t in threads:
        t.start()
    go.wait(30)
    rc, out, err = srv.stop()
    for t in threads:
        t.join()
    check(answers and all(a == answers[0] and a[0] == 200 for a in answers),
          "drained answers: %s" % sorted(set(answers)))
    check(rc == 0, "SIGTERM: exit %s" % rc)
    check("arenaplan serve: stopped" in out, "stopped line")
    check("SIGTERM: draining" in err and "reloaded" in err, "log lines: " + err[-400:])
    check(re.search(r"arenaplan serve: load model=classifier bytes=\d+ reason=demand resident=\d+ "
                    r"elapsed_ms=[\d.]+\n", err), "load log line")
    check(re.search(r"arenaplan serve: unload model=detector bytes=\d+ reason=explicit resident=",
                    err), "explicit unload log line")
    check(re.search(r"arenaplan serve: unload model=classifier bytes=\d+ reason=shutdown", err),
          "shutdown unload log line")


def main():
    if not shutil.which("curl"):
        print("FAIL: curl is not installed (scripts/setup.sh installs it)", file=sys.stderr)
        return 1
    for f in (MOBILENET, SSD, KWS):
        if not os.path.exists(f):
            print("FAIL: %s absent" % f, file=sys.stderr)
            return 1
    tmp = tempfile.mkdtemp(prefix="ap_serve_")
    try:
        rnd = random.Random(26)
        img = bytes(rnd.randrange(256) for _ in range(128 * 128 * 3))
        ssd_img = bytes(rnd.randrange(256) for _ in range(300 * 300 * 3))
        _, cls_ref = run_reference(tmp, MOBILENET, "cls", img)
        _, ssd_ref = run_reference(tmp, SSD, "ssd", ssd_img)
        check(len(cls_ref) == 1 and len(ssd_ref) == 4, "arenaplan run's outputs")
        cfg = os.path.join(tmp, "serve.yaml")
        with open(cfg, "w") as f:
            # Model paths relative to the configuration's folder.
            os.symlink(MOBILENET, os.path.join(tmp, "mobilenet.tflite"))
            f.write("port: 0\nbudget: 64M\nmax_body: 4M\nrequest_timeout: 30s\nmodels:\n"
                    "  - name: classifier\n    model: mobilenet.tflite\n    threads: 2\n"
                    "  - name: detector\n    model: %s\n" % SSD)
        srv = Server(cfg)
        try:
            classify_and_detect(tmp, srv.base, img, ssd_img, cls_ref, ssd_ref)
            concurrent(tmp, srv.base, rnd)
            errors(srv.base, img, cls_ref)
            repository_and_metrics(srv.base)
            reload_and_stop(tmp, srv, cfg, img, cls_ref)
        finally:
            if srv.p.poll() is None:
                srv.p.kill()
        busy_503(tmp, img, cls_ref)
        never_fits(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
