#include "sim/scenario/cluster_layout.hpp"

namespace dpusim::scenario {

bool adaptive_routing(const ClusterConfig& cluster, const catalog::NicSpec& nic,
                      const catalog::SwitchSpec& fabric_switch) {
  return cluster.fabric.routing == topology::Routing::adaptive && fabric_switch.adaptive_routing.value &&
         nic.places_out_of_order(fabric_switch.link_layer);
}

topology::ClusterLayout cluster_layout(const ClusterConfig& cluster, const catalog::NodeSpec& node,
                                       const catalog::GpuSpec& gpu, const catalog::NicSpec& nic,
                                       const catalog::SwitchSpec& fabric_switch,
                                       const catalog::NicSpec* storage_nic) {
  topology::ClusterLayout l;
  l.nodes = cluster.nodes;
  auto& n = l.node;
  n.gpus = cluster.gpus_per_node > 0 ? cluster.gpus_per_node : node.gpus.value;
  n.nics = node.nics.value;
  n.pcie_switches = node.pcie_switches.value;
  n.trays = node.trays.value;
  n.nvlink_per_gpu = gpu.nvlink_bandwidth.value;
  n.nvlink_latency = node.nvlink_latency.value;
  n.pcie_gpu = gpu.pcie_bandwidth.value;
  n.pcie_nic = nic.pcie_bandwidth.value;
  n.pcie_uplink = node.pcie_uplink.value;
  n.pcie_latency = node.pcie_latency.value;
  n.nic_line_rate = nic.line_rate.value;
  n.nic_latency = nic.latency.value;
  n.dpu = nic.kind == catalog::DeviceKind::dpu && nic.arm.has_value();
  n.dpu_internal_pcie = nic.pcie_bandwidth.value;
  l.storage.servers = cluster.storage.servers;
  l.storage.link = cluster.storage.link;
  l.storage.separate = cluster.storage.separate_fabric;
  l.storage.node_link = cluster.storage.node_link;
  if (storage_nic != nullptr && l.storage.separate) {
    l.storage.node_pcie = storage_nic->pcie_bandwidth.value;
    l.storage.dpu = storage_nic->kind == catalog::DeviceKind::dpu && storage_nic->arm.has_value();
  }
  l.tenants.flows = cluster.tenants.flows;
  auto& f = l.fabric;
  f.kind = cluster.fabric.kind;
  f.tiers = cluster.fabric.tiers;
  f.link = cluster.fabric.link;
  f.latency = cluster.fabric.latency;
  f.oversubscription = cluster.fabric.oversubscription;
  f.core_oversubscription = cluster.fabric.core_oversubscription;
  f.switch_radix = fabric_switch.ports_at(cluster.fabric.link);
  f.pooled = adaptive_routing(cluster, nic, fabric_switch);
  return l;
}

} // namespace dpusim::scenario
