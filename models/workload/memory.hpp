// GPU memory needed by one rank: weights, gradients and optimizer state of its model shard, and the
// activations it keeps alive. Formulas and sources: docs/models/workload.md.
#pragma once

#include "models/workload/transformer.hpp"

#include <array>

namespace dpusim::workload {

enum class Recompute { none, selective, full };
std::string_view recompute_name(Recompute r);

struct MemoryConfig {
  int micro_batch = 1;
  int seq_len = 0;
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int ep = 1; // expert-parallel ranks (within dp): experts sharded over them, their ZeRO shards over dp/ep
  int cp = 1; // context-parallel ranks: activations of seq_len / cp tokens; ZeRO shards over dp x cp
  bool sequence_parallel = false;
  Recompute recompute = Recompute::none;
  AttentionKernel attention = AttentionKernel::unfused;
  Precision precision = Precision::bf16; // of the linear layers (their weight copies and saved inputs)
  bool low_precision_params = false;     // the parameters themselves in the format (no 16-bit copy)
  int zero_stage =
      0; // ZeRO: 1 shards optimizer state over data-parallel ranks, 2 also gradients, 3 also weights
  int in_flight_micro_batches = 1; // activations kept alive at once (p for 1F1B's first stage)
  int layers_on_rank = 0;          // transformer layers held by this rank's pipeline stage
  // Of them, how many of each kind (TransformerShape::layer_kind); all 0: every one of kind 0.
  std::array<int, TransformerShape::kLayerKinds> layers_by_kind{};
  bool holds_embedding = true; // first (and, when tied, last) stage holds the embedding
};

struct MemoryBreakdown {
  double weights = 0; // bytes; below 16 bits, the linear layers' low-precision copies included
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;
  [[nodiscard]] double total() const { return weights + gradients + optimizer + activations; }
};

/// Activation bytes one layer keeps for backward, per rank (Korthikanti et al. 2022, Table 2, generalised
/// to grouped-query attention, the model's feed-forward size and activation, flash attention, and the
/// linear layers' inputs kept in the low-precision format below 16 bits).
double layer_activation_bytes(const TransformerShape& m, int micro_batch, int seq_len, int tp,
                              bool sequence_parallel, Recompute recompute,
                              AttentionKernel attention = AttentionKernel::unfused,
                              Precision precision = Precision::bf16);

MemoryBreakdown rank_memory(const TransformerShape& m, const MemoryConfig& c);

} // namespace dpusim::workload
