#include "models/collectives/ring.hpp"

#include <algorithm>

namespace dpusim::collectives {

RingPlan ring(CollectiveKind kind, std::vector<int> gpus, double bytes, NodeShape node) {
  RingPlan plan;
  const int n = static_cast<int>(gpus.size());
  if (n < 2 || bytes <= 0)
    return plan;
  // Members grouped by node, in node order.
  const auto by_node = group_by_node(gpus, node.gpus);
  plan.nodes = static_cast<int>(by_node.size());
  const bool spans_nodes = by_node.size() > 1;
  const int rings = spans_nodes ? nic_channels(by_node, node) : 1;
  plan.rings = rings;
  const bool chain = rooted(kind);
  const double factor = kind == CollectiveKind::all_reduce ? 2.0 * (n - 1) / n
                        : chain                            ? 1.0
                                                           : static_cast<double>(n - 1) / n;
  plan.steps = kind == CollectiveKind::all_reduce ? 2 * (n - 1) : n - 1;
  plan.inter_node_steps =
      !spans_nodes ? 0 : (kind == CollectiveKind::all_reduce ? 2 * (plan.nodes - 1) : plan.nodes - 1);
  plan.hop_bytes = factor * bytes / rings;
  const int root = gpus.front();
  for (int c = 0; c < rings; ++c) {
    // Ring c enters each node at another member, so that each ring leaves a node through another GPU
    // and hence another NIC.
    std::vector<int> order;
    for (const auto& members : channel_chains(by_node, c, rings, node))
      order.insert(order.end(), members.begin(), members.end());
    // A chain starts at the root and stops short of it: the ring's order turned to begin there.
    const auto start =
        chain ? static_cast<std::size_t>(std::find(order.begin(), order.end(), root) - order.begin())
              : std::size_t{0};
    Channel channel;
    for (int i = 0; i < (chain ? n - 1 : n); ++i) {
      const auto at = [&](int j) { return order[(start + static_cast<std::size_t>(j)) % order.size()]; };
      // A reduce flows the other way: towards the root.
      if (kind == CollectiveKind::reduce)
        channel.push_back({at(i + 1), at(i), plan.hop_bytes});
      else
        channel.push_back({at(i), at((i + 1) % n), plan.hop_bytes});
    }
    plan.channels.push_back(std::move(channel));
  }
  return plan;
}

bool ring_nvlink_hops_matter(const RingPlan& plan, NodeShape node, double nvlink_rate, double nic_rate) {
  const double nvlink_time = (plan.rings - 1) / nvlink_rate;
  const double network_time = 1.0 / nic_rate;
  return plan.nodes <= 1 || node.gpus < 2 || nvlink_time >= 0.9 * network_time;
}

} // namespace dpusim::collectives
