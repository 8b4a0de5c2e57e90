// What one simulated iteration amounts to: step time and its breakdown on the busiest GPU, host CPU
// and DPU Arm load by use, achieved FLOP rate and model FLOPs utilisation. Definitions: docs/metrics.md.
#pragma once

#include "sim/engine/task_graph.hpp"
#include "sim/plan/cpu_use.hpp"

#include <vector>

namespace dpusim::plan {
struct IterationPlan;
}

namespace dpusim::metrics {

struct IterationMetrics {
  double step_time_s = 0;
  double compute_s = 0;           // GPU kernel time of the busiest GPU (recomputation included)
  double exposed_comm_s = 0;      // step time the busiest GPU spends waiting on communication
  double data_stall_s = 0;        // first-stage GPUs waiting for their input micro-batches
  double host_cpu_stall_s = 0;    // GPU time lost to launch threads starved of host cores
  double tp_comm_s = 0;           // tensor-parallel collectives (never overlapped), part of exposed_comm_s
  double ep_comm_s = 0;           // expert-parallel all-to-alls (exposed), part of exposed_comm_s
  double cp_comm_s = 0;           // context-parallel key/value exchanges not hidden by attention compute
  double dp_comm_s = 0;           // data-parallel reduction time on the busiest GPU's communicator
  double dp_exposed_s = 0;        // data-parallel reduction after the busiest GPU's last backward task
  double host_cpu_core_s = 0;     // all nodes, all host-side uses
  double host_cpu_busy_cores = 0; // per node, averaged over the step
  double host_cpu_peak_cores = 0; // the most busy at once on one node (host_core_peak.hpp)
  plan::CpuUseSeconds host_busy_cores_by_use{}; // per node, averaged over the step
  double arm_core_s = 0;                        // all DPUs
  plan::CpuUseSeconds arm_busy_cores_by_use{};  // per node (all its DPUs), averaged over the step
  double arm_utilisation = 0;                   // busy Arm cores over all Arm cores
  double tflops_per_gpu = 0;                    // executed FLOPs (recomputation included) per GPU per second
  double mfu = 0;                               // model FLOPs per GPU per second over the GPU's dense peak
  double tokens_per_s = 0;
  // With periodic checkpoints (workload.checkpoint): the step of an iteration that writes one, the
  // extra time that costs spread over the interval, and the step including it (0 when none).
  double checkpoint_step_s = 0;
  double checkpoint_overhead_s = 0;
  double step_with_checkpoints_s = 0;
  /// The step time a job sees on average: with its checkpoints when it writes any.
  [[nodiscard]] double effective_step_s() const {
    return step_with_checkpoints_s > 0 ? step_with_checkpoints_s : step_time_s;
  }
  std::size_t tasks = 0;
};

struct MetricsInputs {
  int gpus = 0;
  int nodes = 0;
  int gpus_per_node = 0;
  int host_cores = 0;    // per node
  int arm_cores = 0;     // per node, all DPUs (0: none)
  double peak_flops = 0; // dense peak of the precision, FLOP/s
  double tokens_per_iteration = 0;
  double tp_collective_s = 0;
  double ep_collective_s = 0;
  double cp_collective_s = 0;
};

IterationMetrics compute_metrics(const plan::IterationPlan& plan,
                                 const std::vector<engine::TaskTiming>& timings, const MetricsInputs& in);

} // namespace dpusim::metrics
