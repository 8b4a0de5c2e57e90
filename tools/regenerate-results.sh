#!/usr/bin/env bash
# Regenerates the reference outputs of every bundled scenario (results/<scenario name>/comparison.csv),
# which the golden tests compare against. Run after a deliberate change to a model or the catalog, and
# review the diff before committing it.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh default >/dev/null
for scenario in scenarios/examples/*.yaml; do
  name=$(sed -n 's/^name: //p' "$scenario" | head -n 1)
  build/sim/dpusim compare "$scenario" --out "results/$name" --quiet
  echo "regenerated results/$name/comparison.csv"
done
