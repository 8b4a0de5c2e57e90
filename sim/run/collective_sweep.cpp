#include "sim/run/collective_sweep.hpp"

#include "models/collectives/nccl_tuner.hpp"
#include "sim/plan/nccl_choice.hpp"
#include "sim/run/standalone_cluster.hpp"
#include "sim/simgrid/simulator.hpp"

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
  case SweepOp::gather:
  case SweepOp::scatter:
    return (n - 1) / n;
  case SweepOp::sendrecv:
  case SweepOp::broadcast:
  case SweepOp::reduce:
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
  case SweepOp::broadcast:
    return lowering.collective(collectives::CollectiveKind::broadcast, algorithm, gpus, bytes);
  case SweepOp::reduce:
    return lowering.collective(collectives::CollectiveKind::reduce, algorithm, gpus, bytes);
  case SweepOp::alltoall:
    return lowering.all_to_all(gpus, bytes);
  case SweepOp::sendrecv: {
    // nccl-tests' sendrecv: each rank sends to the next and receives from the previous.
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t r = 0; r < gpus.size(); ++r)
      pairs.emplace_back(gpus[r], gpus[(r + 1) % gpus.size()]);
    return lowering.send_recv(pairs, bytes);
  }
  case SweepOp::gather:
  case SweepOp::scatter: {
    // nccl-tests' gather (scatter): every other rank sends S/n to the root (the root to every other
    // rank), posted together; the root's own part is a copy in its memory.
    std::vector<std::pair<int, int>> pairs;
    for (std::size_t r = 1; r < gpus.size(); ++r)
      pairs.push_back(op == SweepOp::gather ? std::pair{gpus[r], gpus.front()}
                                            : std::pair{gpus.front(), gpus[r]});
    return lowering.send_recv(pairs, bytes / static_cast<double>(gpus.size()));
  }
  }
  throw std::logic_error("unknown sweep operation");
}

/// What one size runs.
struct Choice {
  plan::CollectiveAlgorithm algorithm = plan::CollectiveAlgorithm::ring;
  std::string name; // as NCCL's tuner names it, or as asked for
  catalog::NcclProtocol protocol = catalog::NcclProtocol::simple;
};

collectives::CollectiveKind kind_of(SweepOp op) {
  switch (op) {
  case SweepOp::all_gather:
    return collectives::CollectiveKind::all_gather;
  case SweepOp::reduce_scatter:
    return collectives::CollectiveKind::reduce_scatter;
  case SweepOp::alltoall:
  case SweepOp::sendrecv:
  case SweepOp::gather:
  case SweepOp::scatter:
    return collectives::CollectiveKind::all_to_all;
  case SweepOp::broadcast:
    return collectives::CollectiveKind::broadcast;
  case SweepOp::reduce:
    return collectives::CollectiveKind::reduce;
  case SweepOp::all_reduce:
    break;
  }
  return collectives::CollectiveKind::all_reduce;
}

Choice choose(const SweepOptions& o, collectives::TunerInput in, double bytes) {
  using collectives::TunerAlgorithm;
  using plan::CollectiveAlgorithm;
  const auto simple = o.protocol.value_or(catalog::NcclProtocol::simple);
  // What the tuner does not weigh runs as asked, in Simple unless a protocol is pinned.
  if (o.op == SweepOp::alltoall || o.op == SweepOp::sendrecv || root_sends(o.op))
    return {CollectiveAlgorithm::ring, o.op == SweepOp::alltoall ? "direct" : "p2p", simple};
  if (o.algorithm == CollectiveAlgorithm::hierarchical)
    return {CollectiveAlgorithm::hierarchical, "hierarchical", simple};
  in.protocol = plan::tuner_protocol(o.protocol);
  if (o.algorithm && *o.algorithm != CollectiveAlgorithm::tuned) {
    switch (*o.algorithm) {
    case CollectiveAlgorithm::tree:
      in.algorithm = TunerAlgorithm::tree;
      break;
    case CollectiveAlgorithm::nvls:
      in.algorithm = o.nodes > 1 ? TunerAlgorithm::nvls_tree : TunerAlgorithm::nvls;
      break;
    default:
      in.algorithm = TunerAlgorithm::ring;
    }
  }
  const auto picked = plan::nccl_choice(in, bytes);
  if (!picked) // a pinned protocol the ring cannot run here (LL128 over sockets): as pinned
    return {CollectiveAlgorithm::ring, "ring", simple};
  return {picked->algorithm, std::string(collectives::tuner_algorithm_name(picked->tuned)), picked->protocol};
}

} // namespace

SweepResult run_collective_sweep(const scenario::Scenario& scenario, const catalog::Catalog& cat,
                                 const offload::Variant& variant, const SweepOptions& options,
                                 const std::function<void(std::size_t, std::size_t)>& progress) {
  auto s = scenario; // with the sweep's NCCL settings where they override the scenario's
  if (options.qps_per_connection)
    s.workload.qps_per_connection = options.qps_per_connection;
  // The cluster as a run of the scenario builds it: the models shape its layout, fail its links and
  // flap them (other tenants' flows, faults), so the collective meets what the training job would.
  StandaloneCluster cluster(s, cat, variant, options.calibration);
  const auto& hw = cluster.hw;
  const auto& topo = cluster.topo;
  auto& routes = cluster.routes;
  auto& lowering = cluster.lowering;

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
  result.algorithm = options.algorithm ? std::string(plan::algorithm_name(*options.algorithm)) : "nccl";
  result.profile = hw.profile_path;
  result.calibrated = hw.calibrated;
  if (options.sizes.empty())
    return result;
  // What each size runs: asked for, or what NCCL's tuner picks (its model decides, the simulation times).
  const auto tuner = plan::tuner_input(hw, topo.layout().node, variant.transport(), kind_of(options.op),
                                       options.nodes, options.gpus_per_node, options.nvls_enable);
  std::vector<Choice> choices;
  for (const double bytes : options.sizes)
    choices.push_back(choose(options, tuner, bytes));
  // The platform holds the routes the lowering asks for: each algorithm's at a size it runs (which ranks
  // talk over which paths does not depend on the bytes). Each size's graph is then lowered and simulated
  // in turn, so a long sweep holds one graph at a time.
  std::vector<plan::CollectiveAlgorithm> lowered;
  // Each at the largest size it runs: a size that rounds to no element for a rank's part (an all-to-all's,
  // a gather's) sends nothing and would ask for no route.
  for (std::size_t i = choices.size(); i-- > 0;)
    if (std::find(lowered.begin(), lowered.end(), choices[i].algorithm) == lowered.end()) {
      lowered.push_back(choices[i].algorithm);
      (void)lower(lowering, options.op, choices[i].algorithm, gpus, options.sizes[i]);
    }
  const std::size_t routes_built = routes.route_count();
  simgrid::Simulator simulator(cluster.platform());
  for (std::size_t i = 0; i < options.sizes.size(); ++i) {
    const auto& choice = choices[i];
    lowering.set_protocol(choice.protocol);
    engine::TaskGraph graph;
    (void)plan::append_to_graph(graph, lower(lowering, options.op, choice.algorithm, gpus, options.sizes[i]),
                                {});
    if (routes.route_count() != routes_built)
      throw std::logic_error("a collective's size changed the routes it takes");
    double end = 0;
    for (const auto& t : simulator.execute(graph, {}, simgrid::Simulator::Flaps::none))
      end = std::max(end, t.end);
    result.rows.push_back({options.sizes[i], end, choice.protocol, choice.name});
    if (progress)
      progress(i + 1, options.sizes.size());
  }
  return result;
}

} // namespace dpusim::run
