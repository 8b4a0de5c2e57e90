#include "sim/run/variant_run.hpp"

#include "models/base/atomic_file.hpp"
#include "models/calibration/profile.hpp"
#include "sim/estimate/measured_latency.hpp"
#include "sim/model/plan_size.hpp"
#include "sim/model/registry.hpp"
#include "sim/plan/ecmp_balance.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/platform/route_registry.hpp"
#include "sim/report/link_usage.hpp"
#include "sim/report/trace_writer.hpp"
#include "sim/run/passes.hpp"
#include "sim/run/variant_parts.hpp"
#include "sim/scenario/cluster_layout.hpp"
#include "sim/simgrid/simulator.hpp"
#include "sim/topology/router.hpp"

#include <array>
#include <fmt/format.h>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace dpusim::run {

report::VariantResult run_variant(const scenario::Scenario& s, const catalog::Catalog& cat,
                                  const offload::Variant& variant, const RunOptions& options) {
  std::optional<calibration::Profile> profile;
  const std::string profile_path = options.calibration.empty() ? s.calibration : options.calibration;
  if (!profile_path.empty())
    profile = calibration::load_profile(profile_path);
  const auto hw = estimate::calibrated_hardware(s, cat, variant, profile ? &*profile : nullptr, profile_path,
                                                options.calibration_shape);

  const auto& models = options.registry != nullptr ? *options.registry : model::registry();
  std::vector<const model::Model*> in_order;
  for (const auto& m : models.models())
    in_order.push_back(m.get());
  auto layout = scenario::cluster_layout(s.cluster, hw.node, hw.gpu, hw.nic, hw.fabric_switch,
                                         hw.storage_nic ? &*hw.storage_nic : nullptr);
  for (const auto* m : in_order)
    m->shape_layout(s, variant, layout);
  const auto topo = topology::Topology::build(layout);
  topology::Failures failures;
  for (const auto* m : in_order)
    m->add_failures(s, topo, failures);
  const topology::Router router(topo, s.seed, std::move(failures), s.cluster.fabric.routing);
  const datapath::DataPath path(variant, s.cluster.services, hw);
  const platform::HostMap hosts(topo, hw, path_options(hw, path));
  platform::RouteRegistry routes(hosts, router);

  const auto costs = stage_costs(s.workload, scenario::gpu_compute(hw));
  plan::CollectiveLowering lowering(routes, hw, path);
  lowering.set_alltoall_parts(s.workload.alltoall_parts);
  const bool representative = model::representative_replica(s);
  const auto host = host_side(s, hw, variant, path);
  // Every pass is built before the platform is: it holds the routes and limiter hosts they ask for.
  const PassInputs pass_inputs{s,
                               variant,
                               hw,
                               path,
                               costs,
                               routes,
                               lowering,
                               representative,
                               host,
                               options.checkpoint_writes_alone,
                               options.explain};
  PassExecutor passes(pass_inputs, in_order);

  auto platform = routes.build();
  for (const auto* m : in_order)
    m->shape_platform(s, topo, platform);
  simgrid::Simulator simulator(platform);
  auto in = metrics_inputs(s, variant, hw, hosts);
  const model::RunContext run{s, cat, variant, hw, topo, path, routes, platform, host};
  passes.run(simulator, run, in, options.progress);

  const auto& iteration = passes.base();
  auto r = result_of(s, variant, hw, in, iteration);
  passes.report(r);
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
  for (const auto* m : in_order)
    m->report(view, r);
  for (const auto& [name, value] : r.values)
    if (models.output(name) == nullptr)
      throw std::logic_error("a model wrote the output " + name +
                             ", which no model declares (Model::outputs)");
  // Stretched transfers scale their bytes: the links' usage books the plan's payload. Where a stretch
  // found congestion, the result names the hottest links, so their usage is computed then too.
  const auto* congestion = passes.congestion();
  if (!options.links_path.empty() || !options.trace_path.empty() || congestion != nullptr) {
    const auto& traced = passes.prediction();
    const auto& traced_timings = passes.prediction_timings();
    const auto& clean = passes.unstretched() != nullptr ? *passes.unstretched() : iteration;
    report::LinkInputs li{.plan = &traced,
                          .timings = &traced_timings,
                          .payload = &clean.graph,
                          .step_s = r.metrics.step_time_s,
                          .parallelism = s.workload.parallelism,
                          .probes = {&clean.probe, &clean.ep_probe, &clean.cp_probe, {}},
                          .capacity = model::link_capacity(topo, platform),
                          .congestion = congestion};
    const std::array<const engine::TaskGraph*, 3> probes{&iteration.probe, &iteration.ep_probe,
                                                         &iteration.cp_probe}; // as timed (stretched)
    for (std::size_t k = 0; k < probes.size(); ++k)
      if (probes[k]->size() > 0)
        li.probes.timings[k] = simulator.execute(*probes[k]);
    const auto links = report::link_usage(li, routes);
    if (congestion != nullptr)
      r.hot_links = report::hot_links(links);
    if (!options.links_path.empty()) // before the trace: a bad path fails before either is written
      write_file_atomically(options.links_path, report::render_links_csv(links, passes.stretches()));
    if (!options.trace_path.empty())
      report::write_trace(options.trace_path, traced, traced_timings, topo, in.tp_collective_s,
                          report::fabric_loads(links, li, routes));
  }
  return r;
}

} // namespace dpusim::run
