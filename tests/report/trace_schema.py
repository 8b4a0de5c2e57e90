#!/usr/bin/env python3
"""Checks every event of a dpusim trace (Chrome trace-event JSON, as Perfetto reads it).

Runs `dpusim run SCENARIO --trace` for each variant given and checks the file: the top level; every
event's phase, name, pid, tid, ts and dur; metadata naming every process and track; counters
(non-negative, finite); flow arrows (each id one start and one end, the end not before the start,
each bound to a slice on its track, joining two tracks); no slice past the step's end; that the busy-host-cores
counter integrates to run.csv's host_cpu_busy_cores over the step (within 1%); and, against the
`--links` CSV of the same run, the "fabric" process: at most 32 link counters, each a nic_port or fabric
link among the 32 busiest of them, integrating to the link's mean_utilisation x the step (within 1%; the
scenarios checked reuse no collective across nodes, whose bytes the CSV has and the counters not). Then
it breaks copies of the events and fails unless the check finds each break, so that it can fail.
"""

import argparse
import bisect
import copy
import csv
import json
import math
import os
import subprocess
import sys
import tempfile

PHASES = {"X", "M", "C", "s", "f"}
METADATA = {"process_name", "thread_name", "process_sort_index", "thread_sort_index"}
MAX_FABRIC_LINKS = 32


def finite(x, low=0.0):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= low


def check_fabric(counters, process_names, links, step_s):
    """The fabric process's link counters against the links CSV's rows (dicts, hottest first)."""
    problems = []
    fabric_pids = [pid for pid, name in process_names.items() if name == "fabric"]
    fabric_rows = [r for r in links if r["kind"] in ("nic_port", "fabric")]
    if not fabric_rows:
        return [f"{len(fabric_pids)} fabric processes without fabric links"] if fabric_pids else []
    if len(fabric_pids) != 1:
        return [f"{len(fabric_pids)} fabric processes (one expected: links.csv has fabric links)"]
    series = {name: sorted(v) for (pid, name), v in counters.items() if pid == fabric_pids[0]}
    if not series or len(series) > MAX_FABRIC_LINKS:
        problems.append(f"{len(series)} link counters in the fabric process (1 to {MAX_FABRIC_LINKS})")
    busiest = {r["link"]: r for r in fabric_rows[:MAX_FABRIC_LINKS]}
    for name, points in sorted(series.items()):
        row = busiest.get(name)
        if row is None:
            problems.append(f"fabric counter {name!r} is not one of the busiest fabric links of links.csv")
            continue
        if points[-1][1] != 0:
            problems.append(f"fabric counter {name!r} does not return to 0")
        area = sum(v * (points[k + 1][0] - t) for k, (t, v) in enumerate(points[:-1])) / 1e6
        want = float(row["mean_utilisation"]) * step_s
        if not math.isclose(area, want, rel_tol=0.01, abs_tol=1e-9):
            problems.append(f"fabric counter {name!r} integrates to {area:.6g} s, links.csv says "
                            f"{want:.6g} (mean_utilisation x step)")
    return problems


def check(trace, step_s=None, busy_cores=None, links=None):
    problems = []
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        return ["the top level is not an object with a traceEvents list"]
    if trace.get("displayTimeUnit") not in ("ms", "ns"):
        problems.append(f"displayTimeUnit is {trace.get('displayTimeUnit')!r}")
    slices = {}  # (pid, tid) -> sorted [(start, end)]
    named_tracks, named_pids, pids, flows = set(), set(), set(), {}
    process_names = {}
    counters = {}
    for i, e in enumerate(trace["traceEvents"]):
        where = f"event {i} ({json.dumps(e)[:100]})"
        if not isinstance(e, dict):
            problems.append(f"{where}: not an object")
            continue
        ph = e.get("ph")
        if ph not in PHASES:
            problems.append(f"{where}: phase {ph!r} is not one of {sorted(PHASES)}")
            continue
        if not isinstance(e.get("name"), str) or not e["name"]:
            problems.append(f"{where}: no name")
        if not isinstance(e.get("pid"), int) or e["pid"] < 0:
            problems.append(f"{where}: pid {e.get('pid')!r}")
            continue
        pids.add(e["pid"])
        needs_tid = ph in ("X", "s", "f") or e.get("name") in ("thread_name", "thread_sort_index")
        if needs_tid and (not isinstance(e.get("tid"), int) or e["tid"] < 0):
            problems.append(f"{where}: tid {e.get('tid')!r}")
            continue
        if ph != "M" and not finite(e.get("ts")):
            problems.append(f"{where}: ts {e.get('ts')!r}")
            continue
        if ph == "X":
            if not finite(e.get("dur")):
                problems.append(f"{where}: dur {e.get('dur')!r}")
                continue
            if not isinstance(e.get("cat"), str) or not isinstance(e.get("args"), dict):
                problems.append(f"{where}: no cat or args")
            slices.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"]))
        elif ph == "M":
            name, args = e.get("name"), e.get("args")
            if name not in METADATA or not isinstance(args, dict):
                problems.append(f"{where}: metadata {name!r}")
            elif name.endswith("_name") and (not isinstance(args.get("name"), str) or not args["name"]):
                problems.append(f"{where}: no name in args")
            elif name.endswith("_sort_index") and not isinstance(args.get("sort_index"), int):
                problems.append(f"{where}: no sort_index in args")
            elif name == "thread_name":
                named_tracks.add((e["pid"], e["tid"]))
            elif name == "process_name":
                named_pids.add(e["pid"])
                process_names[e["pid"]] = args["name"]
        elif ph == "C":
            args = e.get("args")
            if not isinstance(args, dict) or not args or not all(finite(v) for v in args.values()):
                problems.append(f"{where}: counter values {args!r}")
                continue
            counters.setdefault((e["pid"], e["name"]), []).append((e["ts"], sum(args.values())))
        else:
            if not isinstance(e.get("id"), int) or not isinstance(e.get("cat"), str):
                problems.append(f"{where}: flow without an integer id or a cat")
                continue
            if ph == "f" and e.get("bp") != "e":
                problems.append(f"{where}: a flow's end must bind to its enclosing slice (bp e)")
            flows.setdefault(e["id"], []).append(e)
    for track in sorted(slices):
        slices[track].sort()
        if track not in named_tracks:
            problems.append(f"track {track} has slices but no thread_name")
    for pid in sorted(pids - named_pids):
        problems.append(f"pid {pid} has no process_name")

    def bound(e):
        spans = slices.get((e["pid"], e["tid"]), [])
        k = bisect.bisect_right(spans, (e["ts"], math.inf))
        return any(s <= e["ts"] <= end for s, end in spans[max(0, k - 64):k])

    for fid, ends in sorted(flows.items()):
        starts = [e for e in ends if e["ph"] == "s"]
        finishes = [e for e in ends if e["ph"] == "f"]
        if len(starts) != 1 or len(finishes) != 1:
            problems.append(f"flow {fid}: {len(starts)} starts and {len(finishes)} ends (one of each)")
            continue
        if finishes[0]["ts"] < starts[0]["ts"]:
            problems.append(f"flow {fid} ends before it starts")
        if (finishes[0]["pid"], finishes[0]["tid"]) == (starts[0]["pid"], starts[0]["tid"]):
            problems.append(f"flow {fid} joins a track to itself (it must join two members)")
        for e in ends:
            if not bound(e):
                problems.append(f"flow {fid}: its {e['ph']} at {e['ts']} us is on no slice of track "
                                f"({e['pid']}, {e['tid']})")
    if step_s is not None:
        last = max((end for spans in slices.values() for _, end in spans), default=0)
        if last > step_s * 1e6 + 1:
            problems.append(f"a slice ends at {last:.0f} us, after the step ({step_s * 1e6:.0f} us)")
    if busy_cores is not None and step_s:
        series = [v for (pid, name), v in counters.items() if name == "busy host cores per node"]
        if len(series) != 1:
            problems.append(f"{len(series)} busy-host-cores counters (one expected)")
        else:
            points = sorted(series[0])
            area = sum(v * (points[k + 1][0] - t) for k, (t, v) in enumerate(points[:-1])) / 1e6
            want = busy_cores * step_s
            if points[-1][1] != 0:
                problems.append("the busy-host-cores counter does not return to 0")
            if not math.isclose(area, want, rel_tol=0.01, abs_tol=1e-6):
                problems.append(f"the busy-host-cores counter integrates to {area:.6g} core-s per node, "
                                f"run.csv says {want:.6g}")
    if links is not None and step_s:
        problems += check_fabric(counters, process_names, links, step_s)
    return problems


def breaks(trace):
    """Copies of the trace with one break each, and what the check must say about it."""
    events = trace["traceEvents"]

    def first(ph):
        return next(i for i, e in enumerate(events) if e.get("ph") == ph)

    def broken(edit):
        t = copy.deepcopy(trace)
        edit(t["traceEvents"])
        return t

    yield "a flow's end removed", "1 starts and 0 ends", broken(lambda ev: ev.pop(first("f")))
    yield "a negative duration", "dur -1", broken(lambda ev: ev[first("X")].__setitem__("dur", -1))
    yield "an unknown phase", "phase 'B'", broken(lambda ev: ev[first("X")].__setitem__("ph", "B"))
    yield "a track's name removed", "no thread_name", broken(
        lambda ev: ev.pop(next(i for i, e in enumerate(ev) if e.get("name") == "thread_name")))
    yield "a counter made negative", "counter values", broken(
        lambda ev: ev[first("C")]["args"].update({k: -1 for k in ev[first("C")]["args"]}))
    yield "a flow's end moved to its start's track", "joins a track to itself", broken(
        lambda ev: ev[first("f")].update({"pid": ev[first("s")]["pid"], "tid": ev[first("s")]["tid"]}))
    yield "a flow moved off its slices", "is on no slice", broken(
        lambda ev: ev[first("s")].__setitem__("ts", ev[first("s")]["ts"] + 1e12))
    fabric = next((e["pid"] for e in events if e.get("name") == "process_name"
                   and e.get("args", {}).get("name") == "fabric"), None)
    if fabric is not None:
        def link_counter(ev):
            return next(i for i, e in enumerate(ev) if e.get("ph") == "C" and e["pid"] == fabric)

        def rename(ev):
            name = ev[link_counter(ev)]["name"]
            for e in ev:
                if e.get("ph") == "C" and e["pid"] == fabric and e["name"] == name:
                    e["name"] = "nowhere->nothing"

        yield "a link counter renamed", "is not one of the busiest", broken(rename)
        yield "a link counter doubled", "integrates to", broken(
            lambda ev: [e["args"].update({k: 2 * v for k, v in e["args"].items()}) for e in ev
                        if e.get("ph") == "C" and e["pid"] == fabric])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dpusim", required=True)
    ap.add_argument("--scenario", required=True)
    ap.add_argument("--variants", default="", help="comma-separated (default: the scenario's baseline)")
    a = ap.parse_args()
    failed = False
    with tempfile.TemporaryDirectory(prefix="dpusim-trace-") as tmp:
        for variant in a.variants.split(",") if a.variants else [""]:
            trace_path = os.path.join(tmp, "step.json")
            links_path = os.path.join(tmp, "links.csv")
            args = [a.dpusim, "run", a.scenario, "--out", tmp, "--trace", trace_path, "--links", links_path,
                    "--quiet"]
            if variant:
                args += ["--variant", variant]
            r = subprocess.run(args, capture_output=True, text=True, timeout=600)
            if r.returncode != 0:
                print(f"dpusim run exited {r.returncode}: {r.stderr}", file=sys.stderr)
                return 1
            with open(trace_path, encoding="utf-8") as f:
                trace = json.load(f)
            with open(os.path.join(tmp, "run.csv"), newline="", encoding="utf-8") as f:
                row = next(csv.DictReader(f))
            with open(links_path, newline="", encoding="utf-8") as f:
                links = list(csv.DictReader(f))
            step, busy = float(row["step_time_s"]), float(row["host_cpu_busy_cores"])
            problems = check(trace, step, busy, links)
            name = variant or "the baseline"
            for p in problems[:30]:
                print(f"trace of {name}: {p}", file=sys.stderr)
            if problems:
                failed = True
                continue
            kinds = {ph: sum(e["ph"] == ph for e in trace["traceEvents"]) for ph in sorted(PHASES)}
            fabric = {e["pid"] for e in trace["traceEvents"]
                      if e.get("name") == "process_name" and e["args"]["name"] == "fabric"}
            link_counters = {e["name"] for e in trace["traceEvents"] if e["ph"] == "C" and e["pid"] in fabric}
            print(f"trace of {name}: every event checks out ({kinds}; {len(link_counters)} fabric link "
                  f"counters of {len(links)} links)")
            for what, message, t in breaks(trace):
                found = check(t, step, busy, links)
                if not any(message in p for p in found):
                    print(f"the check missed {what} (it said: {found[:3]})", file=sys.stderr)
                    failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
