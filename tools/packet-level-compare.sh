#!/usr/bin/env bash
# dpusim beside a packet-level simulator (issue 38 part 3, docs/validation.md "Against a packet-level
# simulator"): htsim's RoCE with PFC (github.com/Broadcom/csg-htsim, built as shipped: `make` in sim/ and
# sim/datacenter/) and `dpusim traffic` run the same flows on the same 256-host leaf-spine
# (bench/packet-level/: the fabrics, 1:1 and 2:1, htsim's topology files, the cases), PFC alone with the
# same buffer,
# and the table gives each one's flow completion times over seeds. Each simulator hashes flows onto
# spines its own way, so the table sets distributions side by side, not flows.
# Usage: tools/packet-level-compare.sh [--write] HTSIM_DIR [SEEDS]
#   HTSIM_DIR: a csg-htsim tree holding sim/datacenter/htsim_roce; SEEDS: permutations drawn (default 5).
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
# The bundled catalog with the 64-port switch, and a copy whose NCCL opens one connection a NIC pair.
cp -r models/catalog/data "$work/cat2"
cp bench/packet-level/half.yaml bench/packet-level/third.yaml "$work/cat2/switch/"
cp -r "$work/cat2" "$work/cat1"
sed -i 's/^channels_per_nic: {value: 2,/channels_per_nic: {value: 1,/' "$work/cat1/collective/nccl.yaml"
grep -q '^channels_per_nic: {value: 1,' "$work/cat1/collective/nccl.yaml"
# PFC as the catalog's pfc-only sets it at 400G: XOFF = the 4 MB port buffer less the headroom
# (models/congestion/pfc.cpp, headroom_mlx5: (301 + 2.16 x 10 m) x 400 Gb/s + 2.72 MTU), XON one MTU
# below, in 4096-byte packets; the output queues deep enough never to drop (lossless).
xoff=$(python3 -c 'print(int((4e6 - ((301 + 2.16 * 10) * 400 + 2.72 * 4096)) // 4096))')
run_case() { # case seed qps: the all-to-alls on the 2:1 fabric, the rest on the 1:1 one
  local name="$1-$2-$3" fabric=bench/packet-level/fabric-256-64port.yaml topo=$topo
  if [[ $1 == alltoall* ]]; then
    fabric=bench/packet-level/fabric-256-2to1.yaml
    topo=$PWD/bench/packet-level/htsim-fabric-256-2to1.topo
  fi
  python3 bench/packet-level/cases.py gen "$1" "$2" "$3" "$work/$name"
  # htsim's fair host queue fails an assertion on some runs; one connection a host at a time, its
  # priority queue is the same FIFO.
  # In the scratch folder: htsim writes its logfile and idmap.txt where it runs.
  (cd "$work" && "$htsim" -tm "$work/$name.cm" -topo "$topo" -nodes 256 -strat ecmp_host -paths 64 -mtu 4096 \
    -q 40000 -pfc_thresholds $((xoff - 1)) "$xoff" -linkspeed 400000 -end 1000000 -seed "$2" \
    -host_queue_type prio -o "$work/$name.htsim.dat" >"$work/$name.htsim.log" 2>&1)
  build/sim/dpusim traffic "$fabric" "$work/$name.yaml" --catalog "$work/cat$3" \
    --seed "$2" --out "$work/$name.dpusim" --quiet
  echo "packet-level-compare: $name done" >&2
}
for qps in ${PACKET_LEVEL_QPS:-1 2}; do
  for seed in $(seq 1 "$seeds"); do run_case permutation "$seed" "$qps"; done
done
for n in 2 8 32; do run_case "incast$n" 1 1; done
for seed in $(seq 1 8); do run_case victim16 "$seed" 1; done
for qps in ${PACKET_LEVEL_QPS:-1 2}; do
  for seed in 1 2 3; do run_case alltoall64 "$seed" "$qps"; done
done
table=$(python3 bench/packet-level/cases.py table "$work")
echo "$table"
if [ "$write" = 1 ]; then
  write_doc_table docs/validation.md packet-level "$table"
fi
