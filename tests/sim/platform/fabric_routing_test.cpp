// How the fabric's routing spreads flows, against closed forms: ECMP's hash choices are balls thrown into
// bins (the share of up-links used, the hottest link's expected load), more queue pairs per connection
// never make the hottest link hotter, and adaptive routing (the pooled fabric) gives every flow its fair
// share of a leaf's up-links: half the line rate under 2:1 oversubscription.
#include "sim/platform/route_registry.hpp"
#include "sim/topology/topology.hpp"
#include "tests/support/collective_rig.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <map>
#include <vector>

using namespace dpusim;
using dpusim::testing::Rig;
using RigSetup = dpusim::testing::Setup;

namespace {

/// 2 x `per_leaf` single-NIC nodes: every node of leaf 0 sends to its counterpart on leaf 1.
RigSetup two_leaves(int nodes, std::uint64_t seed) {
  return {.nodes = nodes, .gpus = 1, .nics = 1, .pcie_switches = 1, .seed = seed};
}

/// Bytes each leaf-0-to-spine link carries when flow i (node i to node i + half) sends 1 byte, split
/// equally over its route's paths.
std::vector<double> uplink_loads(Rig& rig, int half) {
  const auto& topo = *rig.topo;
  std::map<int, double> load;
  for (int i = 0; i < half; ++i) {
    const auto& r = rig.platform->route(i, i + half);
    for (const auto e : r.links)
      if (e < topo.num_edges() && topo.vertex(topo.edge_source(e)).kind == topology::VertexKind::leaf &&
          topo.vertex(topo.edge_target(e)).kind == topology::VertexKind::spine)
        load[e] += 1.0 / r.spread;
  }
  std::vector<double> out;
  for (const auto& [e, bytes] : load)
    out.push_back(bytes);
  return out;
}

/// E[max load] of n balls thrown uniformly into n bins: P(max <= k) = n!/n^n [x^n] (sum_{j<=k} x^j/j!)^n.
double expected_max_load(int n) {
  double expectation = 0;
  for (int k = 0; k < n; ++k) {
    std::vector<double> base(static_cast<std::size_t>(n) + 1, 0.0);
    double f = 1;
    for (int j = 0; j <= k && j <= n; ++j) {
      base[static_cast<std::size_t>(j)] = 1.0 / f;
      f *= j + 1;
    }
    std::vector<double> power(static_cast<std::size_t>(n) + 1, 0.0);
    power[0] = 1;
    for (int m = 0; m < n; ++m) {
      std::vector<double> next(power.size(), 0.0);
      for (std::size_t a = 0; a < power.size(); ++a)
        for (std::size_t b = 0; a + b < power.size(); ++b)
          next[a + b] += power[a] * base[b];
      power = std::move(next);
    }
    double scale = 1; // n! / n^n
    for (int i = 1; i <= n; ++i)
      scale *= static_cast<double>(i) / n;
    expectation += 1.0 - scale * power[static_cast<std::size_t>(n)];
  }
  return expectation;
}

/// Simulates one transfer in which node i sends `bytes` to node i + half, for every i below half; its end.
double leaf_to_leaf(Rig& rig, int half, double bytes) {
  engine::TaskGraph g;
  engine::Task t;
  t.kind = engine::TaskKind::transfer;
  for (int i = 0; i < half; ++i) {
    (void)rig.platform->route(i, i + half);
    t.flows.push_back({i, i + half, bytes});
  }
  const auto id = g.add(t);
  simgrid::Simulator sim(rig.platform->build());
  return sim.execute(g)[static_cast<std::size_t>(id)].end;
}

} // namespace

TEST(FabricRouting, EcmpUsesAboutOneMinusOneOverETheUplinksAndItsHottestLinkFollowsBallsInBins) {
  // 64 single-NIC nodes: two leaves of 32 ports, each with 32 up-links (one per spine); 32 flows from
  // leaf 0 to leaf 1, each hashed onto one spine.
  const int n = 32;
  const int seeds = 200;
  double used = 0;
  double hottest = 0;
  for (int seed = 1; seed <= seeds; ++seed) {
    Rig rig(two_leaves(2 * n, static_cast<std::uint64_t>(seed)));
    ASSERT_EQ(rig.topo->num_spines(), n);
    const auto loads = uplink_loads(rig, n);
    used += static_cast<double>(loads.size()) / n;
    hottest += *std::max_element(loads.begin(), loads.end());
  }
  used /= seeds;
  hottest /= seeds;
  EXPECT_NEAR(used, 1.0 - std::pow(1.0 - 1.0 / n, n), 0.02); // 0.638
  const double expected = expected_max_load(n);              // about 3.5 flows
  EXPECT_NEAR(hottest, expected, 0.05 * expected);
}

TEST(FabricRouting, MoreQueuePairsPerConnectionNeverMakeTheHottestLinkHotter) {
  const int n = 32;
  double previous = 1e30;
  for (const int qps : {1, 2, 4, 8}) {
    double hottest = 0;
    for (int seed = 1; seed <= 60; ++seed) {
      RigSetup s = two_leaves(2 * n, static_cast<std::uint64_t>(seed));
      s.connections = qps;
      Rig rig(s);
      const auto loads = uplink_loads(rig, n);
      hottest += *std::max_element(loads.begin(), loads.end()) / 60;
    }
    EXPECT_LT(hottest, previous) << qps << " queue pairs";
    EXPECT_GE(hottest, 1.0) << "32 flows on 32 links: never below the balanced load";
    previous = hottest;
  }
}

TEST(FabricRouting, AdaptiveRoutingOnATwoToOneLeafGivesEveryFlowHalfTheLineRate) {
  // 84 single-NIC nodes at 2:1: 42 down ports and 21 up-links per leaf, two full leaves. All 42 NICs
  // of leaf 0 send to leaf 1 at once: the pooled up-links carry 21 x 400 Gb/s, 200 Gb/s per flow.
  const int half = 42;
  RigSetup s = two_leaves(2 * half, 1);
  s.oversubscription = 2.0;
  s.routing = topology::Routing::adaptive;
  Rig rig(s);
  ASSERT_TRUE(rig.layout.fabric.pooled) << "qm9700 and connectx-7 route InfiniBand adaptively";
  ASSERT_EQ(rig.topo->num_leaves(), 2);
  const double bytes = 1e9;
  const double end = leaf_to_leaf(rig, half, bytes);
  const double latency = rig.platform->route(0, half).latency_s;
  const double rate = bytes / (end - latency);
  EXPECT_NEAR(rate, rig.nic() / 2, 0.01 * rig.nic() / 2);
}

TEST(FabricRouting, EcmpOnTheSameLeafIsNeverFasterThanAdaptiveRouting) {
  // The same transfer with each connection hashed: the hottest up-link carries several flows, and the
  // transfer ends when its flows do.
  const int half = 42;
  RigSetup s = two_leaves(2 * half, 3);
  s.oversubscription = 2.0;
  Rig rig(s);
  ASSERT_FALSE(rig.layout.fabric.pooled);
  const double bytes = 1e9;
  const double end = leaf_to_leaf(rig, half, bytes);
  const double fair = bytes / (rig.nic() / 2);
  EXPECT_GT(end, 1.5 * fair) << "three or more flows share a hot up-link";
}
