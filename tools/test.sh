#!/usr/bin/env bash
# Sets everything up (dependencies, Chromium for the report's browser test, build) and runs the whole
# test suite with ctest.
# With --asan, builds and tests under AddressSanitizer + UndefinedBehaviorSanitizer instead.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=default
if [ "${1:-}" = "--asan" ]; then preset=asan; fi
tools/setup.sh "$preset" --browser
exec ctest --preset "$preset"
