#!/usr/bin/env python3
"""`arenaplan serve` against hostile connections (issue 26): slow clients that send one byte a
second (in the request line, in the headers, in the body; more of them than the server has
workers) are dropped at connection_timeout while a well-behaved client keeps being served,
every answer byte-equal to `arenaplan run`; clients that hang up mid-request (in the headers,
in the body, after the whole request without reading the answer, with a TCP reset) leave
nothing behind: no request in flight, the loaded model still loaded, its bytes unchanged, and
the server exits 0 on SIGTERM (under ASan: no leak). A client queued behind other connections'
inferences on its worker is not taken for a slow one: only the time its worker could have read
it counts toward connection_timeout. The ASan build runs it too.

Environment: AP_CLI (the arenaplan binary), AP_SHARED (the shared data folder).
"""
import http.client
import json
import os
import random
import re
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_serve_clients as v2  # noqa: E402  (its Server, http, run_reference, binary forms)

KWS = v2.KWS
TIMEOUT_S = 2  # connection_timeout in the configuration below


def kws_request(data):
    return v2.binary_request("input_1", "INT8", [1, 49, 10, 1], data,
                             {"outputs": [{"name": "Identity",
                                           "parameters": {"binary_data": True}}]})


def raw_request(port, body, headers):
    head = "POST /v2/models/kws/infer HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n" % (
        len(body))
    for k, v in headers.items():
        head += "%s: %s\r\n" % (k, v)
    return (head + "\r\n").encode() + body


def dropped(sock, limit_s):
    """Waits for the server to close `sock`: the seconds it took, or None if still open."""
    t0 = time.time()
    sock.settimeout(0.2)
    while time.time() - t0 < limit_s:
        try:
            if sock.recv(4096) == b"":
                return time.time() - t0
        except socket.timeout:
            continue
        except OSError:  # reset
            return time.time() - t0
    return None


class Slow(threading.Thread):
    """Sends `data` one byte a second from byte `start` on (the bytes before at once); records
    when the server closed the connection, and whether it got an answer."""

    def __init__(self, port, data, start):
        super().__init__()
        self.port, self.data, self.start_at = port, data, start
        self.closed_after = None
        self.sent = 0
        self.answer = b""

    def run(self):
        s = socket.create_connection(("127.0.0.1", self.port))
        t0 = time.time()
        try:
            s.sendall(self.data[:self.start_at])
            self.sent = self.start_at
            s.settimeout(1.0)
            for b in self.data[self.start_at:]:
                try:
                    got = s.recv(4096)
                    self.answer += got
                    if got == b"":
                        break
                except socket.timeout:
                    pass
                s.send(bytes([b]))
                self.sent += 1
                if time.time() - t0 > 60:  # a guard: the server should have dropped it long ago
                    break
        except OSError:
            pass
        self.closed_after = time.time() - t0
        s.close()


def slow_clients(srv, body, headers, want):
    req = raw_request(srv.port, body, headers)
    head_end = req.index(b"\r\n\r\n") + 4
    slow = [Slow(srv.port, req, 0),                 # from the first byte of the request line
            Slow(srv.port, req, 40),                # in the headers
            Slow(srv.port, req, head_end + 100),    # in the body
            Slow(srv.port, req, head_end + 100),
            Slow(srv.port, req, 0)]                 # 5 slow ones, the server has 2 workers
    for s in slow:
        s.start()
    # Meanwhile a good client is served, and gets the right bytes, over and over.
    good = bad = 0
    t0 = time.time()
    while any(s.is_alive() for s in slow) and time.time() - t0 < 90:
        st, hd, resp = v2.http(srv.base, "POST", "/v2/models/kws/infer", body, headers)
        if st == 200 and v2.split_binary(hd, resp)[1] == want:
            good += 1
        else:
            bad += 1
        time.sleep(0.05)
    for s in slow:
        s.join()
    print("slow clients dropped after %s s (connection_timeout %d s); %d good requests meanwhile"
          % (", ".join("%.1f" % (s.closed_after or -1) for s in slow), TIMEOUT_S, good))
    v2.check(bad == 0 and good >= 10,
             "a good client served while slow ones trickle: %d good, %d bad" % (good, bad))
    for i, s in enumerate(slow):
        # Each would need len(req) seconds to finish; the server cut it at the timeout (the
        # client notices at its next send, a second later at most).
        v2.check(s.sent < len(req) and not s.answer.startswith(b"HTTP/1.1 200"),
                 "slow client %d: sent %d of %d bytes, answer %r" % (i, s.sent, len(req),
                                                                     s.answer[:60]))
        v2.check(s.closed_after is not None and s.closed_after < TIMEOUT_S + 10,
                 "slow client %d dropped after %.1f s (connection_timeout %d s)" % (
                     i, s.closed_after or -1, TIMEOUT_S))
    # A client that connects and sends nothing: the same.
    s = socket.create_connection(("127.0.0.1", srv.port))
    after = dropped(s, TIMEOUT_S + 10)
    v2.check(after is not None, "a silent connection dropped (after %s s)" % after)
    s.close()


def hang_ups(srv, body, headers, want):
    req = raw_request(srv.port, body, headers)
    head_end = req.index(b"\r\n\r\n") + 4
    rnd = random.Random(7)
    cuts = [10, head_end - 2, head_end, head_end + 1, head_end + len(body) // 2, len(req) - 1]
    for round_ in range(3):
        for cut in cuts + [rnd.randrange(1, len(req)) for _ in range(10)]:
            for reset in (False, True):
                s = socket.create_connection(("127.0.0.1", srv.port))
                s.sendall(req[:cut])
                if reset:  # RST instead of FIN
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                s.close()
        # The whole request, then gone before the answer (the server writes to a closed peer).
        for _ in range(5):
            s = socket.create_connection(("127.0.0.1", srv.port))
            s.sendall(req)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.close()
        # Two requests pipelined, the connection closed after the first answer's first bytes.
        s = socket.create_connection(("127.0.0.1", srv.port))
        s.sendall(req + req)
        s.recv(10)
        s.close()
        st, hd, resp = v2.http(srv.base, "POST", "/v2/models/kws/infer", body, headers)
        v2.check(st == 200 and v2.split_binary(hd, resp)[1] == want,
                 "served after hang-ups (round %d): %d" % (round_, st))


def queued_clients(tmp):
    """One worker, connection_timeout 2 s. Connection B is accepted, then sends nothing while
    connection A keeps the worker busy with back-to-back inferences for 2.5 x the timeout
    (mobilenet_v2 on the reference kernels: half a second each, so the worker idles only in
    A's turn-arounds, a millisecond each). B's worker could not have read it: B must still be
    open, and be answered, byte-equal to `arenaplan run`. Then a silent connection on the idle
    worker is still dropped at the timeout."""
    timeout_s = 2
    model = os.path.join(v2.SHARED, "models", "mobilenet_v2_torch_int8.tflite")
    data = bytes(random.Random(29).randrange(256) for _ in range(3 * 224 * 224))
    want = v2.run_reference(tmp, model, "mnv2", data)[1]
    cfg = os.path.join(tmp, "queued.yaml")
    with open(cfg, "w") as f:
        f.write("port: 0\nbudget: 16M\nmax_body: 1M\nrequest_timeout: 5s\n"
                "connection_timeout: %ds\nworkers: 1\nmax_connections: 8\n"
                "models:\n  - name: mnv2\n    model: %s\n    kernels: reference\n"
                % (timeout_s, model))
    srv = v2.Server(cfg)
    try:
        body, headers = v2.binary_request("input.5", "INT8", [1, 3, 224, 224], data)
        b = socket.create_connection(("127.0.0.1", srv.port))
        time.sleep(0.2)  # accepted by the idle worker: its clock runs from here
        a = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=120)
        n = 0
        t0 = time.monotonic()
        while time.monotonic() - t0 < 2.5 * timeout_s:
            a.request("POST", "/v2/models/mnv2/infer", body, headers)
            r = a.getresponse()
            r.read()
            v2.check(r.status == 200, "A's request %d: %d" % (n, r.status))
            n += 1
        a.close()
        busy = time.monotonic() - t0
        # B, after 2.5 x connection_timeout of wall time on a busy worker: still served.
        head = ("POST /v2/models/mnv2/infer HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                "Content-Length: %d\r\nConnection: close\r\n" % len(body) +
                "".join("%s: %s\r\n" % kv for kv in headers.items()) + "\r\n").encode()
        answer = b""
        b.settimeout(120)
        try:
            b.sendall(head + body)
            while True:
                chunk = b.recv(65536)
                if not chunk:
                    break
                answer += chunk
        except OSError as e:
            answer += ("(error: %s)" % e).encode()
        b.close()
        print("queued connection after %.1f s of %d inferences on its worker: %r" % (
            busy, n, answer[:40]))
        ok = answer.startswith(b"HTTP/1.1 200") and b"\r\n\r\n" in answer
        if ok:
            hdr, payload = answer.split(b"\r\n\r\n", 1)
            hd = dict(line.split(": ", 1) for line in hdr.decode().split("\r\n")[1:])
            ok = v2.split_binary(hd, payload)[1] == want
        v2.check(ok, "a connection queued behind %d inferences (%.1f s, connection_timeout %d s)"
                 " served, byte-equal to arenaplan run: %r" % (n, busy, timeout_s, answer[:60]))
        text = v2.http(srv.base, "GET", "/metrics")[2].decode()
        v2.check(metric(text, "arenaplan_connections_dropped_total") == 0,
                 "no connection dropped on the busy worker: %s" %
                 metric(text, "arenaplan_connections_dropped_total"))
        # The worker idle again: a silent connection is charged and dropped.
        c = socket.create_connection(("127.0.0.1", srv.port))
        after = dropped(c, timeout_s + 10)
        c.close()
        v2.check(after is not None and after >= timeout_s - 0.5,
                 "a silent connection on the idle worker dropped after %s s (timeout %d s)" % (
                     after, timeout_s))
        v2.stop_clean(srv)
    finally:
        if srv.p.poll() is None:
            srv.p.kill()


def metric(text, name):
    m = re.search(r"^%s (\d+)" % re.escape(name), text, re.M)
    return int(m.group(1)) if m else None


def main():
    for f in (KWS, v2.CLI):
        if not os.path.exists(f):
            print("FAIL: %s absent" % f, file=sys.stderr)
            return 1
    tmp = tempfile.mkdtemp(prefix="ap_serve_conns_")
    srv = None
    try:
        rnd = random.Random(26)
        data = bytes(rnd.randrange(256) for _ in range(490))
        _, ref = v2.run_reference(tmp, KWS, "kws", data)
        cfg = os.path.join(tmp, "conns.yaml")
        with open(cfg, "w") as f:
            f.write("port: 0\nbudget: 4M\nmax_body: 64K\nrequest_timeout: 5s\n"
                    "connection_timeout: %ds\nworkers: 2\nmax_connections: 64\n"
                    "models:\n  - name: kws\n    model: %s\n    threads: 2\n" % (TIMEOUT_S, KWS))
        srv = v2.Server(cfg)
        body, headers = kws_request(data)
        st, hd, resp = v2.http(srv.base, "POST", "/v2/models/kws/infer", body, headers)
        v2.check(st == 200 and v2.split_binary(hd, resp)[1] == ref,
                 "kws over binary == arenaplan run: %d" % st)
        before = v2.http(srv.base, "GET", "/metrics")[2].decode()

        slow_clients(srv, body, headers, ref)
        # The five trickling clients and the silent one were cut by the server's sweep
        # (libmicrohttpd's own inactivity timeout is off).
        text = v2.http(srv.base, "GET", "/metrics")[2].decode()
        cut = metric(text, "arenaplan_connections_dropped_total")
        v2.check(cut == 6, "connections dropped: %s, expected 6" % cut)
        hang_ups(srv, body, headers, ref)

        # Nothing left behind: no request in flight, the model still loaded, the same bytes.
        # A request whose client hung up after sending it all still runs to its end (under
        # ASan on a loaded machine, after hang_ups returned): wait for the server to settle,
        # at most 20 s, then check.
        deadline = time.monotonic() + 20
        while True:
            after = v2.http(srv.base, "GET", "/metrics")[2].decode()
            settled = (metric(after, "arenaplan_in_flight_requests") == 0 and
                       re.search(r'^arenaplan_model_state\{model="kws",state="ready"\} 1', after,
                                 re.M))
            if settled or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        v2.check(metric(after, "arenaplan_in_flight_requests") == 0,
                 "in flight: %s" % metric(after, "arenaplan_in_flight_requests"))
        # Its bytes: as before, or one more interpreter (threads: 2, and hung-up requests ran
        # at once), never less; never unloaded, none left acquired.
        r = subprocess.run([v2.CLI, "serve", "--check", "--json", cfg], stdout=subprocess.PIPE,
                           text=True)
        interp = json.loads(r.stdout)["models"][0]["interpreter"] if r.returncode == 0 else -1
        was, now = (metric(before, "arenaplan_resident_bytes"),
                    metric(after, "arenaplan_resident_bytes"))
        v2.check(now in (was, was + interp), "resident bytes %s, were %s (an interpreter %d)" % (
            now, was, interp))
        v2.check(metric(after, "arenaplan_pool_loads_total") ==
                 metric(before, "arenaplan_pool_loads_total") and
                 metric(after, "arenaplan_pool_unloads_total") == 0, "kws never unloaded")
        v2.check(re.search(r'^arenaplan_model_state\{model="kws",state="ready"\} 1', after,
                           re.M), "kws loaded, no interpreter left acquired")
        st, _, _ = v2.http(srv.base, "GET", "/v2/models/kws/ready")
        v2.check(st == 200, "kws ready: %d" % st)
        v2.stop_clean(srv)
        queued_clients(tmp)
    finally:
        if srv and srv.p.poll() is None:
            srv.p.kill()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (v2.passed, v2.failed))
    return 1 if v2.failed else 0


if __name__ == "__main__":
    sys.exit(main())
