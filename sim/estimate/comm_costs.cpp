#include "sim/estimate/comm_costs.hpp"

#include "models/collectives/all_to_all.hpp"
#include "models/collectives/hierarchical.hpp"
#include "models/collectives/nvls.hpp"
#include "models/collectives/ring.hpp"
#include "models/collectives/tree.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

namespace dpusim::estimate {

namespace {

/// A resource of one node (or the node itself): (node, index) packed in one key.
std::int64_t key(int node, int index) {
  return static_cast<std::int64_t>(node) * 4096 + index;
}

/// Bytes each resource carries at once, per byte of the operation: the busiest sets its pace.
struct Loads {
  std::unordered_map<std::int64_t, double> nic_out, nic_in; // (node, local NIC)
  std::unordered_map<std::int64_t, double> nvlink_out;      // GPU
  std::unordered_map<std::int64_t, double> pcie_up;         // (node, PCIe switch): host-staged traffic
  std::unordered_map<std::int64_t, int> host_loads;         // node: cores the connections' ends occupy
  std::unordered_map<std::int64_t, int> arm_loads;          // (node, local NIC): Arm cores likewise
  // Leaf up-links and spine-to-leaf down-links, per leaf: the wire bytes and the hashed paths they take.
  std::unordered_map<int, std::pair<double, int>> leaf_up, leaf_down;
};

/// The expected largest of `bins` counts, each Binomial(n, 1/choices): how many of n hashed paths the
/// busiest of a leaf's `choices` up-links gets, over the `bins` up-links that carry such traffic (taken
/// as independent). Exact below a mean of 500 paths per link, the normal approximation above.
double expected_busiest(int n, int choices, int bins) {
  if (n <= 0 || choices <= 1)
    return choices <= 1 ? n : 0.0;
  const double p = 1.0 / choices;
  const double mean = n * p;
  const double b = std::max(1, bins);
  if (mean > 500) {
    const double sd = std::sqrt(n * p * (1 - p));
    const double l = std::sqrt(2 * std::log(std::max(2.0, b)));
    const double z = l - (std::log(std::log(std::max(2.0, b))) + std::log(4 * std::acos(-1.0))) / (2 * l);
    return mean + sd * std::max(0.0, z);
  }
  // E[max] = sum over m >= 1 of P(max >= m) = 1 - F(m-1)^bins.
  double pmf = std::exp(n * std::log1p(-p));
  double cdf = pmf;
  double expected = 0;
  for (int m = 1; m <= n; ++m) {
    const double at_least = 1 - std::pow(cdf, b);
    if (at_least < 1e-12)
      break;
    expected += at_least;
    pmf *= static_cast<double>(n - (m - 1)) / m * p / (1 - p);
    cdf = std::min(1.0, cdf + pmf);
  }
  return expected;
}

} // namespace

CommCosts::CommCosts(const topology::ClusterLayout& layout, const scenario::Hardware& hw,
                     const datapath::DataPath& path, topology::Routing routing)
    : layout_(layout), shape_(topology::fabric_shape(layout)), hw_(hw), path_(path),
      hashed_(routing != topology::Routing::pinned && !layout.fabric.pooled) {
  nvlink_route_s_ = 2 * layout_.node.nvlink_latency.si();
}

double CommCosts::nvlink_step_s() const {
  return hw_.collective.step_latency_nvlink.value.si() + nvlink_route_s_;
}

double CommCosts::network_step_s(int nodes, bool tree) const {
  const auto& c = hw_.collective;
  return (tree ? c.tree_step_latency_network : c.step_latency_network).value.si() +
         path_.step_latency_s(nodes);
}

double CommCosts::network_route_s(int nodes) const {
  // The longest route between two of `nodes` consecutive nodes: PCIe to the NIC on each end (through
  // the host CPU when the transport stages in host memory, through its own PCIe switch on a DPU), the
  // two NIC ports, and the switch-to-switch links between their leaves (and pods).
  const auto& n = layout_.node;
  const auto& f = layout_.fabric;
  const bool staged = path_.transport() == offload::Transport::host_tcp;
  const int pcie_hops = (staged ? 4 : 2) + (n.dpu ? 1 : 0);
  double s = 2 * (pcie_hops * n.pcie_latency.si() + n.nic_latency.si() + f.latency.si());
  const int per_leaf =
      f.kind == topology::FabricKind::fat_tree ? shape_.nodes_per_leaf : std::max(1, shape_.down_ports);
  const int hosts = nodes * n.trays; // the fabric joins hosts: servers, or the trays of racks
  if (shape_.tiers >= 2 && hosts > per_leaf)
    s += 2 * f.latency.si();
  const int per_pod = shape_.leaves_per_pod > 0
                          ? (f.kind == topology::FabricKind::fat_tree
                                 ? shape_.leaves_per_pod * per_leaf
                                 : shape_.leaves_per_pod / topology::nics_per_host(n) * per_leaf)
                          : 0;
  if (shape_.tiers == 3 && per_pod > 0 && hosts > per_pod)
    s += 2 * f.latency.si();
  const bool pxn = path_.transport() == offload::Transport::rdma && hw_.collective.pxn.value;
  if (pxn && n.gpus > 1)
    s += nvlink_route_s_; // the hand-over to the GPU on the destination's rail
  return s;
}

namespace {

class LoadBuilder {
public:
  LoadBuilder(const topology::ClusterLayout& layout, const topology::FabricShape& shape,
              const scenario::Hardware& hw, const datapath::DataPath& path, bool hashed)
      : layout_(layout), shape_(shape), hw_(hw), path_(path), hashed_(hashed) {
    per_node_ = layout.node.gpus;
    rdma_ = path.transport() == offload::Transport::rdma;
    pxn_ = rdma_ && hw.collective.pxn.value && layout.node.nvlink_per_gpu.si() > 0;
    // A GPU-to-GPU route is as many hashed paths as the connections between the two NICs (docs/models/
    // collectives.md, "Connections and ECMP"); an InfiniBand switch forwards each connection alike.
    paths_ = hw.fabric_switch.hashes_each_connection.value
                 ? hw.collective.channels_per_nic.value * (rdma_ ? hw.collective.qps_per_connection.value : 1)
                 : 1;
    for (const auto& w : path.network_transfer(1.0)) {
      auto& per = w.processor == datapath::Processor::host_cpu ? host_core_s_ : arm_core_s_;
      per[w.end == datapath::End::sender ? 0 : 1] += w.core_s;
      (w.processor == datapath::Processor::host_cpu ? host_threads_ : arm_threads_) = w.threads;
    }
  }

  [[nodiscard]] int nic_of(int gpu) const { return (gpu % per_node_) * layout_.node.nics / per_node_; }
  [[nodiscard]] int leaf_of(int node, int nic) const {
    return topology::leaf_of_nic(layout_, shape_, node, nic);
  }

  /// One hop of `bytes` (per byte of the operation) from GPU src to GPU dst; `collective`: at a ring's
  /// protocol efficiency (else a send's).
  void hop(Loads& l, int src, int dst, double bytes, bool collective) {
    const int a = src / per_node_;
    const int b = dst / per_node_;
    if (a == b) {
      l.nvlink_out[src] += bytes / hw_.gpu.nvlink_collective_efficiency.value;
      return;
    }
    const double eff = collective ? hw_.nic.collective_efficiency.value : hw_.nic.rdma_efficiency.value;
    const double wire = bytes / eff;
    // GPUDirect with PXN leaves through the NIC on the destination's rail (after an NVLink hand-over);
    // staged traffic through the source's own NIC.
    const int out_nic = pxn_ ? nic_of(dst) : nic_of(src);
    const int in_nic = nic_of(dst);
    l.nic_out[key(a, out_nic)] += wire;
    l.nic_in[key(b, in_nic)] += wire;
    if (shape_.tiers >= 2) {
      const int from = leaf_of(a, out_nic);
      const int to = leaf_of(b, in_nic);
      if (from != to) {
        auto& up = l.leaf_up[from];
        up.first += wire;
        up.second += paths_;
        auto& down = l.leaf_down[to];
        down.first += wire;
        down.second += paths_;
      }
    }
    if (pxn_ && nic_of(src) != out_nic)
      l.nvlink_out[src] += bytes / hw_.gpu.nvlink_collective_efficiency.value;
    if (!rdma_) {
      // Host memory in between: the GPU's bytes go up its PCIe switch, and the NIC's received bytes go
      // up the receiver's (one PCIe switch per nics / pcie_switches NICs).
      const int per_switch_gpus = std::max(1, per_node_ / std::max(1, layout_.node.pcie_switches));
      const int per_switch_nics = std::max(1, layout_.node.nics / std::max(1, layout_.node.pcie_switches));
      l.pcie_up[key(a, (src % per_node_) / per_switch_gpus)] += wire;
      l.pcie_up[key(b, in_nic / per_switch_nics)] += wire;
    }
    const int threads = std::max(1, host_threads_);
    if (host_core_s_[0] > 0)
      l.host_loads[a] += threads;
    if (host_core_s_[1] > 0)
      l.host_loads[b] += threads;
    const int arm_threads = std::max(1, arm_threads_);
    if (arm_core_s_[0] > 0)
      l.arm_loads[key(a, nic_of(src))] += arm_threads;
    if (arm_core_s_[1] > 0)
      l.arm_loads[key(b, in_nic)] += arm_threads;
    hop_bytes_ = std::max(hop_bytes_, bytes);
    host_core_s += (host_core_s_[0] + host_core_s_[1]) * bytes;
    arm_core_s += (arm_core_s_[0] + arm_core_s_[1]) * bytes;
  }

  /// The CPU core-seconds the hops so far cost, per byte of the operation.
  double host_core_s = 0;
  double arm_core_s = 0;

  /// The operation's cost: its latency, its busiest resource and its CPU work.
  [[nodiscard]] CommCost cost(const Loads& l, double latency_s) const {
    return {latency_s, seconds(l), host_core_s, arm_core_s};
  }

  /// Seconds per byte of the operation: the busiest resource.
  [[nodiscard]] double seconds(const Loads& l) const {
    double s = 0;
    for (const auto& [gpu, bytes] : l.nvlink_out)
      s = std::max(s, bytes / layout_.node.nvlink_per_gpu.si());
    double nic_rate = layout_.node.nic_line_rate.si();
    if (const auto engine = path_.crypto_engine())
      nic_rate = std::min(nic_rate, engine->si());
    for (const auto* side : {&l.nic_out, &l.nic_in})
      for (const auto& [nic, bytes] : *side)
        s = std::max(s, bytes / nic_rate);
    for (const auto& [sw, bytes] : l.pcie_up)
      s = std::max(s, bytes / layout_.node.pcie_uplink.si());
    // Leaf up-links (and spine down-links): a leaf's cross-leaf bytes over its spines, at the busiest
    // spine's share where paths are hashed (the expected outcome of the hash, not the seed's), evenly
    // where they are pinned or sprayed.
    const int spines = layout_.fabric.pooled ? 1 : std::max(1, shape_.spines);
    const double link =
        layout_.fabric.link.si() * shape_.links_per_spine * (layout_.fabric.pooled ? shape_.spines : 1);
    for (const auto* side : {&l.leaf_up, &l.leaf_down}) {
      const int bins = spines * static_cast<int>(side->size());
      for (const auto& [leaf, load] : *side) {
        const auto& [bytes, paths] = load;
        const double busiest = hashed_ && spines > 1
                                   ? expected_busiest(paths, spines, bins) * bytes / std::max(1, paths)
                                   : bytes / spines;
        s = std::max(s, busiest / link);
      }
    }
    // Kernel TCP (and software encryption, switching): each end of a connection keeps `threads` cores
    // busy; more loads than cores share them.
    const auto cpu = [&](const std::array<double, 2>& core_s, int threads, int cores, int loads) {
      const double share = cores > 0 ? std::max(1.0, static_cast<double>(loads) / cores) : 1.0;
      return std::max(core_s[0], core_s[1]) / std::max(1, threads) * share * hop_bytes_;
    };
    int host_loads = 0;
    for (const auto& [node, n] : l.host_loads)
      host_loads = std::max(host_loads, n);
    if (host_loads > 0)
      s = std::max(s, cpu(host_core_s_, host_threads_, hw_.node_host_cores(), host_loads));
    int arm_loads = 0;
    for (const auto& [dpu, n] : l.arm_loads)
      arm_loads = std::max(arm_loads, n);
    if (arm_loads > 0 && hw_.nic.arm)
      s = std::max(s, cpu(arm_core_s_, arm_threads_, hw_.nic.arm->cores.value, arm_loads));
    return s;
  }

private:
  const topology::ClusterLayout& layout_;
  const topology::FabricShape& shape_;
  const scenario::Hardware& hw_;
  const datapath::DataPath& path_;
  bool hashed_ = true; // ECMP: each path's spine chosen by a hash
  int paths_ = 1;      // hashed paths per GPU-to-GPU route
  int per_node_ = 1;
  bool rdma_ = true;
  bool pxn_ = false;
  std::array<double, 2> host_core_s_{}; // per byte, sender and receiver
  std::array<double, 2> arm_core_s_{};
  int host_threads_ = 1;
  int arm_threads_ = 1;
  double hop_bytes_ = 0; // the largest hop, per byte of the operation
};

int span_of(const std::vector<int>& gpus, int per_node) {
  if (gpus.empty())
    return 0;
  const auto [lo, hi] = std::minmax_element(gpus.begin(), gpus.end());
  return *hi / per_node - *lo / per_node + 1;
}

} // namespace

CommCost CommCosts::rings(const std::vector<Ring>& calls) const {
  CommCost c;
  LoadBuilder b(layout_, shape_, hw_, path_, hashed_);
  Loads l;
  const collectives::NodeShape node{layout_.node.gpus, layout_.node.nics};
  for (const auto& call : calls) {
    const auto plan = collectives::ring(call.kind, call.gpus, 1.0, node);
    if (plan.channels.empty())
      continue;
    for (const auto& channel : plan.channels)
      for (const auto& hop : channel)
        b.hop(l, hop.src, hop.dst, hop.bytes, true);
    // As the lowering charges it: only the steps that cross from node to node pay the network's latency.
    const int inter_steps = plan.inter_node_steps;
    const bool one_a_node = static_cast<int>(call.gpus.size()) == plan.nodes;
    const double network_step = inter_steps > 0 ? network_step_s(plan.nodes, one_a_node) +
                                                      network_route_s(span_of(call.gpus, layout_.node.gpus))
                                                : 0.0;
    c.latency_s = std::max(c.latency_s, hw_.collective.base_latency.value.si() + inter_steps * network_step +
                                            (plan.steps - inter_steps) * nvlink_step_s());
  }
  return b.cost(l, c.latency_s);
}

CommCost CommCosts::tree(const std::vector<std::vector<int>>& groups) const {
  CommCost c;
  LoadBuilder b(layout_, shape_, hw_, path_, hashed_);
  Loads l;
  const collectives::NodeShape node{layout_.node.gpus, layout_.node.nics};
  for (const auto& g : groups) {
    const auto plan = collectives::tree(CollectiveKind::all_reduce, g, 1.0, node);
    if (!plan)
      return rings({{CollectiveKind::all_reduce, g}});
    for (const auto& t : plan->trees)
      for (const auto& hop : t)
        b.hop(l, hop.src, hop.dst, hop.bytes, true);
    const double lat = hw_.collective.base_latency.value.si() +
                       2 * (plan->depth * (network_step_s(plan->nodes, true) +
                                           network_route_s(span_of(g, layout_.node.gpus))) +
                            plan->chain_hops * nvlink_step_s());
    c.latency_s = std::max(c.latency_s, lat);
  }
  return b.cost(l, c.latency_s);
}

CommCost CommCosts::nvls(const std::vector<std::vector<int>>& groups) const {
  CommCost c;
  LoadBuilder b(layout_, shape_, hw_, path_, hashed_);
  Loads l;
  double switch_s = 0;
  for (const auto& g : groups) {
    const auto plan = collectives::nvls(CollectiveKind::all_reduce, g, 1.0, layout_.node.gpus,
                                        hw_.gpu.nvls_efficiency.value > 0);
    if (!plan)
      return rings({{CollectiveKind::all_reduce, g}});
    // Each GPU's NVLink carries S up and S back at the NVLS efficiency.
    switch_s = std::max(switch_s, 1.0 / (layout_.node.nvlink_per_gpu.si() * hw_.gpu.nvls_efficiency.value));
    for (const auto& t : plan->tree_parts)
      for (const auto& hop : t)
        b.hop(l, hop.src, hop.dst, hop.bytes, true);
    const double lat =
        hw_.collective.base_latency.value.si() + plan->switch_steps * nvlink_step_s() +
        2 * plan->depth *
            (plan->nodes > 1 ? network_step_s(plan->nodes) + network_route_s(span_of(g, layout_.node.gpus))
                             : 0.0);
    c.latency_s = std::max(c.latency_s, lat);
  }
  auto out = b.cost(l, c.latency_s);
  out.s_per_byte = std::max(switch_s, out.s_per_byte);
  return out;
}

CommCost CommCosts::collective(CollectiveKind kind, CollectiveAlgorithm algo,
                               const std::vector<std::vector<int>>& groups) const {
  const auto as_rings = [&](CollectiveKind k) {
    std::vector<Ring> calls;
    for (const auto& g : groups)
      calls.push_back({k, g});
    return rings(calls);
  };
  if (kind == CollectiveKind::all_to_all)
    return all_to_all(groups);
  switch (algo) {
  case CollectiveAlgorithm::ring:
    return as_rings(kind);
  case CollectiveAlgorithm::tree:
    return kind == CollectiveKind::all_reduce ? tree(groups) : as_rings(kind);
  case CollectiveAlgorithm::nvls: {
    bool applies = kind == CollectiveKind::all_reduce;
    for (const auto& g : groups) {
      auto gpus = g;
      const auto by_node = collectives::group_by_node(gpus, layout_.node.gpus);
      applies = applies && collectives::nvls_applies(kind, by_node, hw_.gpu.nvls_efficiency.value > 0, 1.0);
    }
    if (kind != CollectiveKind::all_reduce) {
      // A single-node reduce-scatter or all-gather through the switch: S on the busy direction.
      bool one_node = hw_.gpu.nvls_efficiency.value > 0;
      for (const auto& g : groups)
        one_node = one_node && span_of(g, layout_.node.gpus) == 1 && g.size() > 1;
      if (one_node)
        return {hw_.collective.base_latency.value.si() + nvlink_step_s(),
                1.0 / (layout_.node.nvlink_per_gpu.si() * hw_.gpu.nvls_efficiency.value)};
      return as_rings(kind);
    }
    return applies ? nvls(groups) : as_rings(kind);
  }
  case CollectiveAlgorithm::tuned: // NCCL's choice depends on the size: NcclCommCosts picks
    return as_rings(kind);
  case CollectiveAlgorithm::hierarchical: {
    // Phases one after another; each phase's rings together.
    // Each phase's calls carry a fraction of the bytes: a ring of call.bytes per byte of the whole.
    std::vector<std::vector<Ring>> phases;
    std::vector<double> fractions;
    for (const auto& g : groups) {
      const auto plan = collectives::hierarchical(kind, g, 1.0, layout_.node.gpus);
      if (!plan)
        return as_rings(kind);
      phases.resize(std::max(phases.size(), plan->phases.size()));
      for (std::size_t p = 0; p < plan->phases.size(); ++p) {
        if (p >= fractions.size())
          fractions.push_back(plan->phases[p].front().bytes);
        for (const auto& call : plan->phases[p])
          phases[p].push_back({call.kind, call.gpus});
      }
    }
    CommCost total;
    for (std::size_t p = 0; p < phases.size(); ++p) {
      const double fraction = fractions[p];
      const auto phase = rings(phases[p]);
      total.latency_s += phase.latency_s;
      total.s_per_byte += phase.s_per_byte * fraction;
      total.host_core_s_per_byte += phase.host_core_s_per_byte * fraction;
      total.arm_core_s_per_byte += phase.arm_core_s_per_byte * fraction;
    }
    return total;
  }
  }
  return as_rings(kind);
}

CommCost CommCosts::all_to_all(const std::vector<std::vector<int>>& groups,
                               const std::vector<double>& shares) const {
  const int per_node = layout_.node.gpus;
  std::vector<int> rail_of_local;
  for (int i = 0; i < per_node; ++i)
    rail_of_local.push_back(i * layout_.node.nics / per_node);
  const bool rdma = path_.transport() == offload::Transport::rdma;
  return direct_sends(groups, [&](const std::vector<int>& g) {
    return collectives::all_to_all(g, 1.0, per_node, rail_of_local, rdma, shares);
  });
}

CommCost CommCosts::expert_dispatch(const std::vector<std::vector<int>>& groups,
                                    collectives::ExpertDispatch d) const {
  d.token_bytes = 1.0;
  return direct_sends(groups, [&](const std::vector<int>& g) {
    return collectives::expert_dispatch(g, d, layout_.node.gpus);
  });
}

CommCost CommCosts::direct_sends(
    const std::vector<std::vector<int>>& groups,
    const std::function<collectives::AllToAllPlan(const std::vector<int>&)>& plan_of) const {
  CommCost c;
  LoadBuilder b(layout_, shape_, hw_, path_, hashed_);
  Loads l;
  const int per_node = layout_.node.gpus;
  for (const auto& g : groups) {
    const auto plan = plan_of(g);
    for (const auto& part : plan.parts)
      for (const auto& hop : part)
        b.hop(l, hop.src, hop.dst, hop.bytes, false);
    // Every send posted at once: one step of the slowest hop kind, then its route.
    const double lat =
        plan.nodes > 1 ? network_step_s(plan.nodes) + network_route_s(span_of(g, per_node)) : nvlink_step_s();
    if (!plan.parts.empty())
      c.latency_s = std::max(c.latency_s, lat);
  }
  return b.cost(l, c.latency_s);
}

CommCost CommCosts::sends(const std::vector<int>& from, const std::vector<int>& to) const {
  CommCost c;
  LoadBuilder b(layout_, shape_, hw_, path_, hashed_);
  Loads l;
  bool network = false;
  for (std::size_t i = 0; i < from.size() && i < to.size(); ++i) {
    b.hop(l, from[i], to[i], 1.0, false);
    network = network || node_of(from[i]) != node_of(to[i]);
  }
  if (from.empty())
    return c;
  // One step of the hop's kind, then the route once; no base latency (a send is not a collective call).
  c.latency_s =
      network ? network_step_s(1) + network_route_s(span_of({from.front(), to.front()}, layout_.node.gpus))
              : nvlink_step_s();
  return b.cost(l, c.latency_s);
}

NcclCommCosts::NcclCommCosts(const topology::ClusterLayout& layout, const scenario::Hardware& hw,
                             const datapath::DataPath& path, topology::Routing routing)
    : node_(layout.node), hw_(hw), transport_(path.transport()) {
  for (const auto p : catalog::kNcclProtocols) {
    const auto costs = hw.collective.protocol(p);
    if (!costs)
      continue;
    auto copy = std::make_unique<scenario::Hardware>(hw);
    auto& c = copy->collective;
    c.step_latency_nvlink = costs->step_latency_nvlink;
    c.step_latency_pcie = costs->step_latency_pcie;
    c.step_latency_network = costs->step_latency_network;
    c.tree_step_latency_network = costs->tree_step_latency_network;
    c.base_latency = costs->base_latency;
    // The lowering charges a collective hop's bytes over the link's efficiency times the share.
    copy->nic.collective_efficiency.value *= costs->bandwidth_share.value;
    copy->gpu.nvlink_collective_efficiency.value *= costs->bandwidth_share.value;
    auto closed = std::make_unique<CommCosts>(layout, *copy, path, routing);
    protocols_.push_back({p, std::move(copy), std::move(closed)});
  }
}

plan::NcclChoice NcclCommCosts::choice(CollectiveKind kind, const std::vector<int>& group,
                                       double bytes) const {
  return plan::nccl_choice(plan::tuner_input(hw_, node_, transport_, kind, group), bytes)
      .value_or(plan::NcclChoice{});
}

CommCost NcclCommCosts::collective(CollectiveKind kind, const plan::NcclChoice& c,
                                   const std::vector<std::vector<int>>& groups) const {
  for (const auto& p : protocols_)
    if (p.protocol == c.protocol)
      return p.costs->collective(kind, c.algorithm, groups);
  return protocols_.front().costs->collective(kind, c.algorithm, groups); // Simple: always in the entry
}

} // namespace dpusim::estimate
