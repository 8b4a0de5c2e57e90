#include "models/collectives/all_to_all.hpp"

#include <map>
#include <stdexcept>
#include <utility>

namespace dpusim::collectives {

AllToAllPlan all_to_all(std::vector<int> gpus, double bytes, int gpus_per_node,
                        const std::vector<int>& rail_of_local, bool forward,
                        const std::vector<double>& shares, int parts_per_node) {
  AllToAllPlan plan;
  const int n = static_cast<int>(gpus.size());
  if (n < 2 || bytes <= 0)
    return plan;
  if (!shares.empty() && shares.size() != gpus.size())
    throw std::invalid_argument("all_to_all: one share per rank");
  std::map<int, double> share_of; // destination GPU -> its share of every sender's bytes
  for (std::size_t i = 0; i < shares.size(); ++i)
    share_of[gpus[i]] = shares[i];
  const int per_node = gpus_per_node;
  const auto by_node = group_by_node(gpus, per_node);
  plan.nodes = static_cast<int>(by_node.size());
  auto rail = [&](int g) { return rail_of_local.at(static_cast<std::size_t>(g % per_node)); };
  const DestinationRuns runs(by_node, parts_per_node);
  for (const auto& [node_id, members] : by_node) {
    // Payload per (run, hop) from this node, summed over its sources (in a fixed order, for
    // determinism).
    RunHops hops;
    for (std::size_t s = 0; s < members.size(); ++s) {
      const int src = members[s];
      for (int dst : gpus) {
        const double chunk = shares.empty() ? bytes / n : bytes * share_of.at(dst);
        if (dst == src || chunk <= 0)
          continue;
        const int run = runs.of(node_id, dst / per_node);
        if (dst / per_node == node_id) {
          hops[{run, src, dst}] += chunk;
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
          hops[{run, src, via}] += chunk;
        hops[{run, via, dst}] += chunk;
      }
    }
    append_runs(hops, runs.runs(), plan.parts);
  }
  return plan;
}

} // namespace dpusim::collectives
