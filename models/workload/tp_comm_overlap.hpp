#pragma once
// Tensor-parallel communication overlapped with the GEMMs around it: Transformer Engine's userbuffers, as
// Megatron-Core's `--tp-comm-overlap` turns them on (TE-UB, docs/models/workload.md). With sequence
// parallelism each layer all-gathers its input before the column-parallel GEMMs (qkv, fc1) and
// reduce-scatters the output of the row-parallel ones (attn_proj, fc2); the backward pass all-gathers the
// output gradient before the row-parallel data-gradient GEMMs and reduce-scatters the input gradient of
// the column-parallel ones. Pure arithmetic: the times of one layer on one tensor-parallel rank.

#include "models/workload/transformer.hpp"

#include <optional>

namespace dpusim::workload {

/// Transformer Engine's default overlap of each communication (TE-UB, `initialize_ub`).
struct TpOverlapConfig {
  int tp = 1;
  int pipeline_splits = 4;  // "pipeline" (GEMM then reduce-scatter, chunk by chunk): num_splits
  double comm_sm_share = 0; // the GPU's SMs the pipelined and bulk communication kernels take (16 of them)
};

/// The GEMMs one layer's tensor-parallel communications overlap with, on one rank (seconds).
struct TpOverlapGemms {
  double qkv = 0, proj = 0, fc1 = 0, fc2 = 0; // forward: ring exchange (qkv, fc1), pipeline (proj, fc2)
  double proj_dgrad = 0, fc2_dgrad = 0;       // backward: ring exchange of the output gradient
  double qkv_wgrad = 0, fc1_wgrad = 0;        // backward: bulk reduce-scatter beside the weight gradient
};

/// A GEMM of `gemm_s` fed by an all-gather of `comm_s` exchanged around the ring one chunk at a time
/// (TE's "ring_exchange", tp splits, copy engines): tp - 1 steps each the longer of a GEMM chunk and a
/// transfer, then the last chunk's GEMM.
double ring_exchange_s(double gemm_s, double comm_s, int tp);

/// A GEMM of `gemm_s` whose output is reduce-scattered in `splits` chunks as it is produced (TE's
/// "pipeline"): the GEMM runs on the SMs the communication leaves; the first chunk's GEMM and the last
/// chunk's transfer are exposed.
double pipelined_s(double gemm_s, double comm_s, int splits, double sm_share);

/// A communication beside an independent GEMM (TE's "bulk"): the longer of the two, the GEMM on the SMs
/// the communication leaves.
double bulk_s(double gemm_s, double comm_s, double sm_share);

/// What one layer's forward (backward) takes beyond its GEMMs' own time for its tensor-parallel
/// communication, each all-gather or reduce-scatter taking `half_all_reduce_s` alone.
double forward_exposed_s(const TpOverlapGemms& g, const TpOverlapConfig& c, double half_all_reduce_s);
double backward_exposed_s(const TpOverlapGemms& g, const TpOverlapConfig& c, double half_all_reduce_s);

/// What one fused tensor-parallel all-reduce of a forward (backward) pass adds to its task: the
/// all-reduce's own time `all_reduce_s`, or with the overlap (`gemms` given) its exposed part. A layer's
/// forward and backward each hold two all-reduces' worth: two all-gathers and two reduce-scatters, each
/// half of an all-reduce of the same tensor (a ring all-reduce is both).
struct TpEach {
  double forward_s = 0;
  double backward_s = 0;
};
TpEach tp_each_s(const std::optional<TpOverlapGemms>& gemms, const TpOverlapConfig& c, double all_reduce_s);

} // namespace dpusim::workload
