#!/usr/bin/env bash
# Strong scaling of Llama 3 405B at LLAMA3 Table 4's fixed batch (2,048 sequences of 8,192 tokens, 16M
# tokens) on DGX H100 nodes: TP 8 x PP 16 (7/8/7 layers) x DP 32, 64, 128, plain 1F1B and interleaved
# over 2 and 4 chunks, RDMA on the ConnectX-7, the three-tier rail-optimized fabric with Meta's 7:1 core,
# ZeRO-1 with Megatron-Core's defaults (parameters gathered after the step). Each point is simulated once with `dpusim run`;
# its step is split into the terms dpusim simulates, from run.csv:
#   compute      the busiest GPU's kernels (optimizer step included): compute_s
#   tp           tensor-parallel collectives, on the critical path (tp_comm_s + cp_comm_s + ep_comm_s)
#   dp exposed   the gradient reduce-scatter, the optimizer step (about 0.2 ms here, also in compute) and
#                the parameter gather, past the last backward (dp_exposed_s)
#   stalls       host CPU and input stalls (host_cpu_stall_s + data_stall_s)
#   rest         the pipeline bubble and exposed pipeline sends: the step less the above
# Usage: tools/strong-scaling-study.sh [--write]   (--write puts the table in docs/strong-scaling.md)
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/doc-table.sh
. tools/doc-table.sh
write=0
if [ "${1:-}" = "--write" ]; then write=1; shift; fi
tools/setup.sh default >/dev/null
dpusim=build/sim/dpusim
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scenario() { # dp virtual_stages
  cat <<YAML
name: strong-scaling
cluster:
  nodes: $(($1 * 16))
  node: dgx-h100
  nic: connectx-7
  fabric: {topology: rail-optimized, tiers: 3, link: 400Gbps, latency: 1us, core_oversubscription: "7:1"}
workload:
  model: llama3-405b
  seq_len: 8192
  global_batch: 2048
  micro_batch: 1
  sequence_parallel: true
  attention: flash
  zero: 1
  parallelism: {tp: 8, pp: 16, dp: $1, first_stage_layers: 7, last_stage_layers: 7, virtual_stages: $2}
offload: {baseline: rdma-nic}
seed: 1
YAML
}
rows=()
for v in 1 2 4; do
  for dp in 32 64 128; do
    scenario "$dp" "$v" >"$work/s.yaml"
    "$dpusim" run "$work/s.yaml" --out "$work/out" --quiet
    rows+=("$(python3 - "$work/out/run.csv" "$dp" "$v" <<'PY'
import csv, sys
r = next(csv.DictReader(open(sys.argv[1])))
f = {k: float(r[k]) for k in ('step_time_s', 'compute_s', 'tp_comm_s', 'cp_comm_s', 'ep_comm_s',
                              'dp_exposed_s', 'host_cpu_stall_s', 'data_stall_s', 'tflops_per_gpu')}
dp, v = int(sys.argv[2]), int(sys.argv[3])
step = f['step_time_s']
tp = f['tp_comm_s'] + f['cp_comm_s'] + f['ep_comm_s']
stalls = f['host_cpu_stall_s'] + f['data_stall_s']
rest = step - f['compute_s'] - tp - f['dp_exposed_s'] - stalls
pct = lambda x: f'{100 * x / step:.1f}%'
print(f"{dp * 128} {v} {2048 // dp} {step:.3f} {f['tflops_per_gpu']:.1f} {pct(f['compute_s'])} {pct(tp)} "
      f"{pct(f['dp_exposed_s'])} {pct(stalls)} {pct(rest)}")
PY
)")
    echo "${rows[-1]}" >&2
  done
done
table="| GPUs | chunks per GPU | micro-batches per replica | step s | TFLOP/s per GPU | compute | tp | dp exposed | stalls | rest (bubble, sends) |
|---|---|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do
  read -r g v m step tf c tp dp st rest <<<"$r"
  table+=$'\n'"| $g | $v | $m | $step | $tf | $c | $tp | $dp | $st | $rest |"
done
echo "$table"
if [ "$write" = 1 ]; then write_doc_table docs/strong-scaling.md strong-scaling-study "$table"; fi
