#include "models/collectives/nvls.hpp"

#include "models/collectives/tree.hpp"

namespace dpusim::collectives {

bool nvls_applies(CollectiveKind kind, const NodeMembers& by_node, bool nvls_available, double bytes) {
  if (kind == CollectiveKind::all_to_all || rooted(kind))
    return false;
  const std::size_t k = uniform_members(by_node);
  const bool one_node = by_node.size() == 1;
  // NCCL sets NVLS up only where the communicator has more than two GPUs on a node (ncclNvlsInit in
  // src/transport/nvls.cc, NCCL-NVLS-INIT); with fewer it runs the ring.
  return !(!nvls_available || k < 3 || bytes <= 0 || (!one_node && kind != CollectiveKind::all_reduce));
}

std::optional<NvlsPlan> nvls(CollectiveKind kind, std::vector<int> gpus, double bytes, int gpus_per_node,
                             bool nvls_available) {
  const auto by_node = group_by_node(gpus, gpus_per_node);
  if (!nvls_applies(kind, by_node, nvls_available, bytes))
    return std::nullopt;
  const std::size_t k = uniform_members(by_node);
  NvlsPlan plan;
  plan.nodes = static_cast<int>(by_node.size());
  // The switch reads every GPU's S (its reduction) and multicasts S back. Flows from each member to the
  // next load every up-link and every down-link with S. (A reduce-scatter only needs S/k down, an
  // all-gather S/k up; their other direction is the busy one, and only traffic inside the node could
  // share it.)
  for (const auto& [node_id, members] : by_node) {
    Channel part;
    for (std::size_t i = 0; i < k; ++i)
      part.push_back({members[i], members[(i + 1) % k], bytes});
    plan.switch_parts.push_back(std::move(part));
  }
  plan.switch_steps = kind == CollectiveKind::all_reduce ? 2 : 1;
  if (by_node.size() > 1) {
    // NVLS-tree: GPU i of every node reduces its 1/k shard with the other nodes over its own NIC, in a
    // double binary tree, pipelined with the switch's reduction and multicast.
    for (std::size_t i = 0; i < k; ++i) {
      std::vector<std::vector<int>> heads;
      for (const auto& [node_id, members] : by_node)
        heads.push_back({members[i]});
      auto pair = double_binary_tree(heads, bytes / static_cast<double>(k));
      for (auto& t : pair.trees)
        plan.tree_parts.push_back(std::move(t));
      plan.depth = pair.depth;
    }
  }
  plan.steps = plan.switch_steps + 2 * plan.depth;
  return plan;
}

} // namespace dpusim::collectives
