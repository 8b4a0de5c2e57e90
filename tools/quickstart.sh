#!/usr/bin/env bash
# Sets everything up (dependencies, build) and runs the bundled quickstart scenario: prints the
# comparison table and writes results/<scenario-name>/comparison.csv.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh default
exec build/sim/dpusim compare scenarios/examples/quickstart.yaml "$@"
