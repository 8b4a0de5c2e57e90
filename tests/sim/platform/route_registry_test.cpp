// Routes between GPUs as the variant's transport lays them: which NICs a network hop joins (PXN keeps it
// on the destination's rail) and how many equal-cost paths a route's connections are hashed onto.
#include "sim/platform/route_registry.hpp"
#include "sim/topology/topology.hpp"
#include "tests/support/collective_rig.hpp"

#include <gtest/gtest.h>
#include <set>

using namespace dpusim;
using dpusim::testing::Rig;
using RigSetup = dpusim::testing::Setup;

namespace {

RigSetup two_dgx(bool pxn) {
  return {.nodes = 2, .fabric = topology::FabricKind::rail_optimized, .pxn = pxn};
}

int local_nic(const Rig& rig, int global_nic) {
  return global_nic % rig.topo->layout().node.nics;
}

} // namespace

TEST(RouteRegistry, WithoutPxnAGpuSendsThroughItsOwnNicOntoAnotherRail) {
  Rig rig(two_dgx(false));
  // GPU 7 of node 0 to GPU 0 of node 1: the last hop of a ring that enters node 1 at its GPU 0.
  const auto& r = rig.platform->route(7, 8);
  ASSERT_EQ(r.kind, platform::HopKind::network);
  ASSERT_EQ(r.nics.size(), 2u);
  EXPECT_EQ(local_nic(rig, r.nics.front()), 7);
  EXPECT_EQ(local_nic(rig, r.nics.back()), 0);
}

TEST(RouteRegistry, WithPxnTheNetworkHopJoinsNicsOfTheDestinationsRail) {
  Rig rig(two_dgx(true));
  const auto& r = rig.platform->route(7, 8);
  ASSERT_EQ(r.kind, platform::HopKind::network);
  ASSERT_EQ(r.nics.size(), 2u);
  EXPECT_EQ(local_nic(rig, r.nics.front()), 0);
  EXPECT_EQ(local_nic(rig, r.nics.back()), 0);
  // The bytes cross NVLink to GPU 0 of node 0 first: the route is longer than GPU 0's own.
  EXPECT_GT(r.links.size(), rig.platform->route(0, 8).links.size());
  // A GPU already on the destination's rail sends directly.
  Rig direct(two_dgx(false));
  EXPECT_EQ(rig.platform->route(0, 8).links, direct.platform->route(0, 8).links);
}

TEST(RouteRegistry, PxnNeverAppliesToStagedHostTcp) {
  RigSetup s = two_dgx(true);
  s.transport = offload::Transport::host_tcp;
  Rig rig(s);
  const auto& r = rig.platform->route(7, 8);
  EXPECT_EQ(local_nic(rig, r.nics.front()), 7);
}

TEST(RouteRegistry, ARouteOfSeveralConnectionsHoldsOnePathPerConnectionEachHashedOnItsOwn) {
  // 64 single-NIC nodes on two leaves: a route between the leaves picks one of their 32 spines.
  RigSetup one{.nodes = 64, .gpus = 1, .nics = 1, .pcie_switches = 1};
  RigSetup eight = one;
  eight.connections = 8;
  Rig a(one);
  Rig b(eight);
  ASSERT_EQ(a.topo->num_leaves(), 2);
  const auto& single = a.platform->route(0, 63);
  const auto& spread = b.platform->route(0, 63);
  EXPECT_EQ(single.spread, 1);
  EXPECT_EQ(spread.spread, 8);
  ASSERT_EQ(spread.links.size(), 8 * single.links.size());
  EXPECT_DOUBLE_EQ(spread.latency_s, single.latency_s);
  EXPECT_EQ(spread.nics, single.nics);
  // The first path is the single connection's; the others go through other spines.
  const std::size_t n = single.links.size();
  EXPECT_TRUE(std::equal(single.links.begin(), single.links.end(), spread.links.begin()));
  std::set<std::vector<std::int32_t>> paths;
  for (std::size_t c = 0; c < 8; ++c)
    paths.emplace(spread.links.begin() + static_cast<std::ptrdiff_t>(c * n),
                  spread.links.begin() + static_cast<std::ptrdiff_t>((c + 1) * n));
  EXPECT_GE(paths.size(), 4u);
  // Routes inside a node and routes to storage stay single.
  Rig node(RigSetup{.nodes = 1, .connections = 8});
  EXPECT_EQ(node.platform->route(0, 1).spread, 1);
}
