// The ECMP imbalance of a communication: the busiest switch-to-switch link's bytes against an even
// spread over each switch's equal links. A ring whose every hop crosses between two leaves puts many
// flows on the spines: one hashed path per pair collides; many paths per pair approach an even spread.
#include "sim/plan/ecmp_balance.hpp"
#include "tests/support/collective_rig.hpp"

#include <gtest/gtest.h>

using namespace dpusim;
using dpusim::testing::Rig;
using RigSetup = dpusim::testing::Setup;

namespace {

double imbalance(int connections, std::uint64_t seed, bool crossing,
                 topology::Routing routing = topology::Routing::ecmp) {
  // 64 single-NIC nodes on two leaves of 32 (32 spines).
  Rig rig(RigSetup{.nodes = 64,
                   .gpus = 1,
                   .nics = 1,
                   .pcie_switches = 1,
                   .seed = seed,
                   .connections = connections,
                   .routing = routing});
  std::vector<int> order;
  for (int i = 0; i < 32; ++i) {
    order.push_back(i);
    if (crossing)
      order.push_back(32 + i); // every hop crosses the spines
  }
  if (!crossing)
    for (int i = 32; i < 64; ++i)
      order.push_back(i); // two hops cross
  plan::IterationPlan p;
  // A ring in the given order, as one part: hops order[i] -> order[i+1].
  engine::Task t;
  t.kind = engine::TaskKind::transfer;
  for (std::size_t i = 0; i < order.size(); ++i)
    t.flows.push_back({rig.hosts->gpu(order[i]), rig.hosts->gpu(order[(i + 1) % order.size()]), 1e9});
  p.graph.add(t);
  return plan::ecmp_imbalance(p, *rig.platform).ratio;
}

} // namespace

TEST(EcmpBalance, OneHashPerPairCollidesWhereEveryHopCrossesTheSpines) {
  // 32 flows up from each leaf onto its 32 up-links, one hash each: collisions are all but certain.
  EXPECT_GE(imbalance(1, 1, true), 2.0);
}

TEST(EcmpBalance, ManyHashedPathsPerPairApproachAnEvenSpread) {
  for (std::uint64_t seed : {1, 2, 3}) {
    const double one = imbalance(1, seed, true);
    const double many = imbalance(32, seed, true);
    EXPECT_LT(many, one) << "seed " << seed;
    EXPECT_LT(many, 1.8) << "seed " << seed;
  }
}

TEST(EcmpBalance, APartWhoseNicsAreItsBottleneckIsBalanced) {
  // Two hops cross the spines, one each way: no two flows share a spine link, and a NIC carries as much.
  EXPECT_DOUBLE_EQ(imbalance(1, 1, false), 1.0);
}

// Path pinning puts the crossing ring's 32 flows up each leaf on 32 different spines: balanced by
// construction, whatever the seed, where one hash per pair collides.
TEST(EcmpBalance, PinnedRoutingBalancesARingThatCrossesTheSpines) {
  for (std::uint64_t seed : {1, 2, 3})
    EXPECT_DOUBLE_EQ(imbalance(1, seed, true, topology::Routing::pinned), 1.0) << "seed " << seed;
}
