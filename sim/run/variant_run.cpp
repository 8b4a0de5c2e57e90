#include "sim/run/variant_run.hpp"

#include "models/calibration/profile.hpp"
#include "models/core/atomic_file.hpp"
#include "sim/model/checkpoint/checkpoint.hpp"
#include "sim/model/congestion/congestion.hpp"
#include "sim/model/faults/faults.hpp"
#include "sim/model/noise/noise.hpp"
#include "sim/model/plan_size.hpp"
#include "sim/model/registry.hpp"
#include "sim/model/tenants/tenants.hpp"
#include "sim/plan/ecmp_balance.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/plan/replica_subset.hpp"
#include "sim/platform/route_registry.hpp"
#include "sim/report/link_usage.hpp"
#include "sim/report/trace_writer.hpp"
#include "sim/run/variant_parts.hpp"
#include "sim/scenario/cluster_layout.hpp"
#include "sim/simgrid/simulator.hpp"
#include "sim/topology/router.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <map>
#include <optional>
#include <vector>

namespace dpusim::run {
namespace {

/// Runs a graph alone and returns when its last task ended (0 for an empty graph). A probe's duration
/// stands for many collectives, so no flapping link goes down under it (the iteration's own flows see
/// the flaps).
double run_probe(simgrid::Simulator& simulator, const engine::TaskGraph& probe) {
  double end = 0;
  if (probe.size() > 0)
    for (const auto& t : simulator.execute(probe, {}, simgrid::Simulator::Flaps::none))
      end = std::max(end, t.end);
  return end;
}

} // namespace

report::VariantResult run_variant(const scenario::Scenario& s, const catalog::Catalog& cat,
                                  const offload::Variant& variant, const RunOptions& options) {
  std::optional<calibration::Profile> profile;
  const std::string profile_path = options.calibration.empty() ? s.calibration : options.calibration;
  if (!profile_path.empty())
    profile = calibration::load_profile(profile_path);
  const auto hw = model::hardware_for(s, cat, variant, profile ? &*profile : nullptr, profile_path,
                                      options.calibration_shape);

  auto layout = scenario::cluster_layout(s.cluster, hw.node, hw.gpu, hw.nic, hw.fabric_switch);
  layout.tenants.uplink_share = model::isolated(s, variant) ? 1.0 - s.cluster.tenants.guarantee : 1.0;
  const auto topo = topology::Topology::build(layout);
  const topology::Router router(topo, s.seed, model::failures_of(s, topo), s.cluster.fabric.routing);
  const datapath::DataPath path(variant, s.cluster.services, hw);
  const platform::HostMap hosts(topo, hw, path_options(hw, path));
  platform::RouteRegistry routes(hosts, router);

  const auto costs = stage_costs(s.workload, gpu_compute(hw));
  plan::CollectiveLowering lowering(routes, hw, path);
  const bool representative = model::representative_replica(s);
  const auto host = host_side(s, hw, variant, path);
  const auto extensions = model::registry().extensions();
  auto iteration =
      plan::build_iteration(s.workload, costs, routes, lowering, representative, host, extensions);
  // An iteration that also writes a checkpoint, simulated after the plain one on the same platform. A
  // synchronous checkpoint that nothing overlaps (no input pipeline, agents, tenants, noise or
  // congestion) starts when the plain iteration ends: its writes alone are simulated, and their time
  // added to the plain step (tested equal to the whole iteration's).
  std::optional<plan::IterationPlan> with_checkpoint;
  const bool writes_alone = s.workload.checkpoint && !s.workload.checkpoint->async && !s.workload.data &&
                            s.cluster.services.agent_cores == 0 && s.cluster.tenants.flows == 0 &&
                            model::noise_of(s) == nullptr && model::congestion_of(s) == nullptr &&
                            options.checkpoint_writes_alone;
  if (writes_alone)
    with_checkpoint = plan::build_host_tasks(routes, model::writing_checkpoint(s, host), extensions);
  else if (s.workload.checkpoint)
    with_checkpoint = plan::build_iteration(s.workload, costs, routes, lowering, representative,
                                            model::writing_checkpoint(s, host), extensions);

  // Noise on a few replicas: every replica's tasks are built (their routes declared before the platform
  // is), the noise drawn into all of them, and the slowest simulated (noisy_of below).
  const bool slowest_only = model::slowest_replicas_only(s);
  const int dp = s.workload.parallelism.dp;
  std::optional<plan::IterationPlan> whole_iteration;
  std::optional<plan::IterationPlan> whole_checkpoint;
  if (slowest_only && iteration.simulated_replicas != dp)
    whole_iteration = plan::build_iteration(s.workload, costs, routes, lowering, false, host, extensions);
  if (slowest_only && with_checkpoint && with_checkpoint->simulated_replicas != dp)
    whole_checkpoint = plan::build_iteration(s.workload, costs, routes, lowering, false,
                                             model::writing_checkpoint(s, host), extensions);

  // Slow nodes change the tasks, not the platform: the same iteration without them tells what they cost
  // (simulated below). Every plan is built before the platform is, which holds the limiter hosts and
  // routes they ask for.
  std::optional<plan::IterationPlan> fault_free;
  std::optional<plan::IterationPlan> whole_healthy;
  if (model::has_slow_nodes(s)) {
    std::vector<const plan::IterationExtension*> healthy;
    for (const auto& m : model::registry().models())
      if (m->name() != "faults")
        healthy.push_back(m.get());
    fault_free = plan::build_iteration(s.workload, costs, routes, lowering, representative, host, healthy);
    if (slowest_only && fault_free->simulated_replicas != dp)
      whole_healthy = plan::build_iteration(s.workload, costs, routes, lowering, false, host, healthy);
  }

  auto platform = routes.build();
  for (const auto& m : model::registry().models())
    m->shape_platform(s, topo, platform);
  // RoCE congestion stretches each RDMA transfer by what DCQCN and PFC leave of its links, among the
  // transfers the uncongested run had running with it (docs/models/congestion.md).
  const auto* congestion = model::congestion_of(s);
  std::map<std::string, double> rate_by_name; // the links as simulated (a degraded link below its rate)
  for (const auto& l : platform.links)
    rate_by_name.emplace(l.name, l.bandwidth);
  const auto capacity = [&topo, &rate_by_name](std::int32_t e) {
    const auto& g = topo.graph();
    const auto it =
        rate_by_name.find(fmt::format("{}->{}", g[topo.edge_source(e)].name, g[topo.edge_target(e)].name));
    return it != rate_by_name.end() ? it->second : topo.edge(e).bandwidth.si();
  };
  std::optional<plan::CongestionAnalysis> congestion_analysis;
  if (congestion != nullptr && path.transport() == offload::Transport::rdma)
    congestion_analysis.emplace(*cat.congestion(congestion->control), routes, capacity);
  simgrid::Simulator simulator(platform);
  auto in = metrics_inputs(s, hw, hosts);
  in.tp_collective_s = run_probe(simulator, iteration.probe);
  in.ep_collective_s = run_probe(simulator, iteration.ep_probe);
  in.cp_collective_s = run_probe(simulator, iteration.cp_probe);
  iteration.apply_probe(in.tp_collective_s, in.ep_collective_s, in.cp_collective_s);
  auto timings = simulator.execute(iteration.graph, options.progress);
  // The plan again with its transfers stretched by congestion (probes first: they are reused in it).
  bool probes_stretched = false;
  const auto congest = [&](plan::IterationPlan& p, const std::vector<engine::TaskTiming>& clean,
                           plan::CongestionAnalysis& analysis) {
    const auto label = [&p](engine::TaskId id) {
      return static_cast<std::size_t>(id) < p.info.size() ? p.info[static_cast<std::size_t>(id)].label
                                                          : std::string();
    };
    const bool stretched =
        analysis.apply(p.graph, clean, label, [&p, &variant, congestion](engine::TaskId id) {
          const auto i = static_cast<std::size_t>(id);
          return model::traffic_class(*congestion, variant, p.graph.task(id),
                                      i < p.info.size() ? p.info[i].category : plan::TaskCategory::join);
        });
    p.apply_probe(in.tp_collective_s, in.ep_collective_s, in.cp_collective_s);
    return stretched || probes_stretched ? simulator.execute(p.graph, options.progress) : clean;
  };
  double uncongested_step = 0;
  // Congestion stretches transfers by scaling their bytes: the links' usage books the plan's payload.
  // With congestion the result names the hottest links, so their usage is computed then too.
  const bool link_outputs =
      !options.links_path.empty() || !options.trace_path.empty() || congestion_analysis.has_value();
  std::optional<plan::IterationPlan> payload;
  if (congestion_analysis && link_outputs)
    payload = iteration;
  if (congestion_analysis) {
    uncongested_step = metrics::compute_metrics(iteration, timings, in).step_time_s;
    for (auto* probe : {&iteration.probe, &iteration.ep_probe, &iteration.cp_probe})
      if (probe->size() > 0)
        probes_stretched |= congestion_analysis->apply(
            *probe, simulator.execute(*probe, {}, simgrid::Simulator::Flaps::none),
            [probe, &iteration](engine::TaskId) {
              return std::string(probe == &iteration.ep_probe   ? "an expert-parallel all-to-all"
                                 : probe == &iteration.cp_probe ? "a context-parallel all-gather"
                                                                : "a tensor-parallel all-reduce");
            });
    in.tp_collective_s = run_probe(simulator, iteration.probe);
    in.ep_collective_s = run_probe(simulator, iteration.ep_probe);
    in.cp_collective_s = run_probe(simulator, iteration.cp_probe);
    timings = congest(iteration, timings, *congestion_analysis);
  }

  auto r = result_of(s, variant, hw, in, iteration);
  r.metrics = metrics::compute_metrics(iteration, timings, in);
  if (congestion != nullptr)
    model::add_congestion_report(
        *congestion, congestion_analysis ? congestion_analysis->summary() : plan::CongestionSummary{}, topo,
        r.metrics.step_time_s, congestion_analysis ? uncongested_step : r.metrics.step_time_s, r);
  // The iteration without the slow nodes (built above), simulated on the same platform (with the same
  // noise draws where there is noise), tells what they cost per step.
  if (fault_free) {
    fault_free->apply_probe(in.tp_collective_s, in.ep_collective_s, in.cp_collective_s);
    auto healthy_timings = simulator.execute(fault_free->graph);
    if (congestion_analysis) {
      auto again = *congestion_analysis;
      healthy_timings = congest(*fault_free, healthy_timings, again);
    }
    const double healthy_step = metrics::compute_metrics(*fault_free, healthy_timings, in).step_time_s;
    model::add_fault_cost(r.metrics.step_time_s, healthy_step, false, r);
  }
  // With noise: the same iteration with its draws, on the same platform; it is the prediction, and the
  // noise-free one above is what its straggler wait is measured against. OS noise grows with the kernel
  // work the noise-free iteration put on the host's and Arm's cores.
  const auto* noise = model::noise_of(s);
  const auto os = model::os_noise_for(s, hw, path, r.metrics, in, host.launch_s_per_kernel);
  if (os) {
    r.set_value("os_noise_host_fraction", os->host.fraction());
    r.set_value("os_noise_arm_fraction", os->arm.fraction());
  }
  // The noise drawn into `clean`, or into `whole` (every replica's tasks) where it is given; with
  // slowest_only, only the replicas that reach the synchronous points last are kept.
  int replicas_simulated = 0;
  const auto noisy_of =
      [&](const model::NoiseConfig& n, const plan::IterationPlan& clean,
          const std::optional<plan::IterationPlan>& whole) -> std::optional<plan::IterationPlan> {
    const double sigma = model::storage_latency_sigma(hw);
    auto drawn = model::noisy_iteration(n, s, whole ? *whole : clean, path, os ? &*os : nullptr, sigma);
    if (!drawn || !slowest_only)
      return drawn;
    drawn->apply_probe(in.tp_collective_s, in.ep_collective_s, in.cp_collective_s);
    const auto chosen = model::slowest_replicas(*drawn, dp);
    replicas_simulated = static_cast<int>(chosen.size());
    return plan::keep_replicas(std::move(*drawn), chosen, dp);
  };
  std::optional<plan::IterationPlan> noisy;
  if (noise != nullptr) {
    noisy = noisy_of(*noise, iteration, whole_iteration);
    if (slowest_only)
      r.set_value("noise_replicas_simulated", replicas_simulated);
  }
  std::vector<engine::TaskTiming> noisy_timings;
  if (noisy) {
    noisy->apply_probe(in.tp_collective_s, in.ep_collective_s, in.cp_collective_s);
    noisy_timings = simulator.execute(noisy->graph, options.progress);
    const double clean_step = r.metrics.step_time_s;
    r.metrics = metrics::compute_metrics(*noisy, noisy_timings, in);
    model::add_straggler_wait(r.metrics.step_time_s, clean_step, r);
    // Where several sources are on, each is simulated alone (with the same draws) to share the wait.
    const auto sources = model::sources_of(*noise);
    std::vector<std::pair<model::NoiseSource, double>> alone;
    for (auto src : sources) {
      double step = r.metrics.step_time_s;
      if (sources.size() > 1) {
        auto one = noisy_of(model::only(*noise, src), iteration, whole_iteration);
        one->apply_probe(in.tp_collective_s, in.ep_collective_s, in.cp_collective_s);
        step = metrics::compute_metrics(*one, simulator.execute(one->graph), in).step_time_s;
      }
      alone.emplace_back(src, step);
    }
    model::add_straggler_sources(alone, clean_step, r);
    if (fault_free)
      if (auto noisy_healthy = noisy_of(*noise, *fault_free, whole_healthy)) {
        noisy_healthy->apply_probe(in.tp_collective_s, in.ep_collective_s, in.cp_collective_s);
        const double healthy_step =
            metrics::compute_metrics(*noisy_healthy, simulator.execute(noisy_healthy->graph), in).step_time_s;
        model::add_fault_cost(r.metrics.step_time_s, healthy_step, true, r);
      }
  }
  if (with_checkpoint) {
    if (noise != nullptr)
      if (auto noisy_checkpoint = noisy_of(*noise, *with_checkpoint, whole_checkpoint))
        with_checkpoint = std::move(noisy_checkpoint);
    with_checkpoint->apply_probe(in.tp_collective_s, in.ep_collective_s, in.cp_collective_s);
    auto ck = simulator.execute(with_checkpoint->graph, options.progress);
    if (congestion_analysis) {
      // The checkpoint's writes meet the iteration's traffic (and each other) at the storage servers'
      // ports: analysed on their own, and said apart.
      const double clean_ck = metrics::compute_metrics(*with_checkpoint, ck, in).step_time_s;
      auto writes = *congestion_analysis;
      writes.reset();
      ck = congest(*with_checkpoint, ck, writes);
      model::add_checkpoint_congestion(*congestion, writes.summary(), topo,
                                       metrics::compute_metrics(*with_checkpoint, ck, in).step_time_s,
                                       clean_ck, r);
    }
    const double ck_step = metrics::compute_metrics(*with_checkpoint, ck, in).step_time_s;
    model::add_checkpoint_step(s, writes_alone ? r.metrics.step_time_s + ck_step : ck_step, r.metrics);
  }
  r.activities = simulator.stats().activities;
  r.routes = routes.route_count();
  r.simulation_wall_s = simulator.stats().wall_seconds;
  if (const auto ecmp = plan::ecmp_imbalance(iteration, routes); ecmp.ratio > 1.05) {
    const int paths = hosts.options().connections;
    r.notes.push_back(fmt::format(
        "ECMP: in {} the busiest switch-to-switch link carries {:.2f}x the bytes it would if its switch "
        "spread "
        "them evenly over its equal links (hash collisions at seed {}, {} hashed path{} per GPU pair), so "
        "it runs up to {:.2f}x slower than the fabric allows; `--samples N` shows the spread over "
        "seeds{}",
        ecmp.label.empty() ? "a transfer" : ecmp.label, ecmp.ratio, s.seed, paths, paths == 1 ? "" : "s",
        ecmp.ratio,
        hw.fabric_switch.hashes_each_connection.value
            ? ", and more queue pairs per connection (workload.communication.qps_per_connection) spread it"
            : " (this switch forwards by destination: every connection between two NICs takes one path)"));
  }
  const model::RunView view{s, variant, hw, topo, path, iteration, host, representative};
  for (const auto& m : model::registry().models())
    m->report(view, r);
  if (link_outputs) {
    const auto& traced = noisy ? *noisy : iteration;
    const auto& traced_timings = noisy ? noisy_timings : timings;
    const auto& clean = payload ? *payload : iteration;
    report::LinkInputs li{.plan = &traced,
                          .timings = &traced_timings,
                          .payload = &clean.graph,
                          .step_s = r.metrics.step_time_s,
                          .parallelism = s.workload.parallelism,
                          .probes = {&clean.probe, &clean.ep_probe, &clean.cp_probe, {}},
                          .capacity = capacity,
                          .congestion = congestion_analysis ? &congestion_analysis->summary() : nullptr};
    const std::array<const engine::TaskGraph*, 3> probes{&iteration.probe, &iteration.ep_probe,
                                                         &iteration.cp_probe}; // as timed (stretched)
    for (std::size_t k = 0; k < probes.size(); ++k)
      if (probes[k]->size() > 0)
        li.probes.timings[k] = simulator.execute(*probes[k]);
    const auto links = report::link_usage(li, routes);
    if (congestion_analysis)
      r.hot_links = report::hot_links(links);
    if (!options.links_path.empty()) // before the trace: a bad path fails before either is written
      write_file_atomically(options.links_path, report::render_links_csv(links, congestion != nullptr));
    if (!options.trace_path.empty())
      report::write_trace(options.trace_path, traced, traced_timings, topo, in.tp_collective_s,
                          report::fabric_loads(links, li, routes));
  }
  return r;
}

} // namespace dpusim::run
