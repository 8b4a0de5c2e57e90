#!/usr/bin/env bash
# The planner's speed targets (docs/planner.md, "Two tiers"): the analytic tier's configurations per
# second on one core (bench/estimate_benchmark.cpp, Google Benchmark: medians of 5 repetitions), and the
# bundled 1,248-point layout search refined to its 20 fastest estimates (plans/search-gpt3-175b-512xh100.yaml)
# end to end on 2 cores: wall and CPU seconds, peak memory. Usage: tools/planner-benchmark.sh
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh default >/dev/null
if [ ! -x build/bench/dpusim_bench_estimate ]; then
  echo "planner-benchmark: build/bench/dpusim_bench_estimate was not built (Google Benchmark missing?)" >&2
  exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

echo "== the analytic tier, one core (items_per_second: configurations or points per second)"
build/bench/dpusim_bench_estimate --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
  --benchmark_min_time=1 2>/dev/null | grep -E "^(Benchmark|-|Estimate_median|BuildAndEstimate_median)"

plan=plans/search-gpt3-175b-512xh100.yaml
run() { # label, then the command; prints wall s, CPU s (user + sys) and peak RSS
  local label=$1
  shift
  /usr/bin/time -f "%e %U %S %M" -o "$out/time" "$@" >/dev/null 2>&1
  read -r wall user sys kib <"$out/time"
  printf '%-44s %8s %10s %10s\n' "$label" "$wall" "$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }')" "$((kib / 1024))"
}
echo
echo "== $plan (1,248 points)"
printf '%-44s %8s %10s %10s\n' "" "wall s" "CPU s" "peak MiB"
run "estimate every point (--refine 0), 1 process" build/sim/dpusim plan "$plan" --refine 0 --out "$out/none"
run "refine: 20 (the file's), --jobs 2" build/sim/dpusim plan "$plan" --jobs 2 --out "$out/refined"
count() { # rows of points.csv whose column $1 is $2 (the plan's cells hold no commas)
  awk -F, -v col="$1" -v want="$2" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == col) c = i; next }
    $c == want { n++ } END { print n + 0 }' "$out/refined/points.csv"
}
feasible=$(count feasible true)
simulated=$(count tier simulated)
echo "points: $(($(wc -l <"$out/refined/points.csv") - 1)), feasible $feasible, simulated $simulated"
echo "targets: >= 4000 configurations per second per core; the refined plan <= 300 s on 2 cores"
