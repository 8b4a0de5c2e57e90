// What `dpusim nccl-tests` reads from its options (nccl-tests' flags, checked) and what it writes: the
// table as nccl-tests prints it, which dpusim-calib ingest reads back, and a CSV (docs/nccl-tests.md).
#pragma once

#include "sim/cli/common.hpp"
#include "sim/run/collective_sweep.hpp"

#include <optional>
#include <string>

namespace dpusim::cli {

struct NcclTestsSweep {
  run::SweepOptions options; // sizes, ranks, operation and algorithm
  std::string type;          // nccl-tests' name of the element type (float, bfloat16, ...)
  int type_bytes = 4;
  std::optional<double> factor; // -f, else -i
  double step_bytes = 0;
};

/// Parses a size as nccl-tests does: a whole number of bytes with an optional K, M or G (powers of
/// 1024); nullopt where it is not one.
std::optional<double> parse_nccl_size(const std::string& text);

/// The sweep the options ask for on a cluster of `cluster_nodes` nodes of `node_gpus` GPUs. Throws
/// po::error (bad input) for an operation nccl-tests has not, sizes that are not positive or go down, a
/// factor not above 1, more nodes or GPUs than the cluster has, or more than 10,000 sizes.
NcclTestsSweep sweep_from_options(const po::variables_map& vm, int cluster_nodes, int node_gpus);

/// nccl-tests' table (its header, one row per size with out-of-place and in-place columns alike, its
/// closing lines), headed by what was simulated.
std::string render_nccl_tests_table(const NcclTestsSweep& sweep, const run::SweepResult& result,
                                    const scenario::Scenario& s, const std::string& variant);
/// One row per size: op, ranks, variant, device, algorithm, size, count, type, time, algbw, busbw.
std::string render_nccl_tests_csv(const NcclTestsSweep& sweep, const run::SweepResult& result,
                                  const std::string& variant);

} // namespace dpusim::cli
