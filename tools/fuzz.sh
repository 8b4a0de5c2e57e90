#!/usr/bin/env bash
# Fuzzes dpusim's input loaders for SECONDS each (default 60): fuzz/loaders_fuzzer.cpp (scenario and its
# checks, plan, calibration profile, catalog entries, traffic file; seeded with the bundled, validation,
# fabric and traffic inputs, the plans, the bad inputs, the catalog, the profiles and fuzz/seeds/,
# hostile shapes such as empty lists) and fuzz/ingest_fuzzer.cpp (the recorded tool
# outputs `dpusim-calib ingest` reads; seeded with the parsers' fixtures). Installs clang and libFuzzer
# if missing and builds the "fuzz" preset (build-fuzz/, AddressSanitizer + UndefinedBehaviorSanitizer).
# Fails (exit status 1) on any finding: a crash, a sanitizer report, an exception other than bad input,
# an input taking more than 5 s or more than 1 GiB. The input is kept in build-fuzz/findings/ (named
# <target>-crash-..., -leak-, -timeout-, -oom-) and printed, escaped, at the end of the output with the
# sanitizer's report; reproduce with build-fuzz/fuzz/<target> FILE. docs/fuzzing.md.
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

export DPUSIM_DATA_DIR="$PWD"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
findings=build-fuzz/findings
mkdir -p "$findings"
started=$(mktemp)
trap 'rm -f "$started"' EXIT

# fuzz TARGET DICT SEEDS...: runs build-fuzz/fuzz/TARGET for $seconds on its own corpus (kept between
# runs) and the repository's inputs given (copied afresh), with libFuzzer dictionary DICT ("-": none);
# returns its exit status.
fuzz() {
  local target=$1 dict=$2
  shift 2
  local corpus=build-fuzz/corpus/$target seeds=build-fuzz/seeds/$target
  rm -rf "$seeds"
  mkdir -p "$corpus" "$seeds"
  local f
  for f in "$@"; do
    [ -f "$f" ] && cp "$f" "$seeds/${f//\//_}"
  done
  echo "fuzz: $target for ${seconds} s" >&2
  local options=(-max_total_time="$seconds" -timeout=5 -rss_limit_mb=1024 -print_final_stats=1
    -artifact_prefix="$findings/$target-")
  [ "$dict" = - ] || options+=(-dict="$dict")
  local log=build-fuzz/$target.log rc=0
  "build-fuzz/fuzz/$target" "${options[@]}" "$corpus" "$seeds" 2>&1 | tee "$log" >&2 || rc=${PIPESTATUS[0]}
  [ "$rc" -eq 0 ] || report+=("$target" "$log")
  return "$rc"
}

# explain TARGET LOG FILE: what a finding was, at the end of the output where a CI log's tail keeps it:
# the sanitizer's or libFuzzer's report, and the input itself (escaped, at most 8 KiB) to reproduce it
# without the machine it was found on.
explain() {
  local target=$1 log=$2 file=$3
  echo "fuzz: $target's report:" >&2
  sed -n '/^==[0-9]*==\(ERROR\|WARNING\)\|runtime error\|^SUMMARY\|deadly signal\|uncaught exception\|terminate called\|^    #[0-9] /p' \
    "$log" | head -60 >&2
  echo "fuzz: the input ($(wc -c <"$file") bytes), escaped (printf '%b' to rebuild it):" >&2
  head -c 8192 "$file" | od -An -v -tx1 | tr -s ' \n' ' ' | sed 's/ \([0-9a-f][0-9a-f]\)/\\x\1/g' | fold -w 120 >&2
  echo >&2
}

status=0
report=()
fuzz dpusim_fuzz_loaders fuzz/yaml.dict scenarios/examples/*.yaml scenarios/validation/*.yaml tests/bad_input/*.yaml \
  scenarios/traffic/*.yaml scenarios/fabrics/*.yaml \
  tests/bad_input/plans/*.yaml plans/*.yaml models/catalog/data/*/*.yaml hw_calib/profiles/defaults/*.yaml \
  hw_calib/profiles/measured/*/profile.yaml fuzz/seeds/*.yaml || status=$?
fuzz dpusim_fuzz_ingest - $(find tests/hw_calib/data -type f ! -name README.md) || status=$?
new_findings=$(find "$findings" -type f -newer "$started")
if [ "$status" -ne 0 ] || [ -n "$new_findings" ]; then
  echo "fuzz: a finding (exit status $status); its input is in $findings/:" >&2
  printf '  %s\n' $new_findings >&2
  for ((i = 0; i < ${#report[@]}; i += 2)); do
    for f in $(find "$findings" -type f -name "${report[i]}-*" -newer "$started"); do
      explain "${report[i]}" "${report[i + 1]}" "$f"
    done
  done
  exit 1
fi
echo "fuzz: nothing found in ${seconds} s of each target"
