#!/usr/bin/env python3
"""The HTML memory map in a real browser: headless Chromium (Debian's `chromium`).

For three shared models: `arenaplan report MODEL --html F --json`; Chromium's --dump-dom of F
must hold exactly one <rect class="req" data-id=...> per request of the JSON, with the JSON's
name, bytes and lifetime; hovering (a mousemove dispatched by a probe script appended to a copy
of the page) must fill the tooltip with the tensor's name, bytes and lifetime; a screenshot must
not be blank: the PNG is decoded here (zlib + PNG row filters, stdlib only) and must show many
colours, among them the intermediate colour of the map.

Environment: AP_CLI, AP_SHARED. Exit 77 (skipped) without the shared folder or without
/usr/bin/chromium (scripts/setup.sh installs it).
"""
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

passed = failed = 0
CHROMIUM = "/usr/bin/chromium"
MODELS = ["hello_world_int8.tflite", "person_detect_int8.tflite", "nested_while.tflite"]
INTERMEDIATE = (0x59, 0xA1, 0x4F)


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + what, file=sys.stderr)


def chromium(args, profile):
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--no-first-run", "--user-data-dir=" + profile] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180)


class Rects(html.parser.HTMLParser):
    """Collects <rect class="req"> attributes and the tooltip's text."""

    def __init__(self):
        super().__init__()
        self.rects, self.tip, self._in_tip = [], "", False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "rect" and a.get("class") == "req" and "data-id" in a:
            self.rects.append(a)
        self._in_tip = tag == "div" and a.get("id") == "tip"

    def handle_endtag(self, tag):
        if tag == "div":
            self._in_tip = False

    def handle_data(self, data):
        if self._in_tip:
            self.tip += data


def png_pixels(data):
    """(width, height, rows of RGB tuples) of an 8-bit RGB or RGBA, non-interlaced PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    assert depth == 8 and ctype in (2, 6) and interlace == 0, "unexpected PNG format"
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, rows, off = zlib.decompress(idat), w * bpp, bytearray(w * bpp), [], 0
    for _ in range(h):
        ftype, line = raw[off], bytearray(raw[off + 1:off + 1 + stride])
        off += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


PROBE = """<script>
(function(){var r=document.querySelector('rect.req[data-id="%s"]');
var b=r.getBoundingClientRect();
r.dispatchEvent(new MouseEvent('mousemove',{bubbles:true,clientX:b.left+1,clientY:b.top+1}));
document.getElementById('tip').setAttribute('data-shown',
  document.getElementById('tip').style.display);})();
</script>"""


def one(model, cli, shared, tmp):
    path = os.path.join(shared, "models", model)
    page = os.path.join(tmp, model + ".html")
    out = subprocess.run([cli, "report", path, "--html", page, "--json"], capture_output=True,
                         text=True)
    check(out.returncode == 0, model + ": report exit " + str(out.returncode) + out.stderr)
    if out.returncode != 0:
        return
    report = json.loads(out.stdout)
    want = {str(r["id"]): r for r in report["requests"]}
    check(len(want) == report["requests_count"], model + ": request ids are unique")

    dom = chromium(["--dump-dom", "file://" + page], os.path.join(tmp, "p1"))
    check(dom.returncode == 0, model + ": chromium --dump-dom exit " + str(dom.returncode))
    parsed = Rects()
    parsed.feed(dom.stdout)
    check(len(parsed.rects) == len(want),
          "%s: %d rects in the rendered page, %d requests" % (model, len(parsed.rects), len(want)))
    for a in parsed.rects:
        r = want.get(a["data-id"])
        check(r is not None, model + ": rect for unknown request " + a["data-id"])
        if r is None:
            continue
        check(int(a["data-bytes"]) == r["bytes"] and int(a["data-first"]) == r["first"]
              and int(a["data-last"]) == r["last"] and int(a["data-offset"]) == r["offset"]
              and a["data-kind"] == r["kind"], model + ": rect " + a["data-id"] + " differs")
        if r["kind"] != "scratch":
            check(a["data-name"] == r["name"], model + ": name of rect " + a["data-id"])

    # Hover: the page's own script fills the tooltip.
    biggest = max(report["requests"], key=lambda r: r["bytes"])
    with open(page) as f:
        text = f.read()
    probe_page = os.path.join(tmp, model + ".probe.html")
    with open(probe_page, "w") as f:
        f.write(text.replace("</body>", PROBE % biggest["id"] + "</body>"))
    dom = chromium(["--dump-dom", "file://" + probe_page], os.path.join(tmp, "p2"))
    parsed = Rects()
    parsed.feed(dom.stdout)
    check('data-shown="block"' in dom.stdout, model + ": the tooltip is shown on hover")
    check(biggest["name"] in parsed.tip and "{:,}".format(biggest["bytes"]) in parsed.tip
          and "steps %d..%d" % (biggest["first"], biggest["last"]) in parsed.tip,
          model + ": tooltip text " + repr(parsed.tip))

    shot = os.path.join(tmp, model + ".png")
    res = chromium(["--screenshot=" + shot, "--window-size=1000,800", "file://" + page],
                   os.path.join(tmp, "p3"))
    check(res.returncode == 0 and os.path.exists(shot), model + ": screenshot taken")
    if not os.path.exists(shot):
        return
    with open(shot, "rb") as f:
        w, h, rows = png_pixels(f.read())
    colours = {px for row in rows for px in row}
    check(w == 1000 and h == 800, model + ": screenshot %dx%d" % (w, h))
    check(len(colours) > 20, model + ": %d colours: the page is blank" % len(colours))
    if any(r["kind"] == "intermediate" for r in report["requests"]):
        near = any(max(abs(p[k] - INTERMEDIATE[k]) for k in range(3)) <= 8 for p in colours)
        check(near, model + ": no pixel of the intermediate colour")


def main():
    shared = os.environ.get("AP_SHARED", "")
    cli = os.environ.get("AP_CLI", "")
    if not shared or not os.path.isdir(os.path.join(shared, "models")):
        print("skipped: the shared folder is absent")
        return 77
    if not os.path.exists(CHROMIUM):
        print("skipped: %s is absent (scripts/setup.sh installs Debian's chromium)" % CHROMIUM)
        return 77
    tmp = tempfile.mkdtemp(prefix="ap_test_html_")
    try:
        for model in MODELS:
            one(model, cli, shared, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
