#include "sim/topology/topology.hpp"

#include <fmt/format.h>
#include <stdexcept>

namespace dpusim::topology {

std::string_view vertex_kind_name(VertexKind k) {
  switch (k) {
  case VertexKind::gpu:
    return "gpu";
  case VertexKind::nvswitch:
    return "nvswitch";
  case VertexKind::pcie_switch:
    return "pcie_switch";
  case VertexKind::host_cpu:
    return "host_cpu";
  case VertexKind::nic:
    return "nic";
  case VertexKind::leaf:
    return "leaf";
  case VertexKind::spine:
    return "spine";
  case VertexKind::core:
    return "core";
  case VertexKind::dpu_switch:
    return "dpu_switch";
  case VertexKind::dpu_arm:
    return "dpu_arm";
  case VertexKind::storage:
    return "storage";
  case VertexKind::tenant:
    return "tenant";
  }
  return "?";
}

std::string_view link_kind_name(LinkKind k) {
  switch (k) {
  case LinkKind::nvlink:
    return "nvlink";
  case LinkKind::pcie:
    return "pcie";
  case LinkKind::nic_port:
    return "nic_port";
  case LinkKind::fabric:
    return "fabric";
  }
  return "?";
}

std::string_view fabric_kind_name(FabricKind k) {
  return k == FabricKind::fat_tree ? "fat-tree" : "rail-optimized";
}

VertexId Topology::add_vertex(VertexKind kind, std::string name, int node, int local) {
  return boost::add_vertex(VertexProps{kind, std::move(name), node, local}, g_);
}

void Topology::add_link(VertexId a, VertexId b, LinkKind kind, units::DataRate bw, units::Seconds latency) {
  for (auto [from, to] : {std::pair{a, b}, std::pair{b, a}}) {
    const EdgeProps props{num_edges_, kind, bw, latency};
    boost::add_edge(from, to, props, g_);
    edge_ends_.emplace_back(from, to);
    edge_props_.push_back(props);
    ++num_edges_;
  }
}

int Topology::nic_of_gpu(int local_gpu) const {
  const auto& n = layout_.node;
  return local_gpu * n.nics / n.gpus;
}

namespace {
int tray_of_switch(const NodeLayout& n, int pcie_switch) {
  return pcie_switch * n.trays / n.pcie_switches;
}
} // namespace

int Topology::tray_of_gpu(int local_gpu) const {
  const auto& n = layout_.node;
  return tray_of_switch(n, local_gpu * n.pcie_switches / n.gpus);
}

int Topology::tray_of_nic(int local_nic) const {
  const auto& n = layout_.node;
  return tray_of_switch(n, local_nic * n.pcie_switches / n.nics);
}

bool Topology::is_transit(VertexId v) const {
  switch (g_[v].kind) {
  case VertexKind::nvswitch:
  case VertexKind::pcie_switch:
  case VertexKind::nic:
  case VertexKind::leaf:
  case VertexKind::spine:
  case VertexKind::core:
  case VertexKind::dpu_switch:
    return true;
  case VertexKind::gpu:
  case VertexKind::host_cpu:
  case VertexKind::dpu_arm:
  case VertexKind::storage:
  case VertexKind::tenant:
    return false;
  }
  return false;
}

FabricShape fabric_shape(const ClusterLayout& layout) {
  const auto& n = layout.node;
  const auto& f = layout.fabric;
  if (n.gpus < 1 || n.nics < 1 || n.pcie_switches < 1)
    throw std::invalid_argument("a node needs at least one GPU, one NIC and one PCIe switch");
  if (n.trays < 1 || n.pcie_switches % n.trays != 0 || n.nics % n.trays != 0)
    throw std::invalid_argument(fmt::format("a node's {} PCIe switches and {} NICs do not split evenly over "
                                            "its {} trays",
                                            n.pcie_switches, n.nics, n.trays));
  if (f.tiers != 0 && f.tiers != 2 && f.tiers != 3)
    throw std::invalid_argument(fmt::format("a fabric has 2 or 3 tiers, not {}", f.tiers));
  FabricShape sh;
  // Leaves: down ports per leaf follow from the radix and the oversubscription (down:up = o:1).
  const int radix = f.switch_radix;
  sh.down_ports = static_cast<int>(radix * f.oversubscription / (f.oversubscription + 1.0));
  if (sh.down_ports < 1 || sh.down_ports >= radix)
    throw std::invalid_argument(fmt::format(
        "oversubscription {:g}:1 leaves no usable ports on a {}-port switch", f.oversubscription, radix));
  const int hosts = fabric_hosts(layout);
  const int nics = nics_per_host(n);
  if (f.kind == FabricKind::fat_tree) {
    // Top-of-rack style: all NICs of a host on the same leaf.
    sh.nodes_per_leaf = sh.down_ports / nics;
    if (sh.nodes_per_leaf < 1)
      throw std::invalid_argument(
          fmt::format("a {}'s {} NIC ports do not fit on one leaf's {} down ports; use "
                      "topology: rail-optimized or a larger switch_radix",
                      n.trays > 1 ? "tray" : "node", nics, sh.down_ports));
    sh.leaves = (hosts + sh.nodes_per_leaf - 1) / sh.nodes_per_leaf;
  } else {
    // Rail-optimized: NIC k of every host in a group of down_ports hosts on rail leaf k of that group.
    sh.leaves = (hosts + sh.down_ports - 1) / sh.down_ports * nics;
  }
  if (sh.leaves < 2)
    return sh;
  // Up-link bandwidth per leaf = its down-link bandwidth / oversubscription, spread over the spines
  // with one link from every leaf to every spine (of its pod).
  const double down_bw = sh.down_ports * n.nic_line_rate.si();
  sh.uplinks = std::max(1, static_cast<int>(std::ceil(down_bw / f.oversubscription / f.link.si() - 1e-9)));
  sh.spines = std::min(sh.uplinks, radix);
  sh.links_per_spine = static_cast<double>(sh.uplinks) / sh.spines;
  sh.tiers = f.tiers != 0 ? f.tiers : (sh.leaves <= radix ? 2 : 3);
  if (sh.tiers == 2) {
    if (sh.leaves > radix)
      throw std::invalid_argument(
          fmt::format("{} leaves exceed the {} ports of a spine switch: a two-tier fabric of {}-port "
                      "switches holds at most {} leaves; use tiers: 3 (or leave tiers out)",
                      sh.leaves, radix, radix, radix));
    sh.leaves_per_pod = sh.leaves;
    return sh;
  }
  // Three tiers: pods of leaves, each with its own spines, and core switches in planes (spine j of every
  // pod links to the cores of plane j). A spine splits its ports between leaves and cores by
  // `core_oversubscription`; a core switch holds one spine of each pod. A pod holds whole groups of
  // leaves: a rail group (one leaf per NIC index) or a single leaf.
  const int spine_down = static_cast<int>(radix * f.core_oversubscription / (f.core_oversubscription + 1.0));
  const int group = f.kind == FabricKind::rail_optimized ? nics : 1;
  sh.leaves_per_pod = static_cast<int>(std::floor(spine_down / sh.links_per_spine + 1e-9)) / group * group;
  if (spine_down < 1 || spine_down >= radix || sh.leaves_per_pod < 1)
    throw std::invalid_argument(
        fmt::format("a {}-port spine with core oversubscription {:g}:1 cannot hold a pod of {} leaves", radix,
                    f.core_oversubscription, group));
  sh.pods = (sh.leaves + sh.leaves_per_pod - 1) / sh.leaves_per_pod;
  if (sh.pods > radix)
    throw std::invalid_argument(fmt::format(
        "{} pods of {} leaves exceed the {} ports of a core switch: a three-tier fabric of {}-port "
        "switches holds at most {} leaves",
        sh.pods, sh.leaves_per_pod, radix, radix, radix * sh.leaves_per_pod));
  // Up-links of one spine, in links: its pod's down-link bandwidth / core oversubscription.
  const double down_links = sh.leaves_per_pod * sh.links_per_spine;
  const int up_links = std::max(1, static_cast<int>(std::ceil(down_links / f.core_oversubscription - 1e-9)));
  sh.cores_per_plane = std::min(up_links, std::max(1, (sh.pods * up_links + radix - 1) / radix));
  sh.links_per_core = static_cast<double>(up_links) / sh.cores_per_plane;
  return sh;
}

int leaf_of_nic(const ClusterLayout& layout, const FabricShape& shape, int node, int local_nic) {
  const auto& n = layout.node;
  const int nics = nics_per_host(n);
  const int slot = layout.node_slot.empty() ? node : layout.node_slot[static_cast<std::size_t>(node)];
  const int host = slot * n.trays + local_nic / nics; // a tray's NICs are consecutive
  return layout.fabric.kind == FabricKind::fat_tree
             ? host / std::max(1, shape.nodes_per_leaf)
             : (host / std::max(1, shape.down_ports)) * nics + local_nic % nics;
}

Topology Topology::build(const ClusterLayout& layout) {
  const auto& n = layout.node;
  const auto& f = layout.fabric;
  // The fabric's shape first: a cluster it cannot hold is rejected before any of it is built.
  const FabricShape shape = fabric_shape(layout);
  Topology t;
  t.layout_ = layout;
  // Nodes: GPUs on an NVSwitch, GPUs and NICs spread over PCIe switches, switches up to their tray's
  // CPU (a single server is one tray).
  for (int node = 0; node < layout.nodes; ++node) {
    for (int tray = 0; tray < n.trays; ++tray)
      t.cpus_.push_back(t.add_vertex(VertexKind::host_cpu,
                                     n.trays == 1 ? fmt::format("n{}.cpu", node)
                                                  : fmt::format("n{}.tray{}.cpu", node, tray),
                                     node, tray));
    const VertexId nvsw = t.add_vertex(VertexKind::nvswitch, fmt::format("n{}.nvswitch", node), node, 0);
    std::vector<VertexId> pcie;
    for (int s = 0; s < n.pcie_switches; ++s) {
      pcie.push_back(t.add_vertex(VertexKind::pcie_switch, fmt::format("n{}.pcie{}", node, s), node, s));
      t.add_link(pcie.back(), t.host_cpu(node, tray_of_switch(n, s)), LinkKind::pcie, n.pcie_uplink,
                 n.pcie_latency);
    }
    for (int g = 0; g < n.gpus; ++g) {
      const VertexId gpu = t.add_vertex(VertexKind::gpu, fmt::format("n{}.gpu{}", node, g), node, g);
      t.gpus_.push_back(gpu);
      if (n.gpus > 1)
        t.add_link(gpu, nvsw, LinkKind::nvlink, n.nvlink_per_gpu, n.nvlink_latency);
      t.add_link(gpu, pcie[static_cast<std::size_t>(g * n.pcie_switches / n.gpus)], LinkKind::pcie,
                 n.pcie_gpu, n.pcie_latency);
    }
    for (int k = 0; k < n.nics; ++k) {
      const VertexId nic = t.add_vertex(VertexKind::nic, fmt::format("n{}.nic{}", node, k), node, k);
      t.nics_.push_back(nic);
      const VertexId host_side = pcie[static_cast<std::size_t>(k * n.pcie_switches / n.nics)];
      if (!n.dpu) {
        t.add_link(nic, host_side, LinkKind::pcie, n.pcie_nic, n.pcie_latency);
        continue;
      }
      const VertexId sw =
          t.add_vertex(VertexKind::dpu_switch, fmt::format("n{}.dpu{}.pcie", node, k), node, k);
      const VertexId arm = t.add_vertex(VertexKind::dpu_arm, fmt::format("n{}.dpu{}.arm", node, k), node, k);
      t.arms_.push_back(arm);
      t.add_link(sw, host_side, LinkKind::pcie, n.pcie_nic, n.pcie_latency);
      t.add_link(sw, nic, LinkKind::pcie, n.dpu_internal_pcie, n.pcie_latency);
      t.add_link(sw, arm, LinkKind::pcie, n.dpu_internal_pcie, n.pcie_latency);
    }
  }

  // Fabric.
  std::vector<std::vector<VertexId>> leaf_down(static_cast<std::size_t>(shape.leaves)); // NICs on each leaf
  for (int node = 0; node < layout.nodes; ++node)
    for (int k = 0; k < n.nics; ++k) {
      const int leaf = leaf_of_nic(layout, shape, node, k);
      leaf_down[static_cast<std::size_t>(leaf)].push_back(
          t.nics_[static_cast<std::size_t>(node * n.nics + k)]);
    }
  const int leaves = shape.leaves;
  for (int l = 0; l < leaves; ++l) {
    t.leaves_.push_back(t.add_vertex(VertexKind::leaf, fmt::format("leaf{}", l), -1, l));
    for (VertexId nic : leaf_down[static_cast<std::size_t>(l)])
      t.add_link(nic, t.leaves_.back(), LinkKind::nic_port, n.nic_line_rate, n.nic_latency + f.latency);
  }
  // Storage servers, spread over the leaves.
  for (int s = 0; s < layout.storage.servers; ++s) {
    t.storage_.push_back(t.add_vertex(VertexKind::storage, fmt::format("storage{}", s), -1, s));
    if (!layout.storage.separate)
      t.add_link(t.storage_.back(), t.leaves_[static_cast<std::size_t>(s % leaves)], LinkKind::nic_port,
                 layout.storage.link, n.nic_latency + f.latency);
  }
  if (leaves > 1) {
    t.tiers_ = shape.tiers;
    t.pods_ = shape.pods;
    // Spines: one set per pod (a two-tier fabric is one pod), every leaf of the pod linked to each.
    // Pooled (adaptive routing): the pod's spines as one, linked to each leaf at all its up-links' rate.
    const int spines = f.pooled ? 1 : shape.spines;
    const double spine_links = shape.links_per_spine * (f.pooled ? shape.spines : 1);
    for (int p = 0; p < shape.pods; ++p)
      for (int s = 0; s < spines; ++s) {
        const std::string name = f.pooled ? (shape.tiers == 3 ? fmt::format("pod{}.spines", p) : "spines")
                                 : shape.tiers == 3 ? fmt::format("pod{}.spine{}", p, s)
                                                    : fmt::format("spine{}", s);
        t.spines_.push_back(t.add_vertex(VertexKind::spine, name, -1, p * spines + s));
        for (int l = p * shape.leaves_per_pod; l < std::min(leaves, (p + 1) * shape.leaves_per_pod); ++l)
          t.add_link(t.leaves_[static_cast<std::size_t>(l)], t.spines_.back(), LinkKind::fabric,
                     f.link * spine_links, f.latency);
      }
    // Cores (three tiers): plane s joins spine s of every pod. Pooled: one core joins the pods, each
    // link at the rate of all its pod's core links.
    const int planes = f.pooled ? 1 : shape.spines;
    const int cores = f.pooled ? 1 : shape.cores_per_plane;
    const double core_links = shape.links_per_core * (f.pooled ? shape.spines * shape.cores_per_plane : 1);
    for (int s = 0; s < planes && shape.tiers == 3; ++s)
      for (int c = 0; c < cores; ++c) {
        t.cores_.push_back(t.add_vertex(VertexKind::core,
                                        f.pooled ? std::string("cores") : fmt::format("core{}.{}", s, c), -1,
                                        s * cores + c));
        for (int p = 0; p < shape.pods; ++p)
          t.add_link(t.spines_[static_cast<std::size_t>(p * spines + s)], t.cores_.back(), LinkKind::fabric,
                     f.link * core_links, f.latency);
      }
    // Other tenants: their endpoints together may send up to `uplink_share` of a leaf's up-links.
    const auto& tn = layout.tenants;
    for (int l = 0; l < leaves && tn.flows > 0; ++l)
      for (int i = 0; i < tn.flows; ++i) {
        t.tenants_.push_back(
            t.add_vertex(VertexKind::tenant, fmt::format("tenant{}.{}", l, i), -1, l * tn.flows + i));
        t.add_link(t.tenants_.back(), t.leaves_[static_cast<std::size_t>(l)], LinkKind::nic_port,
                   f.link * (shape.uplinks * tn.uplink_share / tn.flows), n.nic_latency + f.latency);
      }
  }
  // A separate storage fabric, added last so that the training fabric's vertices (and their ECMP
  // hashing) are the same as without it: one switch for the servers, one storage port per node.
  if (layout.storage.separate && layout.storage.servers > 0) {
    const VertexId sw = t.add_vertex(VertexKind::leaf, "storage-switch", -1, -1);
    for (const VertexId server : t.storage_)
      t.add_link(server, sw, LinkKind::nic_port, layout.storage.link, n.nic_latency + f.latency);
    for (int node = 0; node < layout.nodes; ++node)
      for (int tray = 0; tray < n.trays; ++tray) {
        const VertexId port = t.add_vertex(VertexKind::nic,
                                           n.trays == 1 ? fmt::format("n{}.storage-nic", node)
                                                        : fmt::format("n{}.tray{}.storage-nic", node, tray),
                                           node, n.nics + tray);
        t.storage_nics_.push_back(port);
        const auto pcie = layout.storage.node_pcie.si() > 0 ? layout.storage.node_pcie : n.pcie_nic;
        t.add_link(port, sw, LinkKind::nic_port, layout.storage.node_link, n.nic_latency + f.latency);
        if (!layout.storage.dpu) {
          t.add_link(port, t.host_cpu(node, tray), LinkKind::pcie, pcie, n.pcie_latency);
          continue;
        }
        // A front-end DPU: host, port and Arm complex on its internal PCIe switch, as a training DPU.
        const std::string name = n.trays == 1 ? fmt::format("n{}.storage-dpu", node)
                                              : fmt::format("n{}.tray{}.storage-dpu", node, tray);
        const VertexId dsw = t.add_vertex(VertexKind::dpu_switch, name + ".pcie", node, n.nics + tray);
        const VertexId arm = t.add_vertex(VertexKind::dpu_arm, name + ".arm", node, n.nics + tray);
        t.storage_arms_.push_back(arm);
        t.add_link(dsw, t.host_cpu(node, tray), LinkKind::pcie, pcie, n.pcie_latency);
        t.add_link(dsw, port, LinkKind::pcie, pcie, n.pcie_latency);
        t.add_link(dsw, arm, LinkKind::pcie, pcie, n.pcie_latency);
      }
  }
  return t;
}

} // namespace dpusim::topology
