// What one simulated iteration amounts to: step time and its breakdown on the busiest GPU, host CPU
// load, achieved FLOP rate and model FLOPs utilisation. Definitions: docs/metrics.md.
#pragma once

#include "sim/engine/task_graph.hpp"
#include "sim/plan/iteration_plan.hpp"

#include <vector>

namespace dpusim::metrics {

struct IterationMetrics {
  double step_time_s = 0;
  double compute_s = 0;           // GPU kernel time of the busiest GPU (recomputation included)
  double exposed_comm_s = 0;      // step time the busiest GPU spends not computing
  double tp_comm_s = 0;           // of which tensor-parallel collectives (never overlapped)
  double dp_comm_s = 0;           // data-parallel reduction time on the busiest GPU's communicator
  double dp_exposed_s = 0;        // data-parallel reduction after the busiest GPU's last backward task
  double host_cpu_core_s = 0;     // all nodes, all host-side functions
  double host_cpu_busy_cores = 0; // per node, averaged over the step
  double tflops_per_gpu = 0;      // executed FLOPs (recomputation included) per GPU per second
  double mfu = 0;                 // model FLOPs per GPU per second over the GPU's dense peak
  double tokens_per_s = 0;
  std::size_t tasks = 0;
};

struct MetricsInputs {
  int gpus = 0;
  int nodes = 0;
  double peak_flops = 0; // dense peak of the precision, FLOP/s
  double tokens_per_iteration = 0;
  double tp_collective_s = 0;
};

IterationMetrics compute_metrics(const plan::IterationPlan& plan,
                                 const std::vector<engine::TaskTiming>& timings, const MetricsInputs& in);

} // namespace dpusim::metrics
