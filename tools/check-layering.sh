#!/usr/bin/env bash
# Layering guard: only sim/simgrid/ may include SimGrid's headers (<simgrid/...>, <simgrid.h>, <xbt/...>,
# <xbt.h>, in angle brackets or quotes); the rest of sim/, models/, hw_calib/ and tests/ builds on the
# SimGrid-free interface of sim/simgrid/. Prints each offending FILE:LINE and exits 1 when there is one,
# 0 when there is none, 2 when ROOT holds none of those folders. ctest runs it (label unit).
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
echo "check-layering: only sim/simgrid/ includes SimGrid"
