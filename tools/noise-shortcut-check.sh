#!/usr/bin/env bash
# The slowest-replica shortcut against the full simulation: each case (256 to 1,024 GPUs, one source of
# variability or several) is run with `noise.replicas: all` (every data-parallel replica simulated) and
# `noise.replicas: slowest` (the few replicas that reach the synchronous points last stand for the
# others), over the same N seeds (`dpusim run --samples N`); prints the p50 and p99 step of each, their
# differences, the replicas the shortcut kept, and both runs' CPU seconds. Exits 1 where a difference
# exceeds 3%.
# Usage: tools/noise-shortcut-check.sh [--write] [SAMPLES]   (--write puts the table in docs/models/noise.md)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/doc-table.sh
. tools/doc-table.sh
write=0
if [ "${1:-}" = "--write" ]; then write=1; shift; fi
samples=${1:-20}
tools/setup.sh default >/dev/null
dpusim=build/sim/dpusim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

scenario() { # nodes model tp pp dp global_batch baseline noise [extra workload lines] [extra cluster lines]
  cat <<YAML
name: shortcut
cluster:
  nodes: $1
  node: dgx-h100
  nic: connectx-7
  fabric: {topology: rail-optimized, link: 400Gbps, latency: 1us}
${10:-}
workload:
  model: $2
  seq_len: 2048
  global_batch: $6
  micro_batch: 1
  parallelism: {tp: $3, pp: $4, dp: $5}
${9:-}
offload: {baseline: $7}
noise: $8
seed: 1
YAML
}

cases=(
  "jitter+delay, TP 8 x PP 2 x DP 32 (512 GPUs)|64|gpt3-13b|8|2|32|512|rdma-nic|{gpu_jitter: 0.05, gpu_delay: {mean: 2ms}"
  "slow GPUs + jitter, TP 8 x DP 64 (512 GPUs)|64|gpt3-13b|8|1|64|256|rdma-nic|{slow_gpus: {fraction: 0.02, speed: 0.8}, gpu_jitter: 0.02"
  "jitter, TP 8 x PP 4 x DP 32 (1,024 GPUs)|128|gpt3-13b|8|4|32|512|rdma-nic|{gpu_jitter: 0.03"
  "lognormal delay, TP 4 x DP 64 (256 GPUs)|32|gpt3-2.7b|4|1|64|512|rdma-nic|{gpu_delay: {distribution: lognormal, mean: 1ms, sigma: 1.0}"
  "OS noise + network tail, host TCP, TP 8 x DP 32 (256 GPUs)|32|gpt3-2.7b|8|1|32|128|host-tcp|{os_noise: true, network_tail: true"
  "storage tail, TP 1 x DP 256 (256 GPUs)|32|gpt3-2.7b|1|1|256|1024|rdma-nic|{storage_tail: true|  data: {sample: 1MiB, decode: 0.1ms, workers: 2, prefetch: 1}|  storage: {servers: 4, link: 400Gbps, read_rate: 25GB/s, read_latency: {median: 20ms, p99: 200ms}}"
)

pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.2f", 100 * (a - b) / b }'; }
table="| case | p50 all (s) | p50 slowest (s) | diff | p99 all (s) | p99 slowest (s) | diff | replicas kept | CPU s all / slowest |
|---|---|---|---|---|---|---|---|---|"
fail=0
for c in "${cases[@]}"; do
  IFS='|' read -r name nodes model tp pp dp batch baseline noise wl cl <<<"$c"
  declare -A p50 p99 cpu
  for mode in all slowest; do
    scenario "$nodes" "$model" "$tp" "$pp" "$dp" "$batch" "$baseline" "$noise, replicas: $mode}" "${wl:-}" "${cl:-}" \
      >"$work/$mode.yaml"
    /usr/bin/time -f "%U %S" -o "$work/time" "$dpusim" run "$work/$mode.yaml" --samples "$samples" --out "$work/$mode" \
      -q >"$work/log" 2>&1 || { cat "$work/log" >&2; exit 2; }
    read -r user sys <"$work/time"
    cpu[$mode]=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.1f", u + s }')
    p50[$mode]=$(awk -F, 'NR == 2 { print $5 }' "$work/$mode/distribution.csv")
    p99[$mode]=$(awk -F, 'NR == 2 { print $7 }' "$work/$mode/distribution.csv")
  done
  kept=$("$dpusim" run "$work/slowest.yaml" --out "$work/one" 2>&1 | grep -o '[0-9]* of the [0-9]* data-parallel' | head -n 1)
  kept=${kept% data-parallel}
  d50=$(pct "${p50[slowest]}" "${p50[all]}")
  d99=$(pct "${p99[slowest]}" "${p99[all]}")
  for d in "$d50" "$d99"; do
    if awk -v d="$d" 'BEGIN { exit !(d > 3 || d < -3) }'; then fail=1; fi
  done
  row="| $name | ${p50[all]} | ${p50[slowest]} | $d50% | ${p99[all]} | ${p99[slowest]} | $d99% | $kept | ${cpu[all]} / ${cpu[slowest]} |"
  echo "$row" >&2
  table+=$'\n'"$row"
  unset p50 p99 cpu
done
table+=$'\n\n'"$samples samples each (seeds derived from seed 1, the same for both), one process on $(nproc) cores; CPU seconds are user + system of the whole run."
echo "$table"
if [ "$write" = 1 ]; then write_doc_table docs/models/noise.md noise-shortcut "$table"; fi
exit "$fail"
