// The pieces run_variant wires together, each derived from the scenario and the variant's hardware:
// the GPU's compute rates, the host-side work the variant implies, whether one data-parallel replica
// stands for all, and what the metrics need to know of the platform.
#pragma once

#include "sim/datapath/data_path.hpp"
#include "sim/metrics/iteration_metrics.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/scenario/gpu_compute.hpp"
#include "sim/scenario/hardware.hpp"

#include <vector>

namespace dpusim::run {

/// The host-side work of this variant besides communication: launch threads, input pipeline, storage,
/// agents (the tasks for them come from the models, sim/model/).
plan::HostSide host_side(const scenario::Scenario& s, const scenario::Hardware& hw, const offload::Variant& v,
                         const datapath::DataPath& path);

/// How inter-node bytes travel: the variant's transport and detours, NCCL's PXN (GPUDirect RDMA between
/// NVLink-connected GPUs only) and the connections each GPU-to-GPU route is hashed as.
platform::PathOptions path_options(const scenario::Hardware& hw, const datapath::DataPath& path);

/// The GPU work and collective bytes of every virtual stage (pp x virtual_stages).
std::vector<plan::StageCosts> stage_costs(const scenario::WorkloadConfig& w,
                                          const compute::GpuComputeModel& gpu);

/// What the metrics take from the platform and the hardware (the probes' durations are added later).
metrics::MetricsInputs metrics_inputs(const scenario::Scenario& s, const offload::Variant& variant,
                                      const scenario::Hardware& hw, const platform::HostMap& hosts);

/// The result's identity (scenario, variant, device, cluster), its calibration and its probes; the
/// metrics and the simulation's statistics are the caller's to add.
report::VariantResult result_of(const scenario::Scenario& s, const offload::Variant& variant,
                                const scenario::Hardware& hw, const metrics::MetricsInputs& in,
                                const plan::IterationPlan& iteration);

} // namespace dpusim::run
