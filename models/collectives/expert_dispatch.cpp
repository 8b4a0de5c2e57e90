#include "models/collectives/expert_dispatch.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace dpusim::collectives {

namespace {

/// The chance that at least one of k independent copies lands where each lands with chance p.
double any_of(double p, int k) {
  return 1 - std::pow(1 - std::clamp(p, 0.0, 1.0), k);
}

} // namespace

DispatchReach dispatch_reach(const ExpertDispatch& d, const std::vector<int>& nodes) {
  const std::size_t n = nodes.size();
  std::vector<double> share = d.rank_shares;
  if (share.empty())
    share.assign(n, 1.0 / static_cast<double>(n));
  if (share.size() != n)
    throw std::invalid_argument("dispatch_reach: one share per rank");
  const int node_count = n == 0 ? 0 : *std::max_element(nodes.begin(), nodes.end()) + 1;
  std::vector<double> node_share(static_cast<std::size_t>(node_count), 0.0);
  for (std::size_t r = 0; r < n; ++r)
    node_share[static_cast<std::size_t>(nodes[r])] += share[r];
  // Each node's chance to be among the token's nodes, and the share mass they hold in expectation.
  const bool limited = d.node_limit > 0 && d.node_limit < node_count;
  std::vector<double> chosen(node_share.size(), 1.0);
  double mass = 0;
  for (std::size_t j = 0; j < node_share.size(); ++j) {
    if (limited)
      chosen[j] = std::min(1.0, d.node_limit * node_share[j]);
    mass += chosen[j] * node_share[j];
  }
  DispatchReach out;
  out.rank.resize(n);
  out.node.resize(node_share.size());
  for (std::size_t r = 0; r < n; ++r) {
    const auto j = static_cast<std::size_t>(nodes[r]);
    out.rank[r] = mass > 0 ? chosen[j] * any_of(share[r] / mass, d.top_k) : 0.0;
  }
  for (std::size_t j = 0; j < node_share.size(); ++j)
    out.node[j] = mass > 0 ? chosen[j] * any_of(node_share[j] / mass, d.top_k) : 0.0;
  return out;
}

AllToAllPlan expert_dispatch(std::vector<int> gpus, const ExpertDispatch& d, int gpus_per_node,
                             int parts_per_node) {
  AllToAllPlan plan;
  const int n = static_cast<int>(gpus.size());
  if (n < 2 || d.token_bytes <= 0)
    return plan;
  if (!d.rank_shares.empty() && d.rank_shares.size() != gpus.size())
    throw std::invalid_argument("expert_dispatch: one share per rank");
  // Each rank's node, numbered in the order the group's nodes first appear (ranks are in group order).
  std::map<int, int> node_index;
  std::vector<int> nodes;
  for (int g : gpus) {
    const int node = g / gpus_per_node;
    nodes.push_back(node_index.emplace(node, static_cast<int>(node_index.size())).first->second);
  }
  const auto reach = dispatch_reach(d, nodes);
  std::map<int, double> rank_reach; // GPU -> chance a token reaches it
  for (std::size_t r = 0; r < gpus.size(); ++r)
    rank_reach[gpus[r]] = reach.rank[r];
  std::map<int, double> node_reach; // node -> chance a token reaches it
  for (const auto& [node, index] : node_index)
    node_reach[node] = reach.node[static_cast<std::size_t>(index)];
  const auto by_node = group_by_node(gpus, gpus_per_node);
  plan.nodes = static_cast<int>(by_node.size());
  const DestinationRuns runs(by_node, parts_per_node);
  for (const auto& [node_id, members] : by_node) {
    RunHops hops;
    for (std::size_t s = 0; s < members.size(); ++s) {
      const int src = members[s];
      for (const auto& [dst_node, dst_members] : by_node) {
        if (dst_node == node_id) { // NVLink, straight to each GPU the token reaches
          for (int dst : dst_members)
            if (dst != src)
              hops[{0, src, dst}] += d.token_bytes * rank_reach.at(dst);
          continue;
        }
        // Once over RDMA to the GPU of the same position there, which forwards over NVLink.
        const int relay = dst_members[s % dst_members.size()];
        const int run = runs.of(node_id, dst_node);
        hops[{run, src, relay}] += d.token_bytes * node_reach.at(dst_node);
        for (int dst : dst_members)
          if (dst != relay)
            hops[{run, relay, dst}] += d.token_bytes * rank_reach.at(dst);
      }
    }
    append_runs(hops, runs.runs(), plan.parts);
  }
  return plan;
}

} // namespace dpusim::collectives
