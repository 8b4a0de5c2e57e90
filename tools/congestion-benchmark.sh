#!/usr/bin/env bash
# What RoCE congestion modelling costs in simulation time: the Llama 3 405B-shaped iteration of
# tools/scale-benchmark.sh (TP 8 x PP 14 x DP d on DGX H100 nodes, rail-optimized 400G fabric, three
# tiers) at a GPU count (default 16,384), run with `congestion: {control: CONTROL}` (default dcqcn-paper)
# against the same scenario without it, A and B in turn under farm-bench (median CPU seconds, the ratio
# taken pair by pair). The issue's target: at most 1.5x.
# Usage: tools/congestion-benchmark.sh [GPUS] [CONTROL] [RUNS]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/scale-scenario.sh
. tools/scale-scenario.sh
gpus=${1:-16384}
control=${2:-dcqcn-paper}
runs=${3:-3}
tools/setup.sh default >/dev/null
command -v farm-bench >/dev/null || { echo "congestion-benchmark: needs farm-bench on PATH" >&2; exit 2; }
dp=$((gpus / 112))
if [ "$dp" -lt 1 ]; then echo "congestion-benchmark: $gpus GPUs is below one TP 8 x PP 14 replica (112)" >&2; exit 2; fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
scale_scenario "$dp" >"$work/off.yaml"
scale_scenario "$dp" "congestion: {control: $control}" >"$work/on.yaml"
build/sim/dpusim run "$work/on.yaml" --out "$work/check" | grep 'note: congestion' || true
farm-bench -n "$runs" --timeout 3600 --vs "build/sim/dpusim run $work/off.yaml --out $work/b --quiet" -- \
  build/sim/dpusim run "$work/on.yaml" --out "$work/a" --quiet
