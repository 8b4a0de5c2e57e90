// One training iteration as a task graph: for every tensor-parallel group (one per data-parallel
// replica and pipeline stage) its forward and backward passes in (interleaved) 1F1B order, pipeline
// sends between stages, data-parallel gradient reduction per bucket overlapped with the last backward
// pass (or, under ZeRO-3, parameter gathers and gradient reduce-scatters around every layer), and the
// optimizer step. Tensor-parallel collectives stay inside the group's fused forward/backward tasks:
// their duration comes from simulating one such collective on the platform first (the probe) and is
// reused for all of them. Data-parallel replicas are symmetric, so large runs simulate the compute and
// pipeline traffic of one replica while every data-parallel collective still moves the bytes of all.
#pragma once

#include "sim/engine/task_graph.hpp"
#include "sim/plan/collective_lowering.hpp"
#include "sim/plan/stage_costs.hpp"
#include "sim/scenario/scenario.hpp"

#include <string>
#include <vector>

namespace dpusim::plan {

enum class TaskCategory : std::int32_t {
  flow, // one part (ring) of a communication
  forward,
  backward,
  optimizer,
  tp_collective,
  dp_collective,
  pp_transfer,
  latency,
  join
};
std::string_view category_name(TaskCategory c);

struct TaskInfo {
  TaskCategory category = TaskCategory::join;
  std::string label;
  int dp = -1;
  int stage = -1;
  int micro = -1;
  int tp = -1;                   // tensor-parallel rank of a data-parallel communicator
  std::vector<int> gpus;         // GPUs the task occupies (compute) or connects (communication)
  std::vector<int> nics;         // NICs a communication crosses
  double compute_s = 0;          // GPU kernel seconds on each GPU of the task
  int tp_collectives = 0;        // tensor-parallel all-reduces fused into the task
  double hw_flops = 0;           // per GPU
  double model_flops = 0;        // per GPU
  double cpu_core_s = 0;         // host CPU core-seconds
  double bytes = 0;              // payload per rank moved by a communication
  double weight = 1;             // replicas this task stands for (data-parallel replicas not simulated)
  engine::TaskId span_from = -1; // a communication's last task: the task its span starts with (its latency)
};

struct IterationPlan {
  engine::TaskGraph graph;
  std::vector<TaskInfo> info;
  engine::TaskGraph probe; // one tensor-parallel all-reduce, simulated alone
  engine::TaskId end = -1;
  int tp_collectives = 0;     // how many tensor-parallel all-reduces reuse the probe's duration
  int simulated_replicas = 0; // data-parallel replicas whose compute and pipeline traffic were simulated

  /// Fixes the fused tasks' durations once the probe's tensor-parallel all-reduce time is known.
  void apply_probe(double tp_collective_s);
};

/// `costs` has one entry per virtual stage (pp x virtual_stages). With `representative` set, only
/// data-parallel replica 0 computes and sends activations; collectives still span every replica.
IterationPlan build_iteration(const scenario::WorkloadConfig& w, const std::vector<StageCosts>& costs,
                              platform::PlatformBuilder& platform, CollectiveLowering& lowering,
                              bool representative);

} // namespace dpusim::plan
