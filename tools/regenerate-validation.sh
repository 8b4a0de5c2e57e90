#!/usr/bin/env bash
# Regenerates the validation reference results/validation/validation.csv: `dpusim validate` simulates
# every published run of scenarios/validation/ (about two minutes on two cores) and prints the error per
# row and per table, the figures of docs/validation.md. Run after a deliberate change to a model, the
# catalog or a validation scenario; review the diff and update docs/validation.md before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh default >/dev/null
build/sim/dpusim validate scenarios/validation --out results/validation
echo "regenerated results/validation/validation.csv"
