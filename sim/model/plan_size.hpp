// How much a scenario asks the planner to build, known before anything is built: the micro-batches of
// each data-parallel replica and the tasks of the training schedule. The models' checks hold both to
// the budgets below (docs/scenario-schema.md, "Limits"), so that a typo in a batch size is an error at
// its key instead of gigabytes of plan.
#pragma once

#include "sim/scenario/scenario.hpp"

#include <cstdint>

namespace dpusim::model {

/// Micro-batches one data-parallel replica runs per iteration (pipeline schedules of published runs use
/// at most a few thousand).
inline constexpr std::int64_t kMaxMicroBatches = 65'536;
/// Tasks of the planned schedule; each costs about 0.65 KiB and 10 us of simulation (measured: 786,432
/// tasks, 16,384 micro-batches over 8 stages, take 0.5 GiB and 7.4 s), so the budget is about 10 GiB.
inline constexpr double kMaxPlannedTasks = 16e6;

/// global_batch / (micro_batch x dp), without overflow; 0 when a degree is not positive.
std::int64_t micro_batches_per_replica(const scenario::WorkloadConfig& w);

/// Whether one data-parallel replica stands for all (its collectives still carry every replica's bytes):
/// when the replicas are alike (no model makes them differ) and simulating all of them would take more
/// than a small task budget.
bool representative_replica(const scenario::Scenario& s);

/// Whether simulating every replica would take more than the small task budget representative_replica
/// holds the replicas to (a model whose replicas differ may then simulate a few of them).
bool whole_plan_too_large(const scenario::WorkloadConfig& w);

/// The tasks of the training schedule the planner builds (forward and backward operations of every
/// simulated replica, stage, model chunk and micro-batch, with their communication), estimated from the
/// counts alone; the host-side tasks other models add are few beside them.
double planned_tasks(const scenario::Scenario& s);

} // namespace dpusim::model
