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
  [[nodiscard]] int world() const { return tp * cp * pp * dp; }
};

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
