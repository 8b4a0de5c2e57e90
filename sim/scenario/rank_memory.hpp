// The memory one GPU needs for its shard of the model and the activations its schedule keeps alive.
#pragma once

#include "models/workload/memory.hpp"
#include "sim/scenario/scenario.hpp"

namespace dpusim::scenario {

/// The per-rank memory of the most loaded pipeline stage, for reports and the fit check.
workload::MemoryBreakdown peak_rank_memory(const WorkloadConfig& w, int* stage = nullptr);

} // namespace dpusim::scenario
