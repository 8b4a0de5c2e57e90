#!/usr/bin/env bash
# Fuzzes dpusim's input loaders (fuzz/loaders_fuzzer.cpp: scenario and its checks, calibration profile,
# catalog entries) for SECONDS (default 60): installs clang and libFuzzer if missing, builds the "fuzz"
# preset (build-fuzz/, AddressSanitizer + UndefinedBehaviorSanitizer) and runs the target on a corpus
# seeded with the bundled and validation scenarios, the bad inputs, the catalog and the profiles.
# Fails (exit status 1) on any finding: a crash, a sanitizer report, an exception other than dpusim's
# InputError, an input taking more than 5 s or more than 1 GiB. The input is kept in
# build-fuzz/findings/; reproduce with build-fuzz/fuzz/dpusim_fuzz_loaders FILE. docs/fuzzing.md.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
case "$seconds" in
'' | *[!0-9]* | 0) # libFuzzer takes 0 for "without end"
  echo "usage: tools/fuzz.sh [SECONDS]  (a whole number of seconds, default 60)" >&2
  exit 2
  ;;
esac
tools/setup.sh fuzz >/dev/null

fuzzer=build-fuzz/fuzz/dpusim_fuzz_loaders
corpus=build-fuzz/corpus # what the fuzzer found interesting, kept between runs
seeds=build-fuzz/seeds   # the repository's own inputs, copied afresh
findings=build-fuzz/findings
rm -rf "$seeds"
mkdir -p "$corpus" "$seeds" "$findings"
for f in scenarios/examples/*.yaml scenarios/validation/*.yaml tests/bad_input/*.yaml \
  models/catalog/data/*/*.yaml hw_calib/profiles/defaults/*.yaml hw_calib/profiles/measured/*/profile.yaml; do
  cp "$f" "$seeds/${f//\//_}"
done
export DPUSIM_DATA_DIR="$PWD"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"

started=$(mktemp)
trap 'rm -f "$started"' EXIT
status=0
"$fuzzer" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=1024 -print_final_stats=1 \
  -dict=fuzz/yaml.dict -artifact_prefix="$findings/" \
  "$corpus" "$seeds" || status=$?
new_findings=$(find "$findings" -type f -newer "$started")
if [ "$status" -ne 0 ] || [ -n "$new_findings" ]; then
  echo "fuzz: a finding (exit status $status); its input is in $findings/:" >&2
  printf '  %s\n' $new_findings >&2
  exit 1
fi
echo "fuzz: nothing found in ${seconds} s"
