// The cluster's layout, before any graph is built: what a node holds and how fast its links are, the
// storage, other tenants and the fabric, the fabric's dimensions, and the ids of the topology's vertices
// and edges. Most of the simulator needs no more than this of the topology (sim/topology/topology.hpp,
// which builds the graph with Boost.Graph, includes it).
#pragma once

#include "models/base/units.hpp"
#include "sim/topology/fabric_kind.hpp"

#include <cstddef>
#include <vector>

namespace dpusim::topology {

class Topology;
class Router;
using VertexId = std::size_t; // a vertex of Topology::graph() (its vertex_descriptor)
using EdgeId = int; // EdgeProps::id: stable across copies of the topology, unlike Boost edge descriptors

/// Switches and links that are down: routes avoid them, and ECMP spreads over what remains.
struct Failures {
  std::vector<VertexId> vertices;
  std::vector<EdgeId> edges; // each direction is an edge of its own
};

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

} // namespace dpusim::topology
