#include "sim/platform/platform_builder.hpp"

#include <fmt/format.h>
#include <set>

namespace dpusim::platform {

PlatformBuilder::PlatformBuilder(const topology::Topology& topo, const topology::Router& router,
                                 const scenario::Hardware& hw, offload::Transport transport)
    : topo_(topo), router_(router), hw_(hw), transport_(transport) {
  nodes_ = topo.layout().nodes;
  gpus_ = nodes_ * topo.layout().node.gpus;
}

int PlatformBuilder::node_of(engine::HostIndex h) const {
  return h < gpus_ ? topo_.node_of_gpu(h) : h - gpus_;
}

const RouteInfo& PlatformBuilder::route(int src_gpu, int dst_gpu) {
  const auto key = std::make_pair(src_gpu, dst_gpu);
  if (auto it = routes_.find(key); it != routes_.end())
    return it->second;
  const int per_node = topo_.layout().node.gpus;
  const int src_node = src_gpu / per_node;
  const int dst_node = dst_gpu / per_node;
  std::vector<topology::EdgeId> edges;
  RouteInfo info;
  if (src_node == dst_node) {
    edges = router_.route(topo_.gpu(src_gpu), topo_.gpu(dst_gpu));
    info.kind = HopKind::nvlink;
  } else {
    const auto src_nic = topo_.nic(src_node, topo_.nic_of_gpu(src_gpu % per_node));
    const auto dst_nic = topo_.nic(dst_node, topo_.nic_of_gpu(dst_gpu % per_node));
    if (transport_ == offload::Transport::rdma)
      edges = router_.route_via({topo_.gpu(src_gpu), src_nic, dst_nic, topo_.gpu(dst_gpu)});
    else // staged through pinned host memory on both ends (NCCL socket transport)
      edges = router_.route_via({topo_.gpu(src_gpu), topo_.host_cpu(src_node), src_nic, dst_nic,
                                 topo_.host_cpu(dst_node), topo_.gpu(dst_gpu)});
    info.kind = HopKind::network;
  }
  const auto& g = topo_.graph();
  for (const auto e : edges) {
    info.links.push_back(e);
    const auto v = topo_.edge_target(e);
    if (g[v].kind == topology::VertexKind::nic)
      info.nics.push_back(g[v].node * topo_.layout().node.nics + g[v].local);
  }
  info.latency_s = router_.latency(edges).si();
  return routes_.emplace(key, std::move(info)).first->second;
}

engine::PlatformDecl PlatformBuilder::build() const {
  engine::PlatformDecl p;
  const auto& g = topo_.graph();
  for (int i = 0; i < gpus_; ++i)
    p.hosts.push_back({g[topo_.gpu(i)].name, 1.0, 1});
  for (int n = 0; n < nodes_; ++n)
    p.hosts.push_back({g[topo_.host_cpu(n)].name, 1.0, hw_.host_cores()});
  // Only links some route uses become simulated links.
  std::set<std::int32_t> used;
  for (const auto& [k, r] : routes_)
    used.insert(r.links.begin(), r.links.end());
  std::vector<std::int32_t> index(static_cast<std::size_t>(topo_.num_edges()), -1);
  for (auto id : used) {
    const auto& ep = topo_.edge(id);
    index[static_cast<std::size_t>(id)] = static_cast<std::int32_t>(p.links.size());
    p.links.push_back({fmt::format("{}->{}", g[topo_.edge_source(id)].name, g[topo_.edge_target(id)].name),
                       ep.bandwidth.si(), ep.latency.si()});
  }
  for (const auto& [k, r] : routes_) {
    engine::RouteDecl rd{gpu(k.first), gpu(k.second), {}};
    for (auto id : r.links)
      rd.links.push_back(index[static_cast<std::size_t>(id)]);
    p.routes.push_back(std::move(rd));
  }
  return p;
}

} // namespace dpusim::platform
