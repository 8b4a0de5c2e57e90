#include "sim/plan/stage_costs.hpp"
#include "tests/sim/plan/catalog_h100.hpp"

#include <gtest/gtest.h>
#include <numeric>

using namespace dpusim;

namespace {

compute::GpuComputeModel h100() {
  return dpusim::testing::catalog_h100();
}

scenario::WorkloadConfig gpt(int tp, int pp, int dp) {
  scenario::WorkloadConfig w;
  w.model.layers = 40;
  w.model.hidden = 5120;
  w.model.heads = 40;
  w.model.kv_heads = 40;
  w.model.ffn = 4 * 5120;
  w.model.vocab = 50257;
  w.seq_len = 2048;
  w.global_batch = 64 * dp;
  w.micro_batch = 1;
  w.parallelism = {tp, pp, dp};
  w.grad_bucket = units::mib(25);
  return w;
}

/// A mixture of `layers` layers of 16 SwiGLU experts of 4096 (top `top_k`) on 8 expert-parallel ranks.
scenario::WorkloadConfig experts_on_8(int layers, int top_k) {
  auto w = gpt(1, 1, 8);
  w.model.layers = layers;
  w.model.activation = workload::Activation::swiglu;
  w.model.experts = 16;
  w.model.top_k = top_k;
  w.model.expert_ffn = 4096;
  w.parallelism.ep = 8;
  return w;
}

} // namespace

TEST(StageCosts, BucketsConserveGradientBytesAndBackwardTime) {
  const auto gpu = h100();
  for (int pp : {1, 4}) {
    const auto w = gpt(8, pp, 2);
    for (int s = 0; s < pp; ++s) {
      const auto c = plan::stage_costs(w, gpu, s);
      double bytes = 0;
      double time = 0;
      int ars = 0;
      for (const auto& b : c.buckets) {
        bytes += b.bytes;
        time += b.compute_s;
        ars += b.tp_collectives;
      }
      EXPECT_NEAR(bytes / c.grad_bytes, 1.0, 1e-12) << "stage " << s;
      EXPECT_NEAR(time / c.bwd_compute_s, 1.0, 1e-12) << "stage " << s;
      EXPECT_EQ(ars, c.bwd_tp_collectives);
      EXPECT_GT(c.buckets.size(), 1u);
    }
  }
}

TEST(StageCosts, RecomputationAddsForwardWorkToTheBackwardPass) {
  const auto gpu = h100();
  auto w = gpt(8, 1, 1);
  const auto none = plan::stage_costs(w, gpu, 0);
  w.recompute = workload::Recompute::full;
  const auto full = plan::stage_costs(w, gpu, 0);
  EXPECT_EQ(full.fwd_compute_s, none.fwd_compute_s);
  EXPECT_GT(full.bwd_compute_s, none.bwd_compute_s);
  EXPECT_EQ(full.model_flops, none.model_flops);
  EXPECT_GT(full.hw_flops, none.hw_flops);
  EXPECT_EQ(full.bwd_tp_collectives, 2 * none.bwd_tp_collectives);
}

TEST(StageCosts, ModelFlopsFollowThePublishedConventionAndFlashRecomputationIsHardwareWork) {
  // A dense layer's forward is 24 b s h^2 + 4 b s^2 h FLOPs (the Megatron-LM paper's count: QKV,
  // projection and a 4h FFN, scores and values over the whole sequence); the model counts forward and
  // backward once: 3x that. Flash attention's backward recomputes the scores (2 b s^2 h more), which is
  // executed work but not model FLOPs.
  const auto gpu = h100();
  const auto w = gpt(1, 2, 1); // the first of two stages: 20 layers, no output head
  const auto c = plan::stage_costs(w, gpu, 0);
  const double b = w.micro_batch, s = w.seq_len, h = w.model.hidden;
  const double layers = 20;
  EXPECT_NEAR(c.model_flops / (layers * 3 * (24 * b * s * h * h + 4 * b * s * s * h)), 1.0, 1e-12);
  EXPECT_NEAR((c.hw_flops - c.model_flops) / (layers * 2 * b * s * s * h), 1.0, 1e-12);
}

TEST(StageCosts, ComputeTimeFollowsFlopsOverAchievedThroughput) {
  // The forward pass of a stage: its FLOPs over an effective rate between the table's worst and best.
  const auto gpu = h100();
  const auto c = plan::stage_costs(gpt(1, 1, 1), gpu, 0);
  const double flops_fwd = c.model_flops / 3.0; // backward is twice the forward
  const double rate = flops_fwd / c.fwd_compute_s;
  EXPECT_GT(rate, 300e12);
  EXPECT_LT(rate, gpu.params().gemm_bf16.best().si());
}

TEST(StageCosts, OnlyTheLastStageCarriesTheOutputHead) {
  const auto gpu = h100();
  const auto w = gpt(8, 4, 1);
  const auto first = plan::stage_costs(w, gpu, 0);
  const auto last = plan::stage_costs(w, gpu, 3);
  EXPECT_GT(last.fwd_compute_s, first.fwd_compute_s);
  EXPECT_EQ(last.p2p_bytes, 0.0);
  EXPECT_DOUBLE_EQ(first.p2p_bytes, 2048.0 * 5120 * 2 / 8);
}

TEST(StageCosts, UnevenFirstAndLastStagesHoldTheirOwnLayers) {
  // 40 layers on 4 stages with 5 on the first and 7 on the last: 14 on each of the two middle ones;
  // interleaved over 2 chunks, a stage's odd layer goes to its first chunk.
  const auto gpu = h100();
  auto w = gpt(8, 4, 1);
  w.parallelism.first_stage_layers = 5;
  w.parallelism.last_stage_layers = 7;
  w.virtual_stages = 2;
  std::vector<int> layers;
  double params = 0;
  for (int vs = 0; vs < 8; ++vs) {
    const auto c = plan::stage_costs(w, gpu, vs);
    layers.push_back(c.layers);
    params += c.total(&plan::LayerCosts::params);
  }
  // Virtual stage vs is chunk vs / 4 of stage vs % 4.
  EXPECT_EQ(layers, (std::vector<int>{3, 7, 7, 4, 2, 7, 7, 3}));
  EXPECT_NEAR(params, 40 * plan::stage_costs(w, gpu, 1).at(0).params, 1e-6 * params);
}

TEST(StageCosts, AMixtureOfExpertsDenseFirstLayersGoWhereTheLayerOrderPutsThem) {
  // A 12-layer mixture of experts whose first 5 layers are dense, on 2 stages of 2 chunks (3 layers a
  // chunk): virtual stages 0 and 1 (chunk 0 of each stage) hold layers 0-2 and 3-5, so 3 and 2 dense
  // ones; the rest none. The parameters over every chunk are the model's (conservation), a dense layer
  // sends no expert all-to-all, and each chunk's time is its layers' sum.
  const auto gpu = h100();
  auto w = gpt(2, 2, 4);
  w.model.layers = 12;
  w.model.activation = workload::Activation::swiglu;
  w.model.ffn = 3 * 5120;
  w.model.experts = 8;
  w.model.top_k = 2;
  w.model.expert_ffn = 2048;
  w.model.dense_layers = 5;
  w.parallelism.ep = 4;
  w.virtual_stages = 2;
  std::vector<int> dense;
  double params = 0;
  int a2as = 0;
  for (int vs = 0; vs < 4; ++vs) {
    const auto c = plan::stage_costs(w, gpu, vs);
    const int first_layer = workload::chunk_first_layer(w.parallelism, 12, 2, vs);
    int n = 0;
    double fwd = 0;
    for (int l = 0; l < c.layers; ++l) {
      const bool is_dense = w.model.dense_layer(first_layer + l);
      n += is_dense ? 1 : 0;
      fwd += c.at(l).fwd_s;
      EXPECT_EQ(c.at(l).fwd_ep, is_dense ? 0 : 2) << "virtual stage " << vs << ", layer " << l;
    }
    dense.push_back(n);
    params += c.params - c.embed_params;
    a2as += c.fwd_ep_collectives;
    EXPECT_NEAR(c.fwd_compute_s - c.head_fwd_s, fwd, 1e-12);
    double bucket_params = 0;
    for (const auto& b : c.buckets)
      bucket_params += b.params;
    EXPECT_NEAR(bucket_params / c.params, 1.0, 1e-12);
  }
  EXPECT_EQ(dense, (std::vector<int>{3, 2, 0, 0}));
  EXPECT_EQ(a2as, 2 * (12 - 5));
  // Per tensor-parallel rank, each expert-parallel rank holding a quarter of the experts.
  const double model = 5 * workload::layer_parameter_count(
                               workload::layer_shape(w.model, workload::TransformerShape::kDenseFfn), 4) +
                       7 * workload::layer_parameter_count(w.model, 4);
  EXPECT_NEAR(params / (model / 2), 1.0, 1e-12);
  // A dense FFN of 3h is wider than an expert-parallel rank's two experts of 2048 and the router; the
  // dense layers come first.
  const auto first = plan::stage_costs(w, gpu, 0);
  EXPECT_EQ(first.kinds.size(), 1u);
  const auto second = plan::stage_costs(w, gpu, 1);
  ASSERT_EQ(second.kinds.size(), 2u);
  EXPECT_GT(second.at(0).params, second.at(2).params);
  EXPECT_EQ(second.at(1).fwd_ep, 0);
}

TEST(StageCosts, MultiTokenPredictionModulesEndTheLastChunk) {
  // Two modules after a 12-layer model on 2 stages: the last virtual stage holds its 6 layers and both
  // modules; the parameters over every chunk are the model's, modules included.
  const auto gpu = h100();
  auto w = gpt(2, 2, 4);
  w.model.layers = 12;
  w.model.mtp_layers = 2;
  const auto first = plan::stage_costs(w, gpu, 0);
  const auto last = plan::stage_costs(w, gpu, 1);
  EXPECT_EQ(first.layers, 6);
  EXPECT_EQ(last.layers, 8);
  ASSERT_EQ(last.kinds.size(), 2u);
  EXPECT_GT(last.at(7).fwd_s, last.at(0).fwd_s + last.head_fwd_s * 0.99);
  const double params = first.params + last.params - (w.model.tied_embeddings ? first.embed_params : 0.0);
  EXPECT_NEAR(params / (workload::parameter_count(w.model, w.seq_len) / 2), 1.0, 1e-9);
}

TEST(StageCosts, UnevenRoutingTimesEachExpertLayerOnItsBusiestRankAndKeepsItsFlops) {
  // 16 experts (top-2) on 8 expert-parallel ranks, 6 layers, the first dense. Under a Zipf law the
  // expert layers take longer (their busiest rank's GEMMs), the dense one does not change, the FLOPs
  // stay the balanced ones (every copy is still processed: dropless) and the collectives are the same.
  const auto gpu = h100();
  auto w = experts_on_8(6, 2);
  w.model.dense_layers = 1;
  const auto balanced = plan::stage_costs(w, gpu, 0);
  workload::ExpertRouting r;
  r.load = workload::ExpertRouting::Load::zipf;
  r.zipf_exponent = 1.0;
  w.routing = r;
  const auto zipf = plan::stage_costs(w, gpu, 0);
  EXPECT_DOUBLE_EQ(zipf.at(0).fwd_s, balanced.at(0).fwd_s);
  EXPECT_GT(zipf.at(1).fwd_s, balanced.at(1).fwd_s);
  EXPECT_GT(zipf.at(1).bwd_s, balanced.at(1).bwd_s);
  EXPECT_NEAR(zipf.model_flops / balanced.model_flops, 1.0, 1e-12);
  EXPECT_EQ(zipf.fwd_ep_collectives, balanced.fwd_ep_collectives);
  EXPECT_EQ(zipf.ep_bytes, balanced.ep_bytes);
  EXPECT_GT(zipf.expert_load_max, 1.0);
  EXPECT_EQ(zipf.dropped_tokens, 0.0);
  EXPECT_TRUE(balanced.ep_rank_shares.empty());
  ASSERT_EQ(zipf.ep_rank_shares.size(), 8u);
  EXPECT_NEAR(std::accumulate(zipf.ep_rank_shares.begin(), zipf.ep_rank_shares.end(), 0.0), 1.0, 1e-12);
  // The layers' time is the mean of their busiest ranks': between the least and the most loaded layer's.
  const auto sum = workload::summarize_routing(w.model, r, 8);
  EXPECT_NEAR(zipf.expert_load_max, sum.mean_max_load, 1e-12);
  // A capacity factor drops copies: fewer FLOPs, and a rank can no longer exceed the factor.
  w.routing->capacity_factor = 1.25;
  const auto capped = plan::stage_costs(w, gpu, 0);
  EXPECT_GT(capped.dropped_tokens, 0.0);
  EXPECT_LT(capped.model_flops, balanced.model_flops);
  EXPECT_LE(capped.expert_load_max, 1.25 + 1e-12);
  EXPECT_LT(capped.at(1).fwd_s, zipf.at(1).fwd_s);
  // With every expert on each rank (ep = 1) nobody waits for a busier rank: the time is balanced.
  w.routing->capacity_factor.reset();
  w.parallelism.ep = 1;
  auto one = w;
  one.routing.reset();
  EXPECT_NEAR(plan::stage_costs(w, gpu, 0).fwd_compute_s, plan::stage_costs(one, gpu, 0).fwd_compute_s,
              1e-15);
}

TEST(StageCosts, AnFp8DispatchSendsAByteAndAScalePer128ValuesInTheForwardDispatchOnly) {
  // DeepEP's dispatch once per node: a token's 16-bit hidden state, or, with ep_dispatch_fp8, the
  // forward dispatch (and its recomputation) in FP8 with a 4-byte scale per 128 values; the probe's
  // bytes are the mean over an expert layer's exchanges (4, or 6 recomputing).
  const auto gpu = h100();
  auto w = experts_on_8(2, 4);
  w.ep_dispatch_per_node = true;
  const auto bf16 = plan::stage_costs(w, gpu, 0);
  ASSERT_TRUE(bf16.ep_dispatch.has_value());
  EXPECT_DOUBLE_EQ(bf16.ep_dispatch->token_bytes, bf16.ep_bytes / 4);
  EXPECT_EQ(bf16.ep_dispatch->top_k, 4);
  w.ep_dispatch_fp8 = true;
  const double fp8_per_bf16 = (1 + 4.0 / 128) / 2;
  EXPECT_DOUBLE_EQ(plan::stage_costs(w, gpu, 0).ep_dispatch->token_bytes,
                   bf16.ep_dispatch->token_bytes * (fp8_per_bf16 + 3) / 4);
  w.recompute = workload::Recompute::full;
  EXPECT_DOUBLE_EQ(plan::stage_costs(w, gpu, 0).ep_dispatch->token_bytes,
                   bf16.ep_dispatch->token_bytes * (2 * fp8_per_bf16 + 4) / 6);
  w.ep_dispatch_per_node = false;
  EXPECT_FALSE(plan::stage_costs(w, gpu, 0).ep_dispatch.has_value());
}

TEST(StageCosts, NcclsChoiceLeavesTheUserbuffersExchangesOfTpCommOverlapAsRings) {
  // With tp_comm_overlap a layer's tensor-parallel exchanges are Transformer Engine's userbuffers rings,
  // not NCCL's collectives: `auto` runs them as the ring; a pinned algorithm stays as pinned.
  plan::StageCosts c;
  EXPECT_EQ(plan::tp_algorithm(plan::CollectiveAlgorithm::tuned, c), plan::CollectiveAlgorithm::tuned);
  c.tp_overlap_gemms = workload::TpOverlapGemms{};
  EXPECT_EQ(plan::tp_algorithm(plan::CollectiveAlgorithm::tuned, c), plan::CollectiveAlgorithm::ring);
  EXPECT_EQ(plan::tp_algorithm(plan::CollectiveAlgorithm::nvls, c), plan::CollectiveAlgorithm::nvls);
}
