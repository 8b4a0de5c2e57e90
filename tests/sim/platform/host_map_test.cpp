// The hosts of a node of several trays: each tray's host CPU is a host of its own, and a GPU's host-side
// work goes to the CPU of its own tray.
#include "sim/platform/host_map.hpp"
#include "sim/topology/topology.hpp"
#include "tests/support/dgx_layout.hpp"

#include <gtest/gtest.h>

using namespace dpusim;

TEST(HostMap, EachTrayOfARackHasItsOwnHostCpu) {
  auto l = dpusim::testing::dgx_like(2, topology::FabricKind::rail_optimized);
  l.node.gpus = 72;
  l.node.nics = 72;
  l.node.pcie_switches = 36;
  l.node.trays = 18;
  const auto topo = topology::Topology::build(l);
  const scenario::Hardware hw;
  const platform::HostMap hosts(topo, hw, {});
  EXPECT_EQ(hosts.trays(), 18);
  EXPECT_EQ(hosts.cpu(0, 1), hosts.cpu(0) + 1);
  // GPU 77 is GPU 5 of rack 1, in its tray 1.
  const auto cpu = hosts.cpu_of_gpu(77);
  EXPECT_EQ(cpu, hosts.cpu(1, 1));
  EXPECT_TRUE(hosts.is_cpu(cpu));
  EXPECT_EQ(hosts.node_of(cpu), 1);
  EXPECT_EQ(hosts.tray_of(cpu), 1);
  EXPECT_EQ(hosts.tray_of(hosts.gpu(77)), 1);
  EXPECT_EQ(hosts.vertex_of(cpu), topo.host_cpu(1, 1));
  EXPECT_EQ(hosts.cpu_of_nic(1, 71), hosts.cpu(1, 17));
  // Every CPU of both racks comes before the first host outside the nodes.
  EXPECT_EQ(hosts.storage(0), hosts.cpu(1, 17) + 1);
}
