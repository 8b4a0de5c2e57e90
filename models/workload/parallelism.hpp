// Rank layout: tensor-parallel ranks innermost (inside a node, on NVLink), then context-parallel, then
// data-parallel, then pipeline stages outermost — Megatron-LM's default order (tp-cp-dp-pp).
#pragma once

#include <vector>

namespace dpusim::workload {

struct Parallelism {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int ep = 1; // expert parallelism: groups of ep consecutive data-parallel ranks share out the experts
  int cp = 1; // context parallelism: each sequence split over cp ranks, which exchange keys and values
  // Layers of the first and last pipeline stages (0: an even share); the other stages share the rest
  // evenly (Megatron-LM's --decoder-first/last-pipeline-num-layers).
  int first_stage_layers = 0;
  int last_stage_layers = 0;
  // DualPipeV: each stage's two model chunks placed in a V (virtual_stage_of), not round-robin.
  bool v_shape = false;
  /// GPUs the layout needs (a double: the product of unchecked degrees may exceed any integer type).
  [[nodiscard]] double world() const {
    return static_cast<double>(tp) * static_cast<double>(cp) * static_cast<double>(pp) *
           static_cast<double>(dp);
  }
};

/// Transformer layers held by pipeline stage `stage` of a model of `layers`.
int stage_layers(const Parallelism& p, int layers, int stage);
/// The virtual stage (model chunk, 0 .. pp x chunks - 1, in model order) that chunk `chunk` of pipeline
/// stage `stage` holds when each stage holds `chunks`: dealt round-robin (Megatron-LM's interleaving:
/// chunk c of stage s is virtual stage c x pp + s), or with v_shape (DualPipeV, two chunks) in a V: chunk 0
/// of stage s is virtual stage s, chunk 1 is 2 pp - 1 - s, so that the last stage holds the middle two
/// and the first stage both ends. And back: the stage and chunk of virtual stage `vs`.
int virtual_stage_of(const Parallelism& p, int chunks, int stage, int chunk);
int stage_of_virtual(const Parallelism& p, int chunks, int vs);
int chunk_of_virtual(const Parallelism& p, int chunks, int vs);
/// Layers of virtual stage `vs` when each stage's layers are split over its `chunks` model chunks, the
/// first ones taking one more where they do not divide evenly.
int chunk_layers(const Parallelism& p, int layers, int chunks, int vs);
/// The model's index of the first layer of virtual stage `vs` (the layers run through the virtual stages
/// in order: chunk 0 of every stage, then chunk 1...).
int chunk_first_layer(const Parallelism& p, int layers, int chunks, int vs);

struct RankCoord {
  int tp = 0;
  int dp = 0;
  int pp = 0;
  int cp = 0;
};

/// Global rank (= GPU index: node = rank / gpus_per_node) of a coordinate, and back.
int rank_of(const Parallelism& p, RankCoord c);
RankCoord coord_of(const Parallelism& p, int rank);

/// Ranks of the tensor-parallel group of (dp, pp, cp), in tp order.
std::vector<int> tp_group(const Parallelism& p, int dp, int pp, int cp = 0);
/// Ranks that compute one micro-batch of stage pp for replica dp together: its tp x cp ranks.
std::vector<int> replica_group(const Parallelism& p, int dp, int pp);
/// Ranks of the context-parallel group of (tp, dp, pp), in cp order.
std::vector<int> cp_group(const Parallelism& p, int tp, int dp, int pp);
/// Ranks that reduce gradients together with (tp, pp): every data- and context-parallel rank.
std::vector<int> gradient_group(const Parallelism& p, int tp, int pp);
/// Ranks of the data-parallel group of (tp, pp) at context-parallel rank 0, in dp order.
std::vector<int> dp_group(const Parallelism& p, int tp, int pp);
/// Ranks of the expert-parallel group of (tp, dp, pp): the ep data-parallel ranks of dp's block.
std::vector<int> ep_group(const Parallelism& p, int tp, int dp, int pp);

} // namespace dpusim::workload
