#include "models/workload/parallelism.hpp"
#include "models/workload/transformer.hpp"

#include <gtest/gtest.h>

using namespace dpusim::workload;

namespace {
TransformerShape gpt(int layers, int hidden, int heads, int vocab) {
  const TransformerShape m{.name = "test",
                           .layers = layers,
                           .hidden = hidden,
                           .heads = heads,
                           .kv_heads = heads,
                           .ffn = 4 * hidden,
                           .vocab = vocab};
  return m;
}
} // namespace

TEST(Transformer, ParameterCountMatchesMegatronEq2) {
  // Eq. 2 omits the final LayerNorm (2h parameters); everything else must match exactly.
  for (auto [l, h, a] : {std::tuple{24, 1920, 15}, std::tuple{96, 12288, 96}, std::tuple{128, 25600, 160}}) {
    const auto m = gpt(l, h, a, 51200);
    EXPECT_NEAR(parameter_count(m, 2048), megatron_eq2_parameters(l, h, 51200, 2048) + 2.0 * h, 1.0);
  }
  // The paper's Table 1 row "1008.0" billion (l=128, h=25600).
  EXPECT_NEAR(megatron_eq2_parameters(128, 25600, 51200, 2048) / 1e9, 1008.0, 0.5);
}

TEST(Transformer, IterationFlopsWithFullRecomputeMatchMegatronEq3) {
  // Forward + recomputed forward + backward of every layer, and forward + backward of the head.
  const auto m = gpt(40, 5120, 40, 51200);
  LayerConfig c;
  c.micro_batch = 1;
  c.seq_len = 2048;
  const double layer = 2 * layer_forward(m, c).flops() + layer_backward(m, c).flops();
  const double head = head_forward(m, c).flops() + head_backward(m, c).flops();
  const double per_sequence = m.layers * layer + head;
  EXPECT_NEAR(per_sequence / megatron_eq3_flops(1, 2048, 40, 5120, 51200), 1.0, 1e-12);
}

TEST(Transformer, TensorParallelismSplitsTheGemmsEvenly) {
  const auto m = gpt(40, 5120, 40, 51200);
  LayerConfig one;
  one.seq_len = 2048;
  LayerConfig eight = one;
  eight.tp = 8;
  EXPECT_NEAR(layer_forward(m, one).flops() / layer_forward(m, eight).flops(), 8.0, 1e-9);
  EXPECT_NEAR(layer_backward(m, one).flops() / layer_backward(m, eight).flops(), 8.0, 1e-9);
}

TEST(Transformer, GroupedQueryAttentionShrinksTheKvProjection) {
  auto m = gpt(1, 4096, 32, 32000);
  const double mha = layer_parameter_count(m);
  m.kv_heads = 8;
  const double gqa = layer_parameter_count(m);
  // K and V projections shrink from h x h to h x h/4 each.
  EXPECT_NEAR(mha - gqa, 2.0 * (4096.0 * 4096 - 4096.0 * 1024) + 2.0 * (4096 - 1024), 1.0);
}

TEST(Parallelism, RanksAreTensorInnermostThenDataThenPipeline) {
  const Parallelism p{8, 2, 4};
  EXPECT_EQ(p.world(), 64);
  EXPECT_EQ(rank_of(p, {3, 0, 0}), 3);
  EXPECT_EQ(rank_of(p, {0, 1, 0}), 8);
  EXPECT_EQ(rank_of(p, {0, 0, 1}), 32);
  for (int r = 0; r < p.world(); ++r)
    EXPECT_EQ(rank_of(p, coord_of(p, r)), r);
  EXPECT_EQ(tp_group(p, 1, 1), (std::vector<int>{40, 41, 42, 43, 44, 45, 46, 47}));
  EXPECT_EQ(dp_group(p, 2, 0), (std::vector<int>{2, 10, 18, 26}));
}

namespace {
TransformerShape mixtral() {
  const TransformerShape m{.name = "mixtral-8x7b",
                           .layers = 32,
                           .hidden = 4096,
                           .heads = 32,
                           .kv_heads = 8,
                           .ffn = 14336,
                           .vocab = 32000,
                           .activation = Activation::swiglu,
                           .tied_embeddings = false,
                           .learned_positions = false,
                           .biases = false,
                           .experts = 8,
                           .top_k = 2,
                           .expert_ffn = 14336};
  return m;
}
} // namespace

TEST(Parallelism, UnevenStagesShareWhatTheFirstAndLastLeave) {
  // Llama 3 405B on 16 stages (Dubey et al. 2024): one layer fewer on the first and the last stage.
  Parallelism p{.tp = 8, .pp = 16, .dp = 128};
  p.first_stage_layers = 7;
  p.last_stage_layers = 7;
  int total = 0;
  for (int s = 0; s < 16; ++s)
    total += stage_layers(p, 126, s);
  EXPECT_EQ(total, 126);
  EXPECT_EQ(stage_layers(p, 126, 0), 7);
  EXPECT_EQ(stage_layers(p, 126, 7), 8);
  EXPECT_EQ(stage_layers(p, 126, 15), 7);
  // Only the last stage given: the first 15 share 126 - 6 = 120.
  p.first_stage_layers = 0;
  p.last_stage_layers = 6;
  EXPECT_EQ(stage_layers(p, 126, 0), 8);
  // Over 4 chunks a stage of 7 layers gives 2, 2, 2, 1 (virtual stage = chunk x pp + stage).
  p.last_stage_layers = 7;
  p.first_stage_layers = 7;
  EXPECT_EQ(chunk_layers(p, 126, 4, 0), 2);
  EXPECT_EQ(chunk_layers(p, 126, 4, 3 * 16), 1);
  EXPECT_EQ(chunk_layers(p, 126, 4, 3 * 16 + 1), 2);
}

TEST(MixtureOfExperts, ParameterCountMatchesMixtral) {
  // Mixtral 8x7B: 46.7B parameters (Jiang et al. 2024).
  EXPECT_NEAR(parameter_count(mixtral(), 4096) / 1e9, 46.7, 0.1);
  // One rank of 8 expert-parallel ranks holds one expert and all the rest.
  const auto m = mixtral();
  EXPECT_NEAR(layer_parameter_count(m, 1) - layer_parameter_count(m, 8), 7 * expert_parameter_count(m, 8),
              1.0);
}

TEST(Transformer, WeightMatricesAreTheProjectionsAndEmbeddingTables) {
  auto m = gpt(2, 1024, 16, 50257);
  EXPECT_EQ(layer_weight_matrices(m), 4);     // fused QKV, output projection, up, down
  EXPECT_EQ(embedding_weight_matrices(m), 2); // tied tokens + learned positions
  m.tied_embeddings = false;
  m.learned_positions = false;
  EXPECT_EQ(embedding_weight_matrices(m), 2); // tokens + output head
  // Mixtral: 8 experts, each an up and a down projection; a rank of ep = 4 holds two experts.
  EXPECT_EQ(layer_weight_matrices(mixtral()), 2 + 16);
  EXPECT_EQ(layer_weight_matrices(mixtral(), 4), 2 + 4);
}

TEST(MixtureOfExperts, LayerFlopsAreTheDenseLayerWithTopKExpertsPlusTheRouter) {
  auto moe = mixtral();
  auto dense = moe;
  dense.experts = 0;
  dense.ffn = moe.top_k * moe.expert_ffn; // k experts' FFNs side by side
  LayerConfig c;
  c.seq_len = 4096;
  const double router_fwd = 2.0 * 4096 * 4096 * 8;
  EXPECT_NEAR(layer_forward(moe, c).flops(), layer_forward(dense, c).flops() + router_fwd, 1.0);
  EXPECT_NEAR(layer_backward(moe, c).flops(), layer_backward(dense, c).flops() + 2 * router_fwd, 1.0);
  // Balanced routing: a rank's share of the expert work does not depend on how experts are spread.
  for (int ep : {2, 4, 8}) {
    c.ep = ep;
    EXPECT_NEAR(layer_forward(moe, c).flops(),
                layer_forward(dense, LayerConfig{c.micro_batch, c.seq_len}).flops() + router_fwd, 1.0);
  }
}

TEST(MixtureOfExperts, DispatchSendsEachTokensTopKCopiesOfTheHiddenState) {
  LayerConfig c;
  c.micro_batch = 2;
  c.seq_len = 4096;
  c.tp = 2;
  EXPECT_DOUBLE_EQ(ep_dispatch_bytes(mixtral(), c), 2.0 * 4096 / 2 * 2 * 4096 * 2);
  auto dense = mixtral();
  dense.experts = 0;
  EXPECT_EQ(ep_dispatch_bytes(dense, c), 0.0);
}

TEST(Parallelism, ExpertGroupsAreBlocksOfDataParallelRanks) {
  Parallelism p;
  p.tp = 2;
  p.dp = 8;
  p.ep = 4;
  EXPECT_EQ(ep_group(p, 1, 5, 0), (std::vector<int>{9, 11, 13, 15})); // dp 4..7 of tp rank 1
  EXPECT_EQ(ep_group(p, 0, 0, 0), (std::vector<int>{0, 2, 4, 6}));
}

TEST(ContextParallelism, RanksSplitEveryLayersWorkEvenly) {
  const TransformerShape m{.name = "test",
                           .layers = 1,
                           .hidden = 4096,
                           .heads = 32,
                           .kv_heads = 8,
                           .ffn = 14336,
                           .vocab = 32000,
                           .activation = Activation::swiglu};
  for (auto attention : {AttentionKernel::unfused, AttentionKernel::flash}) {
    LayerConfig whole;
    whole.seq_len = 16384;
    whole.tp = 8;
    whole.attention = attention;
    auto split = whole;
    split.cp = 4;
    // Queries (and every token-wise GEMM) split four ways; each rank's queries still see all keys.
    EXPECT_NEAR(4 * layer_forward(m, split).flops(), layer_forward(m, whole).flops(), 1.0);
    EXPECT_NEAR(4 * layer_backward(m, split).flops(), layer_backward(m, whole).flops(), 1.0);
  }
  LayerConfig c;
  c.seq_len = 16384;
  c.tp = 8;
  c.cp = 4;
  // The whole sequence's K and V for one kv head per rank, 16-bit.
  EXPECT_DOUBLE_EQ(cp_kv_bytes(m, c), 2.0 * 16384 * 1 * 128 * 2);
  EXPECT_DOUBLE_EQ(tp_activation_bytes(m, c, 2.0), 16384.0 / 4 * 4096 * 2);
}

TEST(Parallelism, ContextParallelRanksSitBetweenTensorAndDataParallelOnes) {
  Parallelism p;
  p.tp = 2;
  p.cp = 2;
  p.dp = 2;
  p.pp = 2;
  for (int r = 0; r < p.world(); ++r)
    EXPECT_EQ(rank_of(p, coord_of(p, r)), r);
  EXPECT_EQ(rank_of(p, {1, 1, 1, 1}), 1 + 2 * (1 + 2 * (1 + 2 * 1)));
  EXPECT_EQ(replica_group(p, 1, 0), (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(cp_group(p, 1, 0, 0), (std::vector<int>{1, 3}));
  EXPECT_EQ(gradient_group(p, 0, 0), (std::vector<int>{0, 2, 4, 6})); // every dp x cp rank of tp rank 0
}

TEST(Transformer, CrossEntropyMovesTheLogitsAsMegatronsFp32PassesDo) {
  // MCORE-XENT on the fp32 upcast of the 16-bit logits: upcast (2 + 4 B), maximum (4), shift (4 + 4),
  // exponential (4 + 4), sum (4), normalisation (4 + 4) forward; in-place gradient (4 + 4) and the cast
  // back (4 + 2) backward, each over this rank's T x V/t logits.
  const auto m = gpt(2, 2048, 16, 131072);
  LayerConfig c;
  c.seq_len = 4096;
  c.tp = 2;
  auto loss_bytes = [](const LayerWork& w) {
    double bytes = 0;
    int kernels = 0;
    for (const auto& op : w.memory_ops)
      if (op.name.starts_with("cross_entropy")) {
        bytes += op.bytes;
        ++kernels;
      }
    return std::pair{bytes, kernels};
  };
  const double logits = 4096.0 * 131072 / 2;
  EXPECT_EQ(loss_bytes(head_forward(m, c)), std::pair(38.0 * logits, 6));
  EXPECT_EQ(loss_bytes(head_backward(m, c)), std::pair(14.0 * logits, 2));
}

TEST(MixtureOfExperts, HeadsWiderThanHiddenOverHeadsCountTheirOwnWidth) {
  // Qwen3's 64 heads of 128 on a hidden size of 4096: Q and the output projection are 8192 wide.
  TransformerShape m = mixtral();
  const double narrow = layer_parameter_count(m);
  m.head_width = 2 * m.hidden / m.heads; // twice as wide
  EXPECT_DOUBLE_EQ(m.attention_width(), 2.0 * m.hidden);
  const double h = m.hidden;
  const double kv = static_cast<double>(m.kv_heads) * m.head_dim();
  // Q grows by h x h, the output projection by h x h, K and V by 2 x h x kv / 2.
  EXPECT_DOUBLE_EQ(layer_parameter_count(m) - narrow, 2 * h * h + h * kv);
  // The default head width leaves a model as it was.
  TransformerShape same = mixtral();
  same.head_width = same.hidden / same.heads;
  EXPECT_EQ(layer_parameter_count(same), narrow);
}

TEST(MixtureOfExperts, SharedExpertsAreADenseFfnBesideTheRoutedOnes) {
  // Two shared experts: every token goes through them besides its top-k routed ones, so a layer's FLOPs
  // are the dense layer's with an FFN of (k + 2) f_e plus the router's, whatever ep is; their parameters
  // are dense (every expert-parallel rank holds them) and they add nothing to the all-to-all.
  auto moe = mixtral();
  moe.shared_experts = 2;
  auto dense = moe;
  dense.experts = 0;
  dense.shared_experts = 0;
  dense.ffn = (moe.top_k + moe.shared_experts) * moe.expert_ffn;
  LayerConfig c;
  c.seq_len = 4096;
  const double router_fwd = 2.0 * 4096 * 4096 * 8;
  for (int ep : {1, 4}) {
    c.ep = ep;
    EXPECT_NEAR(layer_forward(moe, c).flops(),
                layer_forward(dense, LayerConfig{c.micro_batch, c.seq_len}).flops() + router_fwd, 1.0);
    EXPECT_NEAR(layer_backward(moe, c).flops(),
                layer_backward(dense, LayerConfig{c.micro_batch, c.seq_len}).flops() + 2 * router_fwd, 1.0);
  }
  const auto plain = mixtral();
  const double shared = 2 * 3.0 * moe.hidden * moe.expert_ffn; // SwiGLU: gate, up, down
  EXPECT_DOUBLE_EQ(layer_parameter_count(moe, 8) - layer_parameter_count(plain, 8), shared);
  EXPECT_EQ(expert_parameter_count(moe, 8), expert_parameter_count(plain, 8));
  EXPECT_EQ(layer_weight_matrices(moe, 4), layer_weight_matrices(plain, 4) + 2);
  c.tp = 2;
  EXPECT_EQ(ep_dispatch_bytes(moe, c), ep_dispatch_bytes(plain, c));
}
