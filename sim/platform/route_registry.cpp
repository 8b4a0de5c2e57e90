#include "sim/platform/route_registry.hpp"

#include "sim/topology/router.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <set>
#include <stdexcept>

namespace dpusim::platform {

RouteRegistry::RouteRegistry(const HostMap& hosts, const topology::Router& router)
    : hosts_(hosts), router_(router) {}

std::int32_t RouteRegistry::engine_link(int global_nic, bool transmit) const {
  return topo().num_edges() + 2 * global_nic + (transmit ? 0 : 1);
}

RouteInfo RouteRegistry::describe(const std::vector<topology::EdgeId>& edges, HopKind kind) const {
  RouteInfo info;
  info.kind = kind;
  const auto& g = topo().graph();
  for (const auto e : edges) {
    info.links.push_back(e);
    const auto v = topo().edge_target(e);
    if (g[v].kind == topology::VertexKind::nic &&
        (info.nics.empty() || info.nics.back() != g[v].node * topo().layout().node.nics + g[v].local))
      info.nics.push_back(g[v].node * topo().layout().node.nics + g[v].local);
  }
  info.latency_s = router_.latency(edges).si();
  if (kind == HopKind::network && hosts_.options().crypto_engine && info.nics.size() >= 2) {
    // Encrypted on the way out of the first NIC, decrypted on the way into the last.
    info.links.push_back(engine_link(info.nics.front(), true));
    info.links.push_back(engine_link(info.nics.back(), false));
  }
  return info;
}

engine::HostIndex RouteRegistry::add_limiter(double rate, int cores) {
  if (!(rate > 0) || cores < 1)
    throw std::logic_error("a limiter needs a positive rate and at least one core");
  limiters_.emplace_back(rate, cores);
  return hosts_.limiter_base() + static_cast<engine::HostIndex>(limiters_.size()) - 1;
}

const RouteInfo& RouteRegistry::route(int src_gpu, int dst_gpu) {
  return route_hosts(hosts_.gpu(src_gpu), hosts_.gpu(dst_gpu));
}

const RouteInfo& RouteRegistry::route_hosts(engine::HostIndex src, engine::HostIndex dst, int local_nic) {
  const auto key = std::make_pair(src, dst);
  if (auto it = routes_.find(key); it != routes_.end())
    return it->second;
  const int per_node = topo().layout().node.gpus;
  const int src_node = hosts_.node_of(src);
  const int dst_node = hosts_.node_of(dst);
  // The NIC a node end uses: a GPU's own, an Arm's own, or the one asked for.
  auto nic_of = [&](engine::HostIndex h, int node) {
    switch (hosts_.kind_of(h)) {
    case HostMap::HostKind::gpu:
      return topo().nic(node, topo().nic_of_gpu(h % per_node));
    case HostMap::HostKind::arm:
      return topo().nic(node, hosts_.arm_slot(h));
    default:
      return topo().nic(node, local_nic);
    }
  };
  if (src_node >= 0 && src_node == dst_node)
    return routes_
        .emplace(key, describe(router_.route(hosts_.vertex_of(src), hosts_.vertex_of(dst)), HopKind::nvlink))
        .first->second;
  // Node ends: the host-side waypoints of the variant, then the NIC.
  // Storage traffic on a separate storage fabric leaves the node through its storage port, not the
  // training NICs (nor their DPUs' Arm cores).
  const bool storage_port = (hosts_.kind_of(src) == HostMap::HostKind::storage ||
                             hosts_.kind_of(dst) == HostMap::HostKind::storage) &&
                            topo().storage_nic(0);
  const bool gpu_pair =
      hosts_.kind_of(src) == HostMap::HostKind::gpu && hosts_.kind_of(dst) == HostMap::HostKind::gpu;
  const bool gpu_tcp = hosts_.options().transport == offload::Transport::host_tcp;
  auto leg = [&](engine::HostIndex h, int node, bool outbound) {
    std::vector<topology::VertexId> w{hosts_.vertex_of(h)};
    if (storage_port) {
      w.push_back(*topo().storage_nic(node, hosts_.tray_of(h)));
      if (!outbound)
        std::reverse(w.begin(), w.end());
      return w;
    }
    const bool staged = hosts_.kind_of(h) == HostMap::HostKind::gpu && gpu_tcp;
    if (staged)
      w.push_back(topo().host_cpu(node, hosts_.tray_of(h))); // staged through pinned host memory
    if ((staged || hosts_.kind_of(h) == HostMap::HostKind::cpu) && hosts_.options().through_arm)
      w.push_back(topo().dpu_arm(node, topo().vertex(nic_of(h, node)).local));
    auto nic = nic_of(h, node);
    if (outbound && gpu_pair && !gpu_tcp && hosts_.options().pxn) {
      // PXN: to the local GPU in the destination's place, whose NIC is on the destination's rail.
      const int peer_local = dst % per_node;
      if (topo().nic_of_gpu(peer_local) != topo().nic_of_gpu(h % per_node)) {
        w.push_back(topo().gpu(node * per_node + peer_local));
        nic = topo().nic(node, topo().nic_of_gpu(peer_local));
      }
    }
    w.push_back(nic);
    if (!outbound)
      std::reverse(w.begin(), w.end());
    return w;
  };
  std::vector<topology::VertexId> waypoints;
  if (src_node >= 0)
    waypoints = leg(src, src_node, true);
  else
    waypoints.push_back(hosts_.vertex_of(src));
  if (dst_node >= 0) {
    const auto tail = leg(dst, dst_node, false);
    waypoints.insert(waypoints.end(), tail.begin(), tail.end());
  } else {
    waypoints.push_back(hosts_.vertex_of(dst));
  }
  auto path = [&](std::uint64_t label) {
    std::vector<topology::EdgeId> edges;
    for (std::size_t i = 0; i + 1 < waypoints.size(); ++i) {
      const auto part = router_.route(waypoints[i], waypoints[i + 1], label);
      edges.insert(edges.end(), part.begin(), part.end());
    }
    return edges;
  };
  RouteInfo info = describe(path(0), HopKind::network);
  const int connections = gpu_pair ? std::max(1, hosts_.options().connections) : 1;
  if (connections > 1) {
    for (int c = 1; c < connections; ++c) {
      const auto more = describe(path(static_cast<std::uint64_t>(c)), HopKind::network).links;
      info.links.insert(info.links.end(), more.begin(), more.end());
    }
    info.spread = connections;
  }
  return routes_.emplace(key, std::move(info)).first->second;
}

engine::PlatformDecl RouteRegistry::build() const {
  engine::PlatformDecl p;
  const auto& g = topo().graph();
  for (int i = 0; i < hosts_.gpus(); ++i)
    p.hosts.push_back({g[topo().gpu(i)].name, 1.0, 1});
  for (int n = 0; n < hosts_.nodes(); ++n)
    for (int tray = 0; tray < hosts_.trays(); ++tray)
      p.hosts.push_back({g[topo().host_cpu(n, tray)].name, 1.0, hosts_.hardware().host_cores()});
  if (hosts_.has_arm()) {
    const int arm_cores = hosts_.hardware().nic.arm ? hosts_.hardware().nic.arm->cores.value : 1;
    for (int n = 0; n < hosts_.nodes(); ++n)
      for (int k = 0; k < topo().layout().node.nics; ++k)
        p.hosts.push_back({g[topo().dpu_arm(n, k)].name, 1.0, arm_cores});
  }
  if (hosts_.has_frontend_arm()) {
    const auto& port = hosts_.hardware().storage_nic;
    const int arm_cores = port && port->arm ? port->arm->cores.value : 1;
    for (int n = 0; n < hosts_.nodes(); ++n)
      for (int tray = 0; tray < hosts_.trays(); ++tray)
        p.hosts.push_back({g[*topo().storage_arm(n, tray)].name, 1.0, arm_cores});
  }
  for (int s = 0; s < hosts_.storage_servers(); ++s)
    p.hosts.push_back({g[topo().storage(s)].name, 1.0, 1});
  for (int i = 0; i < hosts_.tenants(); ++i)
    p.hosts.push_back({g[topo().tenant(i)].name, 1.0, 1});
  for (std::size_t i = 0; i < limiters_.size(); ++i)
    p.hosts.push_back({fmt::format("limiter{}", i), limiters_[i].first, limiters_[i].second});
  // Only links some route uses become simulated links.
  std::set<std::int32_t> used;
  for (const auto& [k, r] : routes_)
    used.insert(r.links.begin(), r.links.end());
  std::map<std::int32_t, std::int32_t> index;
  for (auto id : used) {
    index[id] = static_cast<std::int32_t>(p.links.size());
    if (id < topo().num_edges()) {
      const auto& ep = topo().edge(id);
      p.links.push_back(
          {fmt::format("{}->{}", g[topo().edge_source(id)].name, g[topo().edge_target(id)].name),
           ep.bandwidth.si(), ep.latency.si()});
    } else {
      const int nic = (id - topo().num_edges()) / 2;
      const bool tx = (id - topo().num_edges()) % 2 == 0;
      const int per_node = topo().layout().node.nics;
      p.links.push_back({fmt::format("n{}.nic{}.crypto-{}", nic / per_node, nic % per_node, tx ? "tx" : "rx"),
                         hosts_.options().crypto_engine->si(), 0.0});
    }
  }
  for (const auto& [k, r] : routes_) {
    engine::RouteDecl rd{k.first, k.second, {}, r.spread};
    for (auto id : r.links)
      rd.links.push_back(index.at(id));
    p.routes.push_back(std::move(rd));
  }
  return p;
}

} // namespace dpusim::platform
