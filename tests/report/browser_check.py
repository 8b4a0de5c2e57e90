#!/usr/bin/env python3
"""Opens a dpusim report in headless Chromium and fails unless it renders whole, offline and cleanly.

Drives the browser over the DevTools protocol (--remote-debugging-pipe, the standard library only):
loads the page from its file, then fails (exit 1, naming each problem) on
  - a console error, an uncaught exception or a browser log entry of level error;
  - any request that is not to a file: or data: address (the page must open offline);
  - a figure missing, or one whose SVG is not laid out (no width or height);
  - a mark missing or empty: the marks are worked out here from the CSVs themselves (a bar for every
    cause of every variant's step that is not zero, a bar per variant for the cores by use and the
    speed-up, a CDF line with its p50 and p99 per variant and kind (steps, launches) of distribution.csv, a bar per function move
    and kind in attribution.csv that changes the step, a line and a scatter per variant of a plan's
    points.csv with feasible points and the Pareto front), plus every mark the
    renderer's data.json lists; each must be an element of the figure's SVG with a non-empty box;
  - a variant's name missing from the text of a figure that draws it.
Then it takes a screenshot of the whole page (--screenshot) and fails when the image is blank.
"""

import argparse
import base64
import csv
import io
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

NEGLIGIBLE = 1e-9  # as tools/report/render.py: smaller segments are not drawn


class Browser:
    def __init__(self, binary, timeout):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="dpusim-browser-")
        to_r, self._to_w = os.pipe()
        self._from_r, from_w = os.pipe()
        # Chromium reads commands on fd 3 and writes replies on fd 4.
        hi_r, hi_w = os.dup(to_r), os.dup(from_w)

        def fds():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [binary, "--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--remote-debugging-pipe", f"--user-data-dir={self.profile}",
                "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1280,900"]
        if os.geteuid() == 0:
            args.append("--no-sandbox")  # Chromium's sandbox refuses to run as root
        self.proc = subprocess.Popen(args, preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        for fd in (to_r, from_w, hi_r, hi_w):
            os.close(fd)
        self.messages = queue.Queue()
        self.events = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        buf = b""
        while True:
            chunk = os.read(self._from_r, 1 << 16)
            if not chunk:
                self.messages.put(None)
                return
            buf += chunk
            while b"\0" in buf:
                msg, buf = buf.split(b"\0", 1)
                self.messages.put(json.loads(msg))

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            m = self.messages.get(timeout=max(0.1, deadline - time.monotonic()))
            if m is None:
                raise RuntimeError("the browser closed its pipe")
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_for(self, method):
        deadline = time.monotonic() + self.timeout
        for e in self.events:
            if e.get("method") == method:
                return
        while True:
            m = self.messages.get(timeout=max(0.1, deadline - time.monotonic()))
            if m is None:
                raise RuntimeError("the browser closed its pipe")
            self.events.append(m)
            if m.get("method") == method:
                return

    def close(self):
        try:
            self.send("Browser.close")
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        shutil.rmtree(self.profile, ignore_errors=True)


def rows(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def expected_marks(table, distribution, attribution=(), points=()):
    """The marks a report of these CSVs must hold, from the CSVs alone."""
    want = {}
    plan_variants = list(dict.fromkeys(r["variant"] for r in points))
    feasible = [plan_variants.index(r["variant"]) for r in points if r["feasible"] == "true"]
    if feasible:
        want["plan-time-to-train"] = [f"plan-time-to-train-v{i}" for i in sorted(set(feasible))]
        want["plan-pareto"] = [f"plan-pareto-v{i}" for i in sorted(set(feasible))] + ["plan-pareto-front"]
    moves = [r for r in attribution if r["function"] != "all"]
    if moves:
        want["attribution"] = [f"attribution-r{i}-{k}" for i, r in enumerate(moves) for k in ("alone", "last")
                               if r[f"{k}_change_s"] != "" and abs(float(r[f"{k}_change_s"])) > NEGLIGIBLE]
    if table:
        marks = []
        for i, r in enumerate(table):
            f = {k: float(r[k]) for k in ("compute_s", "data_stall_s", "checkpoint_overhead_s", "tp_comm_s")}
            marks.append(f"step-breakdown-v{i}-compute" if f["compute_s"] > NEGLIGIBLE else None)
            if f["data_stall_s"] > NEGLIGIBLE:
                marks.append(f"step-breakdown-v{i}-data")
            if f["tp_comm_s"] > NEGLIGIBLE:
                marks.append(f"step-breakdown-v{i}-tp")
            if f["checkpoint_overhead_s"] > NEGLIGIBLE:
                marks.append(f"step-breakdown-v{i}-checkpoint")
        want["step-breakdown"] = [m for m in marks if m]
        cores = []
        for i, r in enumerate(table):
            for key, value in r.items():
                if key.startswith("host_cores_") and float(value) > NEGLIGIBLE:
                    cores.append(f"cores-by-function-host-v{i}-{key[len('host_cores_'):]}")
                if key.startswith("arm_cores_") and float(value) > NEGLIGIBLE:
                    cores.append(f"cores-by-function-arm-v{i}-{key[len('arm_cores_'):]}")
        want["cores-by-function"] = cores
        if len(table) > 1:
            want["speedup"] = [f"speedup-v{i}" for i in range(len(table))]
    if distribution:
        # A panel per variant: the steps of launch 0 (solid) and the launches (dashed), where drawn.
        marks = []
        for i, v in enumerate(dict.fromkeys(r["variant"] for r in distribution)):
            for r in distribution:
                if r["variant"] != v or (r["over"] == "steps" and r["launch"] != "0"):
                    continue
                prefix = "launches-" if r["over"] == "launches" else ""
                marks += [f"step-distribution-v{i}-{prefix}{k}" for k in ("cdf", "p50", "p99")]
        want["step-distribution"] = marks
    return want


PROBE = """(() => {
  const out = {};
  for (const fig of document.querySelectorAll('figure[data-figure]')) {
    const svg = fig.querySelector('svg');
    const box = svg ? svg.getBoundingClientRect() : {width: 0, height: 0};
    const marks = {};
    if (svg)
      for (const el of svg.querySelectorAll('g[id]')) {
        const shape = el.querySelector('path, rect, use, polyline, line');
        if (!shape) continue;
        const b = shape.getBBox();
        marks[el.id] = {w: b.width, h: b.height};
      }
    out[fig.dataset.figure] = {svg: !!svg, width: box.width, height: box.height, marks,
                               text: svg ? Array.from(svg.querySelectorAll('text')).map(t => t.textContent) : []};
  }
  return JSON.stringify({figures: out, height: document.documentElement.scrollHeight,
                         title: document.title});
})()"""


def check(args):
    problems = []
    table = rows(args.csv) if args.csv else []
    distribution = rows(args.distribution) if args.distribution else []
    with open(args.data, encoding="utf-8") as f:
        data = json.load(f)
    points = rows(args.points) if args.points else []
    want = expected_marks(table, distribution, rows(args.attribution) if args.attribution else [], points)
    for fig in data["figures"]:
        want.setdefault(fig["id"], [])
        want[fig["id"]] = sorted(set(want[fig["id"]]) | set(fig["marks"]))
    browser = Browser(args.chromium, args.timeout)
    try:
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Runtime", "Log", "Network", "Page"):
            browser.send(f"{domain}.enable", session=session)
        browser.send("Page.navigate", {"url": "file://" + os.path.abspath(args.html)}, session=session)
        browser.wait_for("Page.loadEventFired")
        time.sleep(0.3)  # late console messages
        probe = browser.send("Runtime.evaluate", {"expression": PROBE, "returnByValue": True}, session=session)
        page = json.loads(probe["result"]["value"])
        browser.send("Emulation.setDeviceMetricsOverride",
                     {"width": 1280, "height": min(int(page["height"]), 16000), "deviceScaleFactor": 1,
                      "mobile": False}, session=session)
        shot = browser.send("Page.captureScreenshot", {"format": "png"}, session=session)
        png = base64.b64decode(shot["data"])
        for e in browser.events:
            method, p = e.get("method"), e.get("params", {})
            if method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                problems.append("console error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                             for a in p.get("args", [])))
            elif method == "Runtime.exceptionThrown":
                problems.append("uncaught exception: " + p.get("exceptionDetails", {}).get("text", ""))
            elif method == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                problems.append("browser error: " + p["entry"].get("text", ""))
            elif method == "Network.requestWillBeSent":
                url = p.get("request", {}).get("url", "")
                if not url.startswith(("file:", "data:", "about:")):
                    problems.append(f"fetched {url} (the report must open offline)")
    finally:
        browser.close()
    figures = page["figures"]
    for fid, marks in want.items():
        got = figures.get(fid)
        if got is None:
            problems.append(f"figure {fid} is missing")
            continue
        if not got["svg"] or got["width"] < 50 or got["height"] < 50:
            problems.append(f"figure {fid} has no SVG laid out ({got['width']:.0f} x {got['height']:.0f} px)")
            continue
        if not marks:
            problems.append(f"figure {fid} has no marks to check")
        for m in marks:
            box = got["marks"].get(m)
            if box is None:
                problems.append(f"figure {fid}: mark {m} is missing")
            elif box["w"] <= 0 and box["h"] <= 0:
                problems.append(f"figure {fid}: mark {m} is empty")
        if fid.startswith("plan-"):
            names = list(dict.fromkeys(r["variant"] for r in points if r["feasible"] == "true"))
        elif fid == "attribution":
            names = sorted({r["variant"] for r in rows(args.attribution) if r["function"] != "all"})
        else:
            names = list(dict.fromkeys(r["variant"] for r in (distribution if fid == "step-distribution" else table)))
        text = " ".join(got["text"])
        for n in names:
            if n not in text:
                problems.append(f"figure {fid}: variant {n} is not named")
    for fid in figures:
        if fid not in want:
            problems.append(f"figure {fid} is on the page but not in {args.data}")
    os.makedirs(os.path.dirname(os.path.abspath(args.screenshot)), exist_ok=True)
    with open(args.screenshot, "wb") as f:
        f.write(png)
    try:
        import matplotlib.image

        pixels = matplotlib.image.imread(io.BytesIO(png), format="png")
        ink = (pixels[..., :3].min(axis=2) < 0.9).mean()
        if ink < 0.01:
            problems.append(f"the screenshot {args.screenshot} is blank ({ink:.2%} of it drawn)")
    except ImportError:
        if len(png) < 20000:
            problems.append(f"the screenshot {args.screenshot} is suspiciously small ({len(png)} bytes)")
    for p in problems:
        print(f"browser check: {args.html}: {p}", file=sys.stderr)
    if not problems:
        n = sum(len(v) for v in want.values())
        print(f"browser check: {args.html}: {len(want)} figures, {n} marks, no console errors, offline; "
              f"screenshot {args.screenshot}")
    return 1 if problems else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--html", required=True)
    ap.add_argument("--data", required=True, help="the renderer's data.json")
    ap.add_argument("--csv", help="comparison.csv or run.csv")
    ap.add_argument("--distribution", help="distribution.csv")
    ap.add_argument("--attribution", help="attribution.csv")
    ap.add_argument("--points", help="a plan's points.csv")
    ap.add_argument("--screenshot", required=True)
    ap.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    ap.add_argument("--timeout", type=float, default=60)
    return check(ap.parse_args())


if __name__ == "__main__":
    sys.exit(main())
