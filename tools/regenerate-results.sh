#!/usr/bin/env bash
# Regenerates the reference outputs of every bundled scenario (results/<scenario name>/comparison.csv,
# the run-info.json beside it, and report-data.json: what its HTML report plots) and plan
# (results/plans/<plan name>/points.csv and report-data.json) and bundled traffic file
# (results/traffic/<file stem>/flows.csv, links.csv and collectives.csv), which the golden tests compare against. Run after a deliberate
# change to a model or the catalog, and
# review the diff before committing it.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh default >/dev/null
for scenario in scenarios/examples/*.yaml; do
  name=$(sed -n 's/^name: //p' "$scenario" | head -n 1)
  build/sim/dpusim compare "$scenario" --out "results/$name" --quiet
  # The report's data, not its page or pixels (those depend on the matplotlib version).
  report=$(mktemp -d)
  build/sim/dpusim report "results/$name" --out "$report/report.html" --quiet
  cp "$report/report-figures/data.json" "results/$name/report-data.json"
  rm -rf "$report"
  echo "regenerated results/$name/comparison.csv, run-info.json and report-data.json"
done
# Raw traffic on the bundled test fabric (docs/traffic.md): results/traffic/<file stem>/.
for traffic in scenarios/traffic/*.yaml; do
  stem=$(basename "$traffic" .yaml)
  build/sim/dpusim traffic scenarios/fabrics/fabric-256-pfc.yaml "$traffic" --out "results/traffic/$stem" --quiet
  echo "regenerated results/traffic/$stem/"
done
for plan in plans/*.yaml; do
  name=$(sed -n 's/^name: //p' "$plan" | head -n 1)
  build/sim/dpusim plan "$plan" --out "results/plans/$name" --quiet
  report=$(mktemp -d)
  build/sim/dpusim report "results/plans/$name" --out "$report/report.html" --quiet
  cp "$report/report-figures/data.json" "results/plans/$name/report-data.json"
  rm -rf "$report"
  echo "regenerated results/plans/$name/points.csv, pareto.csv and report-data.json"
done
