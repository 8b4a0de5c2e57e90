#include "sim/run/variant_run.hpp"

#include "models/calibration/profile.hpp"
#include "models/core/unit_parse.hpp"
#include "sim/metrics/iteration_metrics.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/platform/platform_builder.hpp"
#include "sim/report/trace_writer.hpp"
#include "sim/scenario/cluster_layout.hpp"
#include "sim/scenario/scenario_loader.hpp"
#include "sim/simgrid/simulator.hpp"
#include "sim/topology/router.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <optional>

namespace dpusim::run {

namespace {
/// Default checkpoint shard of one GPU under a fully parallel save: the weights and optimizer state of
/// the largest pipeline stage, sharded over the data-parallel ranks (each rank writes a distinct part).
double checkpoint_bytes_per_gpu(const scenario::WorkloadConfig& w) {
  auto sharded = w;
  sharded.zero_stage = 3;
  const auto m = scenario::peak_rank_memory(sharded);
  return m.weights + m.optimizer;
}

// Above this many tasks for all replicas, symmetric data-parallel replicas are represented by one.
constexpr double kFullReplicaTaskBudget = 60000;

/// The host-side work of this variant besides communication.
plan::HostSide host_side(const scenario::Scenario& s, const scenario::Hardware& hw, const offload::Variant& v,
                         const offload::DataPath& path) {
  using offload::Function;
  using offload::Site;
  plan::HostSide h;
  h.path = &path;
  h.data = s.workload.data;
  h.storage_read_rate = s.cluster.storage.read_rate.si();
  h.storage_connections = s.cluster.storage.client_connections;
  const auto& services = s.cluster.services;
  h.agent_cores = services.agent_cores;
  h.agent_site = v.placement[Function::agents];
  if (hw.nic.arm)
    h.arm_cores_per_host_core =
        hw.cpu.tcp_rx_rate_per_core.value.si() / hw.nic.arm->tcp_rx_rate_per_core.value.si();
  // The launch threads are simulated when something else competes for the host's cores; alone, one
  // core per GPU is always available to them.
  const auto req = s.requirements();
  const bool host_shared =
      v.transport() == offload::Transport::host_tcp ||
      (req.encryption != offload::Encryption::none && v.placement[Function::encryption] == Site::host) ||
      (req.overlay && v.placement[Function::vswitch] == Site::host) ||
      (req.storage && v.placement[Function::storage] == Site::host) ||
      (req.agents && v.placement[Function::agents] == Site::host) || (h.data && h.data->decode.si() > 0);
  if (hw.cpu.kernel_launch_cpu)
    h.launch_s_per_kernel = hw.cpu.kernel_launch_cpu->value.si();
  h.couple_launch = host_shared && h.launch_s_per_kernel > 0;
  return h;
}
} // namespace

report::VariantResult run_variant(const scenario::Scenario& s, const catalog::Catalog& cat,
                                  const offload::Variant& variant, const RunOptions& options) {
  std::optional<calibration::Profile> profile;
  const std::string profile_path = options.calibration.empty() ? s.calibration : options.calibration;
  if (!profile_path.empty())
    profile = calibration::load_profile(profile_path);
  auto hw = scenario::resolve_hardware(s, cat, variant, profile ? &*profile : nullptr, profile_path);
  if (s.workload.socket_threads) {
    hw.collective.socket_threads.value = *s.workload.socket_threads;
    hw.collective.socket_threads.cite = {catalog::Citation::Kind::assumption,
                                         "set by the scenario (workload.communication.socket_threads)"};
  }

  auto layout = scenario::cluster_layout(s.cluster, hw.node, hw.gpu, hw.nic, hw.fabric_switch);
  // Other tenants' DPUs hold them to their share of the up-links only where the job runs on DPUs.
  const bool qos = s.cluster.tenants.dpu_qos && variant.on_dpu;
  layout.tenants.uplink_share = qos ? 1.0 - s.cluster.tenants.guarantee : 1.0;
  const auto topo = topology::Topology::build(layout);
  const topology::Router router(topo, s.seed);
  const offload::DataPath path(variant, s.cluster.services, hw);
  platform::PlatformBuilder platform(
      topo, router, hw, platform::PathOptions{path.transport(), path.through_arm(), path.crypto_engine()});

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
  plan::CollectiveLowering lowering(platform, hw, path);
  // Data-parallel replicas are identical: beyond a task budget only one computes (its collectives still
  // carry every replica's bytes), and the report says so.
  const double layers_per_gpu = static_cast<double>(s.workload.model.layers) / par.pp;
  const double ops_per_replica =
      static_cast<double>(par.pp) * s.workload.virtual_stages * s.workload.micro_batches() * 2;
  const double tasks_per_op =
      s.workload.zero_stage >= 3 ? 4.0 * layers_per_gpu / s.workload.virtual_stages : 3.0;
  const bool representative = par.dp > 1 && ops_per_replica * tasks_per_op * par.dp > kFullReplicaTaskBudget;
  const auto host = host_side(s, hw, variant, path);
  auto iteration = plan::build_iteration(s.workload, costs, platform, lowering, representative, host);
  // An iteration that also writes a checkpoint, simulated after the plain one on the same platform.
  std::optional<plan::IterationPlan> with_checkpoint;
  double checkpoint_bytes = 0;
  if (const auto& ck = s.workload.checkpoint) {
    checkpoint_bytes = ck->size ? ck->size->si() : checkpoint_bytes_per_gpu(s.workload);
    auto h = host;
    h.checkpoint_bytes_per_gpu = checkpoint_bytes;
    h.checkpoint_async = ck->async;
    h.storage_write_rate = s.cluster.storage.write_rate.si();
    with_checkpoint = plan::build_iteration(s.workload, costs, platform, lowering, representative, h);
  }

  simgrid::Simulator simulator(platform.build());
  double tp_s = 0;
  if (iteration.probe.size() > 0) {
    const auto probe = simulator.execute(iteration.probe);
    for (const auto& t : probe)
      tp_s = std::max(tp_s, t.end);
  }
  double ep_s = 0;
  if (iteration.ep_probe.size() > 0)
    for (const auto& t : simulator.execute(iteration.ep_probe))
      ep_s = std::max(ep_s, t.end);
  double cp_s = 0;
  if (iteration.cp_probe.size() > 0)
    for (const auto& t : simulator.execute(iteration.cp_probe))
      cp_s = std::max(cp_s, t.end);
  iteration.apply_probe(tp_s, ep_s, cp_s);
  const auto timings = simulator.execute(iteration.graph, options.progress);

  metrics::MetricsInputs in;
  in.gpus = platform.gpus();
  in.nodes = platform.nodes();
  in.host_cores = hw.host_cores();
  in.arm_cores = platform.has_arm() && hw.nic.arm ? hw.nic.arm->cores.value * layout.node.nics : 0;
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
  in.ep_collective_s = ep_s;
  in.cp_collective_s = cp_s;

  report::VariantResult r;
  r.scenario = s.name;
  r.variant = variant.name;
  r.device = hw.nic.name;
  r.placement = offload::placement_text(variant.placement);
  r.host_cores = in.host_cores;
  r.arm_cores = in.arm_cores;
  r.seed = s.seed;
  r.nodes = in.nodes;
  r.gpus = in.gpus;
  r.metrics = metrics::compute_metrics(iteration, timings, in);
  if (with_checkpoint) {
    with_checkpoint->apply_probe(tp_s, ep_s, cp_s);
    const auto ck_timings = simulator.execute(with_checkpoint->graph, options.progress);
    const auto ck = metrics::compute_metrics(*with_checkpoint, ck_timings, in);
    const int every = s.workload.checkpoint->every;
    r.metrics.checkpoint_step_s = ck.step_time_s;
    r.metrics.checkpoint_overhead_s = std::max(0.0, ck.step_time_s - r.metrics.step_time_s) / every;
    r.metrics.step_with_checkpoints_s = r.metrics.step_time_s + r.metrics.checkpoint_overhead_s;
    const double gib = 1024.0 * 1024.0 * 1024.0;
    r.notes.push_back(fmt::format(
        "{} checkpoint every {} iterations: {:.2f} GiB per GPU ({:.1f} GiB per node) to {} storage servers; "
        "the iteration that writes it takes {:.4f} s instead of {:.4f} s, {:.4f} s per step over the "
        "interval",
        s.workload.checkpoint->async ? "asynchronous" : "synchronous", every, checkpoint_bytes / gib,
        checkpoint_bytes * layout.node.gpus / gib, s.cluster.storage.servers, ck.step_time_s,
        r.metrics.step_time_s, r.metrics.checkpoint_overhead_s));
  }
  r.tp_collective_s = tp_s;
  r.ep_collective_s = ep_s;
  r.ep_collectives_reused = iteration.ep_collectives;
  r.cp_collective_s = cp_s;
  r.cp_collectives_reused = iteration.cp_collectives;
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
  if (topo.tiers() == 3)
    r.notes.push_back(
        fmt::format("the fabric has three tiers: {} leaves in {} pods, {} spines, {} core switches",
                    topo.num_leaves(), topo.num_pods(), topo.num_spines(), topo.num_cores()));
  if (iteration.peer_copy_s > 0)
    r.notes.push_back(fmt::format(
        "ZeRO-3 with per-peer buffers: each rank launches one copy per peer ({}) and weight matrix around "
        "every parameter gather and gradient reduce-scatter, {:.2f} s of launches per iteration at {} each",
        par.dp * par.cp, iteration.peer_copy_s,
        units::format(units::Seconds::from_si(host.launch_s_per_kernel))));
  if (const auto engine = path.crypto_engine(); engine && *engine < hw.nic.line_rate.value)
    r.notes.push_back(
        fmt::format("the inline {} engine of the {} runs at {} per direction, below its {} port: "
                    "encrypted traffic cannot go faster",
                    offload::encryption_name(s.cluster.services.encryption), hw.nic.name,
                    units::format(*engine), units::format(hw.nic.line_rate.value)));
  if (s.workload.data && s.workload.data->sample.si() > 0 &&
      variant.placement[offload::Function::storage] == offload::Site::host) {
    const int n = s.cluster.storage.client_connections;
    const auto cap = static_cast<double>(n) * hw.cpu.storage_client_rate_per_core.value;
    const double busy = r.metrics.host_busy_cores_by_use[static_cast<std::size_t>(plan::CpuUse::storage)];
    if (busy > 0.9 * n)
      r.notes.push_back(fmt::format(
          "the host storage client is at its limit: {} TCP connection{} per node "
          "(cluster.storage.client_connections, NFS nconnect), each driven by one core, read at most {} "
          "per node; {:.2f} cores were busy on it",
          n, n == 1 ? "" : "s", units::format(cap), busy));
  }
  if (s.cluster.tenants.flows > 0) {
    if (topo.num_tenants() > 0) {
      r.isolation = qos ? "dpu_qos" : "shared";
      r.guarantee = qos ? s.cluster.tenants.guarantee : 0.0;
    }
    if (topo.num_tenants() == 0)
      r.notes.push_back(fmt::format("the job's nodes hang off one leaf: other tenants' {} flows per leaf "
                                    "never share a link with it",
                                    s.cluster.tenants.flows));
    else
      r.notes.push_back(fmt::format(
          "other tenants: {} bulk flows per leaf across the spines, {}", s.cluster.tenants.flows,
          qos ? fmt::format("held by their DPUs to {:.0f}% of each leaf's up-links (this job is guaranteed "
                            "{:.0f}%)",
                            100 * (1 - s.cluster.tenants.guarantee), 100 * s.cluster.tenants.guarantee)
              : std::string(s.cluster.tenants.dpu_qos ? "sharing the links plainly (max-min per flow): "
                                                        "their rate limits need this job's nodes on DPUs too"
                                                      : "sharing the links plainly (max-min per flow)")));
  }
  if (path.through_arm())
    r.notes.push_back(
        "kernel TCP traffic detours through the DPU's Arm cores, crossing its internal PCIe twice "
        "on each end");
  if (representative && s.workload.data)
    r.notes.push_back("only one data-parallel replica's input pipeline was simulated: the loaders of other "
                      "replicas on the same node do not compete for its cores");
  if (s.workload.parallelism.tp > layout.node.gpus)
    r.notes.push_back(
        "tensor parallelism spans nodes: its collectives are simulated once in isolation and reused, "
        "so their contention with data-parallel traffic is not modelled");
  if (!options.trace_path.empty())
    report::write_trace(options.trace_path, iteration, timings, topo, tp_s);
  return r;
}

} // namespace dpusim::run
