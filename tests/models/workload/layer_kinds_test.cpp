// Models whose layers differ (TransformerShape::layer_kind): a mixture of experts' dense first layers
// (DeepSeek-V3), experts in every other layer (Llama 4 Maverick), sliding-window attention in every other
// layer (GPT-OSS).
#include "models/workload/memory.hpp"
#include "models/workload/transformer.hpp"
#include "tests/models/workload/model_shapes.hpp"

#include <gtest/gtest.h>

using namespace dpusim::workload;

namespace {

// GPT-OSS-120B's layer (GPT-OSS-CONFIG) on 4 layers.
TransformerShape sliding() {
  TransformerShape m{.name = "test",
                     .layers = 4,
                     .hidden = 2880,
                     .heads = 64,
                     .kv_heads = 8,
                     .head_width = 64,
                     .ffn = 2880,
                     .vocab = 201088,
                     .activation = Activation::swiglu,
                     .tied_embeddings = false,
                     .learned_positions = false,
                     .biases = true,
                     .dropout = false,
                     .experts = 128,
                     .top_k = 4,
                     .expert_ffn = 2880,
                     .sliding_window = 128,
                     .full_attention_every = 2,
                     .attention_sinks = true};
  return m;
}

} // namespace

TEST(LayerKinds, AMixtureOfExpertsFirstLayersAreTheDenseShapesAndCountOnce) {
  auto m = test_shapes::deepseek_v3_layers(4);
  const auto dense = layer_shape(m, TransformerShape::kDenseFfn);
  EXPECT_FALSE(dense.moe());
  EXPECT_TRUE(m.dense_layer(0));
  EXPECT_FALSE(m.dense_layer(1));
  EXPECT_EQ(layer_kinds(m), (std::vector<int>{TransformerShape::kDenseFfn, 0, 0, 0}));
  EXPECT_EQ(layer_kinds(dense),
            (std::vector<int>{0, 0, 0, 0})); // every layer of a dense model is of its one kind
  // Total: one dense layer, three with experts, the embeddings; active: top_k of each layer's experts.
  const double emb = embedding_parameter_count(m, 4096);
  EXPECT_DOUBLE_EQ(parameter_count(m, 4096),
                   layer_parameter_count(dense) + 3 * layer_parameter_count(m) + emb);
  const double expert = 3.0 * 7168 * 2048;
  EXPECT_DOUBLE_EQ(parameter_count(m, 4096) - active_parameter_count(m, 4096), 3 * (256 - 8) * expert);
  m.dense_layers = 0;
  EXPECT_DOUBLE_EQ(parameter_count(m, 4096), 4 * layer_parameter_count(m) + emb);
  EXPECT_DOUBLE_EQ(active_parameter_count(dense, 4096), parameter_count(dense, 4096));
}

TEST(LayerKinds, ARankHoldingOnlyDenseLayersNeedsWhatTheDenseModelNeeds) {
  const auto m = test_shapes::deepseek_v3_layers(4);
  MemoryConfig c;
  c.seq_len = 4096;
  c.tp = 2;
  c.dp = 8;
  c.ep = 8;
  c.zero_stage = 1;
  c.layers_on_rank = 2;
  c.layers_by_kind[TransformerShape::kDenseFfn] = 2;
  const auto mixed = rank_memory(m, c);
  MemoryConfig d = c;
  d.ep = 1;
  d.layers_by_kind = {};
  const auto dense = rank_memory(layer_shape(m, TransformerShape::kDenseFfn), d);
  EXPECT_DOUBLE_EQ(mixed.total(), dense.total());
  // One of them with experts instead: its experts' share of their weights and the routed activations.
  c.layers_by_kind = {1, 1, 0, 0};
  EXPECT_GT(rank_memory(m, c).weights, mixed.weights);
}

TEST(LayerKinds, ExpertsInEveryOtherLayerAfterTheDenseOnes) {
  // Llama 4 Maverick's pattern (moe_every 2: layers 1, 3, 5...), after DeepSeek's dense first layers
  // where both are given: with 2 dense first layers and every 2nd after them, layers 3, 5, 7 of 8.
  auto m = test_shapes::deepseek_v3_layers(8);
  m.moe_every = 2;
  m.dense_layers = 2;
  std::vector<int> experts;
  for (int l = 0; l < 8; ++l)
    if (!m.dense_layer(l))
      experts.push_back(l);
  EXPECT_EQ(experts, (std::vector<int>{3, 5, 7}));
  const auto dense = layer_shape(m, TransformerShape::kDenseFfn);
  EXPECT_DOUBLE_EQ(parameter_count(m, 4096), 5 * layer_parameter_count(dense) + 3 * layer_parameter_count(m) +
                                                 embedding_parameter_count(m, 4096));
}

TEST(LayerKinds, ASlidingWindowLayersAttentionMeetsTheWindowsKeysOnly) {
  // Under flash attention a query of a sliding layer meets 128 keys instead of the sequence's 4096: its
  // attention FLOPs shrink by 32, the rest of the layer stays; an unfused kernel computes every score.
  const auto m = sliding();
  EXPECT_EQ(m.layer_kind(0), TransformerShape::kSlidingAttention);
  EXPECT_EQ(m.layer_kind(1), 0);
  const auto window = layer_shape(m, TransformerShape::kSlidingAttention);
  const auto full = layer_shape(m, 0);
  LayerConfig c;
  c.seq_len = 4096;
  c.attention = AttentionKernel::flash;
  EXPECT_DOUBLE_EQ(attention_core_forward(full, c).flops(), 32 * attention_core_forward(window, c).flops());
  EXPECT_DOUBLE_EQ(layer_forward(full, c).flops() - attention_core_forward(full, c).flops(),
                   layer_forward(window, c).flops() - attention_core_forward(window, c).flops());
  c.attention = AttentionKernel::unfused;
  EXPECT_DOUBLE_EQ(attention_core_forward(full, c).flops(), attention_core_forward(window, c).flops());
  // A window longer than the sequence is the whole sequence.
  c.attention = AttentionKernel::flash;
  c.seq_len = 64;
  EXPECT_DOUBLE_EQ(attention_core_forward(full, c).flops(), attention_core_forward(window, c).flops());
  // The sinks: one logit per head and layer.
  auto no_sinks = m;
  no_sinks.attention_sinks = false;
  EXPECT_DOUBLE_EQ(layer_parameter_count(m) - layer_parameter_count(no_sinks), 64);
}

TEST(LayerKinds, AChunkedLayerAttendsWithinItsChunkAndEveryFourthToAll) {
  // Llama 4 (LLAMA4-HF-MODELING): layers 0-2 of every four attend within chunks of 8,192 tokens, layer 3
  // to the whole sequence. Up to one chunk the two are the same; at 32,768 tokens a chunked layer's
  // flash attention meets a quarter of the keys, the rest of the layer unchanged.
  auto m = sliding();
  m.sliding_window = 0;
  m.attention_chunk = 8192;
  m.full_attention_every = 4;
  EXPECT_EQ(layer_kinds(m),
            (std::vector<int>{TransformerShape::kSlidingAttention, TransformerShape::kSlidingAttention,
                              TransformerShape::kSlidingAttention, 0}));
  const auto chunked = layer_shape(m, TransformerShape::kSlidingAttention);
  const auto full = layer_shape(m, 0);
  EXPECT_EQ(full.attention_chunk, 0);
  LayerConfig c;
  c.attention = AttentionKernel::flash;
  c.seq_len = 8192;
  EXPECT_DOUBLE_EQ(attention_core_forward(full, c).flops(), attention_core_forward(chunked, c).flops());
  c.seq_len = 32768;
  EXPECT_DOUBLE_EQ(attention_core_forward(full, c).flops(), 4 * attention_core_forward(chunked, c).flops());
  EXPECT_DOUBLE_EQ(layer_forward(full, c).flops() - attention_core_forward(full, c).flops(),
                   layer_forward(chunked, c).flops() - attention_core_forward(chunked, c).flops());
}

TEST(LayerKinds, AMultiTokenPredictionModuleIsALayerItsProjectionAndTheHeadOnceMore) {
  // DSV3-TR section 2.2: the module projects its two normalised inputs (2h -> h), runs one transformer
  // layer and the shared output head and loss: its FLOPs are exactly those three, its parameters the
  // layer's, the projection's and three norms.
  auto m = test_shapes::deepseek_v3_layers(4);
  m.mtp_layers = 1;
  EXPECT_EQ(m.layer_kind(4), 0); // the layer after the last would have experts
  EXPECT_EQ(layer_kinds(m).size(), 5u);
  EXPECT_EQ(layer_kinds(m).back(), TransformerShape::kMtpModule);
  const auto module = layer_shape(m, TransformerShape::kMtpModule);
  const auto plain = layer_shape(m, 0);
  for (int tp : {1, 2}) {
    LayerConfig c;
    c.seq_len = 4096;
    c.tp = tp;
    const double projection = 2.0 * 4096 * (7168.0 / tp) * (2 * 7168);
    EXPECT_NEAR(layer_forward(module, c).flops(),
                layer_forward(plain, c).flops() + projection + head_forward(m, c).flops(), 1.0);
    EXPECT_NEAR(layer_backward(module, c).flops(),
                layer_backward(plain, c).flops() + 2 * projection + head_backward(m, c).flops(), 1.0);
  }
  EXPECT_DOUBLE_EQ(layer_parameter_count(module) - layer_parameter_count(plain),
                   2.0 * 7168 * 7168 + 3 * 7168);
  auto without = m;
  without.mtp_layers = 0;
  EXPECT_DOUBLE_EQ(parameter_count(m, 4096) - parameter_count(without, 4096), layer_parameter_count(module));
}

TEST(LayerKinds, QueryKeyNormsAreTwoVectorsAKernelAndTheirInputs) {
  // Qwen3's QK-Norm on 64 query heads and 4 key-value heads of 128 (QWEN3-TR): 256 parameters a layer; one
  // memory-bound kernel reading and writing Q and K forward; the queries and keys kept before it.
  TransformerShape m{.name = "test",
                     .layers = 2,
                     .hidden = 4096,
                     .heads = 64,
                     .kv_heads = 4,
                     .head_width = 128,
                     .ffn = 12288,
                     .vocab = 151936,
                     .activation = Activation::swiglu};
  auto normed = m;
  normed.qk_norm = true;
  EXPECT_DOUBLE_EQ(layer_parameter_count(normed) - layer_parameter_count(m), 256);
  LayerConfig c;
  c.seq_len = 4096;
  const auto f = layer_forward(normed, c);
  EXPECT_EQ(f.kernels(), layer_forward(m, c).kernels() + 1);
  EXPECT_DOUBLE_EQ(f.flops(), layer_forward(m, c).flops());
  const double sbh = 4096.0 * 4096;
  EXPECT_DOUBLE_EQ(
      layer_activation_bytes(normed, 1, 4096, 1, false, Recompute::none, AttentionKernel::flash) -
          layer_activation_bytes(m, 1, 4096, 1, false, Recompute::none, AttentionKernel::flash),
      sbh * 2 * (64 + 4) * 128.0 / 4096);
}
