#!/usr/bin/env bash
# The HTML report in a real browser: renders the reports of the quickstart's comparison, of the
# gpu-stragglers Monte Carlo (--samples 4), of data-loading-heavy's attribution and of the bundled
# plan gpt3-13b-nodes-offload and of moe-pfc-pauses' congestion, opens each in headless Chromium (browser_check.py) and
# keeps a screenshot of each in WORK/screenshots/; then proves the check fails on a page with a figure's SVG taken out, a mark
# emptied, a console error and a request to the network.
# Usage: browser_test.sh DPUSIM SOURCE_DIR WORK_DIR. Exit 77 (skipped) only when chromium is absent.
set -euo pipefail
dpusim=$1
src=$2
work=$3
if ! command -v chromium >/dev/null 2>&1; then
  echo "SKIP: chromium is not installed (tools/setup.sh installs Debian's chromium package)"
  exit 77
fi
python=${DPUSIM_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
check() { "$python" "$src/tests/report/browser_check.py" "$@"; }
rm -rf "$work"
mkdir -p "$work/screenshots" "$work/broken"
scenario="$src/scenarios/examples/quickstart.yaml"

"$dpusim" compare "$scenario" --out "$work/compare" --report --quiet
check --html "$work/compare/report.html" --data "$work/compare/report-figures/data.json" \
  --csv "$work/compare/comparison.csv" --screenshot "$work/screenshots/quickstart-compare.png"

"$dpusim" compare "$src/scenarios/examples/gpu-stragglers.yaml" --launches 3 --samples 2 --out "$work/samples" --report --quiet
check --html "$work/samples/report.html" --data "$work/samples/report-figures/data.json" \
  --csv "$work/samples/comparison.csv" --distribution "$work/samples/distribution.csv" \
  --screenshot "$work/screenshots/gpu-stragglers-samples.png"

"$dpusim" compare "$src/scenarios/examples/data-loading-heavy.yaml" --attribute --out "$work/attribute" --report --quiet
check --html "$work/attribute/report.html" --data "$work/attribute/report-figures/data.json" \
  --csv "$work/attribute/comparison.csv" --attribution "$work/attribute/attribution.csv" \
  --screenshot "$work/screenshots/data-loading-attribute.png"

"$dpusim" plan "$src/plans/gpt3-13b-nodes-offload.yaml" --jobs 2 --out "$work/plan" --report --quiet
check --html "$work/plan/report.html" --data "$work/plan/report-figures/data.json" \
  --points "$work/plan/points.csv" --screenshot "$work/screenshots/plan-gpt3-13b-nodes-offload.png"

"$dpusim" compare "$src/scenarios/examples/moe-pfc-pauses.yaml" --out "$work/congestion" --report --quiet
check --html "$work/congestion/report.html" --data "$work/congestion/report-figures/data.json" \
  --csv "$work/congestion/comparison.csv" --screenshot "$work/screenshots/moe-pfc-pauses-congestion.png"

# The check must fail where a report is broken: each broken copy, and the message it must give.
broken() { # NAME EXPECTED-MESSAGE PYTHON-EDIT (of the page's text, in variable s)
  local page="$work/compare/broken-$1.html"
  "$python" -c "import sys; s = open(sys.argv[1]).read(); $3; open(sys.argv[2], 'w').write(s)" \
    "$work/compare/report.html" "$page"
  if check --html "$page" --data "$work/compare/report-figures/data.json" --csv "$work/compare/comparison.csv" \
    --screenshot "$work/broken/$1.png" 2>"$work/broken-$1.err"; then
    echo "FAIL: the browser check passed a page with $1"
    exit 1
  fi
  if ! grep -q "$2" "$work/broken-$1.err"; then
    echo "FAIL: the browser check failed on a page with $1, but without saying \"$2\":"
    cat "$work/broken-$1.err"
    exit 1
  fi
  echo "ok: a page with $1 fails the check ($2)"
}
broken "no-speedup-svg" "figure speedup has no SVG" \
  "import re; s = re.sub(r'(<figure id=\"fig-speedup\".*?)<svg.*?</svg>', r'\1', s, flags=re.S)"
broken "empty-mark" "mark step-breakdown-v0-compute is empty" \
  "import re; s = re.sub(r'(<g id=\"step-breakdown-v0-compute\">\s*<path d=\")[^\"]*', r'\1', s)"
broken "console-error" "console error: planted" \
  "s = s.replace('</body>', '<script>console.error(\"planted\")</script></body>')"
broken "network-fetch" "must open offline" \
  "s = s.replace('</body>', '<img src=\"http://report.invalid/logo.png\"></body>')"
echo "screenshots: $work/screenshots/quickstart-compare.png $work/screenshots/gpu-stragglers-samples.png" \
  "$work/screenshots/data-loading-attribute.png" "$work/screenshots/plan-gpt3-13b-nodes-offload.png" \
  "$work/screenshots/moe-pfc-pauses-congestion.png"
