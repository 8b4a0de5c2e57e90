#include "sim/metrics/host_core_peak.hpp"

#include <algorithm>
#include <tuple>

namespace dpusim::metrics {

double peak_busy_host_cores(const plan::IterationPlan& plan, const std::vector<engine::TaskTiming>& timings,
                            int nodes, int gpus_per_node) {
  nodes = std::max(1, nodes);
  gpus_per_node = std::max(1, gpus_per_node);
  // (node, time, change of the busy cores); -1 for every node.
  std::vector<std::tuple<int, double, double>> steps;
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
    on.clear();
    for (int g : ti.gpus)
      on.push_back(g / gpus_per_node);
    std::sort(on.begin(), on.end());
    on.erase(std::unique(on.begin(), on.end()), on.end());
    const double rate = core_s * (background ? t.done : 1.0) / (t.end - from);
    if (on.empty()) { // no GPU of its own: every node's share
      steps.emplace_back(-1, from, rate / nodes);
      steps.emplace_back(-1, t.end, -rate / nodes);
      continue;
    }
    for (int n : on) {
      steps.emplace_back(n, from, rate / static_cast<double>(on.size()));
      steps.emplace_back(n, t.end, -rate / static_cast<double>(on.size()));
    }
  }
  // Each node's peak over its own tasks, ends before starts at one time (a task that starts as another
  // ends does not count both); the load of no node's GPUs (agents, which run throughout) at its own peak
  // on top: exact where that load is steady, else an upper bound.
  std::sort(steps.begin(), steps.end());
  double peak = 0;
  double shared = 0;
  for (auto it = steps.begin(); it != steps.end();) {
    const int node = std::get<0>(*it);
    double level = 0;
    double node_peak = 0;
    for (; it != steps.end() && std::get<0>(*it) == node; ++it) {
      level += std::get<2>(*it);
      node_peak = std::max(node_peak, level);
    }
    if (node == -1)
      shared = node_peak;
    else
      peak = std::max(peak, node_peak);
  }
  return peak + shared;
}

} // namespace dpusim::metrics
