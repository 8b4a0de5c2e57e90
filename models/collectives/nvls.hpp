// NVLink SHARP (NVLS): the NVSwitch reduces (multimem load-reduce) and multicasts, so each GPU's NVLink
// carries S up to the switch and S back instead of 2(k-1)/k S through its peers. Across nodes (all-reduce
// only; NCCL's NVLS-tree) GPU i of every node reduces its S/k shard with the other nodes over its own NIC
// in a double binary tree, pipelined with the switch. See docs/models/collectives.md, "NVLS".
#pragma once

#include "models/collectives/collective.hpp"

#include <optional>

namespace dpusim::collectives {

/// Whether NVLS applies to a group grouped as `by_node`: the GPU can reduce in its NVSwitch
/// (`nvls_available`), every node has the same number k >= 2 of members, there are bytes to move, and
/// the collective is an all-reduce or stays inside one node (an all-to-all never applies).
bool nvls_applies(CollectiveKind kind, const NodeMembers& by_node, bool nvls_available, double bytes);

struct NvlsPlan {
  /// One per node: member i to member i+1 (wrapping round) with the data S each, which loads every
  /// up-link and down-link of the node's GPUs with S (before the NVLS efficiency).
  std::vector<Channel> switch_parts;
  /// Across nodes: per member i, the double binary tree of member i of every node over S/k (two
  /// channels each, member 0's first). Empty on one node.
  std::vector<Channel> tree_parts;
  int switch_steps = 0; // 2 for an all-reduce (reduce, multicast), else 1
  int depth = 0;        // of the deeper tree across nodes (0 on one node)
  int steps = 0;        // switch_steps + 2 depth
  int nodes = 0;
};

/// NVLS over `gpus` of `bytes` per rank; nullopt where it does not apply (nvls_applies), where NCCL
/// uses the ring.
std::optional<NvlsPlan> nvls(CollectiveKind kind, std::vector<int> gpus, double bytes, int gpus_per_node,
                             bool nvls_available);

} // namespace dpusim::collectives
