// Periodic checkpoints (checkpoint.cpp): what one GPU writes.
#pragma once

#include "sim/metrics/iteration_metrics.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/scenario/scenario.hpp"

namespace dpusim::model {

/// Bytes one GPU writes per checkpoint: the scenario's size, or by default the weights and optimizer
/// state of the largest pipeline stage, sharded over the data-parallel ranks (a fully parallel save:
/// each rank writes a distinct part).
double checkpoint_bytes_per_gpu(const scenario::WorkloadConfig& w);

/// The host-side work of the iteration that also writes a checkpoint (after the optimizer step, or from
/// the iteration's start when asynchronous): `host` with the checkpoint's bytes and the servers' rate.
plan::HostSide writing_checkpoint(const scenario::Scenario& s, plan::HostSide host);

/// Adds to the plain iteration's metrics what a checkpoint every `every` iterations costs, given how
/// long the iteration that writes one takes.
void add_checkpoint_step(const scenario::Scenario& s, double checkpoint_step_s, metrics::IterationMetrics& m);

} // namespace dpusim::model
