// Routes derived from the topology graph: least-cost paths (hops first, then faster links), transit
// only through switches (and NICs, between a GPU and the fabric), and equal-cost multi-path choices made per
// hop by a hash of (seed, source, destination, hop) — deterministic for a seed, like a switch hashing a
// flow's 5-tuple.
#pragma once

#include "sim/topology/topology.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <unordered_map>
#include <vector>

namespace dpusim::topology {

class Router {
public:
  /// With `routing` pinned, a switch's equal-cost choice is the destination's slice (its index among the
  /// endpoints below its leaf) modulo the ports it may take, whatever the seed and connection label:
  /// destination-based path pinning (docs/models/routing.md). Otherwise ECMP hashing.
  Router(const Topology& topology, std::uint64_t seed, const Failures& failures = {},
         Routing routing = Routing::ecmp);

  /// The directed edges from `src` to `dst`; throws std::runtime_error when there is no path. `label`
  /// tells apart connections between the same two ends (a queue pair's or socket's source port): each
  /// label is hashed on its own at every ECMP choice; label 0 is the connection every route has.
  [[nodiscard]] std::vector<EdgeId> route(VertexId src, VertexId dst, std::uint64_t label = 0) const;
  /// A route forced through the given waypoints in order (e.g. GPU -> its NIC -> peer NIC -> peer GPU).
  [[nodiscard]] std::vector<EdgeId> route_via(std::initializer_list<VertexId> waypoints) const;
  /// Sum of the latencies of a route's edges.
  [[nodiscard]] units::Seconds latency(const std::vector<EdgeId>& route) const;
  /// The slowest edge of a route.
  [[nodiscard]] units::DataRate bottleneck(const std::vector<EdgeId>& route) const;

private:
  /// Which vertices a route may cross: inside one server (NVSwitch, PCIe switches), between NICs
  /// (leaves and spines), or anywhere a switch or NIC is.
  enum class Domain { node, fabric, any };
  [[nodiscard]] Domain domain_of(VertexId src, VertexId dst) const;
  [[nodiscard]] bool may_transit(Domain d, VertexId v, int node) const;
  /// Least-cost distance to `dst` of every vertex that can reach it within the domain (absent: none).
  using Distances = std::unordered_map<VertexId, std::int64_t>;
  const Distances& distances_to(Domain d, VertexId dst) const;
  /// Between NICs towards a switch: the search over the fabric's switches alone (switches_), whose
  /// size does not grow with the cluster's NICs and servers.
  [[nodiscard]] Distances switch_distances_to(VertexId dst) const;
  /// Inside one server: the search over that server's vertices alone (node_graph).
  [[nodiscard]] Distances node_distances_to(VertexId dst) const;
  static std::int64_t cost_of(const EdgeProps& p);

  const Topology& topo_;
  std::uint64_t seed_;
  std::vector<std::uint64_t> hash_key_; // by vertex: its identity for ECMP hashing (see the constructor)
  bool pinned_ = false;
  std::vector<std::uint64_t> slice_; // by vertex: a fabric endpoint's index below its leaf (pinned routing)
  std::vector<bool> vertex_down_;    // by vertex
  std::vector<bool> edge_down_;      // by edge id
  /// The fabric's switches that are up and the links between them that are up, each link weighted by
  /// its cost; reversed, so that a search from a destination follows the links backwards.
  using SwitchGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS, boost::no_property,
                                            boost::property<boost::edge_weight_t, std::int64_t>>;
  SwitchGraph switches_;
  std::vector<VertexId> switch_vertex_;                 // by switch index: its topology vertex
  std::unordered_map<VertexId, std::size_t> switch_of_; // topology vertex -> switch index
  /// One server's vertices and the links between them that are up (each vertex's cost-weighted links,
  /// reversed), built when a route first needs it.
  struct NodeGraph {
    SwitchGraph graph;
    std::vector<VertexId> vertex;                    // by local index: its topology vertex
    std::unordered_map<VertexId, std::size_t> local; // topology vertex -> local index
  };
  const NodeGraph& node_graph(int node) const;
  std::vector<std::vector<VertexId>> node_vertices_; // by server: its vertices
  mutable std::unordered_map<int, NodeGraph> node_graphs_;
  // Memo of least-cost distance fields per destination (routing is a pure function of the graph). Sparse:
  // a field inside one server holds a few vertices, not the whole cluster's.
  mutable std::map<std::pair<int, VertexId>, Distances> dist_cache_;
};

} // namespace dpusim::topology
