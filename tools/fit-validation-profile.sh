#!/usr/bin/env bash
# Reproduces the fit of models/catalog/data/gpu_profiles/megatron-a100-ngc2012.yaml: a grid search of the
# A100 GEMM ceiling and the HBM efficiency of memory-bound kernels that minimises the root mean square of
# the relative iteration-time error on the four single-node rows of the Megatron-LM README of 2020 (no
# network: compute and NVLink only). Prints the best points; every other validation row is out of sample.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh default >/dev/null
rows="readme2020-1b-1gpus readme2020-2b-2gpus readme2020-4b-4gpus readme2020-8b-8gpus"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for gemm in 200 210 220 225 230 235 240 245 250; do
  for hbm in 0.5 0.55 0.6 0.65 0.7 0.75 0.8; do
    cat >"$work/profile.yaml" <<PROFILE
dpusim_profile: 1
complete: true
created: fit
role: host_cpu
parameters:
  gpu.gemm_peak_achieved: {value: ${gemm}TFLOPS, provenance: measured}
  gpu.hbm_efficiency: {value: $hbm, provenance: measured}
PROFILE
    line="$gemm $hbm"
    for row in $rows; do
      scenario="scenarios/validation/$row.yaml"
      build/sim/dpusim run "$scenario" --calibration "$work/profile.yaml" --out "$work/out" --quiet
      predicted=$(tail -n 1 "$work/out/run.csv" | cut -d, -f7)
      published=$(sed -n 's/^  published: //p' "$scenario")
      line="$line $(awk -v p="$predicted" -v q="$published" 'BEGIN { printf "%.4f", p * 1000 / q - 1 }')"
    done
    echo "$line"
  done
done | awk '{ s = 0; for (i = 3; i <= NF; i++) s += $i * $i; printf "gemm %s TFLOPS  hbm %s  errors %s %s %s %s  rms %.4f\n", $1, $2, $3, $4, $5, $6, sqrt(s / (NF - 2)) }' |
  sort -k12 -g | head -n 5
