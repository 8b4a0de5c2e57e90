#include "sim/plan/collective_lowering.hpp"

#include "models/collectives/all_to_all.hpp"
#include "models/collectives/expert_dispatch.hpp"
#include "models/collectives/hierarchical.hpp"
#include "models/collectives/nvls.hpp"
#include "models/collectives/point_to_point.hpp"
#include "models/collectives/ring.hpp"
#include "models/collectives/tree.hpp"
#include "sim/plan/nccl_choice.hpp"
#include "sim/topology/topology.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <stdexcept>
#include <utility>

namespace dpusim::plan {

namespace {

constexpr std::pair<CollectiveAlgorithm, std::string_view> kAlgorithmNames[] = {
    {CollectiveAlgorithm::ring, "ring"},
    {CollectiveAlgorithm::tree, "tree"},
    {CollectiveAlgorithm::hierarchical, "hierarchical"},
    {CollectiveAlgorithm::nvls, "nvls"},
    {CollectiveAlgorithm::tuned, "auto"},
};

/// Fills the summary fields of an operation made of phases.
void summarise(Lowered& seq) {
  seq.parts.clear();
  seq.latency_s = 0;
  seq.host_core_s = {};
  seq.arm_core_s = {};
  seq.nics.clear();
  seq.rings = 0;
  seq.steps = 0;
  seq.intra_node_hops = true;
  seq.tail_steps = 0;
  seq.tail_hops = 1;
  for (const auto& p : seq.phases) {
    seq.tail_steps += p.tail_steps;
    seq.tail_hops = std::max(seq.tail_hops, p.tail_hops);
    seq.latency_s += p.latency_s;
    for (std::size_t f = 0; f < seq.host_core_s.size(); ++f) {
      seq.host_core_s[f] += p.host_core_s[f];
      seq.arm_core_s[f] += p.arm_core_s[f];
    }
    seq.nics.insert(seq.nics.end(), p.nics.begin(), p.nics.end());
    seq.rings = std::max(seq.rings, p.rings);
    seq.steps += p.steps;
    seq.intra_node_hops = seq.intra_node_hops && p.intra_node_hops;
  }
  std::sort(seq.nics.begin(), seq.nics.end());
  seq.nics.erase(std::unique(seq.nics.begin(), seq.nics.end()), seq.nics.end());
}

} // namespace

std::string_view algorithm_name(CollectiveAlgorithm a) {
  for (const auto& [algo, name] : kAlgorithmNames)
    if (algo == a)
      return name;
  return "?";
}

std::optional<CollectiveAlgorithm> parse_algorithm(std::string_view name) {
  for (const auto& [algo, n] : kAlgorithmNames)
    if (n == name)
      return algo;
  return std::nullopt;
}

double Lowered::host_cpu_core_s() const {
  double s = 0;
  for (double x : host_core_s)
    s += x;
  return s;
}

CollectiveLowering::CollectiveLowering(platform::RouteRegistry& routes, const scenario::Hardware& hw,
                                       const datapath::DataPath& path)
    : routes_(routes), hosts_(routes.hosts()), hw_(hw), path_(path), transport_(path.transport()),
      costs_(*hw.collective.protocol(catalog::NcclProtocol::simple)) {}

void CollectiveLowering::set_protocol(catalog::NcclProtocol protocol) {
  const auto costs = hw_.collective.protocol(protocol);
  if (!costs)
    throw std::invalid_argument(fmt::format("the collective library's catalog entry {} has no {} protocol",
                                            hw_.collective.name, catalog::protocol_name(protocol)));
  costs_ = *costs;
}

void Lowered::merge(const Lowered& other, bool zip) {
  if (!phases.empty() || !other.phases.empty()) {
    // Phase by phase; a single-phase operation is a sequence of one.
    if (phases.empty()) {
      Lowered self = *this;
      phases.push_back(std::move(self));
    }
    const std::vector<Lowered> single{other};
    const auto& theirs = other.phases.empty() ? single : other.phases;
    for (std::size_t i = 0; i < theirs.size(); ++i) {
      if (i < phases.size())
        phases[i].merge(theirs[i], zip);
      else
        phases.push_back(theirs[i]);
    }
    summarise(*this);
    return;
  }
  if (zip && !parts.empty()) {
    for (std::size_t i = 0; i < other.parts.size(); ++i) {
      // A part is one SimGrid parallel task, whose cost grows with the square of its members: beyond
      // kMaxZippedEntries flows and loads, a further part runs beside it instead of inside it.
      const std::size_t entries = i < parts.size()
                                      ? parts[i].flows.size() + parts[i].loads.size() +
                                            other.parts[i].flows.size() + other.parts[i].loads.size()
                                      : 0;
      if (i >= parts.size() || entries > kMaxZippedEntries) {
        parts.push_back(other.parts[i]);
        continue;
      }
      parts[i].flows.insert(parts[i].flows.end(), other.parts[i].flows.begin(), other.parts[i].flows.end());
      parts[i].loads.insert(parts[i].loads.end(), other.parts[i].loads.begin(), other.parts[i].loads.end());
    }
  } else {
    parts.insert(parts.end(), other.parts.begin(), other.parts.end());
  }
  latency_s = std::max(latency_s, other.latency_s);
  tail_steps = std::max(tail_steps, other.tail_steps);
  tail_hops = std::max(tail_hops, other.tail_hops);
  for (std::size_t f = 0; f < host_core_s.size(); ++f) {
    host_core_s[f] += other.host_core_s[f];
    arm_core_s[f] += other.arm_core_s[f];
  }
  nics.insert(nics.end(), other.nics.begin(), other.nics.end());
  rings += other.rings;
  steps = std::max(steps, other.steps);
  intra_node_hops = intra_node_hops && other.intra_node_hops;
}

GraphFragment append_to_graph(engine::TaskGraph& graph, const Lowered& low,
                              const std::vector<engine::TaskId>& after, const AddLoweredTask& add) {
  GraphFragment frag;
  auto put = [&](engine::Task t, LoweredTaskRole role, std::size_t phase) {
    const auto id = add ? add(std::move(t), role, phase) : graph.add(std::move(t));
    frag.tasks.push_back(id);
    return id;
  };
  engine::TaskId previous_end = -1;
  for (std::size_t p = 0; p < low.phase_count(); ++p) {
    const auto& phase = low.phase(p);
    engine::Task delay;
    delay.kind = engine::TaskKind::delay;
    delay.delay_s = phase.latency_s;
    const auto latency = put(std::move(delay), LoweredTaskRole::latency, p);
    if (p == 0) {
      frag.first = latency;
      for (auto a : after)
        graph.depend(a, latency);
    } else {
      graph.depend(previous_end, latency);
    }
    std::vector<engine::TaskId> parts;
    for (const auto& part : phase.parts) {
      engine::Task t;
      t.kind = engine::TaskKind::transfer;
      t.flows = part.flows;
      t.loads = part.loads;
      const auto id = put(std::move(t), LoweredTaskRole::part, p);
      graph.depend(latency, id);
      parts.push_back(id);
    }
    if (parts.empty()) {
      previous_end = latency;
    } else if (parts.size() == 1) {
      previous_end = parts.front();
    } else {
      engine::Task join;
      join.kind = engine::TaskKind::join;
      previous_end = put(std::move(join), LoweredTaskRole::join, p);
      for (auto id : parts)
        graph.depend(id, previous_end);
    }
  }
  frag.last = previous_end;
  return frag;
}

bool CollectiveLowering::nvls_available() const {
  return hw_.gpu.nvls_efficiency.value > 0;
}

void CollectiveLowering::add_hop(Lowered& out, Transfer& part, int src, int dst, double payload,
                                 Protocol protocol) {
  const auto& r = routes_.route(src, dst);
  // Protocol efficiency measured for NCCL rings (or, for point-to-point sends, RDMA writes) is charged
  // as extra bytes on the hop.
  double eff = hw_.gpu.nvlink_collective_efficiency.value;
  if (r.kind == platform::HopKind::network)
    eff = protocol == Protocol::collective ? hw_.nic.collective_efficiency.value
                                           : hw_.nic.rdma_efficiency.value;
  // A low-latency protocol carries its flags in every line: its payload gets a share of the link.
  if (protocol == Protocol::collective)
    eff *= costs_.bandwidth_share.value;
  part.flows.push_back({hosts_.gpu(src), hosts_.gpu(dst), payload / eff});
  out.nics.insert(out.nics.end(), r.nics.begin(), r.nics.end());
  if (r.kind != platform::HopKind::network)
    return;
  // What the hop's bytes cost the processors on each end (kernel TCP, software encryption and
  // switching). A connection's functions on one processor run in the same threads (the kernel encrypts
  // and switches a packet on the core that sends or receives it); each thread's share is one load, i.e.
  // one core of its host, coupled to the bytes.
  const int per_node = hosts_.topology().layout().node.gpus;
  std::map<std::pair<engine::HostIndex, int>, double> per_host; // (host, threads) -> core-seconds
  for (const auto& work : path_.network_transfer(payload)) {
    const int gpu = work.end == datapath::End::sender ? src : dst;
    const int node = hosts_.node_of(hosts_.gpu(gpu));
    const bool arm = work.processor == datapath::Processor::dpu_arm;
    const auto host =
        arm ? hosts_.arm(node, hosts_.topology().nic_of_gpu(gpu % per_node)) : hosts_.cpu_of_gpu(gpu);
    per_host[{host, work.threads}] += work.core_s;
    (arm ? out.arm_core_s : out.host_core_s)[static_cast<std::size_t>(work.function)] += work.core_s;
  }
  for (const auto& [key, core_s] : per_host)
    for (int t = 0; t < key.second; ++t)
      part.loads.push_back({key.first, core_s / key.second});
}

void CollectiveLowering::add_flow(Lowered& out, Transfer& part, int src, int dst, double bytes) {
  const auto& r = routes_.route(src, dst);
  part.flows.push_back({hosts_.gpu(src), hosts_.gpu(dst), bytes});
  out.nics.insert(out.nics.end(), r.nics.begin(), r.nics.end());
}

void CollectiveLowering::note_tail(Lowered& out, int steps, int concurrent) const {
  if ((path_.software_latency_s() <= 0 && path_.rdma_latency_sigma() <= 0) || steps <= 0)
    return;
  out.tail_steps += steps;
  out.tail_hops = std::max(out.tail_hops, std::max(1, concurrent));
}

double CollectiveLowering::step_latency(platform::HopKind kind, int concurrent, bool tree) const {
  if (kind == platform::HopKind::nvlink)
    return costs_.step_latency_nvlink.value.si();
  double step = (tree ? costs_.tree_step_latency_network : costs_.step_latency_network).value.si();
  step += path_.step_latency_s(concurrent);
  return step;
}

void CollectiveLowering::compact_loads(Transfer& part) const {
  // A load entry occupies one core: more equal entries on a host than it has cores share those cores,
  // exactly as the same work in one entry per core would. Fewer entries keep the activity small.
  const auto cores = static_cast<std::size_t>(hw_.host_cores());
  std::map<engine::HostIndex, std::vector<double>> by_host;
  for (const auto& l : part.loads)
    by_host[l.host].push_back(l.amount);
  std::vector<engine::Load> loads;
  for (const auto& [host, amounts] : by_host) {
    const bool equal = std::all_of(amounts.begin(), amounts.end(),
                                   [first = amounts.front()](double a) { return a == first; });
    if (amounts.size() <= cores || !equal) {
      for (double a : amounts)
        loads.push_back({host, a});
      continue;
    }
    const double each = amounts.front() * static_cast<double>(amounts.size()) / static_cast<double>(cores);
    for (std::size_t c = 0; c < cores; ++c)
      loads.push_back({host, each});
  }
  part.loads = std::move(loads);
}

std::pair<double, double> CollectiveLowering::route_latencies(const Lowered& out) {
  std::pair<double, double> worst{0, 0};
  for (const auto& part : out.parts)
    for (const auto& f : part.flows) {
      const auto& r = routes_.route(f.src, f.dst);
      auto& w = r.kind == platform::HopKind::nvlink ? worst.first : worst.second;
      w = std::max(w, r.latency_s);
    }
  return worst;
}

void CollectiveLowering::drop_idle_nvlink_flows(Lowered& out) {
  // Busiest link of each kind over the whole operation, in seconds of its bandwidth; a host-TCP
  // connection's CPU work counts towards the network. Parts are symmetric, so this is the time each
  // kind of link needs; NVLink well below the network never sets the pace.
  const auto& topo = hosts_.topology();
  std::map<std::int32_t, double> bytes_on;
  bool network = false;
  double network_s = 0;
  for (const auto& part : out.parts) {
    for (const auto& f : part.flows) {
      const auto& r = routes_.route(f.src, f.dst);
      network = network || r.kind == platform::HopKind::network;
      // A route of several equal paths lists each path's links: the flow's bytes are shared among them.
      for (auto e : r.links)
        bytes_on[e] += f.bytes / r.spread;
    }
    for (const auto& l : part.loads)
      network_s = std::max(network_s, l.amount);
  }
  if (!network)
    return;
  double nvlink_s = 0;
  for (const auto& [e, bytes] : bytes_on) {
    if (e >= topo.num_edges())
      continue; // a NIC's encryption engine (RouteRegistry's links beyond the topology's edges)
    const auto& edge = topo.edge(e);
    auto& worst = edge.kind == topology::LinkKind::nvlink ? nvlink_s : network_s;
    worst = std::max(worst, bytes / edge.bandwidth.si());
  }
  if (nvlink_s >= 0.9 * network_s)
    return;
  for (auto& part : out.parts)
    std::erase_if(part.flows, [&](const engine::Flow& f) {
      return routes_.route(f.src, f.dst).kind == platform::HopKind::nvlink;
    });
  std::erase_if(out.parts, [](const Transfer& t) { return t.flows.empty() && t.loads.empty(); });
  out.intra_node_hops = false;
}

void CollectiveLowering::finish(Lowered& out, double step_latencies) {
  // The transfer itself waits for the longest route among its flows once: charge the rest before it.
  const auto [nvlink, network] = route_latencies(out);
  out.latency_s = costs_.base_latency.value.si() + step_latencies - std::max(nvlink, network);
  std::sort(out.nics.begin(), out.nics.end());
  out.nics.erase(std::unique(out.nics.begin(), out.nics.end()), out.nics.end());
}

void CollectiveLowering::add_channels(Lowered& out, const std::vector<collectives::Channel>& channels) {
  for (const auto& channel : channels) {
    Transfer part;
    for (const auto& hop : channel)
      add_hop(out, part, hop.src, hop.dst, hop.bytes);
    out.parts.push_back(std::move(part));
    ++out.rings;
  }
}

Lowered CollectiveLowering::ring(CollectiveKind kind, std::vector<int> gpus, double bytes) {
  if (kind == CollectiveKind::all_to_all)
    return all_to_all(std::move(gpus), bytes);
  Lowered out;
  const auto& node = hosts_.topology().layout().node;
  const collectives::NodeShape shape{node.gpus, node.nics};
  const auto ranks = static_cast<int>(gpus.size());
  const auto plan = collectives::ring(kind, std::move(gpus), bytes, shape);
  if (plan.channels.empty())
    return out;
  out.rings = plan.rings;
  out.steps = plan.steps;
  // NVLink hops that never set the ring's pace are left out of the simulated flows (they would only
  // slow the simulation down).
  out.intra_node_hops = collectives::ring_nvlink_hops_matter(
      plan, shape, node.nvlink_per_gpu.si() * hw_.gpu.nvlink_collective_efficiency.value,
      node.nic_line_rate.si() * hw_.nic.collective_efficiency.value);
  double nvlink_route = 0; // the longest route of each kind
  double network_route = 0;
  bool network = false;
  for (const auto& channel : plan.channels) {
    std::vector<const collectives::Hop*> simulated;
    for (const auto& hop : channel) {
      const auto& r = routes_.route(hop.src, hop.dst);
      auto& longest = r.kind == platform::HopKind::network ? network_route : nvlink_route;
      longest = std::max(longest, r.latency_s);
      network = network || r.kind == platform::HopKind::network;
      if (r.kind != platform::HopKind::nvlink || out.intra_node_hops)
        simulated.push_back(&hop);
    }
    // A long ring runs as consecutive segments of at most ring_segment_hops_ hops, as even as they come.
    const std::size_t segments =
        std::max<std::size_t>(1, (simulated.size() + ring_segment_hops_ - 1) / ring_segment_hops_);
    const std::size_t quota = (simulated.size() + segments - 1) / segments;
    Transfer part;
    for (std::size_t i = 0; i < simulated.size(); ++i) {
      if (i > 0 && i % quota == 0)
        out.parts.push_back(std::exchange(part, {}));
      add_hop(out, part, simulated[i]->src, simulated[i]->dst, simulated[i]->bytes);
    }
    out.parts.push_back(std::move(part));
  }
  // Each step waits for the library's per-step latency and the wire; host TCP adds its stack latency. A
  // chunk goes round the ring pipelined, so (as NCCL's own latency model counts it, NCCL-TUNE-230) only
  // the steps that cross from node to node pay the network's latency: 2 (nodes - 1) of an all-reduce's,
  // nodes - 1 of a reduce-scatter's or all-gather's; the others are NVLink steps. With one rank a node
  // nothing hides a step's latency: NCCL's model charges the tree's network step there.
  const int inter_steps = network ? plan.inter_node_steps : 0;
  const double network_step =
      network_route + step_latency(platform::HopKind::network, plan.nodes, ranks == plan.nodes);
  const double nvlink_step = nvlink_route + step_latency(platform::HopKind::nvlink);
  out.latency_s = costs_.base_latency.value.si() + inter_steps * network_step +
                  (out.steps - inter_steps) * nvlink_step - std::max(nvlink_route, network_route);
  if (network)
    note_tail(out, inter_steps, plan.nodes);
  std::sort(out.nics.begin(), out.nics.end());
  out.nics.erase(std::unique(out.nics.begin(), out.nics.end()), out.nics.end());
  return out;
}

Lowered CollectiveLowering::p2p(int src_gpu, int dst_gpu, double bytes) {
  Lowered out;
  const auto send = collectives::send(src_gpu, dst_gpu, bytes);
  if (!send)
    return out;
  Transfer part;
  // A send/recv is one step; protocol efficiency is the NIC's RDMA efficiency rather than a ring's.
  add_hop(out, part, send->src, send->dst, send->bytes, Protocol::p2p);
  out.parts.push_back(std::move(part));
  out.latency_s = step_latency(routes_.route(send->src, send->dst).kind);
  if (routes_.route(send->src, send->dst).kind == platform::HopKind::network)
    note_tail(out, 1, 1);
  out.steps = 1;
  out.rings = 1;
  return out;
}

Lowered CollectiveLowering::collective(CollectiveKind kind, CollectiveAlgorithm algo, std::vector<int> gpus,
                                       double bytes) {
  switch (algo) {
  case CollectiveAlgorithm::ring:
    return ring(kind, std::move(gpus), bytes);
  case CollectiveAlgorithm::tree:
    return tree(kind, std::move(gpus), bytes);
  case CollectiveAlgorithm::hierarchical:
    return hierarchical(kind, std::move(gpus), bytes);
  case CollectiveAlgorithm::nvls:
    return nvls(kind, std::move(gpus), bytes);
  case CollectiveAlgorithm::tuned: {
    if (kind == CollectiveKind::all_to_all)
      return all_to_all(std::move(gpus), bytes);
    const auto in = tuner_input(hw_, hosts_.topology().layout().node, transport_, kind, gpus);
    const auto choice = nccl_choice(in, bytes).value_or(NcclChoice{});
    record_pick(picks_, in, choice, bytes);
    const auto restore = costs_;
    set_protocol(choice.protocol);
    auto out = collective(kind, choice.algorithm, std::move(gpus), bytes);
    costs_ = restore;
    return out;
  }
  }
  return ring(kind, std::move(gpus), bytes);
}

Lowered CollectiveLowering::tree(CollectiveKind kind, std::vector<int> gpus, double bytes) {
  const auto& node = hosts_.topology().layout().node;
  const auto plan = collectives::tree(kind, gpus, bytes, {node.gpus, node.nics});
  if (!plan)
    return ring(kind, std::move(gpus), bytes);
  Lowered out;
  add_channels(out, plan->trees);
  // The pipeline fills through the chain and the tree's depth on the way up, and again down.
  const auto [nvlink_route, network_route] = route_latencies(out);
  out.steps = plan->steps;
  const double steps_s =
      2 * (plan->depth * (step_latency(platform::HopKind::network, plan->nodes, true) + network_route) +
           plan->chain_hops * (step_latency(platform::HopKind::nvlink) + nvlink_route));
  note_tail(out, 2 * plan->depth, plan->nodes);
  drop_idle_nvlink_flows(out);
  finish(out, steps_s);
  return out;
}

Lowered CollectiveLowering::hierarchical(CollectiveKind kind, std::vector<int> gpus, double bytes) {
  if (kind == CollectiveKind::all_to_all)
    return all_to_all(std::move(gpus), bytes);
  const auto plan = collectives::hierarchical(kind, gpus, bytes, hosts_.topology().layout().node.gpus);
  if (!plan)
    return ring(kind, std::move(gpus), bytes);
  // Each phase's rings run at the same time, independently; the phases one after another.
  Lowered out;
  for (const auto& phase : plan->phases) {
    Lowered l;
    for (const auto& call : phase)
      l.merge(ring(call.kind, call.gpus, call.bytes), false);
    out.phases.push_back(std::move(l));
  }
  summarise(out);
  return out;
}

Lowered CollectiveLowering::nvls(CollectiveKind kind, std::vector<int> gpus, double bytes) {
  if (kind == CollectiveKind::all_to_all)
    return all_to_all(std::move(gpus), bytes);
  const auto plan =
      collectives::nvls(kind, gpus, bytes, hosts_.topology().layout().node.gpus, nvls_available());
  if (!plan)
    return ring(kind, std::move(gpus), bytes);
  Lowered out;
  // Each GPU's NVLink carries S up and S down, at the efficiency measured for NVLS.
  for (const auto& channel : plan->switch_parts) {
    Transfer part;
    for (const auto& hop : channel)
      add_flow(out, part, hop.src, hop.dst, hop.bytes / hw_.gpu.nvls_efficiency.value);
    out.parts.push_back(std::move(part));
    ++out.rings;
  }
  add_channels(out, plan->tree_parts);
  const auto [nvlink_route, network_route] = route_latencies(out);
  out.steps = plan->steps;
  const double steps_s =
      plan->switch_steps * (step_latency(platform::HopKind::nvlink) + nvlink_route) +
      2 * plan->depth * (step_latency(platform::HopKind::network, plan->nodes) + network_route);
  note_tail(out, 2 * plan->depth, plan->nodes);
  drop_idle_nvlink_flows(out);
  finish(out, steps_s);
  return out;
}

Lowered CollectiveLowering::all_to_all(std::vector<int> gpus, double bytes) {
  return all_to_all(std::move(gpus), bytes, {});
}

Lowered CollectiveLowering::all_to_all(std::vector<int> gpus, double bytes,
                                       const std::vector<double>& shares) {
  const auto& topo = hosts_.topology();
  const int per_node = topo.layout().node.gpus;
  std::vector<int> rail_of_local;
  for (int i = 0; i < per_node; ++i)
    rail_of_local.push_back(topo.nic_of_gpu(i));
  // GPUDirect RDMA lets a GPU hand data to the local GPU on the destination's rail, which sends it
  // through its own NIC (NCCL's PXN); staged host TCP sends from the source's NIC.
  return direct_sends(collectives::all_to_all(std::move(gpus), bytes, per_node, rail_of_local,
                                              transport_ == offload::Transport::rdma, shares,
                                              alltoall_parts_));
}

Lowered CollectiveLowering::expert_dispatch(std::vector<int> gpus, const collectives::ExpertDispatch& d) {
  return direct_sends(collectives::expert_dispatch(std::move(gpus), d, hosts_.topology().layout().node.gpus,
                                                   alltoall_parts_));
}

Lowered CollectiveLowering::direct_sends(const collectives::AllToAllPlan& plan) {
  Lowered out;
  if (plan.parts.empty())
    return out;
  for (const auto& channel : plan.parts) {
    Transfer part;
    for (const auto& hop : channel)
      add_hop(out, part, hop.src, hop.dst, hop.bytes, Protocol::p2p);
    compact_loads(part);
    out.parts.push_back(std::move(part));
  }
  // All sends are posted at once: one step of the slowest hop kind, as for a single send.
  out.latency_s =
      step_latency(plan.nodes > 1 ? platform::HopKind::network : platform::HopKind::nvlink, plan.nodes);
  if (plan.nodes > 1)
    note_tail(out, 1, plan.nodes);
  out.steps = 1;
  out.rings = static_cast<int>(out.parts.size());
  drop_idle_nvlink_flows(out);
  std::sort(out.nics.begin(), out.nics.end());
  out.nics.erase(std::unique(out.nics.begin(), out.nics.end()), out.nics.end());
  return out;
}

Lowered CollectiveLowering::send_recv(const std::vector<std::pair<int, int>>& pairs, double bytes) {
  Lowered out;
  for (const auto& send : collectives::send_recv(pairs, bytes))
    out.merge(p2p(send.src, send.dst, send.bytes), false);
  std::sort(out.nics.begin(), out.nics.end());
  out.nics.erase(std::unique(out.nics.begin(), out.nics.end()), out.nics.end());
  return out;
}

} // namespace dpusim::plan
