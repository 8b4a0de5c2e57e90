#include "sim/plan/replica_subset.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace dpusim::plan {

IterationPlan keep_replicas(IterationPlan full, const std::vector<int>& replicas, int dp) {
  if (replicas.empty())
    throw std::logic_error("keep_replicas: no replica to keep");
  std::vector<bool> kept_replica(static_cast<std::size_t>(std::max(dp, 1)), false);
  for (int d : replicas)
    kept_replica.at(static_cast<std::size_t>(d)) = true;
  // Everything but the tasks stays as it was: the probes, the fused collectives' counts and durations.
  engine::TaskGraph graph = std::move(full.graph);
  std::vector<TaskInfo> infos = std::move(full.info);
  IterationPlan out = std::move(full);
  out.graph = engine::TaskGraph{};
  out.info.clear();
  const std::size_t n = graph.size();
  std::vector<engine::TaskId> remap(n, -1);
  out.simulated_replicas = static_cast<int>(replicas.size());
  const double weight = static_cast<double>(dp) / static_cast<double>(replicas.size());
  for (std::size_t i = 0; i < n; ++i) {
    auto& info = infos[i];
    if (info.dp >= 0 && !kept_replica.at(static_cast<std::size_t>(info.dp)))
      continue;
    remap[i] = out.graph.add(std::move(graph.mutable_task(static_cast<engine::TaskId>(i))));
    if (info.dp >= 0)
      info.weight = weight;
    out.info.push_back(std::move(info));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (remap[i] < 0)
      continue;
    for (auto s : graph.successors(static_cast<engine::TaskId>(i)))
      if (remap[static_cast<std::size_t>(s)] >= 0)
        out.graph.depend(remap[i], remap[static_cast<std::size_t>(s)]);
  }
  const auto moved = [&remap](engine::TaskId id) {
    return id >= 0 ? remap[static_cast<std::size_t>(id)] : engine::TaskId{-1};
  };
  for (auto& info : out.info) {
    info.data_from = moved(info.data_from);
    info.span_from = moved(info.span_from);
  }
  out.end = moved(out.end);
  if (out.end < 0)
    throw std::logic_error("keep_replicas: the iteration's end belongs to a replica");
  return out;
}

std::vector<double> compute_finish_times(const IterationPlan& plan) {
  const std::size_t n = plan.graph.size();
  std::vector<int> pending(n);
  std::vector<double> start(n, 0.0);
  std::vector<double> finish(n, 0.0);
  std::vector<engine::TaskId> ready;
  for (std::size_t i = 0; i < n; ++i) {
    pending[i] = plan.graph.predecessor_count(static_cast<engine::TaskId>(i));
    if (pending[i] == 0)
      ready.push_back(static_cast<engine::TaskId>(i));
  }
  while (!ready.empty()) {
    const auto id = ready.back();
    ready.pop_back();
    const auto u = static_cast<std::size_t>(id);
    const auto& task = plan.graph.task(id);
    const auto c = plan.info[u].category;
    double took = task.kind == engine::TaskKind::delay ? task.delay_s : 0.0;
    if ((c == TaskCategory::forward || c == TaskCategory::backward || c == TaskCategory::optimizer) &&
        !task.loads.empty())
      took = task.loads.front().amount;
    finish[u] = start[u] + took;
    for (auto s : plan.graph.successors(id)) {
      const auto v = static_cast<std::size_t>(s);
      start[v] = std::max(start[v], finish[u]);
      if (--pending[v] == 0)
        ready.push_back(s);
    }
  }
  return finish;
}

} // namespace dpusim::plan
