// The cluster as a graph (Boost.Graph): GPUs, NVSwitch, PCIe switches, host CPU, NICs, leaf and spine
// switches as vertices; every full-duplex link as two directed edges with bandwidth and latency. The
// SimGrid platform and every route are derived from this graph. What needs only the cluster's layout,
// or a vertex's or an edge's id, includes sim/topology/layout.hpp instead (no Boost.Graph).
#pragma once

#include "models/base/units.hpp"
#include "sim/topology/layout.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace dpusim::topology {

enum class VertexKind {
  gpu,
  nvswitch,
  pcie_switch,
  host_cpu,
  nic,
  leaf,
  spine,
  core, // third tier: joins the pods' spines
  dpu_switch,
  dpu_arm,
  storage,
  tenant // an endpoint of other tenants' traffic, attached to a leaf
};
enum class LinkKind { nvlink, pcie, nic_port, fabric };
std::string_view vertex_kind_name(VertexKind k);
std::string_view link_kind_name(LinkKind k);

struct VertexProps {
  VertexKind kind = VertexKind::gpu;
  std::string name; // unique, e.g. "n3.gpu5", "leaf2", "spine7"
  int node = -1;    // owning node, -1 for fabric switches
  int local = -1;   // index inside the node (GPU, NIC, PCIe switch)
};

struct EdgeProps {
  int id = 0; // dense index, 0..num_edges-1
  LinkKind kind = LinkKind::fabric;
  units::DataRate bandwidth; // per direction
  units::Seconds latency;
};

using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, VertexProps, EdgeProps>;
static_assert(std::is_same_v<VertexId, Graph::vertex_descriptor>);

class Topology {
public:
  /// Builds nodes and the fabric: leaves and spines (two tiers), or pods of leaves and spines joined by
  /// core switches (three tiers); throws std::invalid_argument when the fabric cannot hold the cluster
  /// (the message says which limit and what to change).
  static Topology build(const ClusterLayout& layout);

  [[nodiscard]] const Graph& graph() const { return g_; }
  [[nodiscard]] const ClusterLayout& layout() const { return layout_; }
  [[nodiscard]] int num_edges() const { return num_edges_; }

  [[nodiscard]] VertexId gpu(int global_gpu) const { return gpus_.at(global_gpu); }
  /// The host CPU of a node's tray (tray 0 of a single-server node).
  [[nodiscard]] VertexId host_cpu(int node, int tray = 0) const {
    return cpus_.at(static_cast<std::size_t>(node * layout_.node.trays + tray));
  }
  /// The tray of a GPU or NIC of a node (by its index in the node): the tray of its PCIe switch.
  [[nodiscard]] int tray_of_gpu(int local_gpu) const;
  [[nodiscard]] int tray_of_nic(int local_nic) const;
  [[nodiscard]] VertexId nic(int node, int local_nic) const {
    return nics_.at(node * layout_.node.nics + local_nic);
  }
  /// The Arm complex of the DPU in NIC slot `local_nic` (only with NodeLayout::dpu).
  [[nodiscard]] VertexId dpu_arm(int node, int local_nic) const {
    return arms_.at(node * layout_.node.nics + local_nic);
  }
  [[nodiscard]] VertexId storage(int server) const { return storage_.at(server); }
  [[nodiscard]] int num_storage() const { return static_cast<int>(storage_.size()); }
  /// With a separate storage fabric: the storage NIC of a node's tray (else std::nullopt).
  [[nodiscard]] std::optional<VertexId> storage_nic(int node, int tray = 0) const {
    if (storage_nics_.empty())
      return std::nullopt;
    return storage_nics_.at(static_cast<std::size_t>(node * layout_.node.trays + tray));
  }
  /// With a storage port that is a DPU: the Arm complex of a tray's front-end DPU (else std::nullopt).
  [[nodiscard]] std::optional<VertexId> storage_arm(int node, int tray = 0) const {
    if (storage_arms_.empty())
      return std::nullopt;
    return storage_arms_.at(static_cast<std::size_t>(node * layout_.node.trays + tray));
  }
  /// Cross-traffic endpoint `i` of every leaf, leaf-major (empty without tenants or with one leaf).
  [[nodiscard]] VertexId tenant(int index) const { return tenants_.at(index); }
  [[nodiscard]] int num_tenants() const { return static_cast<int>(tenants_.size()); }
  /// The NIC that a GPU uses for inter-node traffic (the one behind its PCIe switch).
  [[nodiscard]] int nic_of_gpu(int local_gpu) const;
  [[nodiscard]] int node_of_gpu(int global_gpu) const { return global_gpu / layout_.node.gpus; }
  [[nodiscard]] int num_leaves() const { return static_cast<int>(leaves_.size()); }
  [[nodiscard]] int num_spines() const { return static_cast<int>(spines_.size()); }
  [[nodiscard]] int num_cores() const { return static_cast<int>(cores_.size()); }
  /// Tiers of the fabric as built (2 or 3) and, with 3, the number of pods.
  [[nodiscard]] int tiers() const { return tiers_; }
  [[nodiscard]] int num_pods() const { return pods_; }
  [[nodiscard]] const VertexProps& vertex(VertexId v) const { return g_[v]; }
  [[nodiscard]] const EdgeProps& edge(EdgeId e) const { return edge_props_[static_cast<std::size_t>(e)]; }
  [[nodiscard]] VertexId edge_source(EdgeId e) const { return edge_ends_[static_cast<std::size_t>(e)].first; }
  [[nodiscard]] VertexId edge_target(EdgeId e) const {
    return edge_ends_[static_cast<std::size_t>(e)].second;
  }
  /// Vertices that may carry traffic between other vertices (switches and NICs; not GPUs or CPUs).
  [[nodiscard]] bool is_transit(VertexId v) const;

private:
  VertexId add_vertex(VertexKind kind, std::string name, int node, int local);
  void add_link(VertexId a, VertexId b, LinkKind kind, units::DataRate bw, units::Seconds latency);

  ClusterLayout layout_;
  Graph g_;
  int num_edges_ = 0;
  std::vector<std::pair<VertexId, VertexId>> edge_ends_; // by EdgeProps::id
  std::vector<EdgeProps> edge_props_;
  std::vector<VertexId> gpus_, cpus_, nics_, arms_, leaves_, spines_, cores_, storage_, tenants_;
  int tiers_ = 1; // a single leaf has no upper tier
  int pods_ = 1;
  std::vector<VertexId> storage_nics_; // by node and tray, with a separate storage fabric
  std::vector<VertexId> storage_arms_; // by node and tray, when the storage ports are DPUs
};

} // namespace dpusim::topology
