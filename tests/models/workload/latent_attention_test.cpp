// Multi-head latent attention (DeepSeek-V3's): parameters, GEMMs and kept activations against sums over
// the modules of DSV3-CONFIG and MCORE-MLA.
#include "models/workload/memory.hpp"
#include "models/workload/transformer.hpp"
#include "tests/models/workload/model_shapes.hpp"

#include <gtest/gtest.h>

using namespace dpusim::workload;

namespace {

double linear_flops(const LayerWork& w) {
  double f = 0;
  for (const auto& g : w.gemms)
    if (g.linear)
      f += g.flops();
  return f;
}

double named_flops(const LayerWork& w, std::initializer_list<std::string_view> names) {
  double f = 0;
  for (const auto& g : w.gemms)
    for (auto n : names)
      if (g.name == n)
        f += g.flops();
  return f;
}

} // namespace

TEST(LatentAttention, ParametersAreTheDownAndUpProjectionsTheirNormsAndTheOutput) {
  const auto m = layer_shape(test_shapes::deepseek_v3_layers(4), TransformerShape::kDenseFfn);
  auto standard = m;
  standard.q_lora_rank = standard.kv_lora_rank = standard.rope_dim = standard.v_head_dim = 0;
  const double h = 7168;
  const double attention = h * 1536 + 1536 + 1536 * 128.0 * (128 + 64)        // q down, its norm, q up
                           + h * (512 + 64) + 512 + 512 * 128.0 * (128 + 128) // kv down (+ rotary key)
                           + 128.0 * 128 * h;                                 // output projection
  EXPECT_DOUBLE_EQ(layer_parameter_count(m) - layer_parameter_count(standard),
                   attention -
                       4 * h * 128 * 128); // standard attention: Q, K, V and the output, 128 x 128 wide
  EXPECT_EQ(layer_weight_matrices(m), layer_weight_matrices(standard) + 3);
  auto direct = m; // queries projected without a latent
  direct.q_lora_rank = 0;
  EXPECT_DOUBLE_EQ(layer_parameter_count(m) - layer_parameter_count(direct),
                   h * 1536 + 1536 + 1536 * 128.0 * 192 - h * 128.0 * 192);
  EXPECT_EQ(layer_weight_matrices(direct), layer_weight_matrices(m) - 1);
}

TEST(LatentAttention, LinearFlopsAreTwiceTokensTimesWeightsAndTensorParallelismSplitsTheUpProjections) {
  const auto m = layer_shape(test_shapes::deepseek_v3_layers(4), TransformerShape::kDenseFfn);
  LayerConfig c;
  c.seq_len = 4096;
  const double tokens = 4096;
  const double norms = 1536 + 512 + 2 * 7168.0; // the latents' RMSNorms and the layer's two
  // Forward: 2 x tokens x weights; backward: twice that (data and weight gradients).
  EXPECT_NEAR(linear_flops(layer_forward(m, c)) / (2 * tokens * (layer_parameter_count(m) - norms)), 1.0,
              1e-12);
  EXPECT_NEAR(linear_flops(layer_backward(m, c)) / (4 * tokens * (layer_parameter_count(m) - norms)), 1.0,
              1e-12);
  // On 4 tensor-parallel ranks with sequence parallelism every projection runs on a quarter: the down
  // projections on the rank's share of the tokens, the others on a quarter of the heads.
  c.tp = 4;
  c.sequence_parallel = true;
  const double down = 2 * tokens * 7168.0 * (1536 + 512 + 64);
  LayerConfig one;
  one.seq_len = 4096;
  EXPECT_NEAR(linear_flops(layer_forward(m, c)), linear_flops(layer_forward(m, one)) / 4, 1.0);
  EXPECT_NEAR(named_flops(layer_forward(m, c), {"q_down", "kv_down"}), down / 4, 1.0);
  // Without it each rank projects every token down: the down projections are duplicated (MCORE-MLA).
  c.sequence_parallel = false;
  EXPECT_NEAR(named_flops(layer_forward(m, c), {"q_down", "kv_down"}), down, 1.0);
  EXPECT_NEAR(linear_flops(layer_forward(m, c)) - down, (linear_flops(layer_forward(m, one)) - down) / 4,
              1.0);
}

TEST(LatentAttention, ScoresUseTheRotaryWidenedHeadsAndValuesTheirOwnWidth) {
  const auto m = test_shapes::deepseek_v3_layers(4);
  LayerConfig c;
  c.seq_len = 4096;
  c.attention = AttentionKernel::flash;
  const double s = 4096;
  // Forward: Q K^T over 128 + 64, P V over 128, per head and token pair.
  EXPECT_DOUBLE_EQ(attention_core_forward(m, c).flops(), 2 * 128 * s * s * (192.0 + 128));
  c.attention = AttentionKernel::unfused;
  EXPECT_DOUBLE_EQ(attention_core_forward(m, c).flops(), 2 * 128 * s * s * (192.0 + 128));
  // Context parallelism gathers the expanded keys and values: 192 + 128 per head and token, 16 bits.
  c.cp = 2;
  c.tp = 2;
  EXPECT_DOUBLE_EQ(cp_kv_bytes(m, c), s * 64 * (192.0 + 128) * 2);
}

TEST(LatentAttention, KeptActivationsAreTheLatentsAndTheExpandedHeads) {
  // MCORE-MLA keeps per token: the norms' inputs (4 bytes per hidden element), the attention's and the
  // FFN's inputs (2 + 2), each latent before and after its norm (2 + 2 bytes per element, the rotary
  // key 2), Q and K (2 x 128 x 192 each), V and the output projection's input (2 x 128 x 128 each), and
  // the FFN's (dense here, SwiGLU: 4 + 2 per element of ffn).
  const auto m = layer_shape(test_shapes::deepseek_v3_layers(4), TransformerShape::kDenseFfn);
  const double s = 4096;
  const double h = 7168;
  const double per_token =
      4 * h + 4 * h + 4 * (1536 + 512) + 2 * 64 + 2 * 2 * 128 * 192.0 + 2 * 2 * 128 * 128.0 + 6 * 18432.0;
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, 1, 4096, 1, false, Recompute::none, AttentionKernel::flash),
                   s * per_token);
  // Sequence parallelism splits all of it over the ranks, latents included.
  EXPECT_DOUBLE_EQ(layer_activation_bytes(m, 1, 4096, 8, true, Recompute::none, AttentionKernel::flash),
                   s * per_token / 8);
}
