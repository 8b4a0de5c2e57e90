#include "models/collectives/hierarchical.hpp"

namespace dpusim::collectives {

std::optional<HierarchicalPlan> hierarchical(CollectiveKind kind, std::vector<int> gpus, double bytes,
                                             int gpus_per_node) {
  if (kind == CollectiveKind::all_to_all || rooted(kind))
    return std::nullopt;
  const auto by_node = group_by_node(gpus, gpus_per_node);
  const std::size_t k = uniform_members(by_node);
  if (by_node.size() < 2 || k < 2 || bytes <= 0)
    return std::nullopt;
  // Inside every node at once (independent rings), or along every rail at once: member i of each node.
  auto intra = [&](CollectiveKind what, double size) {
    HierarchicalPhase phase;
    for (const auto& [node_id, members] : by_node)
      phase.push_back({what, members, size});
    return phase;
  };
  auto rails = [&](CollectiveKind what, double size) {
    HierarchicalPhase phase;
    for (std::size_t i = 0; i < k; ++i) {
      std::vector<int> rail;
      for (const auto& [node_id, members] : by_node)
        rail.push_back(members[i]);
      phase.push_back({what, std::move(rail), size});
    }
    return phase;
  };
  const double shard = bytes / static_cast<double>(k);
  HierarchicalPlan plan;
  plan.per_node = k;
  plan.nodes = static_cast<int>(by_node.size());
  switch (kind) {
  case CollectiveKind::all_reduce:
    plan.phases = {intra(CollectiveKind::reduce_scatter, bytes), rails(CollectiveKind::all_reduce, shard),
                   intra(CollectiveKind::all_gather, bytes)};
    break;
  case CollectiveKind::reduce_scatter:
    plan.phases = {intra(CollectiveKind::reduce_scatter, bytes),
                   rails(CollectiveKind::reduce_scatter, shard)};
    break;
  case CollectiveKind::all_gather:
    plan.phases = {rails(CollectiveKind::all_gather, shard), intra(CollectiveKind::all_gather, bytes)};
    break;
  case CollectiveKind::all_to_all:
  case CollectiveKind::broadcast:
  case CollectiveKind::reduce:
    break;
  }
  return plan;
}

} // namespace dpusim::collectives
