#!/usr/bin/env bash
# Measures how fast and how small dpusim's refusals are: every file of tests/bad_input/ through
# `dpusim run` and `dpusim compare`, tests/bad_input/plans/ through `dpusim plan`, and the hostile inputs
# of issue 18 made afresh in a scratch directory (a lone comma in a scenario, a profile and a catalog entry;
# 2^30 micro-batches; 100,000 variants; `--variants` naming one 5,000 times; a 15 MiB list; 15 MiB of
# empty lists or mappings; a 200 MB file;
# /dev/zero as a profile; a bad validation targets file; `--samples 0`). For each: the exit status, the
# wall seconds and the peak resident memory (/usr/bin/time). Prints one row per case, then the largest
# time and memory, and fails (exit 1) if a case did not exit 2 or took more than LIMIT_S (default 1) or
# LIMIT_MIB (default 256). Usage: tools/bad-input-benchmark.sh [--all-rows]
set -euo pipefail
cd "$(dirname "$0")/.."
limit_s="${LIMIT_S:-1}"
limit_mib="${LIMIT_MIB:-256}"
all_rows=no
if [ "${1:-}" = --all-rows ]; then all_rows=yes; fi
tools/setup.sh default >/dev/null
dpusim=$PWD/build/sim/dpusim
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

failures=0
max_s=0
max_mib=0
cases=0
# measure NAME ARGS...: runs ARGS with --out in the scratch directory, expects exit status $expect (2 unless
# set for the call) and, for 2, no output.
expect=2
measure() {
  local name=$1
  shift
  local out="$scratch/out"
  rm -rf "$out"
  local status=0
  /usr/bin/time -f "%e %M" -o "$scratch/time" "$@" --out "$out" --quiet >/dev/null 2>"$scratch/err" || status=$?
  local wall kib
  read -r wall kib < <(tail -n 1 "$scratch/time")
  local mib=$((kib / 1024)) verdict=ok
  if [ "$status" -ne "$expect" ]; then verdict="exit $status"; fi
  if [ "$expect" -eq 2 ] && [ -e "$out" ]; then verdict="wrote output"; fi
  if awk -v w="$wall" -v l="$limit_s" 'BEGIN {exit !(w > l)}'; then verdict="over ${limit_s} s"; fi
  if [ "$mib" -gt "$limit_mib" ]; then verdict="over ${limit_mib} MiB"; fi
  cases=$((cases + 1))
  if awk -v w="$wall" -v m="$max_s" 'BEGIN {exit !(w > m)}'; then max_s=$wall; fi
  if [ "$mib" -gt "$max_mib" ]; then max_mib=$mib; fi
  if [ "$verdict" != ok ]; then
    failures=$((failures + 1))
    printf '%-58s %6s s %6s MiB  %s: %s\n' "$name" "$wall" "$mib" "$verdict" "$(head -c 200 "$scratch/err")"
  elif [ "$all_rows" = yes ]; then
    printf '%-58s %6s s %6s MiB  ok\n' "$name" "$wall" "$mib"
  fi
}

for f in tests/bad_input/*.yaml; do
  measure "run $(basename "$f")" "$dpusim" run "$f"
  measure "compare $(basename "$f")" "$dpusim" compare "$f"
done
for f in tests/bad_input/plans/*.yaml; do
  measure "plan plans/$(basename "$f")" "$dpusim" plan "$f"
done

# The hostile inputs, made here rather than kept (some are large).
quickstart=scenarios/examples/quickstart.yaml
for text in ',' ',,,,' $'[a, b]\n,' $'name: x\n---\n,'; do
  printf '%s\n' "$text" >"$scratch/comma.yaml"
  measure "run a scenario of $(printf '%q' "$text")" "$dpusim" run "$scratch/comma.yaml"
  measure "run with a profile of $(printf '%q' "$text")" "$dpusim" run "$quickstart" --calibration "$scratch/comma.yaml"
  rm -rf "$scratch/catalog"
  cp -r models/catalog/data "$scratch/catalog"
  # An entry the scenario uses (an unused one only warns: docs/catalog.md).
  cp "$scratch/comma.yaml" "$scratch/catalog/nic/connectx-7.yaml"
  measure "run with its NIC's catalog entry $(printf '%q' "$text")" "$dpusim" run "$quickstart" --catalog "$scratch/catalog"
done
sed 's/global_batch: 512/global_batch: 1073741824/' "$quickstart" >"$scratch/batch.yaml"
measure "run global_batch 2^30" "$dpusim" run "$scratch/batch.yaml"
python3 - "$quickstart" "$scratch/variants.yaml" <<'PY'
import sys
text = "".join(l for l in open(sys.argv[1]) if not l.startswith("offload:"))
text += "offload:\n  baseline: host-tcp\n  variants:\n"
text += "".join(f"    - {{name: v{i}, transport: rdma}}\n" for i in range(100_000))
open(sys.argv[2], "w").write(text)
PY
measure "compare 100,000 variants" "$dpusim" compare "$scratch/variants.yaml"
names=$(printf 'rdma-nic,%.0s' $(seq 5000))
# Not bad input: the variant runs once (and the command says so).
expect=0 measure "compare --variants rdma-nic x 5,000 (runs it once)" "$dpusim" compare "$quickstart" --variants "${names%,}"
python3 - "$quickstart" "$scratch/list.yaml" <<'PY'
import sys
text = open(sys.argv[1]).read() + "faults:\n  slow_nodes:\n"
row = "    - {node: 1, speed: 0.5}\n"
text += row * ((15_000_000 - len(text)) // len(row))
open(sys.argv[2], "w").write(text)
PY
measure "run a 15 MiB list" "$dpusim" run "$scratch/list.yaml"
# Empty lists and mappings, each a node the budget counts (issue 37): 15 MiB of `[]`, of `{}`, and nested.
for each in '[]' '{}' '[[]]' '{a: []}'; do
  python3 - "$each" "$scratch/empties.yaml" <<'PY'
import sys
each = sys.argv[1]
count = (15_000_000 - 5) // (len(each) + 1)
open(sys.argv[2], "w").write("x: [" + ",".join([each] * count) + "]\n")
PY
  measure "run 15 MiB of $each" "$dpusim" run "$scratch/empties.yaml"
done
truncate -s 200000000 "$scratch/large.yaml"
measure "run a 200 MB file" "$dpusim" run "$scratch/large.yaml"
measure "run with /dev/zero as its profile" "$dpusim" run "$quickstart" --calibration /dev/zero
mkdir -p "$scratch/validation"
cp scenarios/validation/readme2020-1b-1gpus.yaml "$scratch/validation/"
echo 'megatron-readme-2020: {median: 0.5, max: 0.1}' >"$scratch/validation/targets.yaml"
measure "validate with a maximum below its median" "$dpusim" validate "$scratch/validation" --check
measure "run --samples 0" "$dpusim" run "$quickstart" --samples 0

echo "$cases cases: the slowest took ${max_s} s, the largest ${max_mib} MiB (limits ${limit_s} s, ${limit_mib} MiB; $(nproc) cores)"
if [ "$failures" -ne 0 ]; then
  echo "$failures cases failed" >&2
  exit 1
fi
