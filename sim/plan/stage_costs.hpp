// GPU time, FLOPs, tensor-parallel collectives and gradient buckets of one model chunk (a virtual
// pipeline stage: a pipeline stage's share of the layers, or a part of it under interleaving) for one
// micro-batch, on one GPU of its tensor-parallel group. Pure model arithmetic; no simulation here.
#pragma once

#include "models/collectives/expert_dispatch.hpp"
#include "models/compute/gpu_compute.hpp"
#include "models/workload/tp_comm_overlap.hpp"
#include "sim/plan/collective_algorithm.hpp"
#include "sim/scenario/scenario.hpp"

#include <algorithm>
#include <vector>

namespace dpusim::plan {

/// A slice of the backward pass after which one data-parallel gradient bucket is complete.
struct GradBucket {
  double compute_s = 0;       // backward GPU time of the slice
  double wgrad_s = 0;         // of which its weight gradients' GEMMs
  int tp_collectives = 0;     // tensor-parallel all-reduces inside the slice
  int tp_bwd_collectives = 0; // of which in the backward pass proper (not a recomputed forward)
  int ep_collectives = 0;     // expert-parallel all-to-alls inside the slice
  int cp_collectives = 0;     // context-parallel key/value exchanges inside the slice
  double bytes = 0;           // gradient bytes (per rank) the bucket reduces
  double params = 0;          // parameters (per rank) the bucket holds: ZeRO-1/2 gather them after the step
  // The forward pass over the same parameters (it runs the buckets in reverse order).
  double fwd_compute_s = 0;
  int fwd_tp_collectives = 0;
  int fwd_ep_collectives = 0;
  int fwd_cp_collectives = 0;
  double fwd_kernels = 0;
};

/// One transformer layer of a chunk on one GPU of its tensor-parallel group, for one micro-batch.
struct LayerCosts {
  double fwd_s = 0; // forward
  double bwd_s = 0; // backward with its recomputation
  // Of them, the experts' or dense MLP's kernels (workload::mlp_part), and under full recomputation the
  // forward pass the backward repeats first: the parts an expert-parallel overlap schedules apart.
  double fwd_mlp_s = 0;
  double bwd_mlp_s = 0;
  double bwd_recompute_s = 0;
  // Of the backward, its weight gradients' GEMMs (dW = X^T dY of each linear layer, the router's): what a
  // zero-bubble schedule computes later, apart from the input gradients the previous stage waits for.
  double bwd_wgrad_s = 0;
  int fwd_tp = 0; // tensor-parallel all-reduces of the forward / backward
  int bwd_tp = 0;
  int bwd_tp_bwd = 0; // of the backward's, those of the backward pass proper (not recomputed)
  int fwd_ep = 0;     // expert-parallel all-to-alls of the forward / backward
  int bwd_ep = 0;
  int fwd_cp = 0; // context-parallel key/value exchanges of the forward / backward
  int bwd_cp = 0;
  int fwd_kernels = 0;        // kernels launched, forward
  int bwd_kernels = 0;        // ... backward with its recomputation
  double params = 0;          // parameters held per rank
  int tensors = 0;            // weight matrices (ZeRO-3 partitions them one by one)
  double model_flops = 0;     // forward + backward FLOPs (the MFU numerator)
  double recompute_flops = 0; // FLOPs executed beyond them (recomputation, flash attention's scores)
};

struct StageCosts {
  int stage = 0; // virtual stage (model chunk) index
  int layers = 0;
  bool first = false; // holds the embedding
  bool last = false;  // holds the output head and loss
  // The chunk's layers by kind (TransformerShape::layer_kind: with experts or a dense FFN, full or
  // sliding-window attention): one LayerCosts per kind it holds, and each layer's index among them.
  std::vector<LayerCosts> kinds;
  std::vector<int> layer_kinds;
  /// Layer `l` of the chunk (0-based).
  [[nodiscard]] const LayerCosts& at(int l) const { return kinds.at(layer_kinds.at(l)); }
  /// The sum over the chunk's layers of one of a layer's figures.
  template <class T>
  [[nodiscard]] T total(T LayerCosts::*field) const {
    T sum{};
    for (std::size_t k = 0; k < kinds.size(); ++k)
      sum += static_cast<T>(std::count(layer_kinds.begin(), layer_kinds.end(), static_cast<int>(k))) *
             kinds[k].*field;
    return sum;
  }
  [[nodiscard]] int layers_fwd_kernels() const { return total(&LayerCosts::fwd_kernels); }
  [[nodiscard]] int layers_bwd_kernels() const { return total(&LayerCosts::bwd_kernels); }
  double head_fwd_s = 0; // output head and loss (last chunk only)
  double head_bwd_s = 0;
  double head_bwd_wgrad_s = 0; // of which the output layer's weight gradient
  double bwd_wgrad_s = 0;      // the chunk's weight-gradient GEMMs per micro-batch (layers and head)
  int bwd_tp_bwd_collectives = 0;
  // With tp_comm_overlap: the GEMMs each tensor-parallel communication of a layer overlaps with.
  std::optional<workload::TpOverlapGemms> tp_overlap_gemms;
  workload::TpOverlapConfig tp_overlap;
  double embed_params = 0;  // embedding / output head parameters held per rank
  int embed_tensors = 0;    // embedding tables on this stage
  double fwd_compute_s = 0; // forward kernels per micro-batch
  double bwd_compute_s = 0; // backward kernels per micro-batch, recomputation included
  int head_fwd_kernels = 0;
  int head_bwd_kernels = 0;
  int fwd_tp_collectives = 0;
  int bwd_tp_collectives = 0;
  double tp_bytes = 0; // bytes of one tensor-parallel all-reduce
  int fwd_ep_collectives = 0;
  int bwd_ep_collectives = 0;
  double ep_bytes = 0; // bytes one rank sends in one expert-parallel all-to-all
  // Uneven expert routing (workload.routing): the part of its bytes every rank of an expert-parallel group
  // sends to each rank, as in the model's representative expert layer (empty: balanced, 1/ep each); of
  // the chunk's expert layers, the mean of their busiest rank's load over a balanced rank's, and the
  // mean share of the routed token copies dropped at the experts' capacity.
  std::vector<double> ep_rank_shares;
  // With a per-node dispatch (workload.communication.ep_dispatch: deepep): how the probe dispatches.
  std::optional<collectives::ExpertDispatch> ep_dispatch;
  // With workload.overlap_ep_comm: the share of the GPU's SMs the all-to-all's kernels take while they run
  // beside another micro-batch's computation (0: no overlap).
  double ep_comm_sm_share = 0;
  double expert_load_max = 1;
  double dropped_tokens = 0;
  int fwd_cp_collectives = 0;
  int bwd_cp_collectives = 0;
  double cp_bytes = 0;             // keys and values one rank gathers in one exchange (all-gather output)
  double cp_hide_s = 0;            // attention compute each exchange overlaps with (ring attention)
  double hw_flops = 0;             // FLOPs executed per micro-batch (forward + backward + recomputation)
  double model_flops = 0;          // FLOPs of forward + backward only (the MFU numerator)
  double p2p_bytes = 0;            // activation bytes sent to the next stage per micro-batch, per TP rank
  double params = 0;               // parameters held per rank
  double grad_bytes = 0;           // gradient bytes per rank
  std::vector<GradBucket> buckets; // backward of one micro-batch split at bucket boundaries
  double optimizer_s = 0;
};

/// The algorithm of a stage's tensor-parallel all-reduces: with tp_comm_overlap they are Transformer
/// Engine's userbuffers exchanges (rings over NVLink, not NCCL), so NCCL's own choice (`tuned`) does not
/// apply to them and they run as the ring; otherwise the scenario's.
inline CollectiveAlgorithm tp_algorithm(CollectiveAlgorithm scenario, const StageCosts& first) {
  return first.tp_overlap_gemms && scenario == CollectiveAlgorithm::tuned ? CollectiveAlgorithm::ring
                                                                          : scenario;
}

/// Costs of virtual stage `virtual_stage` of pp x virtual_stages.
StageCosts stage_costs(const scenario::WorkloadConfig& w, const compute::GpuComputeModel& gpu,
                       int virtual_stage);

} // namespace dpusim::plan
