#!/usr/bin/env bash
# Layering guard: only sim/simgrid/ may include SimGrid's headers (<simgrid/...>, <simgrid.h>, <xbt/...>,
# <xbt.h>, in angle brackets or quotes); the rest of sim/, models/, hw_calib/ and tests/ builds on the
# SimGrid-free interface of sim/simgrid/. And folders depend one way (docs/architecture.md): models/ on
# no sim/ folder; sim/offload/ (the variant vocabulary) and sim/scenario/ (the scenario's types) on no
# folder above them, and the scenario's types on no graph library; sim/plan/ on no model, reader or run; sim/model/ on no reader, run or command;
# the scenario's layout and the estimator on the topology's layout (sim/topology/layout.hpp), not its graph;
# and in the calibration harness, parsers <- discover, measurement <- ingest <- probes, never back.
# Prints each offending FILE:LINE and exits 1 when there is one, 0 when there is none, 2 when ROOT holds
# none of those folders. ctest runs it (label unit).
# Usage: tools/check-layering.sh [ROOT]   (default: this repository)
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
dirs=()
for d in sim models hw_calib tests; do
  if [ -d "$d" ]; then dirs+=("$d"); fi
done
if [ ${#dirs[@]} -eq 0 ]; then
  echo "check-layering: $root holds none of sim/ models/ hw_calib/ tests/" >&2
  exit 2
fi
pattern='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](simgrid/|simgrid\.h|xbt/|xbt\.h)'
offenders=$(grep -rnIE "$pattern" "${dirs[@]}" | grep -v '^sim/simgrid/' || true)
if [ -n "$offenders" ]; then
  while IFS= read -r line; do
    file_line=$(cut -d: -f1,2 <<<"$line")
    echo "$file_line: includes a SimGrid header; only sim/simgrid/ may: $(cut -d: -f3- <<<"$line")"
  done <<<"$offenders"
  exit 1
fi
# Folder dependencies: FOLDER and the include prefixes its files must not use.
rules=(
  "models/|sim/"
  "sim/offload/|sim/scenario/ sim/plan/ sim/model/ sim/input/ sim/run/ sim/datapath/ sim/topology/"
  "sim/scenario/|sim/plan/ sim/model/ sim/input/ sim/run/ sim/datapath/"
  "sim/scenario/scenario.hpp|sim/topology/topology.hpp boost/"
  "sim/scenario/|sim/topology/topology.hpp sim/topology/router.hpp boost/graph/"
  "sim/plan/|sim/model/ sim/input/ sim/run/ sim/cli/"
  "sim/model/|sim/input/ sim/run/ sim/cli/"
  "sim/estimate/|sim/run/ sim/simgrid/ sim/platform/ sim/topology/topology.hpp sim/topology/router.hpp boost/graph/"
  "sim/report/|sim/model/ sim/run/ sim/cli/"
  "hw_calib/parsers/|hw_calib/discover/ hw_calib/measurement/ hw_calib/ingest/ hw_calib/probes/ hw_calib/profile/ hw_calib/cli/"
  "hw_calib/discover/|hw_calib/measurement/ hw_calib/ingest/ hw_calib/probes/ hw_calib/profile/ hw_calib/cli/"
  "hw_calib/measurement/|hw_calib/discover/ hw_calib/ingest/ hw_calib/probes/ hw_calib/profile/ hw_calib/cli/"
  "hw_calib/ingest/|hw_calib/probes/ hw_calib/profile/ hw_calib/cli/"
)
bad=0
for rule in "${rules[@]}"; do
  folder=${rule%%|*}
  [ -e "$folder" ] || continue
  for prefix in ${rule#*|}; do
    hits=$(grep -rnHIE "^[[:space:]]*#[[:space:]]*include[[:space:]]*[\"<]${prefix}" "$folder" || true)
    if [ -n "$hits" ]; then
      while IFS= read -r line; do
        echo "$(cut -d: -f1,2 <<<"$line"): $folder must not include $prefix: $(cut -d: -f3- <<<"$line")"
      done <<<"$hits"
      bad=1
    fi
  done
done
if [ "$bad" -ne 0 ]; then
  exit 1
fi
echo "check-layering: only sim/simgrid/ includes SimGrid, and folders depend one way"
