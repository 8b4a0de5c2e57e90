#include "sim/topology/router.hpp"

#include <algorithm>
#include <boost/graph/dijkstra_shortest_paths_no_color_map.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/reverse_graph.hpp>
#include <boost/property_map/function_property_map.hpp>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <stdexcept>

namespace dpusim::topology {
namespace {

constexpr std::int64_t kHopCost = 1'000'000; // hops dominate; bandwidth and latency break ties
constexpr std::int64_t kUnreachable = std::numeric_limits<std::int64_t>::max() / 4;

std::uint64_t mix(std::uint64_t x) {
  // splitmix64 finaliser: a fixed, portable hash.
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// A distance map over an unordered_map: vertices never reached read as unreachable, so a search that
/// stays inside one server touches only that server's vertices.
struct SparseDistanceMap {
  using key_type = VertexId;
  using value_type = std::int64_t;
  using reference = std::int64_t;
  using category = boost::read_write_property_map_tag;
  std::unordered_map<VertexId, std::int64_t>* map;
};

std::int64_t get(const SparseDistanceMap& m, VertexId v) {
  const auto it = m.map->find(v);
  return it == m.map->end() ? kUnreachable : it->second;
}

void put(const SparseDistanceMap& m, VertexId v, std::int64_t d) {
  (*m.map)[v] = d;
}

} // namespace

Router::Router(const Topology& topology, std::uint64_t seed, const Failures& failures, Routing routing)
    : topo_(topology), seed_(seed), pinned_(routing == Routing::pinned),
      vertex_down_(boost::num_vertices(topology.graph()), false),
      edge_down_(static_cast<std::size_t>(topology.num_edges()), false) {
  for (auto v : failures.vertices)
    vertex_down_.at(v) = true;
  for (auto e : failures.edges)
    edge_down_.at(static_cast<std::size_t>(e)) = true;
  // ECMP hashes a vertex by its index among the vertices every variant's topology has: a BlueField's
  // internal PCIe switch and Arm complex are skipped, so that a flow between the same two NICs takes
  // the same spine whether the NICs are ConnectX or BlueField (ECMP luck must not pass for a
  // difference between them).
  const auto& g = topology.graph();
  hash_key_.resize(boost::num_vertices(g));
  std::uint64_t next = 0;
  for (VertexId v = 0; v < hash_key_.size(); ++v) {
    const auto kind = g[v].kind;
    hash_key_[v] = next;
    if (kind != VertexKind::dpu_switch && kind != VertexKind::dpu_arm)
      ++next;
  }
  // Each server's vertices, for the searches inside one server.
  for (VertexId v = 0; v < hash_key_.size(); ++v)
    if (const int n = g[v].node; n >= 0) {
      if (static_cast<std::size_t>(n) >= node_vertices_.size())
        node_vertices_.resize(static_cast<std::size_t>(n) + 1);
      node_vertices_[static_cast<std::size_t>(n)].push_back(v);
    }
  // The switch graph of the fabric domain's searches.
  for (VertexId v = 0; v < hash_key_.size(); ++v)
    if (may_transit(Domain::fabric, v, -1)) {
      switch_of_.emplace(v, switch_vertex_.size());
      switch_vertex_.push_back(v);
    }
  for (std::size_t i = 0; i < switch_vertex_.size(); ++i)
    boost::add_vertex(switches_);
  for (std::size_t i = 0; i < switch_vertex_.size(); ++i)
    for (auto [e, end] = boost::out_edges(switch_vertex_[i], g); e != end; ++e) {
      const auto to = switch_of_.find(boost::target(*e, g));
      if (to != switch_of_.end() && !edge_down_[static_cast<std::size_t>(g[*e].id)])
        boost::add_edge(to->second, i, cost_of(g[*e]), switches_);
    }
  // A destination's slice: its index among the endpoints (NICs, storage servers) a leaf links down to,
  // in the leaf's port order; the leaf's down-link index of Meta's path pinning (META-ROCE).
  slice_ = hash_key_;
  if (pinned_) {
    std::vector<bool> sliced(slice_.size(), false);
    for (VertexId v = 0; v < slice_.size(); ++v) {
      if (g[v].kind != VertexKind::leaf)
        continue;
      std::uint64_t index = 0;
      for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
        const VertexId w = boost::target(*e, g);
        const auto kind = g[w].kind;
        if ((kind == VertexKind::nic || kind == VertexKind::storage) && !sliced[w]) {
          slice_[w] = index++;
          sliced[w] = true;
        }
      }
    }
  }
}

std::int64_t Router::cost_of(const EdgeProps& p) {
  // Integer costs keep equal-cost paths exactly equal whatever order they are summed in.
  return kHopCost + std::llround(1e12 / p.bandwidth.si()) + std::llround(p.latency.si() * 1e9);
}

Router::Domain Router::domain_of(VertexId src, VertexId dst) const {
  const auto& a = topo_.vertex(src);
  const auto& b = topo_.vertex(dst);
  if (a.node >= 0 && a.node == b.node)
    return Domain::node;
  auto fabric_side = [](const VertexProps& v) {
    return v.kind == VertexKind::nic || v.kind == VertexKind::leaf || v.kind == VertexKind::spine ||
           v.kind == VertexKind::core || v.kind == VertexKind::storage;
  };
  if (fabric_side(a) && fabric_side(b))
    return Domain::fabric;
  return Domain::any;
}

bool Router::may_transit(Domain d, VertexId v, int node) const {
  if (vertex_down_[v])
    return false;
  const auto& p = topo_.vertex(v);
  switch (d) {
  case Domain::node: // inside one server: through its NVSwitch, PCIe switches and DPUs' internal switches
    return p.node == node && (p.kind == VertexKind::nvswitch || p.kind == VertexKind::pcie_switch ||
                              p.kind == VertexKind::dpu_switch);
  case Domain::fabric: // between NICs: through leaf, spine and core switches only
    return p.kind == VertexKind::leaf || p.kind == VertexKind::spine || p.kind == VertexKind::core;
  case Domain::any:
    return topo_.is_transit(v);
  }
  return false;
}

Router::Distances Router::switch_distances_to(VertexId dst) const {
  std::vector<std::int64_t> d(switch_vertex_.size(), kUnreachable);
  boost::dijkstra_shortest_paths_no_color_map(
      switches_, switch_of_.at(dst),
      boost::distance_map(
          boost::make_iterator_property_map(d.begin(), boost::get(boost::vertex_index, switches_)))
          .distance_inf(kUnreachable));
  Distances dist;
  for (std::size_t i = 0; i < d.size(); ++i)
    if (d[i] < kUnreachable)
      dist.emplace(switch_vertex_[i], d[i]);
  return dist;
}

const Router::NodeGraph& Router::node_graph(int node) const {
  if (const auto it = node_graphs_.find(node); it != node_graphs_.end())
    return it->second;
  const Graph& g = topo_.graph();
  NodeGraph& ng = node_graphs_.try_emplace(node).first->second;
  ng.vertex = node_vertices_.at(static_cast<std::size_t>(node));
  for (std::size_t i = 0; i < ng.vertex.size(); ++i) {
    ng.local.emplace(ng.vertex[i], i);
    boost::add_vertex(ng.graph);
  }
  for (std::size_t i = 0; i < ng.vertex.size(); ++i)
    for (auto [e, end] = boost::out_edges(ng.vertex[i], g); e != end; ++e) {
      const auto to = ng.local.find(boost::target(*e, g));
      if (to != ng.local.end() && !edge_down_[static_cast<std::size_t>(g[*e].id)])
        boost::add_edge(to->second, i, cost_of(g[*e]), ng.graph);
    }
  return ng;
}

Router::Distances Router::node_distances_to(VertexId dst) const {
  const int node = topo_.vertex(dst).node;
  const auto& ng = node_graph(node);
  const std::size_t from = ng.local.at(dst);
  // Only the destination and the vertices traffic may cross inside the server are expanded.
  auto keep = [this, &ng, from, node](SwitchGraph::edge_descriptor e) {
    const auto u = boost::source(e, ng.graph);
    return u == from || may_transit(Domain::node, ng.vertex[u], node);
  };
  boost::filtered_graph<SwitchGraph, std::function<bool(SwitchGraph::edge_descriptor)>> fg(ng.graph, keep);
  std::vector<std::int64_t> d(ng.vertex.size(), kUnreachable);
  boost::dijkstra_shortest_paths_no_color_map(
      fg, from,
      boost::distance_map(
          boost::make_iterator_property_map(d.begin(), boost::get(boost::vertex_index, ng.graph)))
          .weight_map(boost::get(boost::edge_weight, ng.graph))
          .distance_inf(kUnreachable));
  Distances dist;
  for (std::size_t i = 0; i < d.size(); ++i)
    if (d[i] < kUnreachable)
      dist.emplace(ng.vertex[i], d[i]);
  return dist;
}

const Router::Distances& Router::distances_to(Domain d, VertexId dst) const {
  const auto key = std::make_pair(static_cast<int>(d), dst);
  auto it = dist_cache_.find(key);
  if (it != dist_cache_.end())
    return it->second;
  if (d == Domain::fabric && switch_of_.contains(dst))
    return dist_cache_.emplace(key, switch_distances_to(dst)).first->second;
  if (d == Domain::node)
    return dist_cache_.emplace(key, node_distances_to(dst)).first->second;
  const Graph& g = topo_.graph();
  const int node = g[dst].node;
  using Reverse = boost::reverse_graph<Graph, const Graph&>;
  Reverse rg(g);
  // In the reversed graph an edge leaves u towards a vertex that would route *through* u, so only
  // vertices the domain lets traffic cross (or the destination itself) may be expanded. Between NICs
  // the field holds the switches alone: a source NIC (or storage server) is one up-link from them, added
  // when it routes (Router::route), so that a field does not grow with the cluster's NICs.
  auto keep = [this, d, dst, node, &rg, &g](Reverse::edge_descriptor e) {
    if (edge_down_[static_cast<std::size_t>(g[boost::get(boost::edge_underlying, rg, e)].id)])
      return false;
    const VertexId u = boost::source(e, rg);
    if (d == Domain::fabric && !may_transit(d, boost::target(e, rg), node))
      return false;
    return u == dst || may_transit(d, u, node);
  };
  boost::filtered_graph<Reverse, std::function<bool(Reverse::edge_descriptor)>> fg(rg, keep);
  Distances dist;
  const SparseDistanceMap distance{&dist};
  put(distance, dst, 0);
  auto weight = boost::make_function_property_map<Reverse::edge_descriptor, std::int64_t>(
      [&g, &rg](Reverse::edge_descriptor e) {
        return cost_of(g[boost::get(boost::edge_underlying, rg, e)]);
      });
  // The search without initialisation visits only what it reaches: the cost of a route inside a node
  // does not grow with the cluster.
  boost::dijkstra_shortest_paths_no_color_map_no_init(
      fg, dst, boost::dummy_property_map(), distance, weight, boost::get(boost::vertex_index, g),
      std::less<std::int64_t>(), boost::closed_plus<std::int64_t>(kUnreachable), kUnreachable,
      std::int64_t{0}, boost::default_dijkstra_visitor());
  return dist_cache_.emplace(key, std::move(dist)).first->second;
}

std::vector<EdgeId> Router::route(VertexId src, VertexId dst, std::uint64_t label) const {
  std::vector<EdgeId> path;
  if (src == dst)
    return path;
  const Graph& g = topo_.graph();
  const Domain d = domain_of(src, dst);
  const int node = g[dst].node;
  // Distances to dst. Between NICs, a NIC is entered only from its leaf: its distances are its leaf's
  // plus that last link, so one search per leaf serves every NIC below it.
  const Distances* field = nullptr;
  std::int64_t last_hop = 0;
  VertexId via = dst;
  if (d == Domain::fabric && (g[dst].kind == VertexKind::nic || g[dst].kind == VertexKind::storage)) {
    int feeders = 0;
    for (auto [e, end] = boost::in_edges(dst, g); e != end; ++e) {
      const VertexId w = boost::source(*e, g);
      if (may_transit(d, w, node)) {
        ++feeders;
        via = w;
        last_hop = cost_of(g[*e]);
      }
    }
    if (feeders != 1) {
      via = dst;
      last_hop = 0;
    }
  }
  field = &distances_to(d, via);
  auto dist = [&](VertexId w) -> std::int64_t {
    if (w == dst)
      return 0;
    const auto x = field->find(w);
    return x == field->end() ? kUnreachable : x->second + last_hop;
  };
  // A source the fabric's field leaves out (a NIC, a storage server) is its best up-link away from it.
  auto dist_of_source = [&]() -> std::int64_t {
    const std::int64_t here = dist(src);
    if (here < kUnreachable || d != Domain::fabric || may_transit(d, src, node))
      return here;
    std::int64_t best = kUnreachable;
    for (auto [e, end] = boost::out_edges(src, g); e != end; ++e) {
      const VertexId w = boost::target(*e, g);
      if (edge_down_[static_cast<std::size_t>(g[*e].id)] || (w != dst && !may_transit(d, w, node)))
        continue;
      if (const std::int64_t there = dist(w); there < kUnreachable)
        best = std::min(best, there + cost_of(g[*e]));
    }
    return best;
  };
  const std::int64_t from_source = dist_of_source();
  if (from_source >= kUnreachable)
    throw std::runtime_error(fmt::format("no route from {} to {}", g[src].name, g[dst].name));
  VertexId v = src;
  std::vector<EdgeId> candidates;
  while (v != dst) {
    candidates.clear();
    const std::int64_t here = v == src ? from_source : dist(v);
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      const VertexId w = boost::target(*e, g);
      if (edge_down_[static_cast<std::size_t>(g[*e].id)] || (w != dst && !may_transit(d, w, node)))
        continue;
      const std::int64_t there = dist(w);
      if (there < kUnreachable && there + cost_of(g[*e]) == here)
        candidates.push_back(g[*e].id);
    }
    if (candidates.empty())
      throw std::runtime_error(fmt::format("routing table inconsistent at {}", g[v].name));
    std::size_t pick = 0;
    const auto at = g[v].kind;
    const bool fabric_switch = at == VertexKind::leaf || at == VertexKind::spine || at == VertexKind::core;
    if (candidates.size() > 1 && pinned_ && fabric_switch) {
      pick = static_cast<std::size_t>(slice_[dst] % candidates.size());
    } else if (candidates.size() > 1) {
      std::uint64_t h =
          mix(seed_ ^ mix(hash_key_[src] * 0x100000001b3ULL ^ mix(hash_key_[dst] ^ mix(hash_key_[v]))));
      if (label != 0)
        h = mix(h ^ mix(label * 0x9e3779b97f4a7c15ULL));
      pick = static_cast<std::size_t>(h % candidates.size());
    }
    path.push_back(candidates[pick]);
    v = topo_.edge_target(candidates[pick]);
  }
  return path;
}

std::vector<EdgeId> Router::route_via(std::initializer_list<VertexId> waypoints) const {
  std::vector<EdgeId> path;
  const VertexId* prev = nullptr;
  for (const VertexId& w : waypoints) {
    if (prev != nullptr) {
      auto part = route(*prev, w);
      path.insert(path.end(), part.begin(), part.end());
    }
    prev = &w;
  }
  return path;
}

units::Seconds Router::latency(const std::vector<EdgeId>& route) const {
  units::Seconds t;
  for (const auto& e : route)
    t += topo_.edge(e).latency;
  return t;
}

units::DataRate Router::bottleneck(const std::vector<EdgeId>& route) const {
  double bw = std::numeric_limits<double>::infinity();
  for (const auto& e : route)
    bw = std::min(bw, topo_.edge(e).bandwidth.si());
  return units::DataRate::from_si(bw);
}

} // namespace dpusim::topology
