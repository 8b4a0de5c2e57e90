#include "sim/run/traffic_run.hpp"

#include "sim/model/congestion/congestion.hpp"
#include "sim/model/pass.hpp"
#include "sim/run/standalone_cluster.hpp"
#include "sim/simgrid/simulator.hpp"

#include <algorithm>
#include <cctype>
#include <fmt/format.h>
#include <stdexcept>

namespace dpusim::run {

namespace {

/// Bytes a background flow is given: more than any run moves, stopped when the timed flows end.
constexpr double kForever = 1e18;
/// The size at which a background flow is lowered before its bytes (and CPU work) are scaled to kForever.
constexpr double kLoweredBackground = 1 << 30;

struct FlowTasks {
  engine::TaskId delay = -1; // its start and the route's latency
  engine::TaskId last = -1;  // its transfer (or the join of its parts)
};

collectives::CollectiveKind kind_of(input::TrafficPattern p) {
  switch (p) {
  case input::TrafficPattern::all_gather:
    return collectives::CollectiveKind::all_gather;
  case input::TrafficPattern::reduce_scatter:
    return collectives::CollectiveKind::reduce_scatter;
  case input::TrafficPattern::all_reduce:
    return collectives::CollectiveKind::all_reduce;
  case input::TrafficPattern::alltoall:
    return collectives::CollectiveKind::all_to_all;
  default:
    throw std::logic_error("not a collective pattern");
  }
}

catalog::NcclProtocol protocol_of(const std::string& name) {
  // The file names them in lower case (simple, ll, ll128), the catalog as NCCL does (Simple, LL, LL128).
  for (const auto p : catalog::kNcclProtocols) {
    std::string lower(catalog::protocol_name(p));
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    if (lower == name)
      return p;
  }
  throw std::logic_error("unknown protocol " + name);
}

} // namespace

int traffic_hosts(const scenario::Scenario& s, const catalog::Catalog& cat) {
  const auto* node = cat.node(s.cluster.node);
  const int per_node = s.cluster.gpus_per_node > 0 ? s.cluster.gpus_per_node : node->gpus.value;
  return s.cluster.nodes * per_node;
}

TrafficResult run_traffic(const scenario::Scenario& s, const catalog::Catalog& cat,
                          const offload::Variant& variant, const input::Traffic& traffic,
                          const std::string& calibration,
                          const std::function<void(std::size_t, std::size_t)>& progress) {
  StandaloneCluster cluster(s, cat, variant, calibration, traffic.pxn);
  TrafficResult result;
  result.device = cluster.hw.nic.name;
  result.gpus_per_node = cluster.topo.layout().node.gpus;
  result.hosts = s.cluster.nodes * result.gpus_per_node;

  // Each flow: a delay (its start, then the latency NCCL's point-to-point send adds) and its transfer, the
  // bytes over the route its queue pairs hash to; background flows a transfer from the start that the
  // simulator stops when every timed flow has ended.
  engine::TaskGraph graph;
  std::vector<FlowTasks> tasks;
  tasks.reserve(traffic.flows.size());
  for (const auto& f : traffic.flows) {
    if (f.src < 0 || f.dst < 0 || f.src >= result.hosts || f.dst >= result.hosts)
      throw std::invalid_argument(
          fmt::format("host {} or {} is not one of the cluster's {}", f.src, f.dst, result.hosts));
    const bool background = traffic.groups.at(static_cast<std::size_t>(f.group)).background;
    const auto low = cluster.lowering.send_recv({{f.src, f.dst}}, background ? kLoweredBackground : f.bytes);
    FlowTasks ft;
    if (background) {
      engine::Task t;
      t.kind = engine::TaskKind::background;
      for (const auto& part : low.parts) {
        for (auto flow : part.flows) {
          flow.bytes *= kForever / kLoweredBackground;
          t.flows.push_back(flow);
        }
        for (auto load : part.loads) {
          load.amount *= kForever / kLoweredBackground;
          t.loads.push_back(load);
        }
      }
      ft.last = graph.add(std::move(t));
    } else {
      const auto frag = plan::append_to_graph(graph, low, {});
      ft.delay = frag.first; // the send's latency, after which the flow's start
      graph.mutable_task(ft.delay).delay_s += f.start_s;
      ft.last = frag.last;
    }
    tasks.push_back(ft);
  }
  // Each collective group: the operation as a training run lowers it (its rings or trees, their latency
  // tail; an all-to-all's direct sends), in the protocol asked for, from its start.
  for (const auto& c : traffic.collectives) {
    for (const int h : c.hosts)
      if (h < 0 || h >= result.hosts)
        throw std::invalid_argument(fmt::format("host {} is not one of the cluster's {}", h, result.hosts));
    const auto algorithm =
        c.algorithm == "direct" ? plan::CollectiveAlgorithm::ring : plan::parse_algorithm(c.algorithm);
    if (!algorithm)
      throw std::logic_error("unknown algorithm " + c.algorithm);
    cluster.lowering.set_protocol(protocol_of(c.protocol));
    cluster.lowering.set_alltoall_parts(c.parts.value_or(cluster.scenario.workload.alltoall_parts));
    const auto& group = traffic.groups.at(static_cast<std::size_t>(c.group));
    const auto low = cluster.lowering.collective(kind_of(group.pattern), *algorithm, c.hosts, c.bytes);
    cluster.lowering.set_protocol(catalog::NcclProtocol::simple);
    cluster.lowering.set_alltoall_parts(cluster.scenario.workload.alltoall_parts);
    const auto frag = plan::append_to_graph(graph, low, {});
    graph.mutable_task(frag.first).delay_s += c.start_s;
    tasks.push_back({frag.first, frag.last});
  }

  auto platform = cluster.platform();
  simgrid::Simulator simulator(platform);
  auto timings = simulator.execute(graph, progress);
  const auto clean = timings;
  const engine::TaskGraph payload = graph; // the bytes before congestion stretches them

  const auto* config = model::congestion_of(s);
  std::optional<plan::CongestionAnalysis> analysis;
  if (config != nullptr)
    result.control = config->control;
  if (config != nullptr && cluster.path.transport() == offload::Transport::rdma) {
    result.congestion = true;
    analysis.emplace(*cat.congestion(config->control), cluster.routes,
                     model::link_capacity(cluster.topo, platform));
    // Which flow a task belongs to, for the summary's worst transfer.
    std::vector<int> flow_of(graph.size(), -1);
    for (std::size_t i = 0; i < tasks.size(); ++i)
      for (engine::TaskId id = tasks[i].delay; tasks[i].delay >= 0 && id <= tasks[i].last; ++id)
        flow_of[static_cast<std::size_t>(id)] = static_cast<int>(i);
    const auto label = [&](engine::TaskId id) {
      const int i = flow_of[static_cast<std::size_t>(id)];
      if (i < 0)
        return std::string();
      if (static_cast<std::size_t>(i) >= traffic.flows.size()) {
        const auto& c = traffic.collectives[static_cast<std::size_t>(i) - traffic.flows.size()];
        return traffic.groups[static_cast<std::size_t>(c.group)].name;
      }
      const auto& f = traffic.flows[static_cast<std::size_t>(i)];
      return fmt::format("{} flow {}->{}", traffic.groups[static_cast<std::size_t>(f.group)].name, f.src,
                         f.dst);
    };
    if (analysis->apply(graph, clean, label))
      timings = simulator.execute(graph, progress);
    result.summary = analysis->summary();
  }

  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const bool collective = i >= traffic.flows.size();
    const double start =
        collective ? traffic.collectives[i - traffic.flows.size()].start_s : traffic.flows[i].start_s;
    const auto last = static_cast<std::size_t>(tasks[i].last);
    FlowTiming ft;
    ft.start_s = start;
    ft.end_s = timings[last].end;
    ft.uncongested_s = clean[last].end - start;
    (collective ? result.collectives : result.flows).push_back(ft);
    if (tasks[i].delay >= 0)
      result.makespan_s = std::max(result.makespan_s, ft.end_s);
  }

  // The links' bytes: the timed flows' before congestion stretched them, the background flows' as far as
  // they got.
  plan::IterationPlan booked;
  booked.graph = payload;
  for (std::size_t i = 0; i < booked.graph.size(); ++i) {
    auto& t = booked.graph.mutable_task(static_cast<engine::TaskId>(i));
    if (t.kind != engine::TaskKind::background)
      continue;
    t.kind = engine::TaskKind::transfer;
    for (auto& flow : t.flows)
      flow.bytes *= timings[i].done;
  }
  report::LinkInputs in;
  in.plan = &booked;
  in.timings = &timings;
  in.step_s = result.makespan_s;
  in.capacity = model::link_capacity(cluster.topo, platform);
  in.congestion = analysis ? &result.summary : nullptr;
  result.links = report::link_usage(in, cluster.routes);
  return result;
}

} // namespace dpusim::run
