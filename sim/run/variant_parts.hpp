// The pieces run_variant wires together, each derived from the scenario and the variant's hardware:
// the GPU's compute rates, the host-side work the variant implies, whether one data-parallel replica
// stands for all, and what the metrics need to know of the platform.
#pragma once

#include "models/compute/gpu_compute.hpp"
#include "sim/datapath/data_path.hpp"
#include "sim/metrics/iteration_metrics.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/scenario/hardware.hpp"

namespace dpusim::run {

compute::GpuComputeModel gpu_compute(const scenario::Hardware& hw);

/// The host-side work of this variant besides communication: launch threads, input pipeline, storage,
/// agents (the tasks for them come from the models, sim/model/).
plan::HostSide host_side(const scenario::Scenario& s, const scenario::Hardware& hw, const offload::Variant& v,
                         const datapath::DataPath& path);

/// Above a task budget for all replicas, symmetric data-parallel replicas are represented by one (its
/// collectives still carry every replica's bytes).
bool representative_replica(const scenario::WorkloadConfig& w);

/// What the metrics take from the platform and the hardware (the probes' durations are added later).
metrics::MetricsInputs metrics_inputs(const scenario::Scenario& s, const scenario::Hardware& hw,
                                      const platform::HostMap& hosts);

} // namespace dpusim::run
