#include "sim/metrics/host_core_peak.hpp"

#include <algorithm>

namespace dpusim::metrics {

double peak_busy_host_cores(const plan::IterationPlan& plan, const std::vector<engine::TaskTiming>& timings,
                            int nodes, int gpus_per_node) {
  nodes = std::max(1, nodes);
  gpus_per_node = std::max(1, gpus_per_node);
  // Each node's (time, change of its busy cores); the last bucket for tasks of no GPU (every node's).
  std::vector<std::vector<std::pair<double, double>>> steps(static_cast<std::size_t>(nodes) + 1);
  auto& shared = steps.back();
  std::vector<int> on;
  for (std::size_t i = 0; i < plan.info.size(); ++i) {
    const auto& ti = plan.info[i];
    const double core_s = ti.host_cpu_core_s();
    if (!(core_s > 0))
      continue;
    const auto& t = timings[i];
    const bool background =
        plan.graph.task(static_cast<engine::TaskId>(i)).kind == engine::TaskKind::background;
    const double from = !(t.end > t.start) && ti.span_from >= 0
                            ? timings[static_cast<std::size_t>(ti.span_from)].start
                            : t.start;
    if (!(t.end > from))
      continue;
    const double rate = core_s * (background ? t.done : 1.0) / (t.end - from);
    if (ti.gpus.empty()) { // no GPU of its own: every node's share
      shared.emplace_back(from, rate / nodes);
      shared.emplace_back(t.end, -rate / nodes);
      continue;
    }
    // Most tasks are on one node (a tensor-parallel group, a replica's stage): no list to build.
    const auto [lo, hi] = std::minmax_element(ti.gpus.begin(), ti.gpus.end());
    on.clear();
    if (*lo / gpus_per_node == *hi / gpus_per_node) {
      on.push_back(*lo / gpus_per_node);
    } else {
      for (int g : ti.gpus)
        on.push_back(g / gpus_per_node);
      std::sort(on.begin(), on.end());
      on.erase(std::unique(on.begin(), on.end()), on.end());
    }
    const double share = rate / static_cast<double>(on.size());
    for (int n : on) {
      auto& bucket = steps[static_cast<std::size_t>(std::clamp(n, 0, nodes - 1))];
      bucket.emplace_back(from, share);
      bucket.emplace_back(t.end, -share);
    }
  }
  // Each node's peak over its own tasks, ends before starts at one time (a task that starts as another
  // ends does not count both); the load of no node's GPUs (agents, which run throughout) at its own peak
  // on top: exact where that load is steady, else an upper bound.
  const auto peak_of = [](std::vector<std::pair<double, double>>& bucket) {
    std::sort(bucket.begin(), bucket.end());
    double level = 0;
    double peak = 0;
    for (const auto& [time, change] : bucket) {
      level += change;
      peak = std::max(peak, level);
    }
    return peak;
  };
  double peak = 0;
  for (std::size_t n = 0; n + 1 < steps.size(); ++n)
    peak = std::max(peak, peak_of(steps[n]));
  return peak + peak_of(shared);
}

} // namespace dpusim::metrics
