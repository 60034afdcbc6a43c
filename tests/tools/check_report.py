#!/usr/bin/env python3
"""Checks an HTML report of `pisa-char report`:
  static: no external URL (http:, https:, protocol-relative), no src= or
    href= outside data: and #anchors, no script, link, import or iframe;
    every <svg> is well-formed XML and every plot has data marks;
  render (with --chromium): two headless Chromium launches. The first dumps
    the DOM of a copy with a measuring script added (the report itself has
    none): the page box and the data marks of every plot that is laid out
    (a plot in a closed <details> fold is not, until the reader opens it:
    it is checked statically only, and counted as folded). The second takes
    a screenshot of the report itself, which must have the size asked for;
    every plot above the per-application sections must show coloured
    pixels (its data marks) inside its box. Nothing may stick out: the page
    no wider than the window, no text of a plot outside the plot's box.
    Console messages of either launch are errors.
  budgets: --max-bytes (the file) and --max-load-seconds (the first
    launch: load, layout and measuring, wall time of the whole launch).
Usage: check_report.py REPORT.html [--chromium PATH] [--min-plots N]
                       [--max-bytes N] [--max-load-seconds S]
Prints "report ok: ..." and exits 0, or prints the problems and exits 1."""
import argparse
import html as htmllib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
import zlib

SCREENSHOT_WIDTH = 1300
SCREENSHOT_MAX_HEIGHT = 16000
SCALE = 0.5  # device pixels per CSS pixel of the screenshot
MIN_INK = 40  # coloured pixels a plot needs in the screenshot


def static_checks(text):
    problems = []
    for m in re.finditer(r"https?:|[\"'(=]\s*//", text):
        problems.append("external URL at offset %d: %r" %
                        (m.start(), text[m.start():m.start() + 40]))
    for m in re.finditer(r"\b(src|href|xlink:href)\s*=\s*[\"']?([^\"' >]*)",
                         text, re.I):
        if not (m.group(2).startswith("data:") or
                (m.group(1).lower() != "src" and m.group(2).startswith("#"))):
            problems.append("reference outside the file: %s" % m.group(0))
    for tag in (r"<script", r"<link", r"@import", r"<iframe", r"<object",
                r"<embed", r"url\((?!#|data:)"):
        if re.search(tag, text, re.I):
            problems.append("forbidden construct %s" % tag)
    svgs = re.findall(r"<svg\b.*?</svg>", text, re.S)
    plots = 0
    for i, svg in enumerate(svgs):
        try:
            root = ET.fromstring(svg)
        except ET.ParseError as e:
            problems.append("svg %d is not well-formed XML: %s" % (i, e))
            continue
        if "plot" in root.get("class", "").split():
            plots += 1
            marks = [e for e in root.iter()
                     if "mark" in e.get("class", "").split()]
            if not marks:
                problems.append("svg %d (%s) has no data marks" %
                                (i, root.findtext("title")))
    return plots, problems


MEASURE = """
<script>
(function () {
  var out = {width: document.documentElement.scrollWidth,
             height: document.documentElement.scrollHeight,
             window: window.innerWidth, plots: []};
  out.folded = 0;
  document.querySelectorAll("svg.plot").forEach(function (svg) {
    if (svg.closest("details:not([open])")) { out.folded++; return; }
    var box = svg.getBoundingClientRect(), view = svg.viewBox.baseVal;
    var marks = 0, inside = 0;
    svg.querySelectorAll(".mark").forEach(function (m) {
      var b = m.getBBox();
      if (b.width > 0 || b.height > 0) marks++;
      if (b.x + b.width >= 0 && b.y + b.height >= 0 &&
          b.x <= view.width && b.y <= view.height) inside++;
    });
    var clipped = 0;
    svg.querySelectorAll("text").forEach(function (t) {
      var b = t.getBoundingClientRect();  /* after rotation */
      if (b.left < box.left - 1 || b.top < box.top - 1 ||
          b.right > box.right + 1 || b.bottom > box.bottom + 1) clipped++;
    });
    out.plots.push({title: svg.querySelector("title").textContent,
                    clipped: clipped,
                    x: box.left + window.scrollX, y: box.top + window.scrollY,
                    w: box.width, h: box.height, marks: marks,
                    inside: inside, per_app: !!svg.closest(".pair")});
  });
  var pre = document.createElement("pre");
  pre.id = "pisa-geometry";
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>
"""


def chromium(binary, args, url, timeout):
    cmd = [binary, "--headless", "--no-sandbox", "--disable-gpu",
           "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
           "--no-first-run", "--disable-extensions"] + args + [url]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    console = [l for l in r.stderr.splitlines() if ":CONSOLE" in l]
    return r, console


def read_png(path, max_rows):
    """Rows of RGB pixels (bytes, 3 per pixel) of an 8-bit RGB(A) PNG."""
    data = open(path, "rb").read()
    pos, idat = 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        chunk = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = \
                struct.unpack(">IIBBBBB", chunk)
            assert depth == 8 and ctype in (2, 6) and not interlace
        elif kind == b"IDAT":
            idat.append(chunk)
        pos += 12 + length
    raw = zlib.decompress(b"".join(idat))
    bpp = 3 if ctype == 2 else 4
    stride = width * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(min(height, max_rows)):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                line[i] = (line[i] + line[i - bpp]) & 255
        elif f == 2:
            line = bytearray((a + b) & 255 for a, b in zip(line, prev))
        elif f == 3:
            for i in range(stride):
                left = line[i - bpp] if i >= bpp else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = line[i - bpp] if i >= bpp else 0
                b, c = prev[i], prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 255
        prev = line
        rows.append(bytes(line) if bpp == 3 else
                    bytes(v for i, v in enumerate(line) if i % 4 != 3))
    return width, rows


def ink(rows, width, box):
    """Coloured pixels (the palette's hues, not the grey axes and text) in
    a box of CSS pixels."""
    x0, y0 = max(0, int(box["x"] * SCALE)), max(0, int(box["y"] * SCALE))
    x1 = min(width, int((box["x"] + box["w"]) * SCALE))
    y1 = min(len(rows), int((box["y"] + box["h"]) * SCALE))
    count = 0
    for y in range(y0, y1):
        row = rows[y]
        for x in range(x0, x1):
            r, g, b = row[3 * x], row[3 * x + 1], row[3 * x + 2]
            if max(r, g, b) - min(r, g, b) > 60:
                count += 1
    return count


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24])


def render_checks(path, binary, max_load_seconds):
    problems = []
    # A launch may take as long as the load budget allows (120 s without).
    timeout = max(max_load_seconds or 0, 120)
    text = open(path, encoding="utf-8").read()
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "measure.html")
        with open(copy, "w", encoding="utf-8") as f:
            f.write(text.replace("</body>", MEASURE + "</body>"))
        start = time.monotonic()
        r, console = chromium(binary, ["--dump-dom",
                                       "--window-size=%d,1000" %
                                       SCREENSHOT_WIDTH],
                              "file://" + copy, timeout)
        seconds = time.monotonic() - start
        if max_load_seconds and seconds > max_load_seconds:
            problems.append("loading took %.1f s, budget %g s" %
                            (seconds, max_load_seconds))
        problems += ["console (measuring copy): " + l for l in console
                     if "pisa-geometry" not in l]
        m = re.search(r'<pre id="pisa-geometry">(.*?)</pre>', r.stdout, re.S)
        if not m:
            return 0, 0, problems + [
                "no geometry from chromium (status %d): %s" %
                (r.returncode, r.stderr[-500:])]
        geometry = json.loads(htmllib.unescape(m.group(1)))
        if geometry["width"] > geometry["window"]:
            problems.append("the page is %d px wide in a %d px window" %
                            (geometry["width"], geometry["window"]))
        for p in geometry["plots"]:
            if p["clipped"]:
                problems.append("plot %r: %d texts outside its box" %
                                (p["title"], p["clipped"]))
            if p["w"] <= 0 or p["h"] <= 0 or p["marks"] == 0 or \
                    p["inside"] == 0:
                problems.append("plot %r renders empty: %s" % (p["title"], p))
        # Down to the last plot above the per-application sections (their
        # plots are of the same kinds), at half scale: a quarter of the
        # pixels to decode.
        summary = [p["y"] + p["h"] for p in geometry["plots"]
                   if not p["per_app"]]
        height = min(int(max(summary, default=1000)) + 20,
                     SCREENSHOT_MAX_HEIGHT)
        height += height % 2  # whole device pixels at SCALE 0.5
        shot = os.path.join(tmp, "shot.png")
        r, console = chromium(binary, ["--screenshot=" + shot,
                                       "--force-device-scale-factor=%g" %
                                       SCALE,
                                       "--window-size=%d,%d" %
                                       (SCREENSHOT_WIDTH, height)],
                              "file://" + os.path.abspath(path), timeout)
        problems += ["console: " + l for l in console]
        if not os.path.exists(shot):
            return 0, geometry["folded"], problems + [
                "no screenshot: " + r.stderr[-500:]]
        want = (int(SCREENSHOT_WIDTH * SCALE), int(height * SCALE))
        if png_size(shot) != want:
            problems.append("screenshot is %s, expected %s" %
                            (png_size(shot), want))
        shown = [p for p in geometry["plots"]
                 if p["y"] + p["h"] <= height and p["y"] >= 0]
        missing = [p["title"] for p in geometry["plots"]
                   if not p["per_app"] and p not in shown]
        if missing:
            problems.append("summary plots below the screenshot: %s" %
                            missing)
        last = max((p["y"] + p["h"] for p in shown), default=0)
        width, rows = read_png(shot, int(last * SCALE) + 1)
        for p in shown:
            n = ink(rows, width, p)
            if n < MIN_INK:
                problems.append("plot %r shows %d coloured pixels in the "
                                "screenshot" % (p["title"], n))
        return len(shown), geometry["folded"], problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("report")
    ap.add_argument("--chromium")
    ap.add_argument("--min-plots", type=int, default=1)
    ap.add_argument("--max-bytes", type=int, default=0)
    ap.add_argument("--max-load-seconds", type=float, default=0)
    a = ap.parse_args()
    text = open(a.report, encoding="utf-8").read()
    plots, problems = static_checks(text)
    size = os.path.getsize(a.report)
    if a.max_bytes and size > a.max_bytes:
        problems.append("the report is %d bytes, budget %d" %
                        (size, a.max_bytes))
    if plots < a.min_plots:
        problems.append("%d plots, expected at least %d" %
                        (plots, a.min_plots))
    shown = folded = None
    if a.chromium and not shutil.which(a.chromium):
        problems.append("%s not found: install Debian's chromium "
                        "(scripts/setup.sh does)" % a.chromium)
    elif a.chromium and not problems:
        shown, folded, more = render_checks(a.report, a.chromium,
                                            a.max_load_seconds)
        problems += more
    for p in problems:
        print("check_report: " + p)
    if problems:
        return 1
    print("report ok: %d plots%s, %d bytes" % (
        plots, "" if shown is None else
        ", %d checked in the screenshot, %d folded" % (shown, folded), size))
    return 0


if __name__ == "__main__":
    sys.exit(main())
