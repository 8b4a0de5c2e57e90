#include "sim/estimate/step_estimate.hpp"

#include "models/calibration/profile.hpp"
#include "sim/estimate/checkpoint_estimate.hpp"
#include "sim/estimate/measured_latency.hpp"
#include "sim/estimate/step_estimator.hpp"
#include "sim/model/checkpoint/checkpoint.hpp"
#include "sim/model/congestion/congestion.hpp"
#include "sim/model/noise/noise.hpp"
#include "sim/scenario/cluster_layout.hpp"

#include <algorithm>
#include <optional>

namespace dpusim::estimate {

namespace {

void refuse_what_is_not_modelled(const scenario::Scenario& s) {
  if (model::noise_of(s) != nullptr)
    throw NotEstimated("noise is sampled, not estimated");
  if (model::congestion_of(s) != nullptr)
    throw NotEstimated("RoCE congestion is not estimated");
  if (s.extensions.count("faults") != 0)
    throw NotEstimated("faults are not estimated");
  if (s.cluster.tenants.flows > 0)
    throw NotEstimated("other tenants' traffic is not estimated");
}

double peak_flops(const scenario::Scenario& s, const scenario::Hardware& hw) {
  const auto* peak = hw.gpu.peak(s.workload.precision);
  return (peak != nullptr ? *peak : hw.gpu.peak_bf16).value.si();
}

} // namespace

StepEstimate estimate_step(const scenario::Scenario& s, const scenario::Hardware& hw) {
  refuse_what_is_not_modelled(s);
  return StepEstimator(s, hw).run();
}

report::VariantResult estimated_result(const scenario::Scenario& s, const catalog::Catalog& cat) {
  const auto& variant = s.variants.front();
  std::optional<calibration::Profile> profile;
  if (!s.calibration.empty())
    profile = calibration::load_profile(s.calibration);
  const auto hw = calibrated_hardware(s, cat, variant, profile ? &*profile : nullptr, s.calibration);
  const auto e = estimate_step(s, hw);
  const auto layout = scenario::cluster_layout(s.cluster, hw.node, hw.gpu, hw.nic, hw.fabric_switch,
                                               hw.storage_nic ? &*hw.storage_nic : nullptr);

  auto r = report::identity_of(s, variant, hw);
  r.arm_cores = variant.on_dpu && hw.nic.arm ? hw.nic.arm->cores.value * layout.node.nics : 0;
  if (layout.storage.dpu && scenario::runs_on_frontend(s, variant, hw))
    r.arm_cores += hw.storage_nic->arm->cores.value * layout.node.trays;
  r.nodes = layout.nodes;
  r.gpus = layout.nodes * layout.node.gpus;
  r.tp_collective_s = e.tp_collective_s;
  r.cp_collective_s = e.cp_collective_s;
  r.ep_collective_s = e.ep_collective_s;

  auto& m = r.metrics;
  m.step_time_s = e.step_time_s;
  m.compute_s = e.compute_s;
  m.data_stall_s = e.data_stall_s;
  m.exposed_comm_s = std::max(0.0, e.step_time_s - e.compute_s - e.data_stall_s);
  m.tp_comm_s = e.tp_comm_s;
  m.cp_comm_s = e.cp_comm_s;
  m.dp_comm_s = e.dp_comm_s;
  m.dp_exposed_s = e.dp_exposed_s;
  m.host_cpu_core_s = e.host_core_s;
  if (e.step_time_s > 0) {
    m.host_cpu_busy_cores = e.host_core_s / (e.step_time_s * std::max(1, r.nodes));
    m.tflops_per_gpu = e.hw_flops / e.step_time_s / r.gpus / 1e12;
    m.mfu = e.model_flops / e.step_time_s / r.gpus / peak_flops(s, hw);
    m.tokens_per_s = static_cast<double>(s.workload.global_batch) * s.workload.seq_len / e.step_time_s;
  }
  if (s.workload.checkpoint) {
    const datapath::DataPath path(variant, s.cluster.services, hw);
    // Synchronous: the write after the step. Asynchronous: from the step's start beside it, which ends
    // when both have (the write's contention with the step's traffic left out, as all contention is).
    const double write_s = checkpoint_write_s(s, hw, path, layout);
    model::add_checkpoint_step(
        s, s.workload.checkpoint->async ? std::max(e.step_time_s, write_s) : e.step_time_s + write_s, m);
  }
  r.notes.push_back("estimated without simulation (closed forms, no contention): docs/models/estimator.md");
  return r;
}

} // namespace dpusim::estimate
