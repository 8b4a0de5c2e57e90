#!/usr/bin/env bash
# dpusim beside a packet-level simulator (issue 38 part 3, docs/validation.md "Against a packet-level
# simulator"): htsim's RoCE with PFC (github.com/Broadcom/csg-htsim, built as shipped: `make` in sim/ and
# sim/datacenter/) and `dpusim traffic` run the same flows on the same 256-host leaf-spine
# (bench/packet-level/: the fabrics, 1:1 and 2:1, htsim's topology files, the cases), PFC alone with the
# same buffer,
# and the table gives each one's flow completion times over seeds. Each simulator hashes flows onto
# spines its own way, so the table sets distributions side by side, not flows.
# Usage: tools/packet-level-compare.sh [--write] HTSIM_DIR [SEEDS]
#   PACKET_LEVEL_CASES=ring (or alltoallop) runs only the ring all-reduce cases (the all-to-alls as one
#   operation, with 1, 4, 16 and 31 parts a node; htsim runs their flows once), and --write writes only
#   their table.
#   HTSIM_DIR: a csg-htsim tree holding sim/datacenter/htsim_roce; SEEDS: permutations drawn, and seeds
#   of the rings beside background flows (default 5).
#   --write puts the table in docs/validation.md.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=tools/doc-table.sh
. tools/doc-table.sh
write=0
if [ "${1:-}" = "--write" ]; then write=1; shift; fi
htsim=$(realpath "${1:?usage: tools/packet-level-compare.sh [--write] HTSIM_DIR [SEEDS]}")/sim/datacenter/htsim_roce
topo=$PWD/bench/packet-level/htsim-fabric-256.topo
seeds=${2:-5}
[ -x "$htsim" ] || { echo "packet-level-compare: no $htsim (build csg-htsim: make in sim/ and sim/datacenter/)" >&2; exit 2; }
tools/setup.sh default >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The run uses a copy of the binary, so that a build while it runs cannot change it.
cp build/sim/dpusim "$work/dpusim"
# The bundled catalog with the 64-port switch, and a copy whose NCCL opens one connection a NIC pair.
cp -r models/catalog/data "$work/cat2"
cp bench/packet-level/half.yaml bench/packet-level/third.yaml "$work/cat2/switch/"
cp -r "$work/cat2" "$work/cat1"
sed -i 's/^channels_per_nic: {value: 2,/channels_per_nic: {value: 1,/' "$work/cat1/collective/nccl.yaml"
grep -q '^channels_per_nic: {value: 1,' "$work/cat1/collective/nccl.yaml"
# For the ring all-reduce, the network alone: copies without NCCL's own terms, which htsim does not have
# (its ring is flows that start when the previous step's flow has arrived): the NIC's collective
# efficiency 1 (the catalog's 0.94 is NCCL's measured bus bandwidth) and NCCL's per-step and base
# latencies a nanosecond (the catalog refuses zero); each step still pays its route's latency.
for c in 1 2; do
  cp -r "$work/cat$c" "$work/cat${c}n"
  sed -i -E 's/^collective_efficiency: \{value: [0-9.]+,/collective_efficiency: {value: 1.0,/' "$work/cat${c}n/nic/connectx-7.yaml"
  sed -i -E 's/^(step_latency_network|tree_step_latency_network|base_latency): \{value: [0-9.]+us,/\1: {value: 0.001us,/' \
    "$work/cat${c}n/collective/nccl.yaml"
  [ "$(grep -c -E '^(step_latency_network|tree_step_latency_network|base_latency): \{value: 0.001us,' "$work/cat${c}n/collective/nccl.yaml")" = 3 ]
  grep -q '^collective_efficiency: {value: 1.0,' "$work/cat${c}n/nic/connectx-7.yaml"
done
# PFC as the catalog's pfc-only sets it at 400G: XOFF = the 4 MB port buffer less the headroom
# (models/congestion/pfc.cpp, headroom_mlx5: (301 + 2.16 x 10 m) x 400 Gb/s + 2.72 MTU), XON one MTU
# below, in 4096-byte packets; the output queues deep enough never to drop (lossless).
xoff=$(python3 -c 'print(int((4e6 - ((301 + 2.16 * 10) * 400 + 2.72 * 4096)) // 4096))')
run_case() { # case seed qps: the all-to-alls on the 2:1 fabric, the rest on the 1:1 one
  local name="$1-$2-$3" fabric=bench/packet-level/fabric-256-64port.yaml topo=$topo cat="cat$3" end=1000000
  if [[ $1 == alltoall* ]]; then
    fabric=bench/packet-level/fabric-256-2to1.yaml
    topo=$PWD/bench/packet-level/htsim-fabric-256-2to1.topo
  fi
  # A ring's background flows outlast it: htsim stops at 10 ms (the table checks that the ring ended).
  if [[ $1 == ring* ]]; then cat="cat$3n" end=10000; fi
  if [[ $1 == alltoallop* ]]; then cat="cat$3n"; fi
  python3 bench/packet-level/cases.py gen "$1" "$2" "$3" "$work/$name"
  # The all-to-all in parts is the same flows in htsim: its run of the case without parts is reused.
  local same="$work/${1%p*}-$2-$3.htsim"
  if [[ $1 == alltoallop*p* ]] && [ -f "$same.log" ]; then
    cp "$same.log" "$work/$name.htsim.log"
  else
    # htsim's fair host queue fails an assertion on some runs; one connection a host at a time, its
    # priority queue is the same FIFO.
    # In the scratch folder: htsim writes its logfile and idmap.txt where it runs.
    (cd "$work" && "$htsim" -tm "$work/$name.cm" -topo "$topo" -nodes 256 -strat ecmp_host -paths 64 -mtu 4096 \
      -q 40000 -pfc_thresholds $((xoff - 1)) "$xoff" -linkspeed 400000 -end "$end" -seed "$2" \
      -host_queue_type prio -o "$work/$name.htsim.dat" >"$work/$name.htsim.log" 2>&1)
  fi
  "$work/dpusim" traffic "$fabric" "$work/$name.yaml" --catalog "$work/$cat" \
    --seed "$2" --out "$work/$name.dpusim" --quiet
  echo "packet-level-compare: $name done" >&2
}
cases=${PACKET_LEVEL_CASES:-all}
case "$cases" in all | ring | alltoallop) ;; *) echo "packet-level-compare: PACKET_LEVEL_CASES is all, ring or alltoallop" >&2; exit 2 ;; esac
if [ "$cases" = all ]; then
  for qps in ${PACKET_LEVEL_QPS:-1 2}; do
    for seed in $(seq 1 "$seeds"); do run_case permutation "$seed" "$qps"; done
  done
  for n in 2 8 32; do run_case "incast$n" 1 1; done
  for seed in $(seq 1 8); do run_case victim16 "$seed" 1; done
  for qps in ${PACKET_LEVEL_QPS:-1 2}; do
    for seed in 1 2 3; do run_case alltoall64 "$seed" "$qps"; done
  done
fi
# A ring all-reduce alone and beside other tenants' flows (case (e)), NCCL's two channels a NIC.
if [ "$cases" = all ] || [ "$cases" = ring ]; then
  run_case ring0 1 2
  for k in 1 3; do
    for seed in $(seq 1 "$seeds"); do run_case "ring$k" "$seed" 2; done
  done
fi
# The all-to-all as NCCL's one operation, the lowering of a training run's expert all-to-alls.
if [ "$cases" = all ] || [ "$cases" = alltoallop ]; then
  for qps in ${PACKET_LEVEL_QPS:-1 2}; do
    # Each node's sends as 1 (the default), 4, 16 or 31 activities (one a destination node).
    for parts in "" p4 p16 p31; do
      for seed in 1 2 3; do run_case "alltoallop64$parts" "$seed" "$qps"; done
    done
  done
fi
for part in table:packet-level ring-table:packet-level-ring alltoallop-table:packet-level-alltoallop; do
  case "$cases:${part%%:*}" in all:* | ring:ring-table | alltoallop:alltoallop-table) ;; *) continue ;; esac
  table=$(python3 bench/packet-level/cases.py "${part%%:*}" "$work")
  echo "$table"
  if [ "$write" = 1 ]; then write_doc_table docs/validation.md "${part#*:}" "$table"; fi
done
