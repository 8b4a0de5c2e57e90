#include "models/collectives/ring.hpp"

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
  const double factor =
      kind == CollectiveKind::all_reduce ? 2.0 * (n - 1) / n : static_cast<double>(n - 1) / n;
  plan.steps = kind == CollectiveKind::all_reduce ? 2 * (n - 1) : n - 1;
  plan.hop_bytes = factor * bytes / rings;
  for (int c = 0; c < rings; ++c) {
    // Ring c enters each node at another member, so that each ring leaves a node through another GPU
    // and hence another NIC.
    std::vector<int> order;
    for (const auto& chain : channel_chains(by_node, c, rings, node))
      order.insert(order.end(), chain.begin(), chain.end());
    Channel channel;
    for (int i = 0; i < n; ++i)
      channel.push_back(
          {order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>((i + 1) % n)], plan.hop_bytes});
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
