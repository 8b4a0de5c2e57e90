// A combined step of Megatron-Core's expert-parallel overlap (workload.overlap_ep_comm): the forward pass
// of one model chunk and micro-batch beside the backward pass of another, on one GPU
// (models/workload/ep_overlap.hpp). Built from the two chunks' costs; timed once the probes have said
// what one all-to-all, tensor-parallel collective and context-parallel exchange take.
#pragma once

#include "models/workload/ep_overlap.hpp"
#include "sim/plan/pipeline_schedule.hpp"
#include "sim/plan/stage_costs.hpp"

#include <vector>

namespace dpusim::plan {

struct CombinedStep {
  /// GPU work of one part of a layer's pass and the collectives the compute stream runs inside it.
  struct Part {
    double compute_s = 0;
    int tp_fwd = 0; // tensor-parallel collectives of a forward pass (or a recomputed one)
    int tp_bwd = 0; // ... of a backward pass proper
    int cp = 0;     // context-parallel exchanges
  };
  struct Layer {
    Part pre, mlp, recompute;
    bool exchanges = false;
    bool recompute_exchanges = false;
  };
  std::vector<Layer> fwd; // the forward's layers in order
  std::vector<Layer> bwd; // the backward's, as it runs them: last layer first
  Part fwd_rest;          // the forward's embedding collective and output head
  Part bwd_rest;          // the backward's output head
  // With the expert-parallel overlap (workload.overlap_ep_comm): the passes layer by layer, each
  // all-to-all beside the other's computation, taking `sm_share` of the GPU's SMs while it runs. Without
  // (a DualPipeV pair of a model that does not overlap them): the forward, then the backward.
  bool overlapped = false;
  double sm_share = 0;
  double compute_s = 0; // GPU work of both passes

  /// What the probes' durations make of it: each compute part scaled by `scale` (the step's GPU work as
  /// drawn, over compute_s), `tp_fwd_each_s` / `tp_bwd_each_s` per tensor-parallel collective of a
  /// forward / backward pass, `cp_each_s` per context-parallel exchange, `a2a_s` per all-to-all.
  [[nodiscard]] double time_s(double scale, double tp_fwd_each_s, double tp_bwd_each_s, double cp_each_s,
                              double a2a_s) const;
};

/// The forward pass of chunk `fwd` beside the backward pass of chunk `bwd`.
CombinedStep combined_step(const StageCosts& fwd, const StageCosts& bwd);

/// The operations of pipeline stage `stage` as the iteration runs them: DualPipeV's
/// (dualpipev_schedule) with workload.parallelism.schedule: dualpipev, else (interleaved) 1F1B's
/// (pipeline_schedule), with the expert-parallel overlap (workload.overlap_ep_comm) each steady-state
/// forward combined with the backward after it. A pair stays two tasks where either is not a single
/// task: under ZeRO-3 (a task per layer), a first forward that gathers the parameters, a last backward
/// that completes the gradient buckets.
std::vector<PipelineOp> stage_schedule(const scenario::WorkloadConfig& w, int stage);

} // namespace dpusim::plan
