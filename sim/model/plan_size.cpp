#include "sim/model/plan_size.hpp"

#include "sim/model/registry.hpp"
#include "sim/model/sections/degrees.hpp"

namespace dpusim::model {
namespace {

/// Forward and backward operations of every replica's stages and chunks, and the tasks each one makes.
double tasks_of_all_replicas(const scenario::WorkloadConfig& w) {
  const auto& par = w.parallelism;
  const double layers_per_gpu = static_cast<double>(w.model.layers) / par.pp;
  const double ops_per_replica =
      static_cast<double>(par.pp) * w.virtual_stages * static_cast<double>(micro_batches_per_replica(w)) * 2;
  const double tasks_per_op = w.zero_stage >= 3 ? 4.0 * layers_per_gpu / w.virtual_stages : 3.0;
  return ops_per_replica * tasks_per_op * par.dp;
}

} // namespace

std::int64_t micro_batches_per_replica(const scenario::WorkloadConfig& w) {
  if (w.micro_batch < 1 || w.parallelism.dp < 1)
    return 0;
  return static_cast<std::int64_t>(w.global_batch) /
         (static_cast<std::int64_t>(w.micro_batch) * w.parallelism.dp);
}

bool representative_replica(const scenario::Scenario& s) {
  for (const auto& m : registry().models())
    if (m->replicas_differ(s))
      return false;
  return whole_plan_too_large(s.workload);
}

bool whole_plan_too_large(const scenario::WorkloadConfig& w) {
  // The full simulation's cost: its tasks, and SimGrid's solver re-solving, at each start or end, the
  // activities connected to it through shared links, which grow with the replicas (tools/scale-benchmark.sh).
  constexpr double kFullReplicaTaskBudget = 60000;
  constexpr double kFullReplicaSolverBudget = 500000; // tasks x replicas
  const double tasks = tasks_of_all_replicas(w);
  return w.parallelism.dp > 1 &&
         (tasks > kFullReplicaTaskBudget || tasks * w.parallelism.dp > kFullReplicaSolverBudget);
}

double planned_tasks(const scenario::Scenario& s) {
  const auto& w = s.workload;
  if (!degrees_positive(w))
    return 0;
  const double all = tasks_of_all_replicas(w);
  for (const auto& m : registry().models())
    if (m->builds_every_replica(s))
      return all;
  return representative_replica(s) ? all / w.parallelism.dp : all;
}

} // namespace dpusim::model
