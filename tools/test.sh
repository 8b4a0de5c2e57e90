#!/usr/bin/env bash
# Sets everything up (dependencies, Chromium for the report's browser test, build) and runs the whole
# test suite with ctest, then fuzzes the input loaders for a short fixed time (tools/fuzz.sh: 60 s of each
# target, failing on any crash, sanitizer report, input over 5 s or process over 1 GiB; docs/fuzzing.md).
# With --asan, builds and tests under AddressSanitizer + UndefinedBehaviorSanitizer instead (no fuzzing:
# the fuzz build is itself sanitized).
# DPUSIM_FUZZ_SECONDS sets the fuzzing time (0: none).
set -euo pipefail
cd "$(dirname "$0")/.."
preset=default
if [ "${1:-}" = "--asan" ]; then preset=asan; fi
tools/setup.sh "$preset" --browser
ctest --preset "$preset"
fuzz_seconds="${DPUSIM_FUZZ_SECONDS:-60}"
if [ "$preset" = default ] && [ "$fuzz_seconds" != 0 ]; then
  tools/fuzz.sh "$fuzz_seconds"
fi
