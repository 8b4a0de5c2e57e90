#include "models/collectives/all_to_all.hpp"

#include <utility>

namespace dpusim::collectives {

AllToAllPlan all_to_all(std::vector<int> gpus, double bytes, int gpus_per_node,
                        const std::vector<int>& rail_of_local, bool forward) {
  AllToAllPlan plan;
  const int n = static_cast<int>(gpus.size());
  if (n < 2 || bytes <= 0)
    return plan;
  const int per_node = gpus_per_node;
  const auto by_node = group_by_node(gpus, per_node);
  plan.nodes = static_cast<int>(by_node.size());
  const double chunk = bytes / n;
  auto rail = [&](int g) { return rail_of_local.at(static_cast<std::size_t>(g % per_node)); };
  for (const auto& [node_id, members] : by_node) {
    // Payload per hop from this node, summed over its sources (in a fixed order, for determinism).
    std::map<std::pair<int, int>, double> hops;
    for (std::size_t s = 0; s < members.size(); ++s) {
      const int src = members[s];
      for (int dst : gpus) {
        if (dst == src)
          continue;
        if (dst / per_node == node_id) {
          hops[{src, dst}] += chunk;
          continue;
        }
        int via = src;
        if (forward && rail(src) != rail(dst)) {
          std::vector<int> on_rail;
          for (int g : members)
            if (rail(g) == rail(dst))
              on_rail.push_back(g);
          if (!on_rail.empty())
            via = on_rail[s % on_rail.size()];
        }
        if (via != src)
          hops[{src, via}] += chunk;
        hops[{via, dst}] += chunk;
      }
    }
    Channel part;
    for (const auto& [hop, payload] : hops)
      part.push_back({hop.first, hop.second, payload});
    plan.parts.push_back(std::move(part));
  }
  return plan;
}

} // namespace dpusim::collectives
