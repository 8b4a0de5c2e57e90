// The fabric's bill against NVIDIA's published component counts of rail-optimized DGX SuperPOD compute
// fabrics (64-port 400 Gb/s QM9700 switches, eight 400 Gb/s compute NICs per node):
// SUPERPOD-H100-RA, Table 4 "Compute fabric component count" (1-4 scalable units of 32 nodes, one
// node slot of each taken by the fabric manager), and SUPERPOD-B200-RA, its compute fabric table (2-64
// scalable units, three tiers from 16).
#include "sim/topology/fabric_bill.hpp"
#include "tests/support/bundled_catalog.hpp"
#include "tests/support/dgx_layout.hpp"

#include <gtest/gtest.h>

using namespace dpusim;
using namespace dpusim::topology;

namespace {

/// DGX SuperPOD nodes: eight 400 Gb/s compute NICs, on `radix`-port switches at 400 Gb/s.
ClusterLayout superpod(int nodes, FabricKind kind = FabricKind::rail_optimized, int radix = 64) {
  auto l = dpusim::testing::dgx_like(nodes, kind);
  l.fabric.switch_radix = radix;
  return l;
}

struct Row {
  int nodes, leaves, spines, cores, leaf_links, core_links;
};

} // namespace

TEST(FabricBill, TwoTiersMatchTheDgxSuperPodH100ComputeFabric) {
  // SUPERPOD-H100-RA Table 4: leaf and spine switches and spine-leaf cables.
  for (const Row& r : {Row{31, 8, 4, 0, 256, 0}, Row{63, 16, 8, 0, 512, 0}, Row{95, 24, 16, 0, 768, 0},
                       Row{127, 32, 16, 0, 1024, 0}}) {
    SCOPED_TRACE(r.nodes);
    const auto b = fabric_bill(superpod(r.nodes));
    EXPECT_EQ(b.leaves, r.leaves);
    EXPECT_EQ(b.spines, r.spines);
    EXPECT_EQ(b.cores, 0);
    EXPECT_EQ(b.leaf_links, r.leaf_links);
    EXPECT_EQ(b.host_links, r.nodes * 8);
  }
}

TEST(FabricBill, TwoAndThreeTiersMatchTheDgxSuperPodB200ComputeFabric) {
  // SUPERPOD-B200-RA: leaf, spine and core switches; leaf-spine and spine-core cables.
  for (const Row& r : {Row{64, 16, 8, 0, 512, 0}, Row{128, 32, 16, 0, 1024, 0}, Row{256, 64, 32, 0, 2048, 0},
                       Row{512, 128, 128, 64, 4096, 4096}, Row{1024, 256, 256, 128, 8192, 8192},
                       Row{2048, 512, 512, 256, 16384, 16384}}) {
    SCOPED_TRACE(r.nodes);
    const auto b = fabric_bill(superpod(r.nodes));
    EXPECT_EQ(b.leaves, r.leaves);
    EXPECT_EQ(b.spines, r.spines);
    EXPECT_EQ(b.cores, r.cores);
    EXPECT_EQ(b.leaf_links, r.leaf_links);
    EXPECT_EQ(b.core_links, r.core_links);
    EXPECT_EQ(b.switches(), r.leaves + r.spines + r.cores);
  }
}

TEST(FabricBill, ASmallClusterNeedsAHandfulOfSwitchesNotASpinePerUplink) {
  // 16 nodes of eight 400G NICs on 128-port switches (64 x 800G split in two): two top-of-rack leaves of
  // 64 up-links each fill a single spine; rail-optimized, eight rail leaves of 64 up-links fill four.
  const auto fat = fabric_bill(superpod(16, FabricKind::fat_tree, 128));
  EXPECT_EQ(fat.leaves, 2);
  EXPECT_EQ(fat.spines, 1);
  EXPECT_EQ(fat.switches(), 3);
  const auto rail = fabric_bill(superpod(16, FabricKind::rail_optimized, 128));
  EXPECT_EQ(rail.leaves, 8);
  EXPECT_EQ(rail.spines, 4);
  EXPECT_EQ(rail.switches(), 12);
  // The spines grow with the leaves they join.
  int last = 0;
  for (int nodes : {16, 32, 64, 128, 256, 512}) {
    const int s = fabric_bill(superpod(nodes, FabricKind::fat_tree, 128)).spines;
    EXPECT_GE(s, last) << nodes;
    last = s;
  }
  EXPECT_EQ(fabric_bill(superpod(512, FabricKind::fat_tree, 128)).spines, 32);
}

TEST(FabricBill, OneLeafIsTheWholeFabric) {
  const auto b = fabric_bill(superpod(4, FabricKind::fat_tree, 64));
  EXPECT_EQ(b.switches(), 1);
  EXPECT_EQ(b.leaf_links, 0);
  EXPECT_EQ(b.host_links, 32);
}

TEST(FabricBill, SpinesHoldEveryLeafsShareOfItsUplinks) {
  EXPECT_EQ(spines_for(8, 32, 64), 4);   // 8 links from each leaf to each spine
  EXPECT_EQ(spines_for(24, 32, 64), 16); // 12 would need 3 links from some leaves: 72 ports
  EXPECT_EQ(spines_for(4, 43, 128), 2);  // uneven: 22 and 21 links, 88 ports at most
  EXPECT_EQ(spines_for(64, 32, 64), 32);
  EXPECT_EQ(spines_for(3, 1, 64), 1);
}

TEST(FabricBill, AQuantumX800RailLeafHoldsAllTheNodesWhereA64PortOneHoldsSixtyFour) {
  // The catalog's switches at a 400 Gb/s fabric link: the Q3400's 144 ports of 800 Gb/s split into 288,
  // the SN5600's 64 into 128. Rail-optimized, a leaf takes one rail of as many nodes as half its ports
  // hold: 144 DGX nodes (eight rails) take 8 leaves of the first, 3 groups of 8 (64, 64, 16 nodes) of the
  // second.
  const auto& cat = dpusim::testing::bundled_catalog();
  const auto* q3400 = cat.network_switch("q3400");
  const auto* sn5600 = cat.network_switch("sn5600");
  ASSERT_NE(q3400, nullptr);
  ASSERT_NE(sn5600, nullptr);
  EXPECT_EQ(q3400->link_layer, catalog::LinkLayer::infiniband);
  EXPECT_FALSE(q3400->hashes_each_connection.value);
  const auto link = units::DataRate::from_si(400e9 / 8);
  EXPECT_EQ(q3400->ports_at(link), 288);
  EXPECT_EQ(q3400->ports_at(q3400->port_speed.value), 144);
  const auto quantum = fabric_bill(superpod(144, FabricKind::rail_optimized, q3400->ports_at(link)));
  const auto spectrum = fabric_bill(superpod(144, FabricKind::rail_optimized, sn5600->ports_at(link)));
  EXPECT_EQ(quantum.leaves, 8);
  EXPECT_EQ(spectrum.leaves, 24);
  EXPECT_LT(quantum.switches(), spectrum.switches());
}
