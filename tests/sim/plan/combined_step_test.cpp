// Megatron-Core's combined 1F1B from a model's stage costs: a layer's pass split at its dispatch and
// combine, a step's parts adding up to both passes' GPU work, and the schedule the iteration builds.
#include "sim/plan/combined_step.hpp"
#include "tests/sim/plan/catalog_h100.hpp"

#include <gtest/gtest.h>

using namespace dpusim;

namespace {

compute::GpuComputeModel h100() {
  return dpusim::testing::catalog_h100();
}

/// 4 layers of 16 SwiGLU experts (top-2) on 8 expert-parallel ranks, the first dense.
scenario::WorkloadConfig experts_on_8() {
  scenario::WorkloadConfig w;
  w.model.layers = 4;
  w.model.hidden = 4096;
  w.model.heads = 32;
  w.model.kv_heads = 8;
  w.model.ffn = 14336;
  w.model.vocab = 32000;
  w.model.activation = workload::Activation::swiglu;
  w.model.experts = 16;
  w.model.top_k = 2;
  w.model.expert_ffn = 4096;
  w.model.dense_layers = 1;
  w.seq_len = 4096;
  w.global_batch = 64;
  w.micro_batch = 1;
  w.parallelism = {1, 1, 8};
  w.parallelism.ep = 8;
  w.grad_bucket = units::mib(25);
  return w;
}

} // namespace

TEST(CombinedStep, ALayersPassSplitsAtItsDispatchAndRecomputationRepeatsTheForward) {
  const auto gpu = h100();
  auto w = experts_on_8();
  auto c = plan::stage_costs(w, gpu, 0);
  for (int l = 0; l < c.layers; ++l) {
    EXPECT_GT(c.at(l).fwd_mlp_s, 0.0);
    EXPECT_LT(c.at(l).fwd_mlp_s, c.at(l).fwd_s);
    EXPECT_GT(c.at(l).bwd_mlp_s, c.at(l).fwd_mlp_s); // data and weight gradients
    EXPECT_LT(c.at(l).bwd_mlp_s, c.at(l).bwd_s);
    EXPECT_EQ(c.at(l).bwd_recompute_s, 0.0);
  }
  EXPECT_EQ(c.ep_comm_sm_share, 0.0);
  w.recompute = workload::Recompute::full;
  w.overlap_ep_comm = true;
  c = plan::stage_costs(w, gpu, 0);
  EXPECT_DOUBLE_EQ(c.at(1).bwd_recompute_s, c.at(1).fwd_s);
  EXPECT_DOUBLE_EQ(c.ep_comm_sm_share, 20.0 / 132); // DeepEP's 20 SMs of an H100's 132
}

TEST(CombinedStep, ItsPartsAddUpToBothPassesAndTheOverlapHidesTheAllToAlls) {
  const auto gpu = h100();
  auto w = experts_on_8();
  w.overlap_ep_comm = true;
  w.recompute = workload::Recompute::full;
  const auto c = plan::stage_costs(w, gpu, 0);
  const auto step = plan::combined_step(c, c);
  EXPECT_NEAR(step.compute_s, c.fwd_compute_s + c.bwd_compute_s, 1e-15);
  // No communication: the GPU work, whatever the SMs the all-to-alls would take.
  EXPECT_NEAR(step.time_s(1.0, 0, 0, 0, 0), step.compute_s, 1e-12);
  // A drawn step (slower GPUs) scales its computation.
  EXPECT_NEAR(step.time_s(1.5, 0, 0, 0, 0), 1.5 * step.compute_s, 1e-12);
  // All-to-alls of a layer's MLP time: beside the other pass they cost less than in series, never less
  // than their own time or the computation's.
  const double a2a = c.at(1).fwd_mlp_s;
  const int a2as = c.fwd_ep_collectives + c.bwd_ep_collectives;
  const double series = step.compute_s + a2as * a2a;
  const double combined = step.time_s(1.0, 0, 0, 0, a2a);
  EXPECT_LT(combined, series);
  EXPECT_GT(combined, step.compute_s);
  // The recomputation's two all-to-alls per expert layer stay exposed.
  EXPECT_GT(combined, step.compute_s + (c.bwd_ep_collectives - c.fwd_ep_collectives) * a2a);
  // Tensor-parallel collectives fused in the parts add to the compute stream like its kernels.
  auto tp = step;
  for (auto& l : tp.fwd)
    l.pre.tp_fwd = 1;
  EXPECT_NEAR(tp.time_s(1.0, 0.001, 0, 0, 0), step.compute_s + 0.001 * c.layers, 1e-12);
}

TEST(CombinedStep, TheIterationCombinesOnlyWithTheOverlapAndKeepsLastBackwardsApart) {
  auto w = experts_on_8();
  w.global_batch = 8 * 4; // 4 micro-batches of one replica
  auto count = [&](int stage) {
    int pairs = 0;
    for (const auto& op : plan::stage_schedule(w, stage))
      pairs += op.with_next ? 1 : 0;
    return pairs;
  };
  EXPECT_EQ(count(0), 0);
  w.overlap_ep_comm = true;
  EXPECT_EQ(count(0), 3); // F0, then F1+B0, F2+B1, F3+B2, then B3 alone
  w.zero_stage = 3;
  EXPECT_EQ(count(0), 0); // a task per layer
  w.zero_stage = 1;
  w.overlap_param_gather = true;
  EXPECT_EQ(count(0), 3); // the first forward gathers, in the warm-up
  w.parallelism.ep = 1;
  EXPECT_EQ(count(0), 0); // nothing to hide
}

TEST(CombinedStep, WeightGradientsArePartOfTheBackwardAndOfItsBuckets) {
  // What a zero-bubble schedule's weight op computes: each linear layer's dW and the router's, a part of
  // the backward, shared out over the gradient buckets.
  const auto gpu = h100();
  auto w = experts_on_8();
  w.grad_bucket = units::mib(40);
  const auto c = plan::stage_costs(w, gpu, 0);
  EXPECT_GT(c.bwd_wgrad_s, 0.2 * c.bwd_compute_s);
  EXPECT_LT(c.bwd_wgrad_s, 0.6 * c.bwd_compute_s);
  double buckets = 0;
  for (const auto& b : c.buckets) {
    EXPECT_LE(b.wgrad_s, b.compute_s);
    buckets += b.wgrad_s;
  }
  EXPECT_GT(c.buckets.size(), 1u);
  EXPECT_NEAR(buckets, c.bwd_wgrad_s, 1e-12);
  for (int l = 0; l < c.layers; ++l) {
    EXPECT_GT(c.at(l).bwd_wgrad_s, 0.0);
    EXPECT_LT(c.at(l).bwd_wgrad_s, c.at(l).bwd_s - c.at(l).bwd_recompute_s);
  }
}
