#!/usr/bin/env python3
"""Renders the outputs of `dpusim run` or `dpusim compare` as one self-contained HTML page.

Run by `dpusim report DIR` (sim/cli/command_report.cpp), which checks the directory, bounds this script
in time and publishes what it writes. It reads DIR's CSVs (docs/metrics.md) and run-info.json, draws
each figure with matplotlib (a plan: points.csv and plan-info.json), and writes:
  --html FILE     the page: every figure as inline SVG, the scenario's inputs, the run's notes; nothing
                  is fetched when it is viewed (no scripts, no style sheets or fonts from elsewhere);
  --figures DIR   <figure>.svg and <figure>.png for slides, and data.json: what each figure plots (the
                  numbers, rounded to 6 significant digits, and the id of every mark), the golden tests'
                  reference (results/<scenario>/report-data.json).
Figures are a list (FIGURES below): each takes the loaded outputs and returns nothing when its files are
absent, so the planner's points.csv and pareto.csv join as further entries.

Exit status: 0 done, 2 bad input (a malformed CSV), 3 matplotlib is missing.
"""

import argparse
import csv
import html
import io
import json
import math
import os
import re
import sys

EXIT_BAD_INPUT = 2
EXIT_NO_MATPLOTLIB = 3

try:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker
    from matplotlib.patches import Patch
except ImportError as e:
    print(f"render.py: matplotlib is missing ({e}); Debian: apt-get install python3-matplotlib", file=sys.stderr)
    sys.exit(EXIT_NO_MATPLOTLIB)


class BadInput(Exception):
    pass


# Segments of the step-time breakdown, bottom to top: (id, label, colour).
BREAKDOWN = [
    ("compute", "GPU compute", "#4c72b0"),
    ("tp", "exposed comm: tensor-parallel", "#dd8452"),
    ("ep", "exposed comm: expert-parallel", "#c44e52"),
    ("cp", "exposed comm: context-parallel", "#8172b3"),
    ("dp", "exposed comm: data-parallel reduction", "#f2b134"),
    ("other", "exposed comm: pipeline and other waits", "#bbbbbb"),
    ("straggler", "straggler wait", "#937860"),
    ("data", "data stall", "#55a868"),
    ("host", "host-CPU stall", "#da8bc3"),
    ("checkpoint", "checkpoint overhead", "#64b5cd"),
]
USES = ["transport", "storage", "encryption", "vswitch", "agents", "data_loading", "framework"]
USE_COLOURS = ["#4c72b0", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"]
# Below this many seconds or cores a segment is rounding noise of the simulation (e.g. 6e-15 s of stall).
NEGLIGIBLE = 1e-9
VARIANT_COLOURS = ["#4c72b0", "#dd8452", "#55a868", "#c44e52", "#8172b3", "#937860", "#da8bc3", "#8c8c8c"]


def rounded(x):
    """6 significant digits: enough to read a figure, stable against the last digits of a CSV."""
    if x == 0 or not math.isfinite(x):
        return 0.0 if x == 0 else None
    return float(f"{x:.6g}")


def read_csv(path):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise BadInput(f"{path}: {e}")
    if not rows:
        raise BadInput(f"{path}: no rows")
    return rows


def number(row, key, path):
    value = row.get(key)
    if value is None or value == "":
        return 0.0
    try:
        return float(value)
    except ValueError:
        raise BadInput(f"{path}: {key} = {value!r} is not a number")


def plain(value):
    """A cell as points.csv wrote it: 4.0 read as a number shows as 4."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


class Outputs:
    """What one command wrote in DIR."""

    def __init__(self, directory):
        self.dir = directory
        self.read = []  # files drawn from
        self.ignored = []  # (file, why)
        self.info = None
        info_path = os.path.join(directory, "run-info.json")
        if os.path.isfile(info_path):
            try:
                with open(info_path, encoding="utf-8") as f:
                    self.info = json.load(f)
            except (OSError, ValueError) as e:
                raise BadInput(f"{info_path}: {e}")
            self.read.append("run-info.json")
        # The files the latest run or compare wrote (run-info.json lists them); one it does not list is an
        # earlier run's, unless it is newer than run-info.json (a plan, which writes none, into the same DIR).
        written = set(self.info.get("files", [])) if self.info and "files" in self.info else None

        def current(name):
            path = os.path.join(directory, name)
            if not os.path.isfile(path):
                return False
            if written is not None and name not in written and os.path.getmtime(path) <= os.path.getmtime(info_path):
                self.ignored.append((name, "left by an earlier run: the latest run did not write it"))
                return False
            return True

        command = self.info.get("command") if self.info else None
        names = ["run.csv", "comparison.csv"] if command == "run" else ["comparison.csv", "run.csv"]
        self.table_file = next((n for n in names if current(n)), None)
        self.rows = []
        if self.table_file:
            path = os.path.join(directory, self.table_file)
            self.rows = read_csv(path)
            for r in self.rows:
                for key in r:
                    if key not in ("scenario", "variant", "device", "placement"):
                        if key.endswith("_s") or key.startswith(("host_cores_", "arm_cores_")) or key in (
                            "speedup_vs_baseline",
                            "host_cpu_busy_cores",
                            "host_cpu_peak_cores",
                        ):
                            r[key] = number(r, key, path)
            self.read.append(self.table_file)
        self.samples = []
        self.distribution = []
        sampled = self.info.get("samples", 0) if self.info else None
        have = all(os.path.isfile(os.path.join(directory, n)) for n in ("samples.csv", "distribution.csv"))
        if have and sampled == 0:
            why = "left by an earlier run: the latest run took no samples"
            self.ignored.append(("samples.csv, distribution.csv", why))
        elif have and current("samples.csv") and current("distribution.csv"):
            path = os.path.join(directory, "samples.csv")
            self.samples = read_csv(path)
            for r in self.samples:
                for key in ("step_time_s", "straggler_wait_s", "speedup_vs_baseline", "launch"):
                    r[key] = number(r, key, path)
            path = os.path.join(directory, "distribution.csv")
            self.distribution = read_csv(path)
            for r in self.distribution:
                if r.get("over") not in ("steps", "launches"):
                    raise BadInput(f"{path}: 'over' is {r.get('over')!r}; valid: steps, launches")
                for key in r:
                    if key not in ("variant", "over", "launch"):
                        r[key] = number(r, key, path)
            self.read += ["samples.csv", "distribution.csv"]
        self.points = []
        self.plan = None  # plan-info.json: the plan's name, description, constraints and stated inputs
        if current("points.csv"):
            path = os.path.join(directory, "points.csv")
            self.points = read_csv(path)
            for r in self.points:
                r["feasible"] = r.get("feasible") == "true"
                r["within_constraints"] = r.get("within_constraints") == "true"
                # Where the plan was refined, most rows are estimates (docs/models/estimator.md).
                r["estimated"] = r.get("tier") == "estimated"
                for key in ("nodes", "gpus", "time_to_train_days", "step_time_s", "host_cores_busy"):
                    r[key] = number(r, key, path) if r["feasible"] or key in ("nodes", "gpus") else None
                # Cost and energy are given only where the plan states prices and power (empty otherwise).
                for key in ("cost_usd", "energy_mwh", "time_to_train_with_failures_days"):
                    r[key] = number(r, key, path) if r["feasible"] and r.get(key, "") != "" else None
            self.read.append("points.csv")
            plan_path = os.path.join(directory, "plan-info.json")
            if os.path.isfile(plan_path):
                try:
                    with open(plan_path, encoding="utf-8") as f:
                        plan = json.load(f).get("plan")
                except (OSError, ValueError, AttributeError) as e:
                    raise BadInput(f"{plan_path}: {e}")
                if not isinstance(plan, dict) or plan.get("points") != len(self.points):
                    self.ignored.append(("plan-info.json", "of another plan: its point count is not points.csv's"))
                else:
                    self.plan = plan
                    self.read.append("plan-info.json")
        self.attribution = []
        if current("attribution.csv"):
            path = os.path.join(directory, "attribution.csv")
            self.attribution = read_csv(path)
            for r in self.attribution:
                for key in ("alone_change_s", "last_change_s"):
                    r[key] = None if r.get(key, "") == "" else number(r, key, path)
            self.read.append("attribution.csv")
        if not self.rows and not self.samples and not self.points:
            raise BadInput(f"{directory}: no comparison.csv, run.csv, samples.csv or points.csv to draw from")

    def variants(self):
        if self.rows:
            return [r["variant"] for r in self.rows]
        if self.distribution:
            return list(dict.fromkeys(r["variant"] for r in self.distribution))
        return list(dict.fromkeys(r["variant"] for r in self.points))

    # The inputs of a plan's points: those all points share, and the axes (those that vary).
    PLAN_INPUTS = ["nodes", "gpus", "node", "nic", "dpu", "topology", "tiers", "link", "oversubscription",
                   "encryption", "overlay", "tp", "pp", "cp", "ep", "dp", "virtual_stages", "recompute", "zero",
                   "global_batch", "micro_batch", "seed", "variant"]

    def plan_inputs(self):
        fixed, axes = [], []
        for key in self.PLAN_INPUTS:
            values = list(dict.fromkeys(plain(r.get(key, "")) for r in self.points))
            shown = [v if v != "" else "default" for v in values]
            (axes if len(values) > 1 else fixed).append((key, ", ".join(shown)))
        return fixed, axes

    def plan_chosen(self):
        """Per variant, the fewest nodes and the fastest point within the constraints (as the summary)."""
        chosen = []
        for v in self.variants():
            ok = [r for r in self.points if r["variant"] == v and r["within_constraints"]]
            if not ok:
                chosen.append((v, None, None))
                continue
            fewest = min(ok, key=lambda r: (r["nodes"], r["time_to_train_days"], int(r["point"])))
            fastest = min(ok, key=lambda r: (r["time_to_train_days"], int(r["point"])))
            chosen.append((v, fewest, fastest))
        return chosen

    def value(self, variant, key):
        """A model's value of the variant's result (run-info.json), None where it set none."""
        for v in (self.info or {}).get("variants", []):
            if v.get("name") == variant:
                x = (v.get("values") or {}).get(key)
                return None if x is None else float(x)
        return None

    def straggler_wait(self, variant):
        """The scenario's own seed's wait (sample 0), from samples.csv or the run's result values."""
        for r in self.samples:
            if r["variant"] == variant and r.get("sample") == "0":
                return r["straggler_wait_s"]
        for v in (self.info or {}).get("variants", []):
            if v.get("name") == variant:
                return float((v.get("values") or {}).get("straggler_wait_s") or 0.0)
        return 0.0


class Figure:
    """A matplotlib figure and what it plots: `data` (numbers) and `marks` (the SVG ids drawn)."""

    def __init__(self, fid, title, caption, width=8.0, height=4.0):
        self.id = fid
        self.title = title
        self.caption = caption
        self.fig, self.ax = plt.subplots(figsize=(width, height), layout="constrained")
        self.data = {}
        self.marks = []

    def mark(self, artist, name):
        gid = f"{self.id}-{name}"
        artist.set_gid(gid)
        self.marks.append(gid)


def breakdown_segments(row, straggler):
    """The step of one variant as segments that add up to the step (with checkpoints, the step with them)."""
    exposed = row["exposed_comm_s"]
    tp, ep, cp = row["tp_comm_s"], row["ep_comm_s"], row["cp_comm_s"]
    rest = max(0.0, exposed - tp - ep - cp)
    # The straggler wait (this step minus the noise-free one) is time the busiest GPU spends waiting for
    # the slowest member of a collective, mostly the data-parallel reduction: it is carved out of what
    # is left of the exposed time first, never more than that, and the reduction's exposed time after it.
    wait = min(straggler, rest)
    rest -= wait
    dp = min(row["dp_exposed_s"], rest)
    rest -= dp
    values = {
        "compute": row["compute_s"],
        "tp": tp,
        "ep": ep,
        "cp": cp,
        "dp": dp,
        "other": rest,
        "straggler": wait,
        "data": row["data_stall_s"],
        "host": max(0.0, row["host_cpu_stall_s"]),
        "checkpoint": row["checkpoint_overhead_s"],
    }
    return values


def figure_breakdown(out):
    if not out.rows:
        return None
    names = out.variants()
    f = Figure(
        "step-breakdown",
        "Step time by cause",
        "One training step of each variant on the busiest GPU: GPU compute, then the communication it waits "
        "for by kind (tensor-, expert-, context-parallel collectives, the data-parallel reduction after the "
        "last backward pass, pipeline bubbles and other waits), the straggler wait (this step minus the "
        "noise-free step: waiting for the slowest GPU, taken out of the reduction and other waits), the input "
        "pipeline's data stall and the host-CPU stall of "
        "launch threads; with checkpoints, their overhead spread over the interval.",
        height=max(2.6, 1.0 + 0.6 * len(names)),
    )
    used = set()
    segments = []
    for r in out.rows:
        seg = breakdown_segments(r, out.straggler_wait(r["variant"]))
        segments.append(seg)
        used |= {k for k, v in seg.items() if v > max(NEGLIGIBLE, 1e-6 * r["step_time_s"])}
    legend = [Patch(color=colour, label=label) for sid, label, colour in BREAKDOWN if sid in used]
    for i, (r, seg) in enumerate(zip(out.rows, segments)):
        left = 0.0
        # What the subtractions leave of a step (1e-8 s of 6 s) is not a cause.
        tiny = max(NEGLIGIBLE, 1e-6 * r["step_time_s"])
        for sid, _, colour in BREAKDOWN:
            v = seg[sid]
            if v > tiny:
                (bar,) = f.ax.barh([i], [v], left=left, color=colour, height=0.6)
                f.mark(bar, f"v{i}-{sid}")
                left += v
        total = r["step_with_checkpoints_s"] if r["checkpoint_overhead_s"] > 0 else r["step_time_s"]
        f.ax.text(left, i, f"  {total:.3g} s", va="center", fontsize=9)
        f.data[r["variant"]] = {k: rounded(v) for k, v in seg.items()} | {"step_s": rounded(total)}
    f.ax.set_yticks(range(len(names)), names)
    f.ax.invert_yaxis()
    f.ax.set_xlabel("seconds per step")
    f.ax.set_xlim(0, max(f.data[n]["step_s"] for n in names) * 1.18)
    f.ax.legend(handles=legend, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=3, fontsize=8, frameon=False)
    f.ax.spines[["top", "right"]].set_visible(False)
    return f


def figure_cores(out):
    if not out.rows:
        return None
    names = out.variants()
    arm = any(r.get(f"arm_cores_{u}", 0) > NEGLIGIBLE for r in out.rows for u in USES)
    f = Figure(
        "cores-by-function",
        "Busy cores per node by function",
        "Host CPU cores (and, where a variant runs functions on them, DPU Arm cores) kept busy per node over "
        "the step, by what they run: the transport, storage client, encryption, virtual switch, "
        "infrastructure agents, data loading and the framework's kernel-launch threads. A black tick marks "
        "the most host cores busy at once on one node during the step (host_cpu_peak_cores): what a host CPU "
        "must be sized for, where the bars are the step's mean.",
        width=8.0 if not arm else 11.0,
        height=max(2.6, 1.2 + 0.6 * len(names)),
    )
    axes = [f.ax]
    if arm:
        f.fig.delaxes(f.ax)
        axes = list(f.fig.subplots(1, 2, sharey=True))
        f.ax = axes[0]
    for side, ax in zip(["host", "arm"], axes):
        used = [u for u in USES if any(r.get(f"{side}_cores_{u}", 0) > NEGLIGIBLE for r in out.rows)]
        legend = [Patch(color=USE_COLOURS[USES.index(u)], label=u.replace("_", " ")) for u in used]
        for i, r in enumerate(out.rows):
            left = 0.0
            for u in used:
                v = r.get(f"{side}_cores_{u}", 0)
                if v > NEGLIGIBLE:
                    (bar,) = ax.barh([i], [v], left=left, color=USE_COLOURS[USES.index(u)], height=0.6)
                    f.mark(bar, f"{side}-v{i}-{u}")
                    left += v
            peak = r.get("host_cpu_peak_cores") if side == "host" else None
            if peak is not None and peak > NEGLIGIBLE:
                (tick,) = ax.plot([peak, peak], [i - 0.35, i + 0.35], color="black", linewidth=2)
                f.mark(tick, f"host-v{i}-peak")
                ax.text(max(left, peak), i, f"  {left:.2f} (peak {peak:.1f})", va="center", fontsize=9)
            else:
                ax.text(left, i, f"  {left:.2f}", va="center", fontsize=9)
            f.data.setdefault(r["variant"], {})[side] = {u: rounded(r.get(f"{side}_cores_{u}", 0)) for u in used}
            if peak is not None:
                f.data[r["variant"]]["host_peak"] = rounded(peak)
        ax.set_yticks(range(len(names)), names)
        ax.set_xlabel("host cores per node" if side == "host" else "Arm cores per node")
        ax.spines[["top", "right"]].set_visible(False)
        if used:
            ax.legend(handles=legend, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=4, fontsize=8,
                      frameon=False)
        top = max([sum(f.data[n][side].values()) for n in names] + [0.1]
                  + [f.data[n].get("host_peak", 0) for n in names if side == "host"])
        ax.set_xlim(0, top * 1.2)
    axes[0].invert_yaxis()
    return f


def figure_speedup(out):
    if len(out.rows) < 2:
        return None
    names = out.variants()
    f = Figure(
        "speedup",
        "Speed-up over the baseline",
        f"The baseline's step time over each variant's (with checkpoints, the steps including them); the "
        f"baseline is {html.escape(names[0])}.",
        height=max(2.4, 0.8 + 0.5 * len(names)),
    )
    for i, r in enumerate(out.rows):
        s = r["speedup_vs_baseline"]
        (bar,) = f.ax.barh([i], [s], color=VARIANT_COLOURS[i % len(VARIANT_COLOURS)], height=0.6)
        f.mark(bar, f"v{i}")
        f.ax.text(s, i, f"  {s:.2f}x", va="center", fontsize=9)
        f.data[r["variant"]] = rounded(s)
    f.ax.axvline(1.0, color="#444444", linewidth=0.8, linestyle="--")
    f.ax.set_yticks(range(len(names)), names)
    f.ax.invert_yaxis()
    f.ax.set_xlabel("speed-up (x)")
    f.ax.set_xlim(0, max(f.data.values()) * 1.2)
    f.ax.spines[["top", "right"]].set_visible(False)
    return f


def distribution_panels(out):
    """Per variant (in distribution.csv's order): its steps' row of launch 0 and its launches' row, either
    absent where the run did not draw that kind."""
    panels = {}
    for d in out.distribution:
        p = panels.setdefault(d["variant"], {"steps": None, "launches": None})
        if d["over"] == "launches":
            p["launches"] = d
        elif d["launch"] == "0":
            p["steps"] = d
    return panels


def figure_distribution(out):
    if not out.samples:
        return None
    panels = distribution_panels(out)
    count = len(panels)
    cols = min(count, 3)
    rows_ = (count + cols - 1) // cols
    first = next(iter(panels.values()))
    parts = []
    if first["steps"]:
        parts.append(f"the steps of the scenario's own job over {int(first['steps']['count'])} step draws (kernel "
                     "jitter, latency tails, OS noise; its ECMP hashes and slow GPUs fixed), solid")
    if first["launches"]:
        parts.append(f"the job's typical step (its mean) over {int(first['launches']['count'])} launches, each "
                     "with its own ECMP hashes and slow GPUs, dashed")
    f = Figure(
        "step-distribution",
        "Step time: steps of a job, and launches of it",
        "The empirical distributions (CDF) of each variant's step time: " + "; ".join(parts) + ". One panel "
        "per variant on its own scale, with the p50 (circle) and p99 (triangle) of distribution.csv marked.",
        width=3.6 * cols + 0.6,
        height=2.9 * rows_ + 0.3,
    )
    f.fig.delaxes(f.ax)
    axes = f.fig.subplots(rows_, cols, squeeze=False, sharey=True)
    steps_of = {}
    for r in out.samples:
        steps_of.setdefault(r["variant"], {}).setdefault(int(r["launch"]), []).append(r["step_time_s"])
    for i, (v, panel) in enumerate(panels.items()):
        ax = axes[i // cols][i % cols]
        colour = VARIANT_COLOURS[i % len(VARIANT_COLOURS)]
        launches = steps_of.get(v)
        if not launches:
            raise BadInput(f"samples.csv has no sample of {v}, which distribution.csv lists")
        drawn = []
        title = [v]
        data = {}
        for kind, values, style, prefix in (
            ("steps", launches.get(0, []), "-", ""),
            ("launches", [sum(x) / len(x) for _, x in sorted(launches.items())], "--", "launches-"),
        ):
            d = panel[kind]
            if not d:
                continue
            values = sorted(values)
            xs = [values[0]] + values
            ys = [0.0] + [(k + 1) / len(values) for k in range(len(values))]
            (line,) = ax.step(xs, ys, where="post", color=colour, linewidth=1.6, linestyle=style)
            f.mark(line, f"v{i}-{prefix}cdf")
            for q, marker, y in (("p50", "o", 0.5), ("p99", "^", 0.99)):
                x = d[f"{q}_step_s"]
                (m,) = ax.plot([x], [y], marker=marker, color=colour, markersize=7, linestyle="none")
                f.mark(m, f"v{i}-{prefix}{q}")
            drawn += values
            title.append(f"{kind}: p50 {d['p50_step_s']:.4g} s, p99 {d['p99_step_s']:.4g} s")
            data[kind] = {
                "count": len(values),
                "step_s": [rounded(x) for x in values],
                "p50_s": rounded(d["p50_step_s"]),
                "p99_s": rounded(d["p99_step_s"]),
            }
        low, high = min(drawn), max(drawn)
        pad = max((high - low) * 0.15, abs(high) * 0.002, 1e-9)
        ax.set_xlim(low - pad, high + pad)
        ax.set_title("\n".join(title), fontsize=8)
        ax.set_xlabel("seconds per step", fontsize=9)
        ax.tick_params(labelsize=8)
        ax.set_ylim(0, 1.05)
        ax.grid(axis="y", linewidth=0.3)
        ax.spines[["top", "right"]].set_visible(False)
        f.data[v] = data
    for k in range(count, rows_ * cols):
        axes[k // cols][k % cols].set_visible(False)
    for r in axes:
        r[0].set_ylabel("fraction", fontsize=9)
    f.ax = axes[0][0]
    return f


def figure_attribution(out):
    rows = [r for r in out.attribution if r["function"] != "all"]
    if not rows:
        return None
    f = Figure(
        "attribution",
        "What each function's move is worth",
        "From attribution.csv (compare --attribute): for each variant, the change of the step when only that "
        "function moves from the baseline's site to the variant's (alone), and what the variant loses when only "
        "that function moves back (last, as the variant's step minus that run's); negative is faster. Functions "
        "interact, so the two differ and do not add up (docs/metrics.md). A placement the device cannot run "
        "has no bar; its reason is in attribution.csv.",
        height=max(2.6, 1.0 + 0.45 * len(rows)),
    )
    labels = []
    for i, r in enumerate(rows):
        labels.append(f"{r['variant']}: {r['function']} {r['from']}\u2192{r['to']}")
        drawn = False
        for key, colour, offset in (("alone_change_s", "#4c72b0", -0.2), ("last_change_s", "#dd8452", 0.2)):
            v = r[key]
            if v is not None and abs(v) > NEGLIGIBLE:
                (bar,) = f.ax.barh([i + offset], [v], color=colour, height=0.38)
                f.mark(bar, f"r{i}-{key.split('_')[0]}")
                drawn = True
        if not drawn:
            why = "not simulated: see attribution.csv" if r["alone_change_s"] is None else "no change"
            f.ax.text(0, i, f" {why}", va="center", fontsize=8, color="#555555")
        f.data[f"{r['variant']}/{r['function']}"] = {
            "alone_s": None if r["alone_change_s"] is None else rounded(r["alone_change_s"]),
            "last_s": None if r["last_change_s"] is None else rounded(r["last_change_s"]),
        }
    f.ax.axvline(0, color="#444444", linewidth=0.8)
    f.ax.set_yticks(range(len(rows)), labels)
    f.ax.invert_yaxis()
    f.ax.set_xlabel("change of the step (s)")
    f.ax.legend(handles=[Patch(color="#4c72b0", label="alone"), Patch(color="#dd8452", label="last")],
                fontsize=8, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2)
    f.ax.spines[["top", "right"]].set_visible(False)
    return f


def days_axis(ax, values):
    """A logarithmic axis of days with plain ticks at 1, 2, 5 times powers of ten."""
    ax.set_yscale("log")
    low, high = min(values), max(values)
    ticks = [m * 10**k for k in range(-3, 6) for m in (1, 2, 5) if low / 1.5 <= m * 10**k <= high * 1.5]
    ax.set_yticks(ticks, [f"{t:g}" for t in ticks])
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_ylabel("days to train")


def point_label(r):
    par = f"TP {r['tp']} x PP {r['pp']}" + (f" x CP {r['cp']}" if r.get("cp") not in ("", "1") else "")
    return f"{int(r['nodes'])} nodes, {par}: {r['time_to_train_days']:.1f} d"


def figure_plan_scaling(out):
    feasible = [r for r in out.points if r["feasible"]]
    if not feasible:
        return None
    f = Figure(
        "plan-time-to-train",
        "Time to train against cluster size",
        "For each variant and node count, the fastest feasible point of the plan (over its other axes): days "
        "to train on the plan's tokens at the simulated step (points.csv, time_to_train_days), or at its "
        "estimate where the plan was refined and the point not simulated (tier column). Filled markers "
        "are within the plan's constraints, hollow ones outside; each variant's fewest nodes within the "
        "constraints is labelled.",
        height=4.4,
    )
    chosen = {v: fewest for v, fewest, _ in out.plan_chosen()}
    for i, v in enumerate(out.variants()):
        colour = VARIANT_COLOURS[i % len(VARIANT_COLOURS)]
        best = {}
        for r in feasible:
            if r["variant"] != v:
                continue
            if r["nodes"] not in best or r["time_to_train_days"] < best[r["nodes"]]["time_to_train_days"]:
                best[r["nodes"]] = r
        if not best:
            continue
        xs = sorted(best)
        ys = [best[x]["time_to_train_days"] for x in xs]
        (line,) = f.ax.plot(xs, ys, color=colour, linewidth=1.4, label=v, marker="none")
        f.mark(line, f"v{i}")
        inside = [x for x in xs if best[x]["within_constraints"]]
        outside = [x for x in xs if not best[x]["within_constraints"]]
        if inside:
            f.ax.plot(inside, [best[x]["time_to_train_days"] for x in inside], linestyle="none", marker="o",
                      color=colour, markersize=6)
        if outside:
            f.ax.plot(outside, [best[x]["time_to_train_days"] for x in outside], linestyle="none", marker="o",
                      markerfacecolor="white", color=colour, markersize=6)
        c = chosen.get(v)
        if c is not None:
            f.ax.annotate(f"{v}: {point_label(c)}", (c["nodes"], c["time_to_train_days"]),
                          textcoords="offset points", xytext=(10, 8 + 14 * i), fontsize=8, color=colour,
                          arrowprops={"arrowstyle": "-", "color": colour, "linewidth": 0.6})
        f.data[v] = {str(int(x)): rounded(best[x]["time_to_train_days"]) for x in xs} | {
            "fewest_nodes_within_constraints": None if c is None else int(c["nodes"])}
    f.ax.set_xscale("log", base=2)
    nodes = sorted({r["nodes"] for r in feasible})
    f.ax.set_xticks(nodes, [str(int(n)) for n in nodes])
    days_axis(f.ax, [r["time_to_train_days"] for r in feasible])
    f.ax.set_xlabel("nodes")
    f.ax.legend(fontsize=8, frameon=False)
    f.ax.grid(linewidth=0.3, which="both")
    f.ax.spines[["top", "right"]].set_visible(False)
    return f


def pareto(out, key, fid, title, what, xlabel, log2, days="time_to_train_days"):
    """Time to train (`days`, a points.csv column) against `key` for the feasible points that give both;
    the line joins the points no other beats on both."""
    feasible = [dict(r, time_to_train_days=r[days]) for r in out.points
                if r["feasible"] and r.get(key) is not None and r.get(days) is not None]
    if not feasible:
        return None
    f = Figure(
        fid,
        title,
        "Every feasible point of the plan, coloured by its variant (where the host functions run: host, NIC "
        f"or DPU); the line joins the Pareto-optimal points, those no other point beats on both {what} and days "
        "to train; each variant's fastest point within the constraints is labelled."
        + (" Crosses are estimates: points the refined plan did not simulate (tier column)."
           if any(r["estimated"] for r in feasible) else ""),
        height=4.4,
    )
    for i, v in enumerate(out.variants()):
        pts = [r for r in feasible if r["variant"] == v]
        if not pts:
            continue
        colour = VARIANT_COLOURS[i % len(VARIANT_COLOURS)]
        simulated = [r for r in pts if not r["estimated"]]
        estimated = [r for r in pts if r["estimated"]]
        if simulated:
            sc = f.ax.scatter([r[key] for r in simulated], [r["time_to_train_days"] for r in simulated],
                              color=colour, s=22, label=v, alpha=0.85)
            f.mark(sc, f"v{i}")
        if estimated:
            est = f.ax.scatter([r[key] for r in estimated], [r["time_to_train_days"] for r in estimated],
                               color=colour, s=18, marker="x", linewidths=0.8, alpha=0.6,
                               label=f"{v} (estimated)")
            f.mark(est, f"v{i}e")
    front = []
    for r in sorted(feasible, key=lambda r: (r[key], r["time_to_train_days"])):
        if not front or r["time_to_train_days"] < front[-1]["time_to_train_days"]:
            front.append(r)
    (line,) = f.ax.step([r[key] for r in front], [r["time_to_train_days"] for r in front], where="post",
                        color="#333333", linewidth=1.0, linestyle="--", label="Pareto front")
    f.mark(line, "front")
    by_point = {r["point"]: r for r in feasible}
    for i, (v, _, chosen) in enumerate(out.plan_chosen()):
        fastest = by_point.get(chosen["point"]) if chosen is not None else None
        if fastest is not None:
            f.ax.annotate(f"{v}: {point_label(fastest)}", (fastest[key], fastest["time_to_train_days"]),
                          textcoords="offset points", xytext=(10, 10 + 12 * i), fontsize=8,
                          color=VARIANT_COLOURS[i % len(VARIANT_COLOURS)],
                          arrowprops={"arrowstyle": "-", "linewidth": 0.6})
    f.data["front"] = [{"point": int(r["point"]), key: rounded(r[key]), "variant": r["variant"],
                        "days": rounded(r["time_to_train_days"])} for r in front]
    f.data["points"] = len(feasible)
    if any(r["estimated"] for r in feasible):
        f.data["estimated_points"] = sum(1 for r in feasible if r["estimated"])
    if log2:
        f.ax.set_xscale("log", base=2)
        ticks = sorted({r[key] for r in feasible})
        f.ax.set_xticks(ticks, [str(int(t)) for t in ticks])
    days_axis(f.ax, [r["time_to_train_days"] for r in feasible])
    f.ax.set_xlabel(xlabel)
    f.ax.legend(fontsize=8, frameon=False)
    f.ax.grid(linewidth=0.3, which="both")
    f.ax.spines[["top", "right"]].set_visible(False)
    return f


def figure_plan_pareto(out):
    return pareto(out, "gpus", "plan-pareto", "Pareto front: time to train against GPUs", "GPUs", "GPUs", True)


def figure_plan_pareto_cost(out):
    # Only where the plan states prices (costs:) does points.csv give a cost.
    return pareto(out, "cost_usd", "plan-pareto-cost", "Pareto front: time to train (with interruptions) against "
                  "cost per run", "cost", "cost per run (USD, at the plan's stated prices)", False,
                  "time_to_train_with_failures_days")


def figure_plan_pareto_energy(out):
    return pareto(out, "energy_mwh", "plan-pareto-energy", "Pareto front: time to train (with interruptions) "
                  "against energy", "energy", "energy per run (MWh, facility)", False,
                  "time_to_train_with_failures_days")


# In page order. Each draws nothing without its files: a plan's directory has points.csv alone.
def figure_congestion(out):
    """What RoCE congestion (PFC pauses, rate control) costs each variant, when the scenario models it."""
    names = out.variants()
    keys = [("congestion_cost_s", "the iteration", "#c44e52"),
            ("checkpoint_congestion_cost_s", "the iteration that writes a checkpoint", "#8172b2")]
    shown = [(k, label, colour) for k, label, colour in keys if any(out.value(v, k) is not None for v in names)]
    if not shown:
        return None
    f = Figure(
        "congestion",
        "What congestion costs",
        "Per variant, how much longer the iteration takes with PFC pauses and rate control than with links "
        "shared max-min on the same platform (congestion_cost_s), and the iteration that writes a checkpoint "
        "(checkpoint_congestion_cost_s); docs/models/congestion.md. Host-TCP variants have no RoCE traffic: "
        "their zero is an upper bound on their speed, not a measured one.",
        height=max(2.4, 0.8 + 0.5 * len(names) * len(shown)),
    )
    h = 0.8 / len(shown)
    top = 0.0
    for j, (key, label, colour) in enumerate(shown):
        f.data[key] = {}
        for i, v in enumerate(names):
            x = out.value(v, key) or 0.0
            y = i + (j - (len(shown) - 1) / 2) * h
            if x > 0:  # a zero draws no bar (an empty mark), only its value
                (bar,) = f.ax.barh([y], [x], height=h, color=colour)
                f.mark(bar, f"v{i}-{key}")
            f.ax.text(x, y, f"  {x:.4f} s", va="center", fontsize=8)
            f.data[key][v] = rounded(x)
            top = max(top, x)
    f.ax.set_yticks(range(len(names)), names)
    f.ax.invert_yaxis()
    f.ax.set_xlabel("seconds per iteration")
    f.ax.set_xlim(0, top * 1.3 if top > 0 else 1.0)
    handles = [Patch(color=colour, label=label) for _, label, colour in shown]
    f.ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=len(shown), fontsize=8,
                frameon=False)
    f.ax.spines[["top", "right"]].set_visible(False)
    return f


def figure_hot_links(out):
    """Per variant, its hottest fabric links: mean utilisation over the step and the share of time their
    senders were paused, where the scenario models congestion (run-info.json's hot_links)."""
    everyone = (out.info or {}).get("variants", [])
    if not any(v.get("hot_links") for v in everyone):
        return None
    variants = everyone  # a variant without RoCE traffic gets a panel saying so
    count = len(variants)
    links = max(len(v.get("hot_links") or []) for v in variants)
    f = Figure(
        "hot-links",
        "Hottest links",
        "Per variant, the NIC-port and switch links of highest mean utilisation over the step (bars), then "
        "those whose senders PFC paused most: the share of the step each link carried (utilisation) and the "
        "share of the time its sender was paused (pause); docs/models/congestion.md. The links CSV of "
        "`dpusim run --links` has every link.",
        width=7.6,
        height=max(2.4, 0.6 + 0.32 * links) * count,
    )
    f.fig.delaxes(f.ax)
    axes = f.fig.subplots(count, 1, squeeze=False)
    for i, v in enumerate(variants):
        ax = axes[i][0]
        hot = v.get("hot_links") or []
        names = [h["link"] for h in hot]
        if not hot:
            ax.text(0.5, 0.5, "no RoCE transfer analysed (kernel TCP)", ha="center", va="center", fontsize=8,
                    transform=ax.transAxes)
        for j, h in enumerate(hot):
            for k, (key, colour, label) in enumerate((("mean_utilisation", "#4c72b0", "utilisation"),
                                                      ("pause_fraction", "#c44e52", "pause"))):
                x = float(h[key])
                if x > 0:  # a zero draws no bar (an empty mark)
                    (bar,) = ax.barh([j + (k - 0.5) * 0.4], [x], height=0.4, color=colour)
                    f.mark(bar, f"v{i}-l{j}-{label}")
        ax.set_yticks(range(len(names)), names, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(0, 1.0)
        ax.set_title(v["name"], fontsize=9)
        ax.tick_params(labelsize=8)
        ax.spines[["top", "right"]].set_visible(False)
        f.data[v["name"]] = [{"link": h["link"], "tier": h["tier"],
                              "mean_utilisation": rounded(float(h["mean_utilisation"])),
                              "pause_fraction": rounded(float(h["pause_fraction"]))} for h in hot]
    axes[-1][0].set_xlabel("share of the step (utilisation) or of the time (pause)", fontsize=9)
    handles = [Patch(color="#4c72b0", label="utilisation"), Patch(color="#c44e52", label="pause (PFC)")]
    axes[0][0].legend(handles=handles, loc="lower right", fontsize=8, frameon=False)
    f.ax = axes[0][0]
    return f


FIGURES = [figure_breakdown, figure_cores, figure_speedup, figure_congestion, figure_hot_links, figure_attribution,
           figure_distribution,
           figure_plan_scaling, figure_plan_pareto, figure_plan_pareto_cost, figure_plan_pareto_energy]


def svg_of(f):
    plt.rcParams["svg.hashsalt"] = f.id  # stable ids, unique across the page's inline SVGs
    buf = io.StringIO()
    f.fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


def inline(svg, fid):
    """The <svg> element alone, its ids kept unique on the page (matplotlib numbers them per figure)."""
    start = svg.find("<svg")
    body = svg[start:]
    body = re.sub(r'id="(?!' + re.escape(fid) + r")([^\"]+)\"", lambda m: f'id="{fid}--{m.group(1)}"', body)
    body = re.sub(r"url\(#(?!" + re.escape(fid) + r")([^)]+)\)", lambda m: f"url(#{fid}--{m.group(1)})", body)
    body = re.sub(r'xlink:href="#(?!' + re.escape(fid) + r')([^"]+)"',
                  lambda m: f'xlink:href="#{fid}--{m.group(1)}"', body)
    return body.replace("<svg ", f'<svg role="img" aria-label="{html.escape(fid)}" ', 1)


STYLE = """
body { font-family: 'DejaVu Sans', Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 70em;
       color: #222; line-height: 1.4; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.25em; margin-top: 1.6em; }
h3 { font-size: 1.05em; } .meta { color: #555; font-size: 0.9em; }
table { border-collapse: collapse; font-size: 0.9em; } td, th { padding: 0.2em 0.7em; text-align: left;
       border-bottom: 1px solid #ddd; vertical-align: top; } th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
figure { margin: 1.5em 0; padding: 0.5em 1em 1em; border: 1px solid #e2e2e2; border-radius: 4px; }
figure svg { max-width: 100%; height: auto; display: block; }
figcaption { font-size: 0.9em; color: #444; } pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; }
.note { color: #7a4b00; }
"""


def plan_summary(out):
    """What a plan's points say, in sentences: counts, each variant's chosen points, why points failed."""
    feasible = [r for r in out.points if r["feasible"]]
    within = [r for r in feasible if r["within_constraints"]]
    lines = [f"{len(out.points)} points: {len(feasible)} feasible, {len(within)} within the constraints."]
    for v, fewest, fastest in out.plan_chosen():
        if fewest is None:
            lines.append(f"{v}: no point within the constraints.")
        else:
            lines.append(f"{v}: fewest nodes within the constraints {point_label(fewest)}; fastest "
                         f"{point_label(fastest)}.")
    reasons = {}
    for r in out.points:
        if not r["feasible"]:
            reasons[r.get("reason", "")] = reasons.get(r.get("reason", ""), 0) + 1
    for reason, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])):
        lines.append(f"infeasible ({n} points): {reason}")
    return lines


def plan_stated(out):
    """The plan's own inputs (plan-info.json): tokens, objectives, constraints and what it states."""
    p = out.plan or {}
    lines = []
    if p.get("train_tokens"):
        lines.append(("train_tokens", f"{p['train_tokens']:.4g} tokens"))
    if p.get("objectives"):
        lines.append(("objectives", ", ".join(p["objectives"])))
    lines += [(f"constraint: {k}", v) for k, v in p.get("constraints", [])]
    for line in p.get("stated", []):
        key, _, rest = line.partition(": ")
        lines.append((f"stated: {key}", rest) if rest else ("stated", line))
    return lines


def plan_conditions(out):
    e = html.escape
    fixed, axes = out.plan_inputs()
    parts = ["<p>A plan: every combination of its axes is a point (docs/planner.md); the plan's own inputs "
             "are read from plan-info.json, the points' from points.csv.</p><table>"]
    if out.plan is None:
        parts.insert(0, '<p class="note">The plan\'s prices, power, restart time and constraints were not '
                        "recorded: plan-info.json is missing from this directory.</p>")
    parts += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in plan_stated(out)]
    parts += [f"<tr><th>axis: {e(k)}</th><td>{e(v)}</td></tr>" for k, v in axes]
    parts += [f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in fixed]
    parts.append("</table><ul>")
    parts += [f"<li>{e(line)}</li>" for line in plan_summary(out)]
    parts.append("</ul>")
    return parts


def page(out, figures, svgs, figures_link):
    info = out.info or {}
    sc = info.get("scenario", {})
    plan = out.plan or {}
    name = sc.get("name") or (out.rows[0]["scenario"] if out.rows else plan.get("name")) or os.path.basename(
        os.path.normpath(out.dir))
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>dpusim report: {e(name)}</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<header><h1>{e(name)}</h1>",
    ]
    description = sc.get("description") or (plan.get("description") if not out.rows else None)
    if description:
        parts.append(f"<p>{e(description)}</p>")
    variants = out.variants()
    what = f"dpusim {e(info.get('command', 'plan' if out.points and not out.rows else 'run or compare'))}"
    if info.get("samples"):
        what += f", {info['samples']} samples"
    parts.append(
        f'<p class="meta">{what}; variants {e(", ".join(variants))} (baseline {e(variants[0])}); drawn from '
        f"{e(', '.join(out.read))} in {e(out.dir)}.</p></header>"
    )
    parts.append('<section id="conditions"><h2>Conditions</h2>')
    if info.get("inputs"):
        parts.append("<table>")
        for key, value in info["inputs"]:
            parts.append(f"<tr><th>{e(key)}</th><td>{e(value)}</td></tr>")
        parts.append("</table>")
        if sc.get("text"):
            parts.append(f"<details><summary>scenario file {e(sc.get('file', ''))}</summary>"
                         f"<pre>{e(sc['text'])}</pre></details>")
    elif out.points:
        parts += plan_conditions(out)
    else:
        parts.append('<p class="note">The inputs were not recorded: run-info.json is missing from this '
                     "directory.</p>")
    for file, why in out.ignored:
        parts.append(f'<p class="note">Not drawn: {e(file)} ({e(why)}).</p>')
    parts.append("</section>")
    for f, svg in zip(figures, svgs):
        parts.append(f'<figure id="fig-{f.id}" data-figure="{f.id}"><h2>{e(f.title)}</h2>')
        parts.append(inline(svg, f.id))
        parts.append(
            f'<figcaption>{f.caption} <a href="{e(figures_link)}/{f.id}.svg">SVG</a> · '
            f'<a href="{e(figures_link)}/{f.id}.png">PNG</a></figcaption></figure>'
        )
    if info.get("explanations"):
        parts.append('<section id="explanations"><h2>Why the variants differ</h2><ul>')
        parts += [f"<li>{e(x)}</li>" for x in info["explanations"]]
        parts.append("</ul></section>")
    parts.append('<section id="notes"><h2>Notes and assumptions</h2>')
    any_note = False
    for v in info.get("variants", []):
        items = list(v.get("notes", []))
        if v.get("simulated"):
            items.append(v["simulated"])
        if v.get("gpu_performance"):
            items.append("GPU performance: " + v["gpu_performance"])
        if v.get("calibration"):
            items.append(v["calibration"])
        if items:
            any_note = True
            where = f"{e(v.get('device', ''))}: {e(v.get('placement', ''))}"
            parts.append(f"<h3>{e(v['name'])} <span class=\"meta\">({where})</span></h3><ul>")
            parts += [f"<li>{e(x)}</li>" for x in items]
            parts.append("</ul>")
    if not any_note:
        missing = '<p class="note">Notes were not recorded (no run-info.json).</p>'
        if out.points and not info:
            missing = "<p>A plan's points carry no notes: what they say is under Conditions above.</p>"
        parts.append("<p>No notes were recorded.</p>" if info else missing)
    parts.append("</section>")
    if out.rows:
        cols = [("step_time_s", "step (s)"), ("compute_s", "compute (s)"), ("exposed_comm_s", "exposed comm (s)"),
                ("data_stall_s", "data stall (s)"), ("host_cpu_stall_s", "host-CPU stall (s)"),
                ("host_cpu_busy_cores", "host cores/node"), ("host_cpu_peak_cores", "peak host cores/node"),
                ("speedup_vs_baseline", "speed-up")]
        cols = [c for c in cols if c[0] in out.rows[0]]  # an older dpusim's CSV may lack a column
        parts.append(f'<section id="numbers"><h2>Numbers</h2><p class="meta">From {e(out.table_file)} '
                     f"(docs/metrics.md).</p><table><tr><th>variant</th>")
        parts += [f"<th>{e(label)}</th>" for _, label in cols]
        parts.append("</tr>")
        for r in out.rows:
            cells = "".join(f'<td class="num">{r[c]:.4g}</td>' if abs(r[c]) > NEGLIGIBLE else '<td class="num">0</td>'
                            for c, _ in cols)
            parts.append(f"<tr><td>{e(r['variant'])}</td>{cells}</tr>")
        parts.append("</table></section>")
    parts.append(f'<footer class="meta"><p>Rendered by dpusim report with matplotlib '
                 f"{e(matplotlib.__version__)}.</p></footer>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--html", required=True)
    ap.add_argument("--figures", required=True)
    ap.add_argument("--figures-link", default="report-figures", help="the figures' folder as the page links it")
    a = ap.parse_args()
    plt.rcParams.update({"svg.fonttype": "none", "font.family": "DejaVu Sans", "font.size": 10})
    try:
        out = Outputs(a.dir)
        figures = [f for f in (make(out) for make in FIGURES) if f is not None]
    except BadInput as e:
        print(f"dpusim report: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    os.makedirs(a.figures, exist_ok=True)
    svgs = []
    for f in figures:
        svg = svg_of(f)
        svgs.append(svg)
        with open(os.path.join(a.figures, f"{f.id}.svg"), "w", encoding="utf-8") as fh:
            fh.write(svg)
        f.fig.savefig(os.path.join(a.figures, f"{f.id}.png"), format="png", dpi=150, metadata={"Software": None})
        plt.close(f.fig)
    info = out.info or {}
    data = {
        "format": 1,
        # A plan is named by its plan-info.json.
        "scenario": (info.get("scenario") or {}).get("name")
        or (out.rows[0]["scenario"] if out.rows else (out.plan or {}).get("name", "")),
        "variants": out.variants(),
        "inputs": info.get("inputs", []),
        "explanations": info.get("explanations", []),
        "notes": {v["name"]: v.get("notes", []) for v in info.get("variants", [])},
        "plan": plan_summary(out) if out.points else [],
        "plan_inputs": [list(kv) for kv in plan_stated(out)] if out.points else [],
        "figures": [{"id": f.id, "title": f.title, "data": f.data, "marks": f.marks} for f in figures],
    }
    with open(os.path.join(a.figures, "data.json"), "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, sort_keys=False)
        fh.write("\n")
    with open(a.html, "w", encoding="utf-8") as fh:
        fh.write(page(out, figures, svgs, a.figures_link))
    return 0


if __name__ == "__main__":
    sys.exit(main())
