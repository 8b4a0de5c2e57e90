#include "models/collectives/tree.hpp"

#include <algorithm>

namespace dpusim::collectives {

std::vector<int> btree_parents(int n) {
  std::vector<int> parent(static_cast<std::size_t>(n), -1);
  for (int r = 1; r < n; ++r) {
    int bit = 1;
    while ((r & bit) == 0)
      bit <<= 1;
    int up = (r ^ bit) | (bit << 1);
    if (up >= n)
      up = r ^ bit;
    parent[static_cast<std::size_t>(r)] = up;
  }
  return parent;
}

std::vector<int> second_tree_parents(int n) {
  const auto first = btree_parents(n);
  std::vector<int> parent(static_cast<std::size_t>(n), -1);
  for (int r = 0; r < n; ++r) {
    if (n % 2 == 0) {
      const int p = first[static_cast<std::size_t>(n - 1 - r)];
      parent[static_cast<std::size_t>(r)] = p < 0 ? -1 : n - 1 - p;
    } else {
      const int p = first[static_cast<std::size_t>((r - 1 + n) % n)];
      parent[static_cast<std::size_t>(r)] = p < 0 ? -1 : (p + 1) % n;
    }
  }
  return parent;
}

int tree_depth(const std::vector<int>& parent) {
  int depth = 0;
  for (std::size_t r = 0; r < parent.size(); ++r) {
    int d = 0;
    for (int p = parent[r]; p >= 0; p = parent[static_cast<std::size_t>(p)])
      ++d;
    depth = std::max(depth, d);
  }
  return depth;
}

DoubleTree double_binary_tree(const std::vector<std::vector<int>>& chains, double bytes) {
  const int m = static_cast<int>(chains.size());
  const double half = bytes / 2;
  DoubleTree out;
  for (const auto& parent : {btree_parents(m), second_tree_parents(m)}) {
    Channel tree;
    for (int j = 0; j < m; ++j) {
      const auto& chain = chains[static_cast<std::size_t>(j)];
      for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
        tree.push_back({chain[i + 1], chain[i], half});
        tree.push_back({chain[i], chain[i + 1], half});
      }
      const int p = parent[static_cast<std::size_t>(j)];
      if (p < 0)
        continue;
      const int head = chain.front();
      const int parent_head = chains[static_cast<std::size_t>(p)].front();
      tree.push_back({head, parent_head, half});
      tree.push_back({parent_head, head, half});
    }
    out.trees.push_back(std::move(tree));
    out.depth = std::max(out.depth, tree_depth(parent));
  }
  return out;
}

std::optional<TreePlan> tree(CollectiveKind kind, std::vector<int> gpus, double bytes, NodeShape node) {
  const auto by_node = group_by_node(gpus, node.gpus);
  // NCCL's tree is an all-reduce algorithm between nodes; inside one node it never beats the ring.
  if (kind != CollectiveKind::all_reduce || by_node.size() < 2 || bytes <= 0)
    return std::nullopt;
  TreePlan plan;
  plan.nodes = static_cast<int>(by_node.size());
  // One pair of trees per channel, one channel per NIC as for the ring; channel c's chain starts at
  // another member of every node, whose NIC carries that channel's trees.
  plan.channels = nic_channels(by_node, node);
  std::size_t longest_chain = 0;
  for (int c = 0; c < plan.channels; ++c) {
    const auto chains = channel_chains(by_node, c, plan.channels, node);
    for (const auto& chain : chains)
      longest_chain = std::max(longest_chain, chain.size());
    auto pair = double_binary_tree(chains, bytes / plan.channels);
    for (auto& t : pair.trees)
      plan.trees.push_back(std::move(t));
    plan.depth = pair.depth;
  }
  // The pipeline fills through the chain and the tree's depth on the way up, and again down.
  plan.chain_hops = static_cast<int>(longest_chain) - 1;
  plan.steps = 2 * (plan.depth + plan.chain_hops);
  return plan;
}

} // namespace dpusim::collectives
