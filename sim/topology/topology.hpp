// The cluster as a graph (Boost.Graph): GPUs, NVSwitch, PCIe switches, host CPU, NICs, leaf and spine
// switches as vertices; every full-duplex link as two directed edges with bandwidth and latency. The
// SimGrid platform and every route are derived from this graph.
#pragma once

#include "models/core/units.hpp"
#include "sim/topology/fabric_kind.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <optional>
#include <string>
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
using VertexId = Graph::vertex_descriptor;
using EdgeId = int; // EdgeProps::id: stable across copies of the topology, unlike Boost edge descriptors

/// Link characteristics inside one node (from the node, GPU and NIC catalog entries).
struct NodeLayout {
  int gpus = 8;
  int nics = 8; // compute NICs (one port each)
  int pcie_switches = 4;
  /// Compute trays of the node's NVLink domain, each with its own host CPU, PCIe switches, GPUs and
  /// NICs (pcie_switches, gpus and nics split evenly over them); the GPUs of every tray share the
  /// node's NVLink switch.
  int trays = 1;
  units::DataRate nvlink_per_gpu; // per direction, GPU <-> NVSwitch
  units::Seconds nvlink_latency;
  units::DataRate pcie_gpu;    // per direction, GPU <-> PCIe switch
  units::DataRate pcie_nic;    // per direction, NIC <-> PCIe switch
  units::DataRate pcie_uplink; // per direction, PCIe switch <-> CPU root port
  units::Seconds pcie_latency;
  units::DataRate nic_line_rate; // per port, per direction
  units::Seconds nic_latency;    // NIC processing latency, charged on its port link
  /// A BlueField in place of each NIC: an internal PCIe switch joins the host, the ConnectX core and the
  /// Arm complex, so traffic between the host and the Arm cores crosses it twice.
  bool dpu = false;
  units::DataRate dpu_internal_pcie; // per direction, each internal PCIe link of the DPU
};

/// Storage servers: attached to the training fabric's leaves, or (`separate`) to a storage switch of
/// their own that every node reaches through one storage NIC port of `node_link`.
struct StorageLayout {
  int servers = 0;
  units::DataRate link; // each server's network port
  bool separate = false;
  units::DataRate node_link; // with `separate`: each tray's storage port
  units::DataRate node_pcie; // with `separate`: the storage port's PCIe link to its tray's CPU (0: the
                             // training NICs')
  /// With `separate`: each tray's storage port is a DPU (a front-end BlueField beside the training NICs):
  /// an internal PCIe switch of `node_pcie` joins the host, the port and its Arm complex.
  bool dpu = false;
};

/// Other tenants' jobs sharing the fabric: `flows` endpoints on every leaf, each sending to its peer on
/// the next leaf without end, so that their flows cross the leaf-spine links the job uses. Each
/// endpoint's port runs at `uplink_share` of its leaf's up-link bandwidth divided by `flows`: 1 lets them
/// take what max-min sharing gives them, less models a rate limit enforced on them.
struct TenantLayout {
  int flows = 0;
  double uplink_share = 1.0;
};

struct FabricLayout {
  FabricKind kind = FabricKind::fat_tree;
  int tiers = 0;                 // 2 (leaf/spine) or 3 (pods of leaves and spines joined by cores); 0: the
                                 // fewest that hold the cluster
  units::DataRate link;          // switch-to-switch link speed (leaf <-> NIC runs at the NIC line rate)
  units::Seconds latency;        // per switch hop
  double oversubscription = 1.0; // leaf down-link to up-link bandwidth ratio
  double core_oversubscription = 1.0; // three tiers: a pod spine's down-link to up-link bandwidth ratio
  int switch_radix = 64;              // ports per switch
  /// Adaptive routing, as an ideal fluid: each pod's spines stand as one switch whose link to a leaf has
  /// the rate of all that leaf's up-links, and the cores as one whose link to a pod has the rate of all
  /// that pod's core links (docs/models/routing.md).
  bool pooled = false;
};

struct ClusterLayout {
  int nodes = 1;
  NodeLayout node;
  FabricLayout fabric;
  StorageLayout storage;
  TenantLayout tenants;
  /// Where the scheduler placed the job's nodes: node n (the n-th in rank order) is wired where node
  /// node_slot[n] of a packed placement would be. Empty: packed (node n at position n).
  std::vector<int> node_slot;
};

/// The fabric's dimensions for a cluster, computed before any of it is built; throws
/// std::invalid_argument when the fabric cannot hold the cluster (the message says which limit).
struct FabricShape {
  int down_ports = 0;     // NIC ports per leaf
  int nodes_per_leaf = 0; // fat-tree: hosts (servers, or trays of a rack) on one leaf
  int leaves = 0;
  int uplinks = 0;            // per leaf, in links of the fabric's speed
  int spines = 0;             // per pod
  double links_per_spine = 1; // parallel links between a leaf and each spine of its pod
  int tiers = 1;              // 1 (one leaf), 2 or 3
  int pods = 1;               // three tiers: pods of leaves_per_pod leaves
  int leaves_per_pod = 0;
  int cores_per_plane = 0;   // three tiers: core switches joining spine j of every pod
  double links_per_core = 1; // parallel links between a spine and each core of its plane
};
FabricShape fabric_shape(const ClusterLayout& layout);
/// The fabric joins hosts: a server, or each tray of a rack, with its share of the node's NICs.
[[nodiscard]] inline int fabric_hosts(const ClusterLayout& layout) {
  return layout.nodes * layout.node.trays;
}
[[nodiscard]] inline int nics_per_host(const NodeLayout& n) {
  return n.nics / n.trays;
}
/// The leaf that NIC `local_nic` of `node` plugs into: its host's top-of-rack leaf (fat-tree), or the
/// leaf of its rail (its index among its host's NICs) in its group of hosts (rail-optimized).
[[nodiscard]] int leaf_of_nic(const ClusterLayout& layout, const FabricShape& shape, int node, int local_nic);

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
