#include "models/collectives/hierarchical.hpp"
#include "tests/models/collectives/ranks.hpp"

#include <gtest/gtest.h>

using namespace dpusim::collectives;
using dpusim::collectives::test_ranks::iota;

namespace {

void expect_intra(const HierarchicalPhase& phase, CollectiveKind kind, double bytes, int nodes, int k) {
  ASSERT_EQ(phase.size(), static_cast<std::size_t>(nodes));
  for (int j = 0; j < nodes; ++j) {
    const auto& call = phase[static_cast<std::size_t>(j)];
    EXPECT_EQ(call.kind, kind);
    EXPECT_DOUBLE_EQ(call.bytes, bytes);
    ASSERT_EQ(call.gpus.size(), static_cast<std::size_t>(k));
    for (int i = 0; i < k; ++i)
      EXPECT_EQ(call.gpus[static_cast<std::size_t>(i)], j * k + i);
  }
}

void expect_rails(const HierarchicalPhase& phase, CollectiveKind kind, double bytes, int nodes, int k) {
  ASSERT_EQ(phase.size(), static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) {
    const auto& call = phase[static_cast<std::size_t>(i)];
    EXPECT_EQ(call.kind, kind);
    EXPECT_DOUBLE_EQ(call.bytes, bytes);
    ASSERT_EQ(call.gpus.size(), static_cast<std::size_t>(nodes));
    for (int j = 0; j < nodes; ++j)
      EXPECT_EQ(call.gpus[static_cast<std::size_t>(j)], j * k + i);
  }
}

} // namespace

TEST(HierarchicalStructure, AllReduceIsReduceScatterRailAllReduceAllGather) {
  const double S = 8e9;
  const auto plan = hierarchical(CollectiveKind::all_reduce, iota(12), S, 4); // 3 nodes of 4
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->per_node, 4U);
  EXPECT_EQ(plan->nodes, 3);
  ASSERT_EQ(plan->phases.size(), 3U);
  expect_intra(plan->phases[0], CollectiveKind::reduce_scatter, S, 3, 4);
  expect_rails(plan->phases[1], CollectiveKind::all_reduce, S / 4, 3, 4);
  expect_intra(plan->phases[2], CollectiveKind::all_gather, S, 3, 4);
}

TEST(HierarchicalStructure, ReduceScatterAndAllGatherAreTwoPhasesInOppositeOrder) {
  const double S = 1e6;
  const auto rs = hierarchical(CollectiveKind::reduce_scatter, iota(16), S, 8);
  ASSERT_TRUE(rs.has_value());
  ASSERT_EQ(rs->phases.size(), 2U);
  expect_intra(rs->phases[0], CollectiveKind::reduce_scatter, S, 2, 8);
  expect_rails(rs->phases[1], CollectiveKind::reduce_scatter, S / 8, 2, 8);
  const auto ag = hierarchical(CollectiveKind::all_gather, iota(16), S, 8);
  ASSERT_TRUE(ag.has_value());
  ASSERT_EQ(ag->phases.size(), 2U);
  expect_rails(ag->phases[0], CollectiveKind::all_gather, S / 8, 2, 8);
  expect_intra(ag->phases[1], CollectiveKind::all_gather, S, 2, 8);
}

TEST(HierarchicalStructure, RailsPairTheSameMemberOfEveryNode) {
  // Two GPUs of each of two eight-GPU nodes, given out of order.
  const auto plan = hierarchical(CollectiveKind::all_reduce, {9, 0, 8, 1}, 1e9, 8);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->phases[0][0].gpus, (std::vector<int>{0, 1}));
  EXPECT_EQ(plan->phases[0][1].gpus, (std::vector<int>{8, 9}));
  ASSERT_EQ(plan->phases[1].size(), 2U);
  EXPECT_EQ(plan->phases[1][0].gpus, (std::vector<int>{0, 8}));
  EXPECT_EQ(plan->phases[1][1].gpus, (std::vector<int>{1, 9}));
  EXPECT_DOUBLE_EQ(plan->phases[1][0].bytes, 0.5e9);
}

TEST(HierarchicalStructure, NeedsTheSameTwoOrMoreMembersInEachOfSeveralNodes) {
  EXPECT_FALSE(hierarchical(CollectiveKind::all_reduce, iota(8), 1e9, 8).has_value());         // one node
  EXPECT_FALSE(hierarchical(CollectiveKind::all_reduce, {0, 8}, 1e9, 8).has_value());          // one per node
  EXPECT_FALSE(hierarchical(CollectiveKind::all_reduce, {0, 1, 2, 8, 9}, 1e9, 8).has_value()); // 3 + 2
  EXPECT_FALSE(hierarchical(CollectiveKind::all_reduce, iota(16), 0, 8).has_value());
  EXPECT_FALSE(hierarchical(CollectiveKind::all_to_all, iota(16), 1e9, 8).has_value());
  EXPECT_TRUE(hierarchical(CollectiveKind::all_reduce, {0, 1, 8, 9}, 1e9, 8).has_value());
}
