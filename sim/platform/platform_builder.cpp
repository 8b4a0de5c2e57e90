#include "sim/platform/platform_builder.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <stdexcept>

namespace dpusim::platform {

PlatformBuilder::PlatformBuilder(const topology::Topology& topo, const topology::Router& router,
                                 const scenario::Hardware& hw, offload::Transport transport)
    : PlatformBuilder(topo, router, hw, PathOptions{transport, false, std::nullopt}) {}

PlatformBuilder::PlatformBuilder(const topology::Topology& topo, const topology::Router& router,
                                 const scenario::Hardware& hw, PathOptions options)
    : topo_(topo), router_(router), hw_(hw), options_(options) {
  nodes_ = topo.layout().nodes;
  gpus_ = nodes_ * topo.layout().node.gpus;
  arm_base_ = gpus_ + nodes_;
  storage_base_ = arm_base_ + (topo.layout().node.dpu ? nodes_ * topo.layout().node.nics : 0);
  if (options_.through_arm && !topo.layout().node.dpu)
    throw std::logic_error("a path through Arm cores needs DPUs in the topology");
}

engine::HostIndex PlatformBuilder::arm(int node, int local_nic) const {
  if (!has_arm())
    throw std::logic_error("this platform has no DPU Arm cores");
  return arm_base_ + node * topo_.layout().node.nics + local_nic;
}

PlatformBuilder::HostKind PlatformBuilder::kind_of(engine::HostIndex h) const {
  if (h < gpus_)
    return HostKind::gpu;
  if (h < arm_base_)
    return HostKind::cpu;
  if (h < storage_base_)
    return HostKind::arm;
  if (h < storage_base_ + storage_servers())
    return HostKind::storage;
  if (h < storage_base_ + storage_servers() + tenants())
    return HostKind::tenant;
  return HostKind::limiter;
}

int PlatformBuilder::node_of(engine::HostIndex h) const {
  switch (kind_of(h)) {
  case HostKind::gpu:
    return topo_.node_of_gpu(h);
  case HostKind::cpu:
    return h - gpus_;
  case HostKind::arm:
    return (h - arm_base_) / topo_.layout().node.nics;
  case HostKind::storage:
  case HostKind::tenant:
  case HostKind::limiter:
    return -1;
  }
  return -1;
}

topology::VertexId PlatformBuilder::vertex_of(engine::HostIndex h) const {
  switch (kind_of(h)) {
  case HostKind::gpu:
    return topo_.gpu(h);
  case HostKind::cpu:
    return topo_.host_cpu(h - gpus_);
  case HostKind::arm: {
    const int i = h - arm_base_;
    return topo_.dpu_arm(i / topo_.layout().node.nics, i % topo_.layout().node.nics);
  }
  case HostKind::storage:
    return topo_.storage(h - storage_base_);
  case HostKind::tenant:
    return topo_.tenant(h - storage_base_ - storage_servers());
  case HostKind::limiter:
    break;
  }
  throw std::logic_error("unknown host");
}

std::int32_t PlatformBuilder::engine_link(int global_nic, bool transmit) const {
  return topo_.num_edges() + 2 * global_nic + (transmit ? 0 : 1);
}

RouteInfo PlatformBuilder::describe(const std::vector<topology::EdgeId>& edges, HopKind kind) const {
  RouteInfo info;
  info.kind = kind;
  const auto& g = topo_.graph();
  for (const auto e : edges) {
    info.links.push_back(e);
    const auto v = topo_.edge_target(e);
    if (g[v].kind == topology::VertexKind::nic &&
        (info.nics.empty() || info.nics.back() != g[v].node * topo_.layout().node.nics + g[v].local))
      info.nics.push_back(g[v].node * topo_.layout().node.nics + g[v].local);
  }
  info.latency_s = router_.latency(edges).si();
  if (kind == HopKind::network && options_.crypto_engine && info.nics.size() >= 2) {
    // Encrypted on the way out of the first NIC, decrypted on the way into the last.
    info.links.push_back(engine_link(info.nics.front(), true));
    info.links.push_back(engine_link(info.nics.back(), false));
  }
  return info;
}

engine::HostIndex PlatformBuilder::add_limiter(double rate, int cores) {
  if (!(rate > 0) || cores < 1)
    throw std::logic_error("a limiter needs a positive rate and at least one core");
  limiters_.emplace_back(rate, cores);
  return storage_base_ + storage_servers() + tenants() + static_cast<engine::HostIndex>(limiters_.size()) - 1;
}

const RouteInfo& PlatformBuilder::route(int src_gpu, int dst_gpu) {
  return route_hosts(gpu(src_gpu), gpu(dst_gpu));
}

const RouteInfo& PlatformBuilder::route_hosts(engine::HostIndex src, engine::HostIndex dst, int local_nic) {
  const auto key = std::make_pair(src, dst);
  if (auto it = routes_.find(key); it != routes_.end())
    return it->second;
  const int per_node = topo_.layout().node.gpus;
  const int src_node = node_of(src);
  const int dst_node = node_of(dst);
  // The NIC a node end uses: a GPU's own, an Arm's own, or the one asked for.
  auto nic_of = [&](engine::HostIndex h, int node) {
    switch (kind_of(h)) {
    case HostKind::gpu:
      return topo_.nic(node, topo_.nic_of_gpu(h % per_node));
    case HostKind::arm:
      return topo_.nic(node, (h - arm_base_) % topo_.layout().node.nics);
    default:
      return topo_.nic(node, local_nic);
    }
  };
  std::vector<topology::EdgeId> edges;
  HopKind kind = HopKind::nvlink;
  if (src_node >= 0 && src_node == dst_node) {
    edges = router_.route(vertex_of(src), vertex_of(dst));
  } else {
    kind = HopKind::network;
    // Node ends: the host-side waypoints of the variant, then the NIC.
    // Storage traffic on a separate storage fabric leaves the node through its storage port, not the
    // training NICs (nor their DPUs' Arm cores).
    const bool storage_port =
        (kind_of(src) == HostKind::storage || kind_of(dst) == HostKind::storage) && topo_.storage_nic(0);
    auto leg = [&](engine::HostIndex h, int node, bool outbound) {
      std::vector<topology::VertexId> w{vertex_of(h)};
      if (storage_port) {
        w.push_back(*topo_.storage_nic(node));
        if (!outbound)
          std::reverse(w.begin(), w.end());
        return w;
      }
      const bool gpu_tcp = kind_of(h) == HostKind::gpu && options_.transport == offload::Transport::host_tcp;
      if (gpu_tcp)
        w.push_back(topo_.host_cpu(node)); // staged through pinned host memory
      if ((gpu_tcp || kind_of(h) == HostKind::cpu) && options_.through_arm)
        w.push_back(topo_.dpu_arm(node, topo_.vertex(nic_of(h, node)).local));
      w.push_back(nic_of(h, node));
      if (!outbound)
        std::reverse(w.begin(), w.end());
      return w;
    };
    std::vector<topology::VertexId> waypoints;
    if (src_node >= 0)
      waypoints = leg(src, src_node, true);
    else
      waypoints.push_back(vertex_of(src));
    if (dst_node >= 0) {
      const auto tail = leg(dst, dst_node, false);
      waypoints.insert(waypoints.end(), tail.begin(), tail.end());
    } else {
      waypoints.push_back(vertex_of(dst));
    }
    for (std::size_t i = 0; i + 1 < waypoints.size(); ++i) {
      const auto part = router_.route(waypoints[i], waypoints[i + 1]);
      edges.insert(edges.end(), part.begin(), part.end());
    }
  }
  return routes_.emplace(key, describe(edges, kind)).first->second;
}

engine::PlatformDecl PlatformBuilder::build() const {
  engine::PlatformDecl p;
  const auto& g = topo_.graph();
  for (int i = 0; i < gpus_; ++i)
    p.hosts.push_back({g[topo_.gpu(i)].name, 1.0, 1});
  for (int n = 0; n < nodes_; ++n)
    p.hosts.push_back({g[topo_.host_cpu(n)].name, 1.0, hw_.host_cores()});
  if (has_arm()) {
    const int arm_cores = hw_.nic.arm ? hw_.nic.arm->cores.value : 1;
    for (int n = 0; n < nodes_; ++n)
      for (int k = 0; k < topo_.layout().node.nics; ++k)
        p.hosts.push_back({g[topo_.dpu_arm(n, k)].name, 1.0, arm_cores});
  }
  for (int s = 0; s < storage_servers(); ++s)
    p.hosts.push_back({g[topo_.storage(s)].name, 1.0, 1});
  for (int i = 0; i < tenants(); ++i)
    p.hosts.push_back({g[topo_.tenant(i)].name, 1.0, 1});
  for (std::size_t i = 0; i < limiters_.size(); ++i)
    p.hosts.push_back({fmt::format("limiter{}", i), limiters_[i].first, limiters_[i].second});
  // Only links some route uses become simulated links.
  std::set<std::int32_t> used;
  for (const auto& [k, r] : routes_)
    used.insert(r.links.begin(), r.links.end());
  std::map<std::int32_t, std::int32_t> index;
  for (auto id : used) {
    index[id] = static_cast<std::int32_t>(p.links.size());
    if (id < topo_.num_edges()) {
      const auto& ep = topo_.edge(id);
      p.links.push_back({fmt::format("{}->{}", g[topo_.edge_source(id)].name, g[topo_.edge_target(id)].name),
                         ep.bandwidth.si(), ep.latency.si()});
    } else {
      const int nic = (id - topo_.num_edges()) / 2;
      const bool tx = (id - topo_.num_edges()) % 2 == 0;
      const int per_node = topo_.layout().node.nics;
      p.links.push_back({fmt::format("n{}.nic{}.crypto-{}", nic / per_node, nic % per_node, tx ? "tx" : "rx"),
                         options_.crypto_engine->si(), 0.0});
    }
  }
  for (const auto& [k, r] : routes_) {
    engine::RouteDecl rd{k.first, k.second, {}};
    for (auto id : r.links)
      rd.links.push_back(index.at(id));
    p.routes.push_back(std::move(rd));
  }
  return p;
}

} // namespace dpusim::platform
