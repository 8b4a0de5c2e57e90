// Test shapes shared by the workload model's tests: DeepSeek-V3's layers (DSV3-CONFIG) on fewer of them.
#pragma once

#include "models/workload/transformer.hpp"

namespace dpusim::workload::test_shapes {

/// DeepSeek-V3's attention (latent, 128 heads) and experts (256 of 2048, top-8, one shared) on `layers`
/// layers, the first one dense.
inline TransformerShape deepseek_v3_layers(int layers) {

  TransformerShape m{.name = "test",
                     .layers = layers,
                     .hidden = 7168,
                     .heads = 128,
                     .kv_heads = 128,
                     .head_width = 128,
                     .ffn = 18432,
                     .vocab = 129280,
                     .activation = Activation::swiglu,
                     .tied_embeddings = false,
                     .learned_positions = false,
                     .biases = false,
                     .dropout = false,
                     .experts = 256,
                     .top_k = 8,
                     .expert_ffn = 2048,
                     .shared_experts = 1,
                     .dense_layers = 1,
                     .q_lora_rank = 1536,
                     .kv_lora_rank = 512,
                     .rope_dim = 64,
                     .v_head_dim = 128};
  return m;
}

} // namespace dpusim::workload::test_shapes
