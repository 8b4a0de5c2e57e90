#include "models/collectives/collective.hpp"

#include <algorithm>
#include <stdexcept>

namespace dpusim::collectives {

std::string_view kind_name(CollectiveKind k) {
  constexpr std::string_view kNames[] = {"all-reduce", "all-gather", "reduce-scatter",
                                         "all-to-all", "broadcast",  "reduce"};
  return kNames[static_cast<std::size_t>(k)];
}

NodeMembers group_by_node(std::vector<int>& gpus, int per_node) {
  std::sort(gpus.begin(), gpus.end());
  NodeMembers by_node;
  for (int g : gpus)
    by_node[g / per_node].push_back(g);
  return by_node;
}

DestinationRuns::DestinationRuns(const NodeMembers& by_node, int parts_per_node) {
  if (parts_per_node < 1)
    throw std::invalid_argument("direct sends: at least one part a node");
  for (const auto& [node, members] : by_node)
    place_.emplace(node, static_cast<int>(place_.size()));
  const int nodes = static_cast<int>(place_.size());
  runs_ = std::max(1, std::min(parts_per_node, nodes - 1));
}

int DestinationRuns::of(int from, int to) const {
  const int nodes = static_cast<int>(place_.size());
  const int r = (place_.at(to) - place_.at(from) + nodes) % nodes;
  return r == 0 ? 0 : (r - 1) * runs_ / (nodes - 1);
}

void append_runs(const RunHops& hops, int runs, std::vector<Channel>& parts) {
  std::vector<Channel> by_run(static_cast<std::size_t>(runs));
  for (const auto& [hop, payload] : hops)
    if (payload > 0)
      by_run.at(static_cast<std::size_t>(std::get<0>(hop)))
          .push_back({std::get<1>(hop), std::get<2>(hop), payload});
  for (auto& part : by_run)
    if (!part.empty())
      parts.push_back(std::move(part));
}

std::size_t fewest_members(const NodeMembers& by_node) {
  std::size_t fewest = by_node.empty() ? 0 : by_node.begin()->second.size();
  for (const auto& [node, members] : by_node)
    fewest = std::min(fewest, members.size());
  return fewest;
}

std::size_t uniform_members(const NodeMembers& by_node) {
  const std::size_t k = fewest_members(by_node);
  for (const auto& [node, members] : by_node)
    if (members.size() != k)
      return 0;
  return k;
}

int nic_channels(const NodeMembers& by_node, NodeShape node) {
  return std::max(1, std::min(static_cast<int>(fewest_members(by_node)), node.nics));
}

std::size_t channel_offset(int c, std::size_t k, int channels, bool spread) {
  const std::size_t stride = spread ? std::max<std::size_t>(1, k / static_cast<std::size_t>(channels)) : 1;
  return (static_cast<std::size_t>(c) * stride) % k;
}

std::vector<std::vector<int>> channel_chains(const NodeMembers& by_node, int c, int channels,
                                             NodeShape node) {
  std::vector<std::vector<int>> chains;
  for (const auto& [node_id, members] : by_node) {
    const std::size_t k = members.size();
    const std::size_t offset = channel_offset(c, k, channels, node.nics < node.gpus);
    std::vector<int> chain;
    for (std::size_t i = 0; i < k; ++i)
      chain.push_back(members[(i + offset) % k]);
    chains.push_back(std::move(chain));
  }
  return chains;
}

} // namespace dpusim::collectives
