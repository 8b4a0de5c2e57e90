// Precisions as Transformer Engine runs them (docs/models/precision.md): which GEMMs run low, the casts
// they need, and what the weight copies and saved inputs take.
#include "models/workload/memory.hpp"
#include "models/workload/precision.hpp"
#include "models/workload/transformer.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <string>

using namespace dpusim::workload;

namespace {

// A Llama-like layer: grouped-query attention, SwiGLU, no biases or dropout.
const TransformerShape kLlamaLayer{.name = "test",
                                   .layers = 4,
                                   .hidden = 4096,
                                   .heads = 32,
                                   .kv_heads = 8,
                                   .ffn = 14336,
                                   .vocab = 128256,
                                   .activation = Activation::swiglu,
                                   .learned_positions = false,
                                   .biases = false,
                                   .dropout = false};

LayerConfig config(Precision p) {
  LayerConfig c;
  c.micro_batch = 1;
  c.seq_len = 8192;
  c.tp = 2;
  c.attention = AttentionKernel::flash;
  c.precision = p;
  return c;
}

double bytes_of(const LayerWork& w, std::string_view name) {
  double b = 0;
  for (const auto& op : w.memory_ops)
    if (op.name == name)
      b += op.bytes;
  return b;
}

long count_of(const LayerWork& w, std::string_view name) {
  return std::count_if(w.memory_ops.begin(), w.memory_ops.end(),
                       [&](const auto& op) { return op.name == name; });
}

} // namespace

TEST(Precision, NamesBytesAndTheScalesReductionFollowTheFormats) {
  EXPECT_EQ(precision_name(Precision::fp8_cs), "fp8-cs");
  EXPECT_EQ(tensor_core_format(Precision::fp8_cs), "fp8");
  EXPECT_DOUBLE_EQ(element_bytes(Precision::bf16), 2.0);
  EXPECT_DOUBLE_EQ(element_bytes(Precision::fp8), 1.0);
  EXPECT_DOUBLE_EQ(element_bytes(Precision::mxfp8), 1.0 + 1.0 / 32); // an E8M0 scale per 32
  EXPECT_DOUBLE_EQ(element_bytes(Precision::nvfp4), 0.5 + 1.0 / 16); // an E4M3 scale per 16
  EXPECT_FALSE(amax_pass(Precision::fp8));                           // delayed: from past steps
  EXPECT_TRUE(amax_pass(Precision::fp8_cs));
  EXPECT_TRUE(amax_pass(Precision::nvfp4));
  EXPECT_EQ(cast_cost(Precision::bf16, 1e6).kernels(), 0);
  EXPECT_DOUBLE_EQ(cast_cost(Precision::fp8, 1e6).bytes(), 1e6 * (2 + 2 * 1.0));
  EXPECT_EQ(cast_cost(Precision::fp8_cs, 1e6).kernels(), 2);
  EXPECT_DOUBLE_EQ(cast_cost(Precision::fp8_cs, 1e6).amax_bytes, 2e6);
}

TEST(Precision, OnlyTheLinearLayersGemmsRunLowAndTheirFlopsDoNotChange) {
  for (const auto p : kPrecisions) {
    const auto bf16 = layer_forward(kLlamaLayer, config(Precision::bf16));
    const auto fwd = layer_forward(kLlamaLayer, config(p));
    const auto bwd = layer_backward(kLlamaLayer, config(p));
    EXPECT_DOUBLE_EQ(fwd.flops(), bf16.flops()) << precision_name(p);
    for (const auto* w : {&fwd, &bwd})
      for (const auto& g : w->gemms) {
        const std::string name(g.name);
        const bool attention =
            name.find("attn_scores") == 0 || name.find("attn_values") == 0 || name.find("flash_attn") == 0;
        EXPECT_EQ(g.linear, !attention) << name;
      }
  }
  for (const auto* name : {"logits", "logits_dgrad", "logits_wgrad"}) {
    const auto head = head_backward(kLlamaLayer, config(Precision::fp8));
    const auto fwd = head_forward(kLlamaLayer, config(Precision::fp8));
    for (const auto* w : {&head, &fwd})
      for (const auto& g : w->gemms)
        EXPECT_FALSE(g.linear) << name; // the output layer stays in 16 bits
  }
}

TEST(Precision, EachLinearLayerCastsItsInputForwardAndItsOutputsGradientBackward) {
  const auto c = config(Precision::fp8);
  const double tokens = 8192;
  const double h = 4096;
  const double q = 32.0 / 2 * 128; // this rank's query columns
  const double kv = 8.0 / 2 * 128; // and key/value columns each
  const double f = 14336.0 / 2;    // feed-forward columns
  // Forward: QKV's, the output projection's, the gate/up projection's and the down projection's inputs.
  const auto fwd = layer_forward(kLlamaLayer, c);
  EXPECT_EQ(count_of(fwd, "quantize"), 4);
  EXPECT_EQ(count_of(fwd, "amax"), 0);
  EXPECT_DOUBLE_EQ(bytes_of(fwd, "quantize"), (tokens * h + tokens * q + tokens * h + tokens * f) * 4.0);
  // Backward: the gradients of QKV's output, the projection's, gate/up's and down's.
  const auto bwd = layer_backward(kLlamaLayer, c);
  EXPECT_DOUBLE_EQ(bytes_of(bwd, "quantize"),
                   (tokens * (q + 2 * kv) + tokens * h + tokens * 2 * f + tokens * h) * 4.0);
  // Current scaling reads each tensor once more for its scale; 16 bits casts nothing.
  const auto cs = layer_forward(kLlamaLayer, config(Precision::fp8_cs));
  EXPECT_EQ(count_of(cs, "amax"), 4);
  EXPECT_DOUBLE_EQ(bytes_of(cs, "amax"), bytes_of(fwd, "quantize") / 2);
  EXPECT_EQ(count_of(layer_forward(kLlamaLayer, config(Precision::bf16)), "quantize"), 0);
}

TEST(Precision, LowPrecisionKeepsWeightCopiesAndSavesTheLinearInputsInItsFormat) {
  MemoryConfig c;
  c.micro_batch = 1;
  c.seq_len = 8192;
  c.tp = 2;
  c.attention = AttentionKernel::flash;
  c.layers_on_rank = 4;
  c.holds_embedding = false;
  const auto bf16 = rank_memory(kLlamaLayer, c);
  c.precision = Precision::fp8;
  const auto fp8 = rank_memory(kLlamaLayer, c);
  const double params = 4 * layer_parameter_count(kLlamaLayer) / 2;
  EXPECT_DOUBLE_EQ(fp8.weights - bf16.weights, 2.0 * params); // both layouts, 1 byte each
  EXPECT_DOUBLE_EQ(fp8.optimizer, bf16.optimizer);
  // Saved inputs: attention's and the MLP's (outside the tensor-parallel region), the output and down
  // projections' (inside), at 1 byte instead of 2.
  const double sbh = 8192.0 * 4096;
  const double saved = sbh * (2 * 1.0 + (1.0 + 14336.0 / 4096) / 2);
  EXPECT_NEAR(bf16.activations - fp8.activations, 4 * saved, 1.0);
  c.precision = Precision::nvfp4;
  EXPECT_LT(rank_memory(kLlamaLayer, c).activations, fp8.activations);
}

TEST(Precision, ParametersKeptInTheFormatDropTheir16BitCopy) {
  // fp8_param_gather: the parameter is the row-wise FP8 copy; only the column-wise one is added.
  MemoryConfig c;
  c.micro_batch = 1;
  c.seq_len = 8192;
  c.tp = 2;
  c.attention = AttentionKernel::flash;
  c.layers_on_rank = 4;
  c.holds_embedding = false;
  c.precision = Precision::fp8;
  const auto copies = rank_memory(kLlamaLayer, c);
  c.low_precision_params = true;
  const auto params_in_fp8 = rank_memory(kLlamaLayer, c);
  const double params = 4 * layer_parameter_count(kLlamaLayer) / 2;
  EXPECT_DOUBLE_EQ(copies.weights, params * (2 + 2 * 1.0));
  EXPECT_DOUBLE_EQ(params_in_fp8.weights, params * (1 + 1.0));
  EXPECT_DOUBLE_EQ(params_in_fp8.activations, copies.activations);
}
