// Whether a workload's counts can be divided by: the checks that compute with them skip a scenario
// whose counts another check already reports.
#pragma once

#include "sim/scenario/scenario.hpp"

namespace dpusim::model {

inline bool degrees_positive(const scenario::WorkloadConfig& w) {
  const auto& p = w.parallelism;
  return p.tp >= 1 && p.pp >= 1 && p.dp >= 1 && p.ep >= 1 && p.cp >= 1 && w.virtual_stages >= 1 &&
         w.micro_batch >= 1 && w.global_batch >= 1 && w.seq_len >= 1 && w.model.layers >= 1;
}

} // namespace dpusim::model
