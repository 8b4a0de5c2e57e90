// Rank layout of 3D parallelism: tensor-parallel ranks innermost (inside a node, on NVLink), then
// data-parallel, then pipeline stages outermost — Megatron-LM's default order.
#pragma once

#include <vector>

namespace dpusim::workload {

struct Parallelism {
  int tp = 1;
  int pp = 1;
  int dp = 1;
  int ep = 1; // expert parallelism: groups of ep consecutive data-parallel ranks share out the experts
  [[nodiscard]] int world() const { return tp * pp * dp; }
};

struct RankCoord {
  int tp = 0;
  int dp = 0;
  int pp = 0;
};

/// Global rank (= GPU index: node = rank / gpus_per_node) of a coordinate, and back.
int rank_of(const Parallelism& p, RankCoord c);
RankCoord coord_of(const Parallelism& p, int rank);

/// Ranks of the tensor-parallel group of (dp, pp), in tp order.
std::vector<int> tp_group(const Parallelism& p, int dp, int pp);
/// Ranks of the data-parallel group of (tp, pp), in dp order.
std::vector<int> dp_group(const Parallelism& p, int tp, int pp);
/// Ranks of the expert-parallel group of (tp, dp, pp): the ep data-parallel ranks of dp's block.
std::vector<int> ep_group(const Parallelism& p, int tp, int dp, int pp);

} // namespace dpusim::workload
