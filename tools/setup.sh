#!/usr/bin/env bash
# Installs dpusim's build dependencies from Debian packages (only those missing), then configures and
# builds with the CMake preset given as $1 (default: "default"). With --browser (tools/test.sh), also
# Chromium, which the report's browser test opens pages in. Safe to re-run: it does only what is left
# to do.
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
browser=no
if [ "${2:-}" = --browser ]; then browser=yes; fi

packages=(
  g++ cmake ninja-build pkg-config git
  libsimgrid-dev libboost-graph-dev libboost-program-options-dev
  libfmt-dev libyaml-cpp-dev libeigen3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libssl-dev time
  fio ethtool
  python3-matplotlib
  openmpi-bin libopenmpi-dev
)
# dpusim report draws its figures with matplotlib (docs/reports.md); `mpirun dpusim plan` needs Open MPI
# (docs/planner.md); the report's browser test needs Chromium,
# a large download that only the tests need.
if [ "$browser" = yes ]; then
  packages+=(chromium)
fi
# The fuzz preset builds with clang and links libFuzzer (compiler-rt); llvm-symbolizer names the frames of
# a finding's stack.
if [ "$preset" = fuzz ]; then
  packages+=(clang libclang-rt-dev llvm)
fi
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

binary_dir=$(case "$preset" in default) echo build ;; *) echo "build-$preset" ;; esac)
if [ ! -f "$binary_dir/build.ninja" ]; then
  cmake --preset "$preset" >/dev/null
fi
cmake --build --preset "$preset"
