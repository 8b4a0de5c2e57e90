#!/usr/bin/env bash
# Scaling of one iteration with the cluster: a Llama 3 405B-shaped job (TP 8 x PP 14 x DP d on DGX H100
# nodes, rail-optimized 400G fabric, three tiers) for each GPU count given (default 512 to 98,304), run
# once each with `dpusim run`; prints CPU seconds (user + sys), peak memory, SimGrid activities and
# routes, and the growth exponents of CPU time and memory fitted on log-log (least squares).
# Usage: tools/scale-benchmark.sh [--write] [GPUS ...]   (--write puts the table in docs/scaling.md)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/doc-table.sh
. tools/doc-table.sh
# shellcheck source=tools/scale-scenario.sh
. tools/scale-scenario.sh
write=0
if [ "${1:-}" = "--write" ]; then write=1; shift; fi
sizes=("$@")
if [ ${#sizes[@]} -eq 0 ]; then sizes=(512 1024 2048 4096 8192 16384 32768 65536 98304); fi
tools/setup.sh default >/dev/null
dpusim=build/sim/dpusim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rows=()
for g in "${sizes[@]}"; do
  dp=$((g / 112))
  if [ "$dp" -lt 1 ]; then echo "scale-benchmark: $g GPUs is below one TP 8 x PP 14 replica (112)" >&2; exit 2; fi
  scale_scenario "$dp" >"$work/s.yaml"
  /usr/bin/time -f "%U %S %M" -o "$work/time" "$dpusim" run "$work/s.yaml" --out "$work/out" >"$work/log" 2>&1
  read -r user sys kib <"$work/time"
  summary=$(grep -o '[0-9]* SimGrid activities, [0-9]* routes' "$work/log" | head -n 1)
  activities=${summary%% SimGrid*}
  routes=${summary##*activities, }
  routes=${routes%% routes}
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  rows+=("$((dp * 112)) $cpu $((kib / 1024)) $activities $routes")
  echo "$((dp * 112)) GPUs: $cpu CPU s, $((kib / 1024)) MiB, $activities activities, $routes routes" >&2
done
fit() { # column index -> exponent of that column against GPUs
  printf '%s\n' "${rows[@]}" | awk -v c="$1" '{x = log($1); y = log($c); n++; sx += x; sy += y; sxx += x*x; sxy += x*y}
    END { if (n < 2) { print "n/a"; exit } printf "%.2f", (n*sxy - sx*sy) / (n*sxx - sx*sx) }'
}
table="| GPUs | CPU s | peak MiB | SimGrid activities | routes |
|---|---|---|---|---|"
for r in "${rows[@]}"; do
  read -r g cpu mib act rt <<<"$r"
  table+=$'\n'"| $g | $cpu | $mib | $act | $rt |"
done
table+=$'\n\n'"Fitted growth (log-log least squares over these rows): CPU time ∝ GPUs^$(fit 2), peak memory ∝ GPUs^$(fit 3). One run each on $(nproc) cores; CPU seconds are user + system of the whole process."
echo "$table"
if [ "$write" = 1 ]; then write_doc_table docs/scaling.md scale-benchmark "$table"; fi
