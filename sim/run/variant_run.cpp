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

namespace {
// Above this many tasks for all replicas, symmetric data-parallel replicas are represented by one.
constexpr double kFullReplicaTaskBudget = 60000;
} // namespace

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

  const auto& par = s.workload.parallelism;
  std::vector<plan::StageCosts> costs;
  for (int vs = 0; vs < par.pp * s.workload.virtual_stages; ++vs)
    costs.push_back(plan::stage_costs(s.workload, gpu, vs));
  plan::CollectiveLowering lowering(platform, hw, variant->transport);
  // Data-parallel replicas are identical: beyond a task budget only one computes (its collectives still
  // carry every replica's bytes), and the report says so.
  const double layers_per_gpu = static_cast<double>(s.workload.model.layers) / par.pp;
  const double ops_per_replica =
      static_cast<double>(par.pp) * s.workload.virtual_stages * s.workload.micro_batches() * 2;
  const double tasks_per_op =
      s.workload.zero_stage >= 3 ? 4.0 * layers_per_gpu / s.workload.virtual_stages : 3.0;
  const bool representative = par.dp > 1 && ops_per_replica * tasks_per_op * par.dp > kFullReplicaTaskBudget;
  auto iteration = plan::build_iteration(s.workload, costs, platform, lowering, representative);

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
  if (representative)
    r.notes.push_back(
        fmt::format("data-parallel replicas are symmetric: 1 of {} computed and sent activations; "
                    "its data-parallel collectives carried the bytes of all {}",
                    par.dp, par.dp));
  if (s.workload.parallelism.tp > layout.node.gpus)
    r.notes.push_back(
        "tensor parallelism spans nodes: its collectives are simulated once in isolation and reused, "
        "so their contention with data-parallel traffic is not modelled");
  if (!options.trace_path.empty())
    report::write_trace(options.trace_path, iteration, timings, topo, tp_s);
  return r;
}

} // namespace dpusim::run
