// NCCL's double binary tree all-reduce (ncclGetDtree): over the m nodes a binary tree and its
// complement, each carrying half of the data, so that no node is an inner node of both; reduce
// towards the root and broadcast away from it are pipelined, so every tree edge carries the half once
// in each direction. Inside a node the data runs along a chain of its GPUs to the chain's head, which
// exchanges with the heads of the parent and child nodes. One pair of trees per channel, one channel
// per NIC. See docs/models/collectives.md, "Double binary tree".
#pragma once

#include "models/collectives/collective.hpp"

#include <optional>

namespace dpusim::collectives {

/// Parents in NCCL's binary tree over n ranks (ncclGetBtree): rank r's parent flips its lowest set bit
/// and sets the next one (or only clears it past the end); rank 0 is the root (-1), with one child.
std::vector<int> btree_parents(int n);
/// The complementary tree of NCCL's double binary tree (ncclGetDtree): the first one mirrored when n is
/// even, shifted by one rank when it is odd, so that no rank is an inner node of both.
std::vector<int> second_tree_parents(int n);
/// Edges on the longest path from a rank to the root.
int tree_depth(const std::vector<int>& parent);

/// The two trees of a double binary tree.
struct DoubleTree {
  std::vector<Channel> trees; // the first tree's hops, then the second's
  int depth = 0;              // the larger of the two trees' depths
};

/// A double binary tree over `chains` (one per node of the tree, its head first) carrying `bytes`:
/// each tree carries half, along every chain (both ways) and every edge between heads (both ways).
DoubleTree double_binary_tree(const std::vector<std::vector<int>>& chains, double bytes);

struct TreePlan {
  int channels = 0;           // one per NIC, as for the ring
  std::vector<Channel> trees; // two per channel: channel 0's first and second tree, then channel 1's...
  int depth = 0;              // of the deeper tree
  int chain_hops = 0;         // NVLink hops of the longest chain (its members less one)
  int steps = 0;              // 2 (depth + chain_hops): up the chain and the tree, and down again
  int nodes = 0;
};

/// The double binary tree all-reduce of `bytes` per rank over `gpus`; nullopt where it does not apply
/// (not an all-reduce, a single node, or no bytes), where NCCL uses the ring.
std::optional<TreePlan> tree(CollectiveKind kind, std::vector<int> gpus, double bytes, NodeShape node);

} // namespace dpusim::collectives
