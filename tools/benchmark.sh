#!/usr/bin/env bash
# Times dpusim on the bundled scenarios (or the scenario files given): for each, the median wall time and
# the largest peak memory (RSS) over N runs of `dpusim compare` (every variant, one process each), plus
# `dpusim run` of the baseline alone. Usage: tools/benchmark.sh [-n RUNS] [SCENARIO.yaml ...]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=5
if [ "${1:-}" = "-n" ]; then runs=$2; shift 2; fi
scenarios=("$@")
if [ ${#scenarios[@]} -eq 0 ]; then scenarios=(scenarios/examples/*.yaml); fi
tools/setup.sh default >/dev/null
dpusim=build/sim/dpusim
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
measure() { # prints "<median wall s> <max peak RSS MiB>" of running "$@" $runs times
  local walls=() rss=0
  for _ in $(seq "$runs"); do
    /usr/bin/time -f "%e %M" -o "$out/time" "$@" >/dev/null 2>&1
    read -r wall kib <"$out/time"
    walls+=("$wall")
    if [ "$kib" -gt "$rss" ]; then rss=$kib; fi
  done
  local median
  median=$(printf '%s\n' "${walls[@]}" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}')
  echo "$median $((rss / 1024))"
}
printf '%-48s %-8s %10s %12s\n' scenario command "median s" "peak MiB"
for s in "${scenarios[@]}"; do
  read -r wall rss < <(measure "$dpusim" compare "$s" --out "$out/compare" --quiet)
  printf '%-48s %-8s %10s %12s\n' "$s" compare "$wall" "$rss"
  read -r wall rss < <(measure "$dpusim" run "$s" --out "$out/run" --quiet)
  printf '%-48s %-8s %10s %12s\n' "$s" run "$wall" "$rss"
done
echo "($runs runs each on $(nproc) cores; peak RSS is the largest single process, the parent or one variant)"
