// The GPU compute model of a variant's hardware: its GEMM tables, FP8 speed-up, HBM bandwidth and
// kernel floor as models/compute takes them. What a run and the planner's estimator both build.
#pragma once

#include "models/compute/gpu_compute.hpp"
#include "sim/scenario/hardware.hpp"

namespace dpusim::scenario {

compute::GpuComputeModel gpu_compute(const Hardware& hw);

} // namespace dpusim::scenario
