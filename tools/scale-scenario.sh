# The Llama 3 405B-shaped job of the scale benchmarks (sourced by tools/scale-benchmark.sh and
# tools/congestion-benchmark.sh): TP 8 x PP 14 x DP $1 on DGX H100 nodes, rail-optimized 400G fabric,
# three tiers; further lines of the scenario in $2.
scale_scenario() {
  local dp=$1
  cat <<YAML
name: scale
cluster:
  nodes: $((dp * 14))
  node: dgx-h100
  nic: connectx-7
  fabric: {topology: rail-optimized, tiers: 3, link: 400Gbps, latency: 1us, oversubscription: "1:1"}
workload:
  model: llama3-405b
  seq_len: 8192
  global_batch: $((dp * 16))
  micro_batch: 1
  parallelism: {tp: 8, pp: 14, dp: $dp}
  precision: bf16
  recompute: full
  zero: 1
offload: {baseline: rdma-nic}
seed: 1
YAML
  if [ -n "${2:-}" ]; then printf '%s\n' "$2"; fi
}
