#include "sim/plan/collective_lowering.hpp"

#include <algorithm>
#include <map>

namespace dpusim::plan {

CollectiveLowering::CollectiveLowering(platform::PlatformBuilder& platform, const scenario::Hardware& hw,
                                       offload::Transport transport)
    : platform_(platform), hw_(hw), transport_(transport) {}

void Lowered::merge(const Lowered& other, bool zip) {
  if (zip && !parts.empty()) {
    for (std::size_t i = 0; i < other.parts.size(); ++i) {
      if (i >= parts.size()) {
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
  cpu_core_s += other.cpu_core_s;
  nics.insert(nics.end(), other.nics.begin(), other.nics.end());
  rings += other.rings;
  steps = std::max(steps, other.steps);
  intra_node_hops = intra_node_hops && other.intra_node_hops;
}

void CollectiveLowering::add_hop(Lowered& out, Transfer& part, int src, int dst, double payload) {
  const auto& r = platform_.route(src, dst);
  // Protocol efficiency measured for NCCL rings is charged as extra bytes on the hop.
  const double eff = r.kind == platform::HopKind::nvlink ? hw_.gpu.nvlink_collective_efficiency.value
                                                         : hw_.nic.collective_efficiency.value;
  part.flows.push_back({platform_.gpu(src), platform_.gpu(dst), payload / eff});
  out.nics.insert(out.nics.end(), r.nics.begin(), r.nics.end());
  if (r.kind == platform::HopKind::network && transport_ == offload::Transport::host_tcp) {
    // Every byte crosses the kernel TCP stack on both hosts; each connection is driven by the library's
    // socket threads, each bound to one core (a load entry occupies one core of its host).
    const int threads = hw_.collective.socket_threads.value;
    const double tx = payload / hw_.cpu.tcp_tx_rate_per_core.value.si();
    const double rx = payload / hw_.cpu.tcp_rx_rate_per_core.value.si();
    for (int t = 0; t < threads; ++t) {
      part.loads.push_back({platform_.cpu(platform_.node_of(platform_.gpu(src))), tx / threads});
      part.loads.push_back({platform_.cpu(platform_.node_of(platform_.gpu(dst))), rx / threads});
    }
    out.cpu_core_s += tx + rx;
  }
}

Lowered CollectiveLowering::ring(CollectiveKind kind, std::vector<int> gpus, double bytes) {
  Lowered out;
  const int n = static_cast<int>(gpus.size());
  if (n < 2 || bytes <= 0)
    return out;
  std::sort(gpus.begin(), gpus.end());
  const int per_node = platform_.topology().layout().node.gpus;
  // Members grouped by node, in node order.
  std::map<int, std::vector<int>> by_node;
  for (int g : gpus)
    by_node[g / per_node].push_back(g);
  std::size_t min_local = gpus.size();
  for (const auto& [node, members] : by_node)
    min_local = std::min(min_local, members.size());
  const bool spans_nodes = by_node.size() > 1;
  const int nics = platform_.topology().layout().node.nics;
  const int rings = spans_nodes ? std::max(1, std::min(static_cast<int>(min_local), nics)) : 1;
  out.rings = rings;
  const double factor =
      kind == CollectiveKind::all_reduce ? 2.0 * (n - 1) / n : static_cast<double>(n - 1) / n;
  out.steps = kind == CollectiveKind::all_reduce ? 2 * (n - 1) : n - 1;
  const double payload = factor * bytes / rings;
  // In a ring spanning nodes each GPU sends one network hop and rings-1 NVLink hops. When NVLink is
  // clearly faster for that load than the NIC for one hop, the NVLink hops never set the ring's pace
  // and are left out of the simulated flows (they would only slow the simulation down).
  const auto& node = platform_.topology().layout().node;
  const double nvlink_time =
      (rings - 1) / (node.nvlink_per_gpu.si() * hw_.gpu.nvlink_collective_efficiency.value);
  const double network_time = 1.0 / (node.nic_line_rate.si() * hw_.nic.collective_efficiency.value);
  out.intra_node_hops = !spans_nodes || node.gpus < 2 || nvlink_time >= 0.9 * network_time;
  double route_latency = 0;
  bool network = false;
  for (int c = 0; c < rings; ++c) {
    // Ring c enters each node at its c-th member, so that each ring leaves a node through another GPU
    // and hence another NIC.
    std::vector<int> order;
    for (const auto& [node_id, members] : by_node) {
      const std::size_t k = members.size();
      for (std::size_t i = 0; i < k; ++i)
        order.push_back(members[(i + static_cast<std::size_t>(c)) % k]);
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
  double step = route_latency + (network ? hw_.collective.step_latency_network.value.si()
                                         : hw_.collective.step_latency_nvlink.value.si());
  if (network && transport_ == offload::Transport::host_tcp)
    step += hw_.cpu.tcp_latency_median.value.si();
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
  add_hop(out, part, src_gpu, dst_gpu, bytes);
  // A send/recv is one step; protocol efficiency is the NIC's RDMA efficiency rather than a ring's.
  const auto& r = platform_.route(src_gpu, dst_gpu);
  const bool network = r.kind == platform::HopKind::network;
  if (network)
    part.flows.back().bytes = bytes / hw_.nic.rdma_efficiency.value;
  out.parts.push_back(std::move(part));
  double step = network ? hw_.collective.step_latency_network.value.si()
                        : hw_.collective.step_latency_nvlink.value.si();
  if (network && transport_ == offload::Transport::host_tcp)
    step += hw_.cpu.tcp_latency_median.value.si();
  out.latency_s = step;
  out.steps = 1;
  out.rings = 1;
  return out;
}

} // namespace dpusim::plan
