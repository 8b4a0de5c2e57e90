#include "models/collectives/nvls.hpp"
#include "tests/models/collectives/ranks.hpp"

#include <gtest/gtest.h>
#include <set>

using namespace dpusim::collectives;
using dpusim::collectives::test_ranks::iota;

namespace {

NodeMembers members(std::vector<int> gpus, int per_node = 8) {
  return group_by_node(gpus, per_node);
}

} // namespace

TEST(NvlsStructure, AppliesWithTheSwitchToEqualNodesAndAcrossNodesOnlyToAnAllReduce) {
  const auto one = members(iota(8));
  const auto two = members(iota(16));
  for (auto kind : {CollectiveKind::all_reduce, CollectiveKind::reduce_scatter, CollectiveKind::all_gather}) {
    EXPECT_TRUE(nvls_applies(kind, one, true, 1e9));
    EXPECT_FALSE(nvls_applies(kind, one, false, 1e9)) << "no NVLS in the switch (A100)";
    EXPECT_FALSE(nvls_applies(kind, one, true, 0));
  }
  EXPECT_TRUE(nvls_applies(CollectiveKind::all_reduce, two, true, 1e9));
  EXPECT_FALSE(nvls_applies(CollectiveKind::reduce_scatter, two, true, 1e9));
  EXPECT_FALSE(nvls_applies(CollectiveKind::all_gather, two, true, 1e9));
  EXPECT_FALSE(nvls_applies(CollectiveKind::all_to_all, one, true, 1e9));
  EXPECT_FALSE(nvls_applies(CollectiveKind::all_reduce, members({0, 8}), true, 1e9)) << "one GPU per node";
  EXPECT_FALSE(nvls_applies(CollectiveKind::all_reduce, members({0, 1, 2, 8, 9}), true, 1e9)) << "3 + 2";
  EXPECT_FALSE(nvls_applies(CollectiveKind::all_reduce, members({3}), true, 1e9));
  // NCCL sets NVLS up only for more than two GPUs of the communicator on a node (ncclNvlsInit).
  EXPECT_FALSE(nvls_applies(CollectiveKind::all_reduce, members({0, 1}), true, 1e9)) << "two GPUs";
  EXPECT_FALSE(nvls_applies(CollectiveKind::all_reduce, members({0, 1, 8, 9}), true, 1e9)) << "2 + 2";
  EXPECT_TRUE(nvls_applies(CollectiveKind::all_reduce, members({0, 1, 2}), true, 1e9)) << "three GPUs";
  EXPECT_FALSE(nvls_applies(CollectiveKind::all_reduce, NodeMembers{}, true, 1e9));
  EXPECT_FALSE(nvls(CollectiveKind::all_reduce, iota(8), 1e9, 8, false).has_value());
}

TEST(NvlsStructure, OneNodeIsOneSwitchPartLoadingEveryLinkWithTheData) {
  const double S = 2e9;
  const auto plan = nvls(CollectiveKind::all_reduce, iota(8), S, 8, true);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->nodes, 1);
  ASSERT_EQ(plan->switch_parts.size(), 1U);
  EXPECT_TRUE(plan->tree_parts.empty());
  EXPECT_EQ(plan->switch_steps, 2);
  EXPECT_EQ(plan->depth, 0);
  EXPECT_EQ(plan->steps, 2);
  const auto& part = plan->switch_parts[0];
  ASSERT_EQ(part.size(), 8U);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(part[static_cast<std::size_t>(i)].src, i);
    EXPECT_EQ(part[static_cast<std::size_t>(i)].dst, (i + 1) % 8);
    EXPECT_DOUBLE_EQ(part[static_cast<std::size_t>(i)].bytes, S);
  }
  const auto rs = nvls(CollectiveKind::reduce_scatter, iota(8), S, 8, true);
  ASSERT_TRUE(rs.has_value());
  EXPECT_EQ(rs->switch_steps, 1);
  EXPECT_EQ(rs->steps, 1);
}

TEST(NvlsStructure, AcrossNodesEveryRailRunsADoubleTreeOverItsShard) {
  const double S = 8e9;
  const auto plan = nvls(CollectiveKind::all_reduce, iota(32), S, 8, true);
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->nodes, 4);
  EXPECT_EQ(plan->switch_parts.size(), 4U);
  for (std::size_t j = 0; j < plan->switch_parts.size(); ++j)
    for (const auto& h : plan->switch_parts[j]) {
      EXPECT_EQ(h.src / 8, static_cast<int>(j));
      EXPECT_EQ(h.dst / 8, static_cast<int>(j));
    }
  ASSERT_EQ(plan->tree_parts.size(), 16U); // two trees per member
  EXPECT_EQ(plan->depth, 2);
  EXPECT_EQ(plan->steps, 2 + 2 * 2);
  for (std::size_t t = 0; t < plan->tree_parts.size(); ++t) {
    const auto rail = static_cast<int>(t / 2);
    std::set<int> nodes;
    // No chains: 2 (m - 1) hops between the rail's GPUs, each S/k/2.
    EXPECT_EQ(plan->tree_parts[t].size(), 6U);
    for (const auto& h : plan->tree_parts[t]) {
      EXPECT_EQ(h.src % 8, rail);
      EXPECT_EQ(h.dst % 8, rail);
      EXPECT_NE(h.src / 8, h.dst / 8);
      EXPECT_DOUBLE_EQ(h.bytes, S / 8 / 2);
      nodes.insert(h.src / 8);
    }
    EXPECT_EQ(nodes.size(), 4U);
  }
}
