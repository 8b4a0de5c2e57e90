#!/usr/bin/env python3
"""Golden test of a bundled scenario's report: what the report plots, not its pixels.

Runs `dpusim compare SCENARIO --report` into a temporary directory (for a plan, `dpusim report` on a copy
of its reference tables, which the plan's golden test holds to `dpusim plan`) and compares the renderer's
report-figures/data.json (every figure's numbers and marks, the inputs, explanations and notes) with
results/<scenario name>/report-data.json (results/plans/<plan name>/), which only
tools/regenerate-results.sh writes. Numbers must
agree to a relative 1e-5 (data.json rounds them to 6 significant digits), everything else exactly.
"""

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

RELATIVE = 1e-5


def differences(got, want, where="data"):
    if isinstance(want, dict) and isinstance(got, dict):
        for k in sorted(set(got) | set(want)):
            if k not in got:
                yield f"{where}.{k}: missing (reference: {json.dumps(want[k])[:120]})"
            elif k not in want:
                yield f"{where}.{k}: not in the reference (got {json.dumps(got[k])[:120]})"
            else:
                yield from differences(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list) and isinstance(got, list):
        if len(got) != len(want):
            yield f"{where}: {len(got)} items, the reference has {len(want)}"
        for i, (g, w) in enumerate(zip(got, want)):
            yield from differences(g, w, f"{where}[{i}]")
    elif isinstance(want, (int, float)) and isinstance(got, (int, float)) and not isinstance(want, bool):
        if not math.isclose(got, want, rel_tol=RELATIVE, abs_tol=1e-12):
            yield f"{where}: {got}, the reference {want}"
    elif got != want:
        yield f"{where}: {json.dumps(got)[:200]}, the reference {json.dumps(want)[:200]}"


def scenario_name(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("name: "):
                return line[len("name: "):].strip()
    raise SystemExit(f"{path}: no name")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dpusim", required=True)
    ap.add_argument("--scenario", help="a bundled scenario (compare --report)")
    ap.add_argument("--plan", help="a bundled plan (report of its reference tables, under results/plans/)")
    ap.add_argument("--results", required=True, help="the results/ folder")
    a = ap.parse_args()
    source = a.scenario or a.plan
    if a.plan:
        reference = os.path.join(a.results, "plans", scenario_name(a.plan), "report-data.json")
    else:
        reference = os.path.join(a.results, scenario_name(a.scenario), "report-data.json")
    if not os.path.isfile(reference):
        print(f"no reference {reference} (run tools/regenerate-results.sh)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="dpusim-report-golden-") as tmp:
        if a.plan:
            # A plan's report is drawn from its tables and plan-info.json: the reference's, which the plan's
            # golden test (PlanGolden) holds to what `dpusim plan` gives, so that no plan is simulated twice.
            tables = os.path.dirname(reference)
            for name in os.listdir(tables):
                if name.endswith(".csv"):
                    shutil.copy(os.path.join(tables, name), tmp)
            shutil.copy(os.path.join(tables, "plan-info.json"), tmp)
            command = ["report", tmp, "--out", os.path.join(tmp, "report.html"), "--quiet"]
        else:
            command = ["compare", a.scenario, "--out", tmp, "--report", "--quiet"]
        r = subprocess.run([a.dpusim, *command], capture_output=True, text=True, timeout=900)
        if r.returncode != 0:
            print(f"dpusim {command[0]} exited {r.returncode}:\n{r.stderr}", file=sys.stderr)
            return 1
        with open(os.path.join(tmp, "report-figures", "data.json"), encoding="utf-8") as f:
            got = json.load(f)
    with open(reference, encoding="utf-8") as f:
        want = json.load(f)
    diffs = list(differences(got, want))
    for d in diffs[:40]:
        print(f"{source}: {d}", file=sys.stderr)
    if diffs:
        print(f"{len(diffs)} differences from {reference} (after a deliberate change: tools/regenerate-results.sh)",
              file=sys.stderr)
        return 1
    print(f"{source}: the report's data matches {reference}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
