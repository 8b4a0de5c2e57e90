#include "sim/plan/collective_lowering.hpp"

#include <algorithm>
#include <map>

namespace dpusim::plan {

namespace {

constexpr std::pair<CollectiveAlgorithm, std::string_view> kAlgorithmNames[] = {
    {CollectiveAlgorithm::ring, "ring"},
    {CollectiveAlgorithm::tree, "tree"},
    {CollectiveAlgorithm::hierarchical, "hierarchical"},
    {CollectiveAlgorithm::nvls, "nvls"},
};

using NodeMembers = std::map<int, std::vector<int>>; // node -> its GPUs of the group, ascending

NodeMembers group_by_node(std::vector<int>& gpus, int per_node) {
  std::sort(gpus.begin(), gpus.end());
  NodeMembers by_node;
  for (int g : gpus)
    by_node[g / per_node].push_back(g);
  return by_node;
}

std::size_t fewest_members(const NodeMembers& by_node) {
  std::size_t fewest = by_node.empty() ? 0 : by_node.begin()->second.size();
  for (const auto& [node, members] : by_node)
    fewest = std::min(fewest, members.size());
  return fewest;
}

/// The same number of members in every node: that number, else 0.
std::size_t uniform_members(const NodeMembers& by_node) {
  const std::size_t k = fewest_members(by_node);
  for (const auto& [node, members] : by_node)
    if (members.size() != k)
      return 0;
  return k;
}

/// Member at which channel c enters a node of k members. With fewer NICs than GPUs, channels are
/// spread over the members so that they leave and enter through different NICs (GPU i uses NIC
/// i * nics / gpus).
std::size_t channel_offset(int c, std::size_t k, int channels, bool spread) {
  const std::size_t stride = spread ? std::max<std::size_t>(1, k / static_cast<std::size_t>(channels)) : 1;
  return (static_cast<std::size_t>(c) * stride) % k;
}

/// Parents in NCCL's binary tree over n ranks (ncclGetBtree): rank r's parent flips its lowest set bit
/// and sets the next one (or only clears it past the end); rank 0 is the root, with one child.
std::vector<int> btree_parents(int n) {
  std::vector<int> parent(static_cast<std::size_t>(n), -1);
  for (int r = 1; r < n; ++r) {
    int bit = 1;
    while ((r & bit) == 0)
      bit <<= 1;
    int up = (r ^ bit) | (bit << 1);
    if (up >= n)
      up = r ^ bit;
    parent[static_cast<std::size_t>(r)] = up;
  }
  return parent;
}

/// The complementary tree of NCCL's double binary tree (ncclGetDtree): the first one mirrored when n is
/// even, shifted by one rank when it is odd, so that no rank is an inner node of both.
std::vector<int> second_tree_parents(int n) {
  const auto first = btree_parents(n);
  std::vector<int> parent(static_cast<std::size_t>(n), -1);
  for (int r = 0; r < n; ++r) {
    if (n % 2 == 0) {
      const int p = first[static_cast<std::size_t>(n - 1 - r)];
      parent[static_cast<std::size_t>(r)] = p < 0 ? -1 : n - 1 - p;
    } else {
      const int p = first[static_cast<std::size_t>((r - 1 + n) % n)];
      parent[static_cast<std::size_t>(r)] = p < 0 ? -1 : (p + 1) % n;
    }
  }
  return parent;
}

int tree_depth(const std::vector<int>& parent) {
  int depth = 0;
  for (std::size_t r = 0; r < parent.size(); ++r) {
    int d = 0;
    for (int p = parent[r]; p >= 0; p = parent[static_cast<std::size_t>(p)])
      ++d;
    depth = std::max(depth, d);
  }
  return depth;
}

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
  for (const auto& p : seq.phases) {
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

CollectiveLowering::CollectiveLowering(platform::PlatformBuilder& platform, const scenario::Hardware& hw,
                                       const offload::DataPath& path)
    : platform_(platform), hw_(hw), path_(path), transport_(path.transport()) {}

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
  const auto& r = platform_.route(src, dst);
  // Protocol efficiency measured for NCCL rings (or, for point-to-point sends, RDMA writes) is charged
  // as extra bytes on the hop.
  double eff = hw_.gpu.nvlink_collective_efficiency.value;
  if (r.kind == platform::HopKind::network)
    eff = protocol == Protocol::collective ? hw_.nic.collective_efficiency.value
                                           : hw_.nic.rdma_efficiency.value;
  part.flows.push_back({platform_.gpu(src), platform_.gpu(dst), payload / eff});
  out.nics.insert(out.nics.end(), r.nics.begin(), r.nics.end());
  if (r.kind != platform::HopKind::network)
    return;
  // What the hop's bytes cost the processors on each end (kernel TCP, software encryption and
  // switching). A connection's functions on one processor run in the same threads (the kernel encrypts
  // and switches a packet on the core that sends or receives it); each thread's share is one load, i.e.
  // one core of its host, coupled to the bytes.
  const int per_node = platform_.topology().layout().node.gpus;
  std::map<std::pair<engine::HostIndex, int>, double> per_host; // (host, threads) -> core-seconds
  for (const auto& work : path_.network_transfer(payload)) {
    const int gpu = work.end == offload::End::sender ? src : dst;
    const int node = platform_.node_of(platform_.gpu(gpu));
    const bool arm = work.processor == offload::Processor::dpu_arm;
    const auto host =
        arm ? platform_.arm(node, platform_.topology().nic_of_gpu(gpu % per_node)) : platform_.cpu(node);
    per_host[{host, work.threads}] += work.core_s;
    (arm ? out.arm_core_s : out.host_core_s)[static_cast<std::size_t>(work.function)] += work.core_s;
  }
  for (const auto& [key, core_s] : per_host)
    for (int t = 0; t < key.second; ++t)
      part.loads.push_back({key.first, core_s / key.second});
}

void CollectiveLowering::add_flow(Lowered& out, Transfer& part, int src, int dst, double bytes) {
  const auto& r = platform_.route(src, dst); // registers the route with the platform
  part.flows.push_back({platform_.gpu(src), platform_.gpu(dst), bytes});
  out.nics.insert(out.nics.end(), r.nics.begin(), r.nics.end());
}

double CollectiveLowering::step_latency(platform::HopKind kind, int concurrent) const {
  if (kind == platform::HopKind::nvlink)
    return hw_.collective.step_latency_nvlink.value.si();
  double step = hw_.collective.step_latency_network.value.si();
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
    const bool equal =
        std::all_of(amounts.begin(), amounts.end(), [&](double a) { return a == amounts.front(); });
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
      const auto& r = platform_.route(f.src, f.dst);
      auto& w = r.kind == platform::HopKind::nvlink ? worst.first : worst.second;
      w = std::max(w, r.latency_s);
    }
  return worst;
}

void CollectiveLowering::drop_idle_nvlink_flows(Lowered& out) {
  // Busiest link of each kind over the whole operation, in seconds of its bandwidth; a host-TCP
  // connection's CPU work counts towards the network. Parts are symmetric, so this is the time each
  // kind of link needs; NVLink well below the network never sets the pace.
  const auto& topo = platform_.topology();
  std::map<std::int32_t, double> bytes_on;
  bool network = false;
  double network_s = 0;
  for (const auto& part : out.parts) {
    for (const auto& f : part.flows) {
      const auto& r = platform_.route(f.src, f.dst);
      network = network || r.kind == platform::HopKind::network;
      for (auto e : r.links)
        bytes_on[e] += f.bytes;
    }
    for (const auto& l : part.loads)
      network_s = std::max(network_s, l.amount);
  }
  if (!network)
    return;
  double nvlink_s = 0;
  for (const auto& [e, bytes] : bytes_on) {
    const auto& edge = topo.edge(e);
    auto& worst = edge.kind == topology::LinkKind::nvlink ? nvlink_s : network_s;
    worst = std::max(worst, bytes / edge.bandwidth.si());
  }
  if (nvlink_s >= 0.9 * network_s)
    return;
  for (auto& part : out.parts)
    std::erase_if(part.flows, [&](const engine::Flow& f) {
      return platform_.route(f.src, f.dst).kind == platform::HopKind::nvlink;
    });
  std::erase_if(out.parts, [](const Transfer& t) { return t.flows.empty() && t.loads.empty(); });
  out.intra_node_hops = false;
}

void CollectiveLowering::finish(Lowered& out, double step_latencies) {
  // The transfer itself waits for the longest route among its flows once: charge the rest before it.
  const auto [nvlink, network] = route_latencies(out);
  out.latency_s = hw_.collective.base_latency.value.si() + step_latencies - std::max(nvlink, network);
  std::sort(out.nics.begin(), out.nics.end());
  out.nics.erase(std::unique(out.nics.begin(), out.nics.end()), out.nics.end());
}

Lowered CollectiveLowering::ring(CollectiveKind kind, std::vector<int> gpus, double bytes) {
  if (kind == CollectiveKind::all_to_all)
    return all_to_all(std::move(gpus), bytes);
  Lowered out;
  const int n = static_cast<int>(gpus.size());
  if (n < 2 || bytes <= 0)
    return out;
  const auto& node = platform_.topology().layout().node;
  // Members grouped by node, in node order.
  const auto by_node = group_by_node(gpus, node.gpus);
  const std::size_t min_local = fewest_members(by_node);
  const bool spans_nodes = by_node.size() > 1;
  const int rings = spans_nodes ? std::max(1, std::min(static_cast<int>(min_local), node.nics)) : 1;
  out.rings = rings;
  const double factor =
      kind == CollectiveKind::all_reduce ? 2.0 * (n - 1) / n : static_cast<double>(n - 1) / n;
  out.steps = kind == CollectiveKind::all_reduce ? 2 * (n - 1) : n - 1;
  const double payload = factor * bytes / rings;
  // In a ring spanning nodes each GPU sends one network hop and rings-1 NVLink hops. When NVLink is
  // clearly faster for that load than the NIC for one hop, the NVLink hops never set the ring's pace
  // and are left out of the simulated flows (they would only slow the simulation down).
  const double nvlink_time =
      (rings - 1) / (node.nvlink_per_gpu.si() * hw_.gpu.nvlink_collective_efficiency.value);
  const double network_time = 1.0 / (node.nic_line_rate.si() * hw_.nic.collective_efficiency.value);
  out.intra_node_hops = !spans_nodes || node.gpus < 2 || nvlink_time >= 0.9 * network_time;
  double route_latency = 0;
  bool network = false;
  for (int c = 0; c < rings; ++c) {
    // Ring c enters each node at another member, so that each ring leaves a node through another GPU
    // and hence another NIC.
    std::vector<int> order;
    for (const auto& [node_id, members] : by_node) {
      const std::size_t k = members.size();
      const std::size_t offset = channel_offset(c, k, rings, node.nics < node.gpus);
      for (std::size_t i = 0; i < k; ++i)
        order.push_back(members[(i + offset) % k]);
    }
    Transfer part;
    for (int i = 0; i < n; ++i) {
      const int src = order[static_cast<std::size_t>(i)];
      const int dst = order[static_cast<std::size_t>((i + 1) % n)];
      const auto& r = platform_.route(src, dst);
      route_latency = std::max(route_latency, r.latency_s);
      network = network || r.kind == platform::HopKind::network;
      if (r.kind == platform::HopKind::nvlink && !out.intra_node_hops)
        continue;
      add_hop(out, part, src, dst, payload);
    }
    out.parts.push_back(std::move(part));
  }
  // Each step waits for the library's per-step latency and the wire; host TCP adds its stack latency.
  const double step =
      route_latency + step_latency(network ? platform::HopKind::network : platform::HopKind::nvlink,
                                   static_cast<int>(by_node.size()));
  out.latency_s = hw_.collective.base_latency.value.si() + out.steps * step - route_latency;
  std::sort(out.nics.begin(), out.nics.end());
  out.nics.erase(std::unique(out.nics.begin(), out.nics.end()), out.nics.end());
  return out;
}

Lowered CollectiveLowering::p2p(int src_gpu, int dst_gpu, double bytes) {
  Lowered out;
  if (bytes <= 0 || src_gpu == dst_gpu)
    return out;
  Transfer part;
  // A send/recv is one step; protocol efficiency is the NIC's RDMA efficiency rather than a ring's.
  add_hop(out, part, src_gpu, dst_gpu, bytes, Protocol::p2p);
  out.parts.push_back(std::move(part));
  out.latency_s = step_latency(platform_.route(src_gpu, dst_gpu).kind);
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
  }
  return ring(kind, std::move(gpus), bytes);
}

int CollectiveLowering::add_tree(Lowered& out, const std::vector<std::vector<int>>& chains, double bytes) {
  // Each of the two trees carries half of `bytes`; reduce (towards the root) and broadcast (away from
  // it) are pipelined, so every edge carries the half once in each direction. Inside a node the data
  // runs along the chain to its head, which talks to the heads of the parent and child nodes.
  const int m = static_cast<int>(chains.size());
  const double half = bytes / 2;
  int depth = 0;
  for (const auto& parent : {btree_parents(m), second_tree_parents(m)}) {
    Transfer part;
    for (int j = 0; j < m; ++j) {
      const auto& chain = chains[static_cast<std::size_t>(j)];
      for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
        add_hop(out, part, chain[i + 1], chain[i], half);
        add_hop(out, part, chain[i], chain[i + 1], half);
      }
      const int p = parent[static_cast<std::size_t>(j)];
      if (p < 0)
        continue;
      const int head = chain.front();
      const int parent_head = chains[static_cast<std::size_t>(p)].front();
      add_hop(out, part, head, parent_head, half);
      add_hop(out, part, parent_head, head, half);
    }
    out.parts.push_back(std::move(part));
    depth = std::max(depth, tree_depth(parent));
  }
  out.rings += 2;
  return depth;
}

Lowered CollectiveLowering::tree(CollectiveKind kind, std::vector<int> gpus, double bytes) {
  const auto& node = platform_.topology().layout().node;
  const auto by_node = group_by_node(gpus, node.gpus);
  // NCCL's tree is an all-reduce algorithm between nodes; inside one node it never beats the ring.
  if (kind != CollectiveKind::all_reduce || by_node.size() < 2 || bytes <= 0)
    return ring(kind, std::move(gpus), bytes);
  Lowered out;
  // One pair of trees per channel, one channel per NIC as for the ring; channel c's chain starts at
  // another member of every node, whose NIC carries that channel's trees.
  const std::size_t min_local = fewest_members(by_node);
  const int channels = std::max(1, std::min(static_cast<int>(min_local), node.nics));
  std::size_t longest_chain = 0;
  int depth = 0;
  for (int c = 0; c < channels; ++c) {
    std::vector<std::vector<int>> chains;
    for (const auto& [node_id, members] : by_node) {
      const std::size_t k = members.size();
      const std::size_t offset = channel_offset(c, k, channels, node.nics < node.gpus);
      std::vector<int> chain;
      for (std::size_t i = 0; i < k; ++i)
        chain.push_back(members[(i + offset) % k]);
      longest_chain = std::max(longest_chain, k);
      chains.push_back(std::move(chain));
    }
    depth = add_tree(out, chains, bytes / channels);
  }
  // The pipeline fills through the chain and the tree's depth on the way up, and again down.
  const auto [nvlink_route, network_route] = route_latencies(out);
  const int chain_hops = static_cast<int>(longest_chain) - 1;
  out.steps = 2 * (depth + chain_hops);
  const double steps_s =
      2 *
      (depth * (step_latency(platform::HopKind::network, static_cast<int>(by_node.size())) + network_route) +
       chain_hops * (step_latency(platform::HopKind::nvlink) + nvlink_route));
  drop_idle_nvlink_flows(out);
  finish(out, steps_s);
  return out;
}

Lowered CollectiveLowering::hierarchical(CollectiveKind kind, std::vector<int> gpus, double bytes) {
  if (kind == CollectiveKind::all_to_all)
    return all_to_all(std::move(gpus), bytes);
  const auto by_node = group_by_node(gpus, platform_.topology().layout().node.gpus);
  const std::size_t k = uniform_members(by_node);
  if (by_node.size() < 2 || k < 2 || bytes <= 0)
    return ring(kind, std::move(gpus), bytes);
  // Inside every node at once (independent rings), or along every rail at once: member i of each node.
  auto intra = [&](CollectiveKind what, double size) {
    Lowered l;
    for (const auto& [node_id, members] : by_node)
      l.merge(ring(what, members, size), false);
    return l;
  };
  auto rails = [&](CollectiveKind what, double size) {
    Lowered l;
    for (std::size_t i = 0; i < k; ++i) {
      std::vector<int> rail;
      for (const auto& [node_id, members] : by_node)
        rail.push_back(members[i]);
      l.merge(ring(what, rail, size), false);
    }
    return l;
  };
  const double shard = bytes / static_cast<double>(k);
  Lowered out;
  switch (kind) {
  case CollectiveKind::all_reduce:
    out.phases = {intra(CollectiveKind::reduce_scatter, bytes), rails(CollectiveKind::all_reduce, shard),
                  intra(CollectiveKind::all_gather, bytes)};
    break;
  case CollectiveKind::reduce_scatter:
    out.phases = {intra(CollectiveKind::reduce_scatter, bytes), rails(CollectiveKind::reduce_scatter, shard)};
    break;
  case CollectiveKind::all_gather:
    out.phases = {rails(CollectiveKind::all_gather, shard), intra(CollectiveKind::all_gather, bytes)};
    break;
  case CollectiveKind::all_to_all:
    break;
  }
  summarise(out);
  return out;
}

Lowered CollectiveLowering::nvls(CollectiveKind kind, std::vector<int> gpus, double bytes) {
  if (kind == CollectiveKind::all_to_all)
    return all_to_all(std::move(gpus), bytes);
  const auto by_node = group_by_node(gpus, platform_.topology().layout().node.gpus);
  const std::size_t k = uniform_members(by_node);
  const bool one_node = by_node.size() == 1;
  if (!nvls_available() || k < 2 || bytes <= 0 || (!one_node && kind != CollectiveKind::all_reduce))
    return ring(kind, std::move(gpus), bytes);
  Lowered out;
  // The switch reads every GPU's S (its reduction) and multicasts S back: each GPU's NVLink carries S
  // up and S down, at the efficiency measured for NVLS. Flows from each member to the next load every
  // up-link and every down-link with S. (A reduce-scatter only needs S/k down, an all-gather S/k up;
  // their other direction is the busy one, and only traffic inside the node could share it.)
  const double switch_bytes = bytes / hw_.gpu.nvls_efficiency.value;
  for (const auto& [node_id, members] : by_node) {
    Transfer part;
    for (std::size_t i = 0; i < k; ++i)
      add_flow(out, part, members[i], members[(i + 1) % k], switch_bytes);
    out.parts.push_back(std::move(part));
    ++out.rings;
  }
  const int switch_steps = kind == CollectiveKind::all_reduce ? 2 : 1;
  int depth = 0;
  if (!one_node) {
    // NVLS-tree: GPU i of every node reduces its 1/k shard with the other nodes over its own NIC, in a
    // double binary tree, pipelined with the switch's reduction and multicast.
    for (std::size_t i = 0; i < k; ++i) {
      std::vector<std::vector<int>> heads;
      for (const auto& [node_id, members] : by_node)
        heads.push_back({members[i]});
      depth = add_tree(out, heads, bytes / static_cast<double>(k));
    }
  }
  const auto [nvlink_route, network_route] = route_latencies(out);
  out.steps = switch_steps + 2 * depth;
  const double steps_s =
      switch_steps * (step_latency(platform::HopKind::nvlink) + nvlink_route) +
      2 * depth *
          (step_latency(platform::HopKind::network, static_cast<int>(by_node.size())) + network_route);
  drop_idle_nvlink_flows(out);
  finish(out, steps_s);
  return out;
}

Lowered CollectiveLowering::all_to_all(std::vector<int> gpus, double bytes) {
  Lowered out;
  const int n = static_cast<int>(gpus.size());
  if (n < 2 || bytes <= 0)
    return out;
  const auto& topo = platform_.topology();
  const int per_node = topo.layout().node.gpus;
  const auto by_node = group_by_node(gpus, per_node);
  const double chunk = bytes / n;
  // GPUDirect RDMA lets a GPU hand data to the local GPU on the destination's rail, which sends it
  // through its own NIC (NCCL's PXN); staged host TCP sends from the source's NIC.
  const bool forward = transport_ == offload::Transport::rdma;
  auto rail = [&](int g) { return topo.nic_of_gpu(g % per_node); };
  for (const auto& [node_id, members] : by_node) {
    // Payload per hop from this node, summed over its sources (in a fixed order, for determinism).
    std::map<std::pair<int, int>, double> hops;
    for (std::size_t s = 0; s < members.size(); ++s) {
      const int src = members[s];
      for (int dst : gpus) {
        if (dst == src)
          continue;
        if (dst / per_node == node_id) {
          hops[{src, dst}] += chunk;
          continue;
        }
        int via = src;
        if (forward && rail(src) != rail(dst)) {
          std::vector<int> on_rail;
          for (int g : members)
            if (rail(g) == rail(dst))
              on_rail.push_back(g);
          if (!on_rail.empty())
            via = on_rail[s % on_rail.size()];
        }
        if (via != src)
          hops[{src, via}] += chunk;
        hops[{via, dst}] += chunk;
      }
    }
    Transfer part;
    for (const auto& [hop, payload] : hops)
      add_hop(out, part, hop.first, hop.second, payload, Protocol::p2p);
    compact_loads(part);
    out.parts.push_back(std::move(part));
  }
  // All sends are posted at once: one step of the slowest hop kind, as for a single send.
  out.latency_s = step_latency(by_node.size() > 1 ? platform::HopKind::network : platform::HopKind::nvlink,
                               static_cast<int>(by_node.size()));
  out.steps = 1;
  out.rings = static_cast<int>(out.parts.size());
  drop_idle_nvlink_flows(out);
  std::sort(out.nics.begin(), out.nics.end());
  out.nics.erase(std::unique(out.nics.begin(), out.nics.end()), out.nics.end());
  return out;
}

Lowered CollectiveLowering::send_recv(const std::vector<std::pair<int, int>>& pairs, double bytes) {
  Lowered out;
  for (const auto& [src, dst] : pairs)
    out.merge(p2p(src, dst, bytes), false);
  std::sort(out.nics.begin(), out.nics.end());
  out.nics.erase(std::unique(out.nics.begin(), out.nics.end()), out.nics.end());
  return out;
}

} // namespace dpusim::plan
