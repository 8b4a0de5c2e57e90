// A node that is an NVLink domain of several trays (GB200 NVL72: 18 trays of 4 GPUs, 2 CPUs, 4 NICs):
// each tray's GPUs and NICs reach their own host CPU, every GPU of the node reaches every other over
// the node's NVLink switch, and the fabric joins the trays as hosts.
#include "sim/topology/router.hpp"
#include "sim/topology/topology.hpp"
#include "tests/support/dgx_layout.hpp"

#include <gtest/gtest.h>
#include <set>

using namespace dpusim;
using namespace dpusim::topology;

namespace {

ClusterLayout nvl72_like(int racks, FabricKind kind = FabricKind::rail_optimized) {
  auto l = dpusim::testing::dgx_like(racks, kind);
  l.node.gpus = 72;
  l.node.nics = 72;
  l.node.pcie_switches = 36;
  l.node.trays = 18;
  return l;
}

std::vector<VertexKind> kinds_along(const Topology& t, const std::vector<EdgeId>& route) {
  std::vector<VertexKind> out;
  for (const auto e : route)
    out.push_back(t.vertex(t.edge_target(e)).kind);
  return out;
}

/// The host CPU a vertex's PCIe links lead to (its PCIe switch's up-link).
VertexId cpu_above(const Topology& t, VertexId v) {
  const auto& g = t.graph();
  for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
    const auto to = boost::target(*e, g);
    if (g[*e].kind != LinkKind::pcie)
      continue;
    if (g[to].kind == VertexKind::host_cpu)
      return to;
    if (g[to].kind == VertexKind::pcie_switch)
      return cpu_above(t, to);
  }
  return boost::graph_traits<Graph>::null_vertex();
}

} // namespace

TEST(Trays, EachTrayHasItsOwnHostCpuAboveItsGpusAndNics) {
  const auto t = Topology::build(nvl72_like(2));
  std::set<VertexId> cpus;
  for (int node = 0; node < 2; ++node)
    for (int tray = 0; tray < 18; ++tray)
      cpus.insert(t.host_cpu(node, tray));
  EXPECT_EQ(cpus.size(), 36U);
  EXPECT_EQ(t.vertex(t.host_cpu(1, 17)).name, "n1.tray17.cpu");
  for (int g = 0; g < 72; ++g) {
    EXPECT_EQ(t.tray_of_gpu(g), g / 4);
    EXPECT_EQ(cpu_above(t, t.gpu(72 + g)), t.host_cpu(1, g / 4)) << "GPU " << g;
    EXPECT_EQ(t.tray_of_nic(g), g / 4);
    EXPECT_EQ(cpu_above(t, t.nic(1, g)), t.host_cpu(1, g / 4)) << "NIC " << g;
  }
}

TEST(Trays, GpusOfDifferentTraysTalkOverTheNodesNvlinkSwitch) {
  const auto t = Topology::build(nvl72_like(2));
  const Router r(t, 1);
  // GPU 0 (tray 0) to GPU 71 (tray 17): one NVLink switch, no NIC, no CPU.
  EXPECT_EQ(kinds_along(t, r.route(t.gpu(0), t.gpu(71))),
            (std::vector<VertexKind>{VertexKind::nvswitch, VertexKind::gpu}));
  // To the other rack: through NICs and the fabric.
  const auto across = kinds_along(t, r.route_via({t.gpu(0), t.nic(0, 0), t.nic(1, 0), t.gpu(72)}));
  EXPECT_NE(std::find(across.begin(), across.end(), VertexKind::leaf), across.end());
}

TEST(Trays, TheFabricJoinsTraysAsHosts) {
  // Rail-optimized: NIC k of each tray on rail k mod 4; a 64-port leaf at 1:1 has 32 down ports, so 36
  // trays of two racks need two groups of 4 rail leaves.
  const auto rails = Topology::build(nvl72_like(2));
  EXPECT_EQ(rails.num_leaves(), 8);
  const auto shape = fabric_shape(rails.layout());
  EXPECT_EQ(leaf_of_nic(rails.layout(), shape, 0, 5), 1);  // tray 1, its second NIC: rail 1
  EXPECT_EQ(leaf_of_nic(rails.layout(), shape, 1, 59), 7); // tray 32 of 36: group 1, rail 3
  // Top of rack per tray: a tray's 4 NICs on one leaf, 8 trays to a 32-port leaf.
  const auto tor = Topology::build(nvl72_like(2, FabricKind::fat_tree));
  EXPECT_EQ(tor.num_leaves(), 5);
}

TEST(Trays, ATrayCountThatDoesNotSplitTheNodeIsRefused) {
  auto l = nvl72_like(1);
  l.node.trays = 7;
  EXPECT_THROW((void)Topology::build(l), std::invalid_argument);
}

TEST(Trays, OneTrayIsTheServerAsBefore) {
  const auto t = Topology::build(dpusim::testing::dgx_like(2));
  EXPECT_EQ(t.vertex(t.host_cpu(1)).name, "n1.cpu");
  EXPECT_EQ(t.host_cpu(1, 0), t.host_cpu(1));
}
