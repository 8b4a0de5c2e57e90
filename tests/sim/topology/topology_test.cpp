#include "sim/topology/router.hpp"
#include "sim/topology/topology.hpp"
#include "tests/support/dgx_layout.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <stdexcept>

using namespace dpusim;
using namespace dpusim::topology;

namespace {

using dpusim::testing::dgx_like;

std::vector<VertexKind> kinds_along(const Topology& t, const std::vector<EdgeId>& route) {
  std::vector<VertexKind> out;
  for (const auto e : route)
    out.push_back(t.vertex(t.edge_target(e)).kind);
  return out;
}

} // namespace

TEST(Topology, BuildsNodesAndATwoTierFabric) {
  const auto t = Topology::build(dgx_like(8));
  // 32 down ports per leaf at 1:1 -> 4 nodes of 8 NICs per leaf -> 2 leaves; 32 uplinks -> 32 spines.
  EXPECT_EQ(t.num_leaves(), 2);
  EXPECT_EQ(t.num_spines(), 32);
  EXPECT_EQ(t.vertex(t.gpu(13)).name, "n1.gpu5");
  EXPECT_EQ(t.nic_of_gpu(5), 5);
}

TEST(Topology, OversubscriptionReducesTheUplinks) {
  const auto t = Topology::build(dgx_like(16, FabricKind::fat_tree, 3.0));
  // 48 down ports (6 nodes... rounded to whole nodes) and 1/3 of their bandwidth upwards.
  EXPECT_EQ(t.num_leaves(), 3);
  EXPECT_EQ(t.num_spines(), 16);
}

TEST(Topology, RailOptimizedPutsEachNicIndexOnItsOwnLeaf) {
  const auto t = Topology::build(dgx_like(4, FabricKind::rail_optimized));
  EXPECT_EQ(t.num_leaves(), 8);
}

TEST(Topology, RejectsAFabricTooSmallForTheCluster) {
  // 64-port switches hold at most 64 leaves of 4 nodes in two tiers.
  auto l = dgx_like(257);
  l.fabric.tiers = 2;
  EXPECT_THROW((void)Topology::build(l), std::invalid_argument);
  // In three tiers, pods of 32 leaves (a spine's 32 down ports) and at most 64 pods (a core's ports):
  // 64 x 32 leaves of 4 nodes.
  l = dgx_like(64 * 32 * 4 + 1);
  EXPECT_THROW((void)Topology::build(l), std::invalid_argument);
}

TEST(Topology, ALargerClusterGetsAThirdTierOfPodsAndCores) {
  // 257 nodes of 8 NICs on 64-port leaves: 65 leaves, more than a spine holds. Pods of 32 leaves (the
  // spine's 32 down ports at 1:1), 32 spines per pod (each leaf's 32 up-links), and in each of the 32
  // planes ceil(3 pods x 32 up-links / 64 ports) = 2 cores.
  const auto t = Topology::build(dgx_like(257));
  EXPECT_EQ(t.tiers(), 3);
  EXPECT_EQ(t.num_leaves(), 65);
  EXPECT_EQ(t.num_pods(), 3);
  EXPECT_EQ(t.num_spines(), 3 * 32);
  EXPECT_EQ(t.num_cores(), 32 * 2);
  const Router r(t, 1);
  // Inside a pod: leaf, spine, leaf. Across pods: leaf, spine, core, spine, leaf.
  const auto same_pod = r.route(t.nic(0, 0), t.nic(4, 0));
  EXPECT_EQ(kinds_along(t, same_pod), (std::vector<VertexKind>{VertexKind::leaf, VertexKind::spine,
                                                               VertexKind::leaf, VertexKind::nic}));
  const auto other_pod = r.route(t.nic(0, 0), t.nic(256, 0));
  EXPECT_EQ(kinds_along(t, other_pod),
            (std::vector<VertexKind>{VertexKind::leaf, VertexKind::spine, VertexKind::core, VertexKind::spine,
                                     VertexKind::leaf, VertexKind::nic}));
  // Full bisection: a pod's leaves reach the cores through as much bandwidth as they bring.
  double leaf_up = 0;
  double spine_up = 0;
  for (int e = 0; e < t.num_edges(); ++e) {
    const auto from = t.vertex(t.edge_source(e)).kind;
    const auto to = t.vertex(t.edge_target(e)).kind;
    if (from == VertexKind::leaf && to == VertexKind::spine)
      leaf_up += t.edge(e).bandwidth.si();
    if (from == VertexKind::spine && to == VertexKind::core)
      spine_up += t.edge(e).bandwidth.si();
  }
  // 3 pods' spines each bring 32 leaves' worth of up-links, although the last pod holds one leaf only.
  EXPECT_NEAR(spine_up, leaf_up / 65 * 32 * 3, 1e-6 * spine_up);
}

TEST(Topology, TheFabricsShapeIsKnownBeforeAnythingIsBuilt) {
  // What Topology::build makes, from the layout alone (the scenario check uses it: no graph is built).
  const auto shape = fabric_shape(dgx_like(257));
  const auto t = Topology::build(dgx_like(257));
  EXPECT_EQ(shape.tiers, t.tiers());
  EXPECT_EQ(shape.leaves, t.num_leaves());
  EXPECT_EQ(shape.pods, t.num_pods());
  EXPECT_EQ(shape.spines * shape.pods, t.num_spines());
  EXPECT_EQ(shape.cores_per_plane * shape.spines, t.num_cores());
  // A cluster of half a million GPUs that no three-tier fabric of 64-port switches holds.
  EXPECT_THROW((void)fabric_shape(dgx_like(65536)), std::invalid_argument);
}

TEST(Topology, CoreOversubscriptionNarrowsTheLinksBetweenPods) {
  auto l = dgx_like(257);
  l.fabric.core_oversubscription = 3.0;
  // A spine splits its 64 ports 48 down (pods of 48 leaves) to 16 up: 2 pods.
  const auto t = Topology::build(l);
  EXPECT_EQ(t.num_pods(), 2);
  double spine_down = 0;
  double spine_up = 0;
  for (int e = 0; e < t.num_edges(); ++e) {
    const auto from = t.vertex(t.edge_source(e)).kind;
    const auto to = t.vertex(t.edge_target(e)).kind;
    if (from == VertexKind::spine && to == VertexKind::leaf &&
        t.vertex(t.edge_source(e)).name.starts_with("pod0."))
      spine_down += t.edge(e).bandwidth.si();
    if (from == VertexKind::spine && to == VertexKind::core &&
        t.vertex(t.edge_source(e)).name.starts_with("pod0."))
      spine_up += t.edge(e).bandwidth.si();
  }
  EXPECT_NEAR(spine_down / spine_up, 3.0, 1e-9);
}

TEST(Topology, APooledFabricJoinsEachTiersEqualCostLinksIntoOneOfTheirSummedRate) {
  // Adaptive routing as an ideal fluid: the same bandwidth between the same switches, one link per
  // leaf and per pod, so that no route has a choice to make. Both directions, every tier.
  for (const int nodes : {8, 257}) {
    auto l = dgx_like(nodes);
    auto pooled_layout = l;
    pooled_layout.fabric.pooled = true;
    const auto hashed = Topology::build(l);
    const auto pooled = Topology::build(pooled_layout);
    EXPECT_EQ(pooled.num_leaves(), hashed.num_leaves());
    EXPECT_EQ(pooled.num_spines(), hashed.num_pods()) << "one spine per pod";
    EXPECT_EQ(pooled.num_cores(), hashed.tiers() == 3 ? 1 : 0);
    // Per (tier pair, direction): the sum of the rates, and on the pooled side one link per leaf (or pod).
    auto totals = [](const Topology& t) {
      std::map<std::pair<VertexKind, VertexKind>, std::pair<double, int>> sum;
      for (int e = 0; e < t.num_edges(); ++e) {
        const auto from = t.vertex(t.edge_source(e)).kind;
        const auto to = t.vertex(t.edge_target(e)).kind;
        if (t.edge(e).kind != LinkKind::fabric)
          continue;
        auto& [bw, count] = sum[{from, to}];
        bw += t.edge(e).bandwidth.si();
        ++count;
      }
      return sum;
    };
    const auto a = totals(hashed);
    const auto b = totals(pooled);
    ASSERT_EQ(a.size(), b.size());
    for (const auto& [key, value] : a) {
      ASSERT_TRUE(b.contains(key));
      EXPECT_NEAR(b.at(key).first, value.first, 1e-9 * value.first) << nodes << " nodes";
      const bool leaf_side = key.first == VertexKind::leaf || key.second == VertexKind::leaf;
      EXPECT_EQ(b.at(key).second, leaf_side ? hashed.num_leaves() : hashed.num_pods()) << nodes << " nodes";
    }
    // A route between leaves (and pods) has nothing left to hash: every seed takes the same path.
    const Router one(pooled, 1);
    const Router two(pooled, 2);
    const int last = nodes - 1;
    EXPECT_EQ(one.route(pooled.nic(0, 0), pooled.nic(last, 3)),
              two.route(pooled.nic(0, 0), pooled.nic(last, 3)));
  }
}

TEST(Topology, CopiesKeepTheirEdges) {
  const auto original = Topology::build(dgx_like(2));
  const Topology copy = original; // edges are addressed by id, so a copy is as good as the original
  for (int e = 0; e < copy.num_edges(); ++e)
    EXPECT_EQ(copy.edge(e).bandwidth, original.edge(e).bandwidth);
  const Router r(copy, 1);
  EXPECT_FALSE(r.route(copy.gpu(0), copy.gpu(9)).empty());
}

TEST(Router, IntraNodeTrafficTakesNvlinkNotPcie) {
  const auto t = Topology::build(dgx_like(2));
  const Router r(t, 1);
  const auto route = r.route(t.gpu(0), t.gpu(1)); // GPUs 0 and 1 share a PCIe switch too
  EXPECT_EQ(kinds_along(t, route), (std::vector<VertexKind>{VertexKind::nvswitch, VertexKind::gpu}));
}

TEST(Router, InterNodeTrafficCrossesNicsLeavesAndASpineButNoGpuOrCpu) {
  const auto t = Topology::build(dgx_like(8));
  const Router r(t, 1);
  const auto route = r.route_via({t.gpu(0), t.nic(0, 0), t.nic(7, 0), t.gpu(56)});
  EXPECT_EQ(
      kinds_along(t, route),
      (std::vector<VertexKind>{VertexKind::pcie_switch, VertexKind::nic, VertexKind::leaf, VertexKind::spine,
                               VertexKind::leaf, VertexKind::nic, VertexKind::pcie_switch, VertexKind::gpu}));
}

TEST(Router, EcmpSpreadsFlowsOverSpinesAndDependsOnTheSeed) {
  const auto t = Topology::build(dgx_like(8));
  auto spines_used = [&](std::uint64_t seed) {
    const Router r(t, seed);
    std::set<std::string> spines;
    for (int k = 0; k < 8; ++k)
      for (int src = 0; src < 4; ++src) {
        const auto route = r.route(t.nic(src, k), t.nic(4 + src, k));
        for (const auto e : route)
          if (t.vertex(t.edge_target(e)).kind == VertexKind::spine)
            spines.insert(t.vertex(t.edge_target(e)).name);
      }
    return spines;
  };
  const auto a = spines_used(1);
  EXPECT_GT(a.size(), 10u); // 32 flows hashed over 32 spines: many distinct, some collisions
  EXPECT_LT(a.size(), 32u);
  EXPECT_EQ(a, spines_used(1)); // deterministic for a seed
  EXPECT_NE(a, spines_used(2));
}

TEST(Router, EcmpPathsDoNotDependOnTheNodesInternals) {
  // The same NIC-to-NIC flows hash onto the same spines whether or not each NIC is a DPU with extra
  // internal vertices (renumbering the graph must not change ECMP's choices).
  auto dpu = dgx_like(8);
  dpu.node.dpu = true;
  dpu.node.dpu_internal_pcie = units::gbyte_per_s(63);
  const auto plain = Topology::build(dgx_like(8));
  const auto with_dpu = Topology::build(dpu);
  auto spines = [](const Topology& t) {
    const Router r(t, 7);
    std::vector<std::string> out;
    for (int k = 0; k < 8; ++k)
      for (int src = 0; src < 4; ++src)
        for (const auto e : r.route(t.nic(src, k), t.nic(4 + src, k)))
          if (t.vertex(t.edge_target(e)).kind == VertexKind::spine)
            out.push_back(t.vertex(t.edge_target(e)).name);
    return out;
  };
  EXPECT_EQ(spines(plain), spines(with_dpu));
}

TEST(Topology, TenantEndpointsTakeTheirShareOfEachLeafsUplinks) {
  auto l = dgx_like(16, FabricKind::fat_tree, 4.0);
  l.tenants.flows = 8;
  l.tenants.uplink_share = 0.25;
  const auto t = Topology::build(l);
  ASSERT_GE(t.num_leaves(), 2);
  ASSERT_EQ(t.num_tenants(), 8 * t.num_leaves());
  // A leaf's up-links: its spine links' bandwidth; each endpoint's port a quarter of it over 8.
  double uplink = 0;
  for (int e = 0; e < t.num_edges(); ++e)
    if (t.vertex(t.edge_source(e)).name == "leaf0" && t.vertex(t.edge_target(e)).kind == VertexKind::spine)
      uplink += t.edge(e).bandwidth.si();
  ASSERT_GT(uplink, 0);
  for (int e = 0; e < t.num_edges(); ++e)
    if (t.edge_source(e) == t.tenant(0)) {
      EXPECT_NEAR(t.edge(e).bandwidth.si(), 0.25 * uplink / 8, 1e-6 * uplink);
    }
  // One leaf: nothing to cross, no endpoints.
  auto small = dgx_like(2);
  small.tenants.flows = 8;
  EXPECT_EQ(Topology::build(small).num_tenants(), 0);
}

TEST(Topology, ASeparateStorageFabricLeavesTheTrainingFabricAsItWas) {
  auto l = dgx_like(8);
  l.storage.servers = 2;
  l.storage.link = units::gbit_per_s(400);
  const auto shared = Topology::build(l);
  l.storage.separate = true;
  l.storage.node_link = units::gbit_per_s(200);
  const auto separate = Topology::build(l);
  ASSERT_TRUE(separate.storage_nic(3).has_value());
  EXPECT_FALSE(shared.storage_nic(3).has_value());
  // Servers hang off a switch of their own, reached from a node only through its storage port.
  const Router r(separate, 1);
  const auto route = r.route(*separate.storage_nic(3), separate.storage(1));
  for (const auto e : route)
    EXPECT_NE(separate.vertex(separate.edge_target(e)).kind, VertexKind::spine);
  for (int e = 0; e < separate.num_edges(); ++e)
    if (separate.edge_source(e) == separate.storage(0)) {
      EXPECT_EQ(separate.vertex(separate.edge_target(e)).name, "storage-switch");
    }
  // The training fabric, and ECMP over it, is unchanged (edge numbers differ: compare the switches).
  const Router a(shared, 5);
  const Router b(separate, 5);
  auto hops = [](const Topology& t, const std::vector<EdgeId>& path) {
    std::vector<std::string> out;
    for (const auto e : path)
      out.push_back(t.vertex(t.edge_target(e)).name);
    return out;
  };
  for (int k = 0; k < 8; ++k)
    EXPECT_EQ(hops(shared, a.route(shared.nic(0, k), shared.nic(5, k))),
              hops(separate, b.route(separate.nic(0, k), separate.nic(5, k))));
}

TEST(Router, TcpStagingRouteVisitsHostMemory) {
  const auto t = Topology::build(dgx_like(2));
  const Router r(t, 1);
  const auto route = r.route_via({t.gpu(0), t.host_cpu(0), t.nic(0, 0)});
  EXPECT_EQ(kinds_along(t, route), (std::vector<VertexKind>{VertexKind::pcie_switch, VertexKind::host_cpu,
                                                            VertexKind::pcie_switch, VertexKind::nic}));
  EXPECT_NEAR(r.latency(route).si(), 4 * 0.1e-6, 1e-12);
}

TEST(Router, RoutesGoAroundAFailedSpineAndSpreadOverTheOthers) {
  // 8 nodes on two leaves of 32 NICs: leaf-to-leaf routes pick one of 32 spines.
  const auto t = Topology::build(dgx_like(8));
  ASSERT_EQ(t.num_leaves(), 2);
  const auto& g = t.graph();
  VertexId down = 0;
  for (VertexId v = 0; v < boost::num_vertices(g); ++v)
    if (g[v].name == "spine3")
      down = v;
  ASSERT_EQ(g[down].name, "spine3");
  const Router healthy(t, 1);
  const Router failed(t, 1, Failures{{down}, {}});
  std::set<std::string> before;
  std::set<std::string> after;
  for (int src = 0; src < 4; ++src)
    for (int k = 0; k < 8; ++k)
      for (std::uint64_t label = 0; label < 8; ++label) {
        for (const auto e : healthy.route(t.nic(src, k), t.nic(4 + src, k), label))
          if (t.vertex(t.edge_target(e)).kind == VertexKind::spine)
            before.insert(t.vertex(t.edge_target(e)).name);
        for (const auto e : failed.route(t.nic(src, k), t.nic(4 + src, k), label))
          if (t.vertex(t.edge_target(e)).kind == VertexKind::spine)
            after.insert(t.vertex(t.edge_target(e)).name);
      }
  EXPECT_TRUE(before.contains("spine3"));
  EXPECT_FALSE(after.contains("spine3"));
  EXPECT_GE(after.size(), 24u); // the other spines still carry the flows
}

TEST(Router, AFailedLinkIsAvoidedInItsDirectionAndEveryFailedSpineLeavesNoRoute) {
  const auto t = Topology::build(dgx_like(8));
  const auto& g = t.graph();
  std::vector<EdgeId> up;
  std::vector<VertexId> spines;
  for (int e = 0; e < t.num_edges(); ++e)
    if (g[t.edge_source(e)].name == "leaf0" && g[t.edge_target(e)].kind == VertexKind::spine)
      up.push_back(e);
  for (VertexId v = 0; v < boost::num_vertices(g); ++v)
    if (g[v].kind == VertexKind::spine)
      spines.push_back(v);
  // Every up-link of leaf 0 but the last is down: every route out of leaf 0 takes the last one.
  const Router r(t, 1, Failures{{}, {up.begin(), up.end() - 1}});
  for (int k = 0; k < 8; ++k) {
    const auto route = r.route(t.nic(0, k), t.nic(4, k));
    EXPECT_NE(std::find(route.begin(), route.end(), up.back()), route.end());
  }
  const Router none(t, 1, Failures{spines, {}});
  EXPECT_THROW((void)none.route(t.nic(0, 0), t.nic(4, 0)), std::runtime_error);
}

// Path pinning: 32 flows from leaf 0 to the 32 NICs of leaf 1 each go up the spine of their
// destination's index on its leaf, so no two share one (ECMP hashing collides), whatever the seed and
// the connection's label; with a spine down, 31 ports take 32 slices and two destinations share one.
TEST(Router, PinnedRoutingSendsEachDestinationUpItsOwnSpine) {
  const auto t = Topology::build(dgx_like(8));
  ASSERT_EQ(t.num_leaves(), 2);
  const auto& g = t.graph();
  auto spines_used = [&](const Router& r, std::uint64_t label) {
    std::map<std::string, int> flows; // spine -> flows through it
    for (int k = 0; k < 32; ++k) {
      const int src_node = k / 8;
      const int dst_node = 4 + k / 8;
      for (const auto e : r.route(t.nic(src_node, k % 8), t.nic(dst_node, (k + 3) % 8), label))
        if (t.vertex(t.edge_target(e)).kind == VertexKind::spine)
          ++flows[t.vertex(t.edge_target(e)).name];
    }
    return flows;
  };
  for (const std::uint64_t seed : {1, 2}) {
    const Router pinned(t, seed, {}, Routing::pinned);
    for (const std::uint64_t label : {0, 5}) {
      const auto flows = spines_used(pinned, label);
      EXPECT_EQ(flows.size(), 32u) << "seed " << seed << " label " << label;
    }
    EXPECT_LT(spines_used(Router(t, seed), 0).size(), 32u) << "ECMP hashing collides (seed " << seed << ")";
  }
  VertexId down = 0;
  for (VertexId v = 0; v < boost::num_vertices(g); ++v)
    if (g[v].name == "spine3")
      down = v;
  const auto flows = spines_used(Router(t, 1, Failures{{down}, {}}, Routing::pinned), 0);
  EXPECT_EQ(flows.size(), 31u);
  EXPECT_FALSE(flows.contains("spine3"));
  int shared = 0;
  for (const auto& [spine, n] : flows)
    shared += n > 1 ? 1 : 0;
  EXPECT_EQ(shared, 1);
}

TEST(Topology, APlacementWiresEachNodeWhereItsSlotWouldBe) {
  // 8 nodes, 4 a leaf: packed, nodes 0-3 on leaf 0; placed 0->4, 1->0, ..., node 0 joins leaf 1's nodes.
  auto layout = dgx_like(8);
  const auto shape = fabric_shape(layout);
  ASSERT_EQ(shape.nodes_per_leaf, 4);
  EXPECT_EQ(leaf_of_nic(layout, shape, 0, 3), 0);
  layout.node_slot = {4, 0, 1, 2, 3, 5, 6, 7};
  EXPECT_EQ(leaf_of_nic(layout, shape, 0, 3), 1);
  EXPECT_EQ(leaf_of_nic(layout, shape, 4, 0), 0);
  const auto t = Topology::build(layout);
  // Every NIC of node 0 now hangs off the leaf that holds node 5's.
  const auto leaf_above = [&t](int node, int nic) {
    for (EdgeId e = 0; e < t.num_edges(); ++e)
      if (t.edge_source(e) == t.nic(node, nic) && t.vertex(t.edge_target(e)).kind == VertexKind::leaf)
        return t.edge_target(e);
    return VertexId{};
  };
  for (int k = 0; k < 8; ++k)
    EXPECT_EQ(leaf_above(0, k), leaf_above(5, k)) << "NIC " << k;
  EXPECT_NE(leaf_above(0, 0), leaf_above(1, 0));
}
