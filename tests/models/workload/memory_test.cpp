#include "models/workload/memory.hpp"

#include <gtest/gtest.h>

using namespace dpusim::workload;

namespace {

// One GPT layer (multi-head attention, GELU, ffn = 4h) of hidden size 4096 and 32 heads.
const TransformerShape kGptLayer{.name = "test",
                                 .layers = 1,
                                 .hidden = 4096,
                                 .heads = 32,
                                 .kv_heads = 32,
                                 .ffn = 4 * 4096,
                                 .vocab = 50000};

} // namespace

TEST(Memory, ActivationFormulasFollowKorthikanti) {
  const TransformerShape m = kGptLayer;
  const double sbh = 2048.0 * 1 * 4096;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, 1, 2048, 1, false, Recompute::none),
                   sbh * (34 + 5.0 * 32 * 2048 / 4096));
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, 1, 2048, 8, false, Recompute::none),
                   sbh * (10 + 24.0 / 8 + 5.0 * 32 * 2048 / (4096 * 8)));
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, 1, 2048, 8, true, Recompute::selective), sbh * 34.0 / 8);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, 1, 2048, 8, false, Recompute::full), 2 * sbh);
  // Flash attention never stores the scores: as selective recomputation.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, 1, 2048, 8, true, Recompute::none, AttentionKernel::flash),
                   sbh * 34.0 / 8);
}

// Without dropout no masks are kept: 1 + 1 of the 10 outside the tensor-parallel region, 1 of the 5as/h.
TEST(Memory, AModelWithoutDropoutKeepsNoMasks) {
  TransformerShape m = kGptLayer;
  m.dropout = false;
  const double sbh = 2048.0 * 1 * 4096;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, 1, 2048, 1, false, Recompute::none),
                   sbh * (32 + 4.0 * 32 * 2048 / 4096));
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, 1, 2048, 8, true, Recompute::selective), sbh * 32.0 / 8);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, 1, 2048, 8, false, Recompute::full), 2 * sbh);
}

TEST(Memory, ActivationsFollowTheFeedForwardAndTheKeyValueHeads) {
  // Llama-style layer: 8 of 64 heads for keys and values, SwiGLU with ffn = 3.5h. Outside the
  // tensor-parallel region 10 sbh; inside Q 2, K and V 2 x 2/8, projection input 2, and SwiGLU's gate
  // and up (its input, the fused kernel recomputing the activation) and product 6 x 3.5.
  const TransformerShape m{.name = "test",
                           .layers = 1,
                           .hidden = 8192,
                           .heads = 64,
                           .kv_heads = 8,
                           .ffn = 28672,
                           .activation = Activation::swiglu};
  const double sbh = 4096.0 * 2 * 8192;
  const double inside = 2 + 4.0 / 8 + 2 + 6 * 3.5;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, 2, 4096, 8, true, Recompute::selective),
                   sbh * (10 + inside) / 8);
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, 2, 4096, 8, false, Recompute::selective),
                   sbh * (10 + inside / 8));
}

TEST(Memory, OptimizerStateShardsWithTheDistributedOptimizer) {
  const TransformerShape m{
      .name = "test", .layers = 10, .hidden = 1024, .heads = 16, .kv_heads = 16, .ffn = 4096, .vocab = 32000};
  MemoryConfig c;
  c.seq_len = 1024;
  c.dp = 8;
  c.layers_on_rank = 10;
  const auto plain = rank_memory(m, c);
  c.zero_stage = 1;
  const auto sharded = rank_memory(m, c);
  EXPECT_NEAR(plain.optimizer / sharded.optimizer, 8.0, 1e-9);
  EXPECT_DOUBLE_EQ(plain.weights, sharded.weights);
  c.zero_stage = 3;
  const auto full = rank_memory(m, c);
  EXPECT_NEAR(full.gradients, plain.gradients / 8, 1e-6 * plain.gradients);
  EXPECT_LT(full.weights, plain.weights / 2);
  // 18 bytes per parameter without sharding: 2 (weights) + 4 (fp32 grads) + 12 (Adam).
  EXPECT_NEAR((plain.weights + plain.gradients + plain.optimizer) / parameter_count(m, 1024), 18.0, 1e-9);
}

TEST(Memory, ExpertsShardOverExpertParallelRanksAndTheirOptimizerOverTheRest) {
  const TransformerShape m{.name = "test",
                           .layers = 4,
                           .hidden = 1024,
                           .heads = 16,
                           .kv_heads = 16,
                           .ffn = 4096,
                           .vocab = 1000,
                           .experts = 8,
                           .top_k = 2,
                           .expert_ffn = 4096};
  MemoryConfig c;
  c.seq_len = 1024;
  c.dp = 8;
  c.layers_on_rank = 4;
  c.holds_embedding = false;
  const double experts = 4 * expert_parameter_count(m, 1);
  const double dense = 4 * layer_parameter_count(m, 1) - experts;
  const auto one = rank_memory(m, c);
  EXPECT_DOUBLE_EQ(one.weights, 2.0 * (dense + experts));
  c.ep = 8;
  const auto eight = rank_memory(m, c);
  EXPECT_DOUBLE_EQ(eight.weights, 2.0 * (dense + experts / 8));
  // ZeRO-1: dense optimizer state over all 8 ranks, experts' over dp / ep = 1 rank (no sharding).
  c.zero_stage = 1;
  EXPECT_DOUBLE_EQ(rank_memory(m, c).optimizer, 12.0 * (dense / 8 + experts / 8));
}

TEST(Memory, ContextParallelismSplitsActivationsAndShardsTheOptimizerFurther) {
  const TransformerShape m{
      .name = "test", .layers = 2, .hidden = 4096, .heads = 32, .kv_heads = 32, .ffn = 16384, .vocab = 1000};
  MemoryConfig c;
  c.seq_len = 8192;
  c.tp = 8;
  c.dp = 2;
  c.zero_stage = 1;
  c.recompute = Recompute::selective; // no score term: activations linear in the tokens held
  c.layers_on_rank = 2;
  c.holds_embedding = false;
  const auto one = rank_memory(m, c);
  c.cp = 4;
  const auto four = rank_memory(m, c);
  EXPECT_DOUBLE_EQ(four.activations, one.activations / 4);
  EXPECT_DOUBLE_EQ(four.optimizer, one.optimizer / 4);
  EXPECT_DOUBLE_EQ(four.weights, one.weights);
}
