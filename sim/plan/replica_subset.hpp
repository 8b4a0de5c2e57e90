// Some of an iteration's data-parallel replicas (replica_subset.cpp): the tasks of the replicas named,
// every task no single replica owns (the data-parallel collectives, the iteration's end), and the
// dependencies among them. Used where noise makes replicas differ and simulating all of them would be
// too slow: the slowest replicas are simulated and stand for the others (docs/models/noise.md).
#pragma once

#include "sim/plan/iteration_plan.hpp"

#include <vector>

namespace dpusim::plan {

/// `full` (every replica simulated) with only `replicas` left of the per-replica tasks; each kept task
/// stands for `dp / replicas.size()` replicas (its weight), so totals over replicas stay whole.
/// `full` is taken apart (pass a copy to keep it).
IterationPlan keep_replicas(IterationPlan full, const std::vector<int>& replicas, int dp);

/// When each task of `plan` would finish if only its GPU time (after apply_probe) and its pure delays
/// took time, every dependency honoured: a cheap ordering of replicas by how late they reach each
/// synchronous point, not a prediction of the step (communication and contention take no time here).
std::vector<double> compute_finish_times(const IterationPlan& plan);

} // namespace dpusim::plan
