#!/usr/bin/env bash
# tools/check-layering.sh must fail on a tree where code outside sim/simgrid/ includes SimGrid, naming each
# offending FILE:LINE, and pass on the same tree once the offenders are gone.
# Usage: check_layering_test.sh PATH/TO/check-layering.sh
set -euo pipefail
script=$1
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree/sim/simgrid" "$tree/sim/plan" "$tree/models/base" "$tree/tests/sim/simgrid"
printf '#include <simgrid/s4u.hpp>\n#include <xbt/log.h>\n' >"$tree/sim/simgrid/simulator.cpp"
printf '// Mentions #include <simgrid/s4u.hpp> in a comment only.\n#include "sim/simgrid/simulator.hpp"\n' \
  >"$tree/sim/plan/clean.cpp"
printf '#include <vector>\n\n#include <simgrid/s4u/Engine.hpp>\n' >"$tree/sim/plan/bad.cpp"
printf '#pragma once\n#  include "simgrid/forward.h"\n' >"$tree/models/base/bad.hpp"
printf '#include <simgrid.h>\n' >"$tree/tests/sim/simgrid/bad_test.cpp"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

rc=0
out=$(bash "$script" "$tree" 2>&1) || rc=$?
echo "$out"
[ "$rc" -eq 1 ] || fail "expected exit status 1 on a tree with offenders, got $rc"
for expected in sim/plan/bad.cpp:3: models/base/bad.hpp:2: tests/sim/simgrid/bad_test.cpp:1:; do
  grep -qF "$expected" <<<"$out" || fail "expected $expected in the output"
done
if grep -qE 'sim/simgrid/simulator.cpp|sim/plan/clean.cpp' <<<"$out"; then
  fail "reported a file that is allowed"
fi

rm "$tree/sim/plan/bad.cpp" "$tree/models/base/bad.hpp" "$tree/tests/sim/simgrid/bad_test.cpp"
rc=0
out=$(bash "$script" "$tree" 2>&1) || rc=$?
[ "$rc" -eq 0 ] || fail "expected exit status 0 once the offenders are gone, got $rc: $out"

rc=0
bash "$script" "$tree/sim/plan" >/dev/null 2>&1 || rc=$?
[ "$rc" -eq 2 ] || fail "expected exit status 2 on a folder without sim/ models/ hw_calib/ tests/, got $rc"
echo "check-layering.sh fails on offenders and passes without them"

# Folders depend one way: the variant vocabulary includes no scenario, the scenario's types no Boost.Graph.
mkdir -p "$tree/sim/offload" "$tree/sim/scenario"
printf '#include "sim/scenario/scenario.hpp"\n' >"$tree/sim/offload/bad.hpp"
printf '#pragma once\n#include <boost/graph/adjacency_list.hpp>\n' >"$tree/sim/scenario/scenario.hpp"
rc=0
out=$(bash "$script" "$tree" 2>&1) || rc=$?
[ "$rc" -eq 1 ] || fail "expected exit status 1 on a folder dependency the wrong way, got $rc"
for expected in sim/offload/bad.hpp:1: sim/scenario/scenario.hpp:2:; do
  grep -qF "$expected" <<<"$out" || fail "expected $expected in the output: $out"
done
echo "check_layering_test: passed"
