// The estimator's closed forms against the formulas of docs/models/collectives.md, on the quickstart's
// DGX H100 nodes and 400 Gb/s fabric (the simulation's side of each is tested in tests/sim/plan/).
#include "sim/estimate/comm_costs.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/model/registry.hpp"
#include "sim/scenario/cluster_layout.hpp"

#include <gtest/gtest.h>
#include <numeric>

namespace dpusim::estimate {
namespace {

struct Rig {
  explicit Rig(const std::string& variant_name, int nodes = 0) {
    if (nodes > 0)
      all.cluster.nodes = nodes;
    s.variants.clear();
    for (const auto& v : all.variants)
      if (v.name == variant_name)
        variant = v;
    hw = model::hardware_for(all, cat, variant, nullptr, "");
    path.emplace(variant, all.cluster.services, hw);
    layout = scenario::cluster_layout(all.cluster, hw.node, hw.gpu, hw.nic, hw.fabric_switch);
    costs.emplace(layout, hw, *path, all.cluster.fabric.routing);
    pinned.emplace(layout, hw, *path, topology::Routing::pinned);
  }
  catalog::Catalog cat =
      catalog::Catalog::load(std::filesystem::path(DPUSIM_SOURCE_DIR) / "models/catalog/data");
  scenario::Scenario all =
      input::load_scenario(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml", cat);
  scenario::Scenario s;
  offload::Variant variant;
  scenario::Hardware hw;
  std::optional<datapath::DataPath> path;
  topology::ClusterLayout layout;
  std::optional<CommCosts> costs;
  std::optional<CommCosts> pinned;
};

std::vector<int> range(int from, int n, int stride = 1) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i)
    v.push_back(from + i * stride);
  return v;
}

TEST(CommCosts, RingInsideANodeIsTheRingsClosedForm) {
  Rig r("rdma-nic");
  const auto c = r.costs->collective(CollectiveKind::all_reduce, CollectiveAlgorithm::ring, {range(0, 8)});
  const auto& n = r.layout.node;
  const double step = r.hw.collective.step_latency_nvlink.value.si() + 2 * n.nvlink_latency.si();
  EXPECT_NEAR(c.latency_s, r.hw.collective.base_latency.value.si() + 14 * step, 1e-12);
  EXPECT_NEAR(c.s_per_byte * n.nvlink_per_gpu.si() * r.hw.gpu.nvlink_collective_efficiency.value, 2.0 * 7 / 8,
              1e-9);
  EXPECT_EQ(c.host_core_s_per_byte, 0.0);
}

TEST(CommCosts, DataParallelRingsOfEveryTensorRankLoadEachNicWithOneRing) {
  // TP 8 x DP 8 on 8 nodes: GPU j of every node reduces with the others, over its own rail's NIC.
  Rig r("rdma-nic");
  std::vector<std::vector<int>> groups;
  for (int j = 0; j < 8; ++j)
    groups.push_back(range(j, 8, 8));
  const auto c = r.costs->collective(CollectiveKind::all_reduce, CollectiveAlgorithm::ring, groups);
  const double line = r.layout.node.nic_line_rate.si() * r.hw.nic.collective_efficiency.value;
  EXPECT_NEAR(c.s_per_byte * line, 2.0 * 7 / 8, 1e-9);
  // Twice the data-parallel degree, the same load per NIC (2(N-1)/N tends to 2): at most 2/line.
  std::vector<std::vector<int>> one{range(0, 8, 8)};
  const auto alone = r.costs->collective(CollectiveKind::all_reduce, CollectiveAlgorithm::ring, one);
  EXPECT_NEAR(alone.s_per_byte, c.s_per_byte, 1e-15) << "one ring per NIC whether or not the others run";
  EXPECT_GT(c.latency_s,
            r.hw.collective.base_latency.value.si() + 14 * r.hw.collective.step_latency_network.value.si());
  const auto rs = r.costs->collective(CollectiveKind::reduce_scatter, CollectiveAlgorithm::ring, groups);
  EXPECT_NEAR(rs.s_per_byte * 2, c.s_per_byte, 1e-15) << "a reduce-scatter moves half an all-reduce";
}

TEST(CommCosts, HostTcpIsBoundByTheCoresOfItsConnections) {
  Rig tcp("host-tcp");
  Rig rdma("rdma-nic");
  std::vector<std::vector<int>> groups;
  for (int j = 0; j < 8; ++j)
    groups.push_back(range(j, 8, 8));
  const auto t = tcp.costs->collective(CollectiveKind::all_reduce, CollectiveAlgorithm::ring, groups);
  const auto n = rdma.costs->collective(CollectiveKind::all_reduce, CollectiveAlgorithm::ring, groups);
  EXPECT_GT(t.s_per_byte, n.s_per_byte);
  EXPECT_GT(t.host_core_s_per_byte, 0.0);
  // A connection's end keeps its threads' cores busy: the slower end's per-core rate sets the pace.
  double tx = 0;
  double rx = 0;
  int threads = 1;
  for (const auto& w : tcp.path->network_transfer(1.0))
    if (w.processor == datapath::Processor::host_cpu) {
      (w.end == datapath::End::sender ? tx : rx) += w.core_s;
      threads = w.threads;
    }
  const double hop = 2.0 * 7 / 8;
  const double loads = 2.0 * 8 * threads; // every GPU's ring sends and receives on this node
  const double share = std::max(1.0, loads / tcp.hw.host_cores());
  EXPECT_GE(t.s_per_byte, std::max(tx, rx) / threads * share * hop * (1 - 1e-12));
  EXPECT_NEAR(t.host_core_s_per_byte, (tx + rx) * hop * 8 * 8, 1e-9 * t.host_core_s_per_byte);
}

TEST(CommCosts, SendsAcrossNodesTakeOneStepAtTheRdmaEfficiency) {
  Rig r("rdma-nic");
  const auto c = r.costs->sends(range(0, 8), range(8, 8));
  EXPECT_NEAR(c.s_per_byte * r.layout.node.nic_line_rate.si() * r.hw.nic.rdma_efficiency.value, 1.0, 1e-9);
  EXPECT_GT(c.latency_s, r.hw.collective.step_latency_network.value.si());
  EXPECT_LT(c.latency_s,
            r.hw.collective.base_latency.value.si() + r.hw.collective.step_latency_network.value.si());
  const auto inside = r.costs->sends(range(0, 4), range(4, 4));
  EXPECT_NEAR(inside.latency_s,
              r.hw.collective.step_latency_nvlink.value.si() + 2 * r.layout.node.nvlink_latency.si(), 1e-15);
}

TEST(CommCosts, HashedPathsCollideOnSpinesWherePinnedOnesDoNot) {
  // 16 of the quickstart's nodes sit 4 to a leaf of 32 down-ports (and 32 up-links, one per spine):
  // each data-parallel ring crosses between leaves once per leaf.
  Rig r("rdma-nic", 16);
  std::vector<std::vector<int>> groups;
  for (int j = 0; j < 8; ++j)
    groups.push_back(range(j, 16, 8));
  const auto hashed = r.costs->collective(CollectiveKind::all_reduce, CollectiveAlgorithm::ring, groups);
  const auto pinned = r.pinned->collective(CollectiveKind::all_reduce, CollectiveAlgorithm::ring, groups);
  const double line = r.layout.node.nic_line_rate.si() * r.hw.nic.collective_efficiency.value;
  // Pinned: a 1:1 fabric carries every NIC at its rate.
  EXPECT_NEAR(pinned.s_per_byte * line, 2.0 * 15 / 16, 1e-9);
  // Hashed: each leaf's 8 crossing hops, split over their connections' paths, land on 32 spines by
  // hash; the busiest spine link (its expected load) carries more than a NIC's ring, less than two.
  EXPECT_GT(hashed.s_per_byte, 1.05 * pinned.s_per_byte);
  EXPECT_LT(hashed.s_per_byte, 2.0 * pinned.s_per_byte);
  // Inside one leaf nothing is hashed.
  const std::vector<std::vector<int>> one_leaf{range(0, 4, 8)};
  EXPECT_EQ(r.costs->collective(CollectiveKind::all_reduce, CollectiveAlgorithm::ring, one_leaf).s_per_byte,
            r.pinned->collective(CollectiveKind::all_reduce, CollectiveAlgorithm::ring, one_leaf).s_per_byte);
}

TEST(CommCosts, HierarchicalIsItsPhasesOneAfterAnother) {
  Rig r("rdma-nic");
  const std::vector<std::vector<int>> all{range(0, 64)};
  const auto h = r.costs->collective(CollectiveKind::all_reduce, CollectiveAlgorithm::hierarchical, all);
  const auto inside =
      r.costs->collective(CollectiveKind::reduce_scatter, CollectiveAlgorithm::ring, {range(0, 8)});
  std::vector<std::vector<int>> rails;
  for (int j = 0; j < 8; ++j)
    rails.push_back(range(j, 8, 8));
  const auto across = r.costs->collective(CollectiveKind::all_reduce, CollectiveAlgorithm::ring, rails);
  // Reduce-scatter of S, all-reduce of S/8 along the rails, all-gather of S (as long as the scatter).
  EXPECT_NEAR(h.s_per_byte, 2 * inside.s_per_byte + across.s_per_byte / 8, 1e-6 * h.s_per_byte);
  EXPECT_NEAR(h.latency_s, 2 * inside.latency_s + across.latency_s, 1e-12);
}

TEST(CommCosts, ARingOfOneRankANodePaysTheTreesNetworkStepAndATreeAlways) {
  // NCCL's model (NCCL-TUNE-230): with one rank a node nothing hides a step's latency, so a ring's
  // network steps take the tree's latency; with more ranks a node, the ring's. A microsecond more on the
  // tree's step moves the one by its network steps and leaves the other.
  Rig r("rdma-nic");
  auto slower = r.hw;
  slower.collective.tree_step_latency_network.value =
      units::Seconds::from_si(slower.collective.tree_step_latency_network.value.si() + 1e-6);
  const CommCosts shifted(r.layout, slower, *r.path, r.all.cluster.fabric.routing);
  const auto moved = [&](CollectiveAlgorithm a, const std::vector<int>& g) {
    return shifted.collective(CollectiveKind::all_reduce, a, {g}).latency_s -
           r.costs->collective(CollectiveKind::all_reduce, a, {g}).latency_s;
  };
  EXPECT_NEAR(moved(CollectiveAlgorithm::ring, range(0, 4, 8)), 6e-6, 1e-12); // 2 (4 - 1) network steps
  EXPECT_NEAR(moved(CollectiveAlgorithm::ring, {0, 1, 8, 9}), 0.0, 1e-12);
  EXPECT_GT(moved(CollectiveAlgorithm::tree, range(0, 32)), 0.0);
}

} // namespace
} // namespace dpusim::estimate
