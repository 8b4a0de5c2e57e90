#include "sim/run/variant_run.hpp"

#include "models/calibration/profile.hpp"
#include "sim/metrics/iteration_metrics.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/platform/platform_builder.hpp"
#include "sim/report/trace_writer.hpp"
#include "sim/scenario/cluster_layout.hpp"
#include "sim/simgrid/simulator.hpp"
#include "sim/topology/router.hpp"

#include <fmt/format.h>

namespace dpusim::run {

report::VariantResult run_variant(const scenario::Scenario& s, const catalog::Catalog& cat,
                                  const std::string& name, const RunOptions& options) {
  const auto* variant = offload::find_variant(name);
  if (variant == nullptr)
    throw std::invalid_argument(fmt::format("unknown variant \"{}\"", name));
  std::optional<calibration::Profile> profile;
  const std::string profile_path = options.calibration.empty() ? s.calibration : options.calibration;
  if (!profile_path.empty())
    profile = calibration::load_profile(profile_path);
  const auto hw = scenario::resolve_hardware(s, cat, *variant, profile ? &*profile : nullptr, profile_path);

  const auto layout = scenario::cluster_layout(s.cluster, hw.node, hw.gpu, hw.nic, hw.fabric_switch);
  const auto topo = topology::Topology::build(layout);
  const topology::Router router(topo, s.seed);
  platform::PlatformBuilder platform(topo, router, hw, variant->transport);

  compute::GpuComputeParams gp;
  gp.gemm_bf16 = hw.gpu.gemm;
  gp.fp8_speedup = hw.gpu.peak_fp8 ? hw.gpu.peak_fp8->value / hw.gpu.peak_bf16.value : 1.0;
  gp.hbm_bandwidth = hw.gpu.hbm_bandwidth.value * hw.gpu.hbm_efficiency.value;
  gp.kernel_floor = hw.gpu.kernel_floor.value;
  const compute::GpuComputeModel gpu(gp);

  std::vector<plan::StageCosts> costs;
  for (int st = 0; st < s.workload.parallelism.pp; ++st)
    costs.push_back(plan::stage_costs(s.workload, gpu, st));
  plan::CollectiveLowering lowering(platform, hw, variant->transport);
  auto iteration = plan::build_iteration(s.workload, costs, platform, lowering);

  simgrid::Simulator simulator(platform.build());
  double tp_s = 0;
  if (iteration.probe.size() > 0) {
    const auto probe = simulator.execute(iteration.probe);
    for (const auto& t : probe)
      tp_s = std::max(tp_s, t.end);
  }
  iteration.apply_probe(tp_s);
  const auto timings = simulator.execute(iteration.graph, options.progress);

  metrics::MetricsInputs in;
  in.gpus = platform.gpus();
  in.nodes = platform.nodes();
  switch (s.workload.precision) {
  case workload::Precision::bf16:
    in.peak_flops = hw.gpu.peak_bf16.value.si();
    break;
  case workload::Precision::fp16:
    in.peak_flops = hw.gpu.peak_fp16.value.si();
    break;
  case workload::Precision::fp8:
    in.peak_flops = hw.gpu.peak_fp8->value.si();
    break;
  }
  in.tokens_per_iteration = static_cast<double>(s.workload.global_batch) * s.workload.seq_len;
  in.tp_collective_s = tp_s;

  report::VariantResult r;
  r.scenario = s.name;
  r.variant = name;
  r.device = hw.nic.name;
  r.seed = s.seed;
  r.nodes = in.nodes;
  r.gpus = in.gpus;
  r.metrics = metrics::compute_metrics(iteration, timings, in);
  r.tp_collective_s = tp_s;
  r.tp_collectives_reused = iteration.tp_collectives;
  r.activities = simulator.stats().activities;
  r.routes = platform.route_count();
  r.simulation_wall_s = simulator.stats().wall_seconds;
  r.calibrated = hw.calibrated;
  if (s.workload.parallelism.tp > layout.node.gpus)
    r.notes.push_back(
        "tensor parallelism spans nodes: its collectives are simulated once in isolation and reused, "
        "so their contention with data-parallel traffic is not modelled");
  if (!options.trace_path.empty())
    report::write_trace(options.trace_path, iteration, timings, topo, tp_s);
  return r;
}

} // namespace dpusim::run
