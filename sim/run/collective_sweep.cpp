#include "sim/run/collective_sweep.hpp"

#include "models/calibration/profile.hpp"
#include "sim/datapath/data_path.hpp"
#include "sim/model/registry.hpp"
#include "sim/platform/route_registry.hpp"
#include "sim/run/variant_parts.hpp"
#include "sim/scenario/cluster_layout.hpp"
#include "sim/simgrid/simulator.hpp"
#include "sim/topology/router.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace dpusim::run {

std::string_view sweep_op_name(SweepOp op) {
  return kSweepOps[static_cast<std::size_t>(op)];
}

std::optional<SweepOp> parse_sweep_op(std::string_view name) {
  for (std::size_t i = 0; i < std::size(kSweepOps); ++i)
    if (kSweepOps[i] == name)
      return static_cast<SweepOp>(i);
  return std::nullopt;
}

double bus_bandwidth_factor(SweepOp op, int ranks) {
  const double n = std::max(1, ranks);
  switch (op) {
  case SweepOp::all_reduce:
    return 2 * (n - 1) / n;
  case SweepOp::all_gather:
  case SweepOp::reduce_scatter:
  case SweepOp::alltoall:
    return (n - 1) / n;
  case SweepOp::sendrecv:
    return 1;
  }
  return 1;
}

namespace {

plan::Lowered lower(plan::CollectiveLowering& lowering, SweepOp op, plan::CollectiveAlgorithm algorithm,
                    const std::vector<int>& gpus, double bytes) {
  switch (op) {
  case SweepOp::all_reduce:
    return lowering.collective(collectives::CollectiveKind::all_reduce, algorithm, gpus, bytes);
  case SweepOp::all_gather:
    return lowering.collective(collectives::CollectiveKind::all_gather, algorithm, gpus, bytes);
  case SweepOp::reduce_scatter:
    return lowering.collective(collectives::CollectiveKind::reduce_scatter, algorithm, gpus, bytes);
  case SweepOp::alltoall:
    return lowering.all_to_all(gpus, bytes);
  case SweepOp::sendrecv: {
    // nccl-tests' sendrecv: each rank sends to the next and receives from the previous.
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t r = 0; r < gpus.size(); ++r)
      pairs.emplace_back(gpus[r], gpus[(r + 1) % gpus.size()]);
    return lowering.send_recv(pairs, bytes);
  }
  }
  throw std::logic_error("unknown sweep operation");
}

} // namespace

SweepResult run_collective_sweep(const scenario::Scenario& s, const catalog::Catalog& cat,
                                 const offload::Variant& variant, const SweepOptions& options,
                                 const std::function<void(std::size_t, std::size_t)>& progress) {
  std::optional<calibration::Profile> profile;
  const std::string profile_path = options.calibration.empty() ? s.calibration : options.calibration;
  if (!profile_path.empty())
    profile = calibration::load_profile(profile_path);
  const auto hw = model::hardware_for(s, cat, variant, profile ? &*profile : nullptr, profile_path, false);

  // The cluster as a run of the scenario builds it: the models shape its layout, fail its links and
  // flap them (other tenants' flows, faults), so the collective meets what the training job would.
  const auto& models = model::registry();
  auto layout = scenario::cluster_layout(s.cluster, hw.node, hw.gpu, hw.nic, hw.fabric_switch,
                                         hw.storage_nic ? &*hw.storage_nic : nullptr);
  for (const auto& m : models.models())
    m->shape_layout(s, variant, layout);
  const auto topo = topology::Topology::build(layout);
  topology::Failures failures;
  for (const auto& m : models.models())
    m->add_failures(s, topo, failures);
  const topology::Router router(topo, s.seed, std::move(failures), s.cluster.fabric.routing);
  const datapath::DataPath path(variant, s.cluster.services, hw);
  const platform::HostMap hosts(topo, hw, path_options(hw, path));
  platform::RouteRegistry routes(hosts, router);
  plan::CollectiveLowering lowering(routes, hw, path);

  const int per_node = topo.layout().node.gpus;
  if (options.nodes < 1 || options.nodes > s.cluster.nodes || options.gpus_per_node < 1 ||
      options.gpus_per_node > per_node)
    throw std::invalid_argument("the sweep's ranks do not fit the cluster");
  std::vector<int> gpus;
  for (int node = 0; node < options.nodes; ++node)
    for (int g = 0; g < options.gpus_per_node; ++g)
      gpus.push_back(node * per_node + g);

  SweepResult result;
  result.ranks = static_cast<int>(gpus.size());
  result.device = hw.nic.name;
  const auto algorithm = options.algorithm.value_or(
      plan::parse_algorithm(s.workload.collective_algorithm).value_or(plan::CollectiveAlgorithm::ring));
  result.algorithm = std::string(plan::algorithm_name(algorithm));
  // The platform holds the routes the lowering asks for: those of the first and the last size (every size
  // asks the same ones: which ranks talk over which paths does not depend on the bytes). Each size's
  // graph is then lowered and simulated in turn, so a long sweep holds one graph at a time.
  if (options.sizes.empty())
    return result;
  (void)lower(lowering, options.op, algorithm, gpus, options.sizes.front());
  (void)lower(lowering, options.op, algorithm, gpus, options.sizes.back());
  const std::size_t routes_built = routes.route_count();
  auto platform = routes.build();
  for (const auto& m : models.models())
    m->shape_platform(s, topo, platform);
  simgrid::Simulator simulator(platform);
  // The protocols each size runs in: the one asked for, or NCCL's three where the algorithm has them.
  std::vector<catalog::NcclProtocol> protocols;
  const bool ring_or_tree =
      options.op != SweepOp::alltoall && options.op != SweepOp::sendrecv &&
      (algorithm == plan::CollectiveAlgorithm::ring || algorithm == plan::CollectiveAlgorithm::tree);
  if (options.protocol)
    protocols.push_back(*options.protocol);
  else
    for (const auto p : catalog::kNcclProtocols)
      if (p == catalog::NcclProtocol::simple || (ring_or_tree && hw.collective.protocol(p)))
        protocols.push_back(p);
  for (std::size_t i = 0; i < options.sizes.size(); ++i) {
    SweepRow row{options.sizes[i], 0, protocols.front()};
    for (const auto protocol : protocols) {
      lowering.set_protocol(protocol);
      engine::TaskGraph graph;
      (void)plan::append_to_graph(graph, lower(lowering, options.op, algorithm, gpus, options.sizes[i]), {});
      if (routes.route_count() != routes_built)
        throw std::logic_error("a collective's size changed the routes it takes");
      double end = 0;
      for (const auto& t : simulator.execute(graph, {}, simgrid::Simulator::Flaps::none))
        end = std::max(end, t.end);
      if (protocol == protocols.front() || end < row.time_s) {
        row.time_s = end;
        row.protocol = protocol;
      }
    }
    result.rows.push_back(row);
    if (progress)
      progress(i + 1, options.sizes.size());
  }
  return result;
}

} // namespace dpusim::run
