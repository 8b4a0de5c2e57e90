#include "sim/topology/router.hpp"

#include <boost/graph/dijkstra_shortest_paths.hpp>
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

} // namespace

Router::Router(const Topology& topology, std::uint64_t seed) : topo_(topology), seed_(seed) {}

std::int64_t Router::cost_of(const EdgeProps& p) {
  // Integer costs keep equal-cost paths exactly equal whatever order they are summed in.
  return kHopCost + std::llround(1e12 / p.bandwidth.si()) + std::llround(p.latency.si() * 1e9);
}

const std::vector<std::int64_t>& Router::distances_to(VertexId dst) const {
  auto it = dist_cache_.find(dst);
  if (it != dist_cache_.end())
    return it->second;
  const Graph& g = topo_.graph();
  using Reverse = boost::reverse_graph<Graph, const Graph&>;
  Reverse rg(g);
  // In the reversed graph an edge leaves u towards a vertex that would route *through* u, so only
  // transit vertices (or the destination itself) may be expanded.
  auto keep = [this, dst, &rg](Reverse::edge_descriptor e) {
    const VertexId u = boost::source(e, rg);
    return u == dst || topo_.is_transit(u);
  };
  boost::filtered_graph<Reverse, std::function<bool(Reverse::edge_descriptor)>> fg(rg, keep);
  std::vector<std::int64_t> dist(boost::num_vertices(g), kUnreachable);
  auto weight = boost::make_function_property_map<Reverse::edge_descriptor, std::int64_t>(
      [&g, &rg](Reverse::edge_descriptor e) {
        return cost_of(g[boost::get(boost::edge_underlying, rg, e)]);
      });
  boost::dijkstra_shortest_paths(
      fg, dst,
      boost::weight_map(weight)
          .distance_map(boost::make_iterator_property_map(dist.begin(), boost::get(boost::vertex_index, g)))
          .distance_inf(kUnreachable)
          .distance_zero(std::int64_t{0}));
  return dist_cache_.emplace(dst, std::move(dist)).first->second;
}

std::vector<EdgeId> Router::route(VertexId src, VertexId dst) const {
  std::vector<EdgeId> path;
  if (src == dst)
    return path;
  const auto& dist = distances_to(dst);
  const Graph& g = topo_.graph();
  if (dist[src] >= kUnreachable)
    throw std::runtime_error(fmt::format("no route from {} to {}", g[src].name, g[dst].name));
  VertexId v = src;
  std::vector<EdgeId> candidates;
  while (v != dst) {
    candidates.clear();
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      const VertexId w = boost::target(*e, g);
      if (w != dst && !topo_.is_transit(w))
        continue;
      if (dist[w] < kUnreachable && dist[w] + cost_of(g[*e]) == dist[v])
        candidates.push_back(g[*e].id);
    }
    if (candidates.empty())
      throw std::runtime_error(fmt::format("routing table inconsistent at {}", g[v].name));
    std::size_t pick = 0;
    if (candidates.size() > 1) {
      const std::uint64_t h = mix(seed_ ^ mix(static_cast<std::uint64_t>(src) * 0x100000001b3ULL ^
                                              mix(static_cast<std::uint64_t>(dst) ^ mix(v))));
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
