#!/usr/bin/env bash
# Side by side with SimAI's analytical simulator on its bundled 9,216-GPU MoE example: dpusim runs the
# closest equivalent scenario (bench/scenarios/simai-moe-9216.yaml, which says how its shape was read
# from SimAI's workload file) and, given a SimAI checkout built as shipped, SimAI runs its example with
# the command of its README. Prints CPU seconds (user + system), peak memory and each tool's predicted
# iteration time; --write puts the table in docs/scaling.md.
# Usage: tools/peer-benchmark.sh [--write] [SIMAI_DIR]
#   SIMAI_DIR: a SimAI source tree (github.com/aliyun/SimAI) after `./scripts/build.sh -c analytical`,
#   holding bin/SimAI_analytical and example/workload_analytical.txt; without it only dpusim runs.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/doc-table.sh
. tools/doc-table.sh
write=0
if [ "${1:-}" = "--write" ]; then write=1; shift; fi
simai=${1:-}
tools/setup.sh default >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
measure() { # label command... -> "cpu_s mib" of the command, its output in $work/log
  /usr/bin/time -f "%U %S %M" -o "$work/time" "$@" >"$work/log" 2>&1 || { cat "$work/log" >&2; exit 1; }
  read -r user sys kib <"$work/time"
  awk -v u="$user" -v s="$sys" -v k="$kib" 'BEGIN { printf "%.2f %d", u + s, k / 1024 }'
}
read -r d_cpu d_mib <<<"$(measure build/sim/dpusim run bench/scenarios/simai-moe-9216.yaml --out "$work/dpusim")"
d_step=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "step_time_s") c = i } NR == 2 { printf "%.2f", $c }' \
  "$work/dpusim/run.csv")
echo "dpusim: $d_cpu CPU s, $d_mib MiB, step $d_step s" >&2
table="| simulator | CPU s | peak MiB | predicted iteration s |
|---|---|---|---|
| dpusim (flow-level: SimGrid, fabric sharing, ECMP, host CPUs) | $d_cpu | $d_mib | $d_step |"
if [ -n "$simai" ]; then
  if [ ! -x "$simai/bin/SimAI_analytical" ] || [ ! -f "$simai/example/workload_analytical.txt" ]; then
    echo "peer-benchmark: $simai has no bin/SimAI_analytical or example/workload_analytical.txt (build it with ./scripts/build.sh -c analytical)" >&2
    exit 2
  fi
  read -r s_cpu s_mib <<<"$(cd "$simai" && measure ./bin/SimAI_analytical -w ./example/workload_analytical.txt \
    -g 9216 -nv 360 -nic 48.5 -n_p_s 8 -g_p_s 8 -r dpusim-peer-benchmark-)"
  # SimAI writes <prefix>EndToEnd.csv in the results folder of its own tree, in microseconds (ticks of
  # 1 ns divided by its FREQ of 1000); Total time is the last column.
  simai_out="$simai/results"
  s_step=$(awk -F, 'NR == 2 { v = $NF; gsub(/ /, "", v); printf "%.2f", v / 1e6 }' \
    "$simai_out/dpusim-peer-benchmark-EndToEnd.csv")
  echo "SimAI analytical: $s_cpu CPU s, $s_mib MiB, iteration $s_step s" >&2
  table+=$'\n'"| SimAI analytical, as shipped (bus-bandwidth formulas, overlap given as ratios) | $s_cpu | $s_mib | $s_step |"
  table+=$'\n\n'"dpusim's CPU time is $(awk -v a="$d_cpu" -v b="$s_cpu" 'BEGIN { printf "%.2f", a / b }')x SimAI's. One run each on $(nproc) cores."
else
  table+=$'\n\n'"SimAI not run (pass its built source tree). One run on $(nproc) cores."
fi
echo "$table"
if [ "$write" = 1 ]; then write_doc_table docs/scaling.md peer-benchmark "$table"; fi
