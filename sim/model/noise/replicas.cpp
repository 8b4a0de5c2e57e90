// Noise on a few replicas where all are too many (noise.replicas): whether the shortcut is on, and which
// replicas of a noisy iteration hold up its synchronous points.
#include "sim/model/noise/noise.hpp"
#include "sim/model/plan_size.hpp"
#include "sim/plan/replica_subset.hpp"

#include <algorithm>
#include <map>
#include <vector>

namespace dpusim::model {

bool slowest_replicas_only(const scenario::Scenario& s) {
  const auto* n = noise_of(s);
  if (n == nullptr || !n->any() || s.workload.parallelism.dp < 2 || n->replicas == NoiseConfig::Replicas::all)
    return false;
  return n->replicas == NoiseConfig::Replicas::slowest || whole_plan_too_large(s.workload);
}

std::vector<int> slowest_replicas(const plan::IterationPlan& noisy, int dp, int per_point, int cap) {
  const auto finish = plan::compute_finish_times(noisy);
  // For every task no replica owns, its inputs' latest finish per replica.
  std::map<engine::TaskId, std::map<int, double>> points;
  for (std::size_t u = 0; u < noisy.graph.size(); ++u) {
    const int d = noisy.info[u].dp;
    if (d < 0)
      continue;
    for (auto v : noisy.graph.successors(static_cast<engine::TaskId>(u)))
      if (noisy.info[static_cast<std::size_t>(v)].dp < 0) {
        double& latest = points[v][d];
        latest = std::max(latest, finish[u]);
      }
  }
  // Each replica's latest time at a point where it is among the latest: the replicas that hold up the
  // latest points first (the iteration's end is the last of them).
  std::vector<double> lateness(static_cast<std::size_t>(dp), -1.0);
  for (const auto& [point, by_replica] : points) {
    std::vector<std::pair<double, int>> order;
    for (const auto& [d, t] : by_replica)
      order.emplace_back(t, d);
    const auto top = std::min<std::size_t>(order.size(), static_cast<std::size_t>(per_point));
    std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(top), order.end(),
                      [](const auto& a, const auto& b) {
                        return a.first > b.first || (a.first == b.first && a.second < b.second);
                      });
    for (std::size_t i = 0; i < top; ++i) {
      const auto d = static_cast<std::size_t>(order[i].second);
      lateness[d] = std::max(lateness[d], order[i].first);
    }
  }
  std::vector<int> chosen;
  for (int d = 0; d < dp; ++d)
    if (lateness[static_cast<std::size_t>(d)] >= 0)
      chosen.push_back(d);
  if (chosen.empty())
    chosen.push_back(0);
  std::stable_sort(chosen.begin(), chosen.end(), [&](int a, int b) {
    return lateness[static_cast<std::size_t>(a)] > lateness[static_cast<std::size_t>(b)];
  });
  if (static_cast<int>(chosen.size()) > cap)
    chosen.resize(static_cast<std::size_t>(cap));
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

} // namespace dpusim::model
