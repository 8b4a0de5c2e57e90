// Which layers a model chunk (virtual pipeline stage) holds, by kind: the one list the stage costs, the
// estimator and the memory check read.
#pragma once

#include "models/workload/parallelism.hpp"
#include "models/workload/transformer.hpp"

#include <vector>

namespace dpusim::workload {

/// The kinds (TransformerShape::layer_kind) of the layers of virtual stage `vs` of pp x `chunks`, in
/// model order; the last virtual stage ends with the model's multi-token prediction modules.
std::vector<int> chunk_layer_kinds(const TransformerShape& m, const Parallelism& p, int chunks, int vs);

} // namespace dpusim::workload
