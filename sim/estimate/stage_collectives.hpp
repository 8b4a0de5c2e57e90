// The estimator's data-parallel collectives by pipeline stage: each one runs over every
// tensor-parallel rank's data- and context-parallel group of its stage at once. Their closed forms are
// computed once per kind and stage and kept: a stage whose groups are stage 0's moved by whole nodes
// (a regular layout) takes stage 0's, and under NCCL's own choice each size's pick is kept too (the same
// sizes recur every micro-batch).
#pragma once

#include "models/workload/parallelism.hpp"
#include "sim/estimate/comm_costs.hpp"

#include <map>
#include <tuple>
#include <vector>

namespace dpusim::estimate {

class StageCollectives {
public:
  /// `nccl`: NCCL's own choice (workload.communication.algorithm: auto), else every collective runs
  /// `algo`. Both cost models outlive this object.
  StageCollectives(const workload::Parallelism& p, int gpus_per_node, const CommCosts& comm,
                   const NcclCommCosts* nccl, CollectiveAlgorithm algo);

  /// `kind` of `bytes` per rank over the groups of pipeline stage `stage`.
  const CommCost& cost(CollectiveKind kind, int stage, double bytes);

private:
  const CommCosts& comm_;
  const NcclCommCosts* nccl_;
  CollectiveAlgorithm algo_;
  std::vector<int> cost_stage_; // the stage whose closed form a stage takes
  std::vector<std::vector<std::vector<int>>> groups_;
  std::map<std::tuple<int, int, int, int>, CommCost> costs_;
  std::map<std::tuple<int, int, double>, plan::NcclChoice> choices_;
};

} // namespace dpusim::estimate
