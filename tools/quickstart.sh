#!/usr/bin/env bash
# Sets everything up (dependencies, build) and runs the bundled quickstart scenario: prints the
# comparison table and writes out/<scenario-name>/comparison.csv and its HTML report, report.html (or
# under the --out given), then says where. It never touches the reference outputs (only
# tools/regenerate-results.sh rewrites those).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh default
scenario=scenarios/examples/quickstart.yaml
out="out/$(sed -n 's/^name: //p' "$scenario" | head -n 1)"
args=("$@")
given=""
report=no
for ((i = 0; i < ${#args[@]}; i++)); do
  case "${args[i]}" in
    --out | -o) given="${args[i + 1]:-}" ;;
    --out=*) given="${args[i]#--out=}" ;;
    --report) report=yes ;;
  esac
done
if [ -n "$given" ]; then out=$given; else args+=(--out "$out"); fi
if [ "$report" = no ]; then args+=(--report); fi
build/sim/dpusim compare "$scenario" "${args[@]}"
if [ -f "$out/comparison.csv" ]; then echo "quickstart: wrote $out/comparison.csv"; fi
if [ -f "$out/report.html" ]; then
  echo "quickstart: wrote the report $out/report.html (open it in a browser; figures as SVG and PNG in $out/report-figures/)"
fi
