#pragma once
// Expert-parallel all-to-alls overlapped with another micro-batch's computation: Megatron-Core's combined
// 1F1B (--overlap-moe-expert-parallel-comm; megatron/core/models/common/model_chunk_schedule_plan.py,
// TransformerLayerSchedulePlan.run). In the steady state a pipeline stage runs the forward pass of one
// micro-batch and the backward pass of another as one step, layer by layer: the forward's layers in order
// beside the backward's in reverse, each pair in four phases, a computation on the compute stream beside
// a communication on the communication stream:
//   forward attention (to the router)     | backward combine
//   backward experts (MLP)                | forward dispatch
//   forward experts (MLP)                 | backward dispatch
//   backward attention                    | forward combine
// Each phase starts once the previous one has ended on both streams (each half of a phase needs what
// the other stream produced in the one before). Pure arithmetic: the times of one step on one GPU.

#include <vector>

namespace dpusim::workload {

/// One layer's pass (forward, or backward with its recomputation) on one GPU, in seconds: its computation
/// before the dispatch (attention, norms, router, the tokens' permutation) and its experts' or dense
/// MLP's, each with the tensor- and context-parallel communication exposed in it; whether it exchanges
/// tokens (a layer with experts, ep > 1); and, for a backward pass under full recomputation, the forward
/// pass it repeats first, with its two all-to-alls.
struct LayerPass {
  double pre_s = 0;
  double mlp_s = 0;
  bool exchanges = false;
  double recompute_s = 0;
  bool recompute_exchanges = false;
};

/// A model chunk's pass for one micro-batch: its layers in the order they run (the backward's last layer
/// first), and what runs alone before and after them (the output head and loss).
struct ChunkPass {
  std::vector<LayerPass> layers;
  double before_s = 0;
  double after_s = 0;
};

/// A computation of `compute_s` beside a communication of `comm_s` that takes `sm_share` of the GPU's SMs
/// while it runs: the computation proceeds on the SMs left until the communication ends, then on all.
double beside_s(double compute_s, double comm_s, double sm_share);

/// A chunk's pass alone, each all-to-all of `a2a_s` exposed.
double alone_s(const ChunkPass& pass, double a2a_s);

/// One combined step: the forward pass `fwd` of one micro-batch beside the backward pass `bwd` of
/// another, layer i of the forward beside layer i of the backward in the four phases above; layers
/// beyond the shorter pass, the recomputations and the head run alone. `a2a_s`: one all-to-all.
double combined_step_s(const ChunkPass& fwd, const ChunkPass& bwd, double a2a_s, double sm_share);

} // namespace dpusim::workload
