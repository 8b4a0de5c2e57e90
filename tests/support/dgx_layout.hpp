// A cluster of DGX-like nodes (eight GPUs, eight 400 Gb/s NICs) on a 400 Gb/s fabric of 64-port
// switches, for the topology's tests.
#pragma once

#include "sim/topology/layout.hpp"

namespace dpusim::testing {

inline topology::ClusterLayout dgx_like(int nodes, topology::FabricKind kind = topology::FabricKind::fat_tree,
                                        double oversub = 1.0) {
  topology::ClusterLayout l;
  l.nodes = nodes;
  l.node.gpus = 8;
  l.node.nics = 8;
  l.node.pcie_switches = 4;
  l.node.nvlink_per_gpu = units::gbyte_per_s(450);
  l.node.nvlink_latency = units::microseconds(0.1);
  l.node.pcie_gpu = units::gbyte_per_s(64);
  l.node.pcie_nic = units::gbyte_per_s(63);
  l.node.pcie_uplink = units::gbyte_per_s(63);
  l.node.pcie_latency = units::microseconds(0.1);
  l.node.nic_line_rate = units::gbit_per_s(400);
  l.node.nic_latency = units::microseconds(0.6);
  l.fabric.kind = kind;
  l.fabric.link = units::gbit_per_s(400);
  l.fabric.latency = units::microseconds(1);
  l.fabric.oversubscription = oversub;
  l.fabric.switch_radix = 64;
  return l;
}

} // namespace dpusim::testing
