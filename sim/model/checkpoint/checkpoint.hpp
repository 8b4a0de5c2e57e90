// Periodic checkpoints (checkpoint.cpp): what one GPU writes.
#pragma once

#include "sim/scenario/scenario.hpp"

namespace dpusim::model {

/// Bytes one GPU writes per checkpoint: the scenario's size, or by default the weights and optimizer
/// state of the largest pipeline stage, sharded over the data-parallel ranks (a fully parallel save:
/// each rank writes a distinct part).
double checkpoint_bytes_per_gpu(const scenario::WorkloadConfig& w);

} // namespace dpusim::model
