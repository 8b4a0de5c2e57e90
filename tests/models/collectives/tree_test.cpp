#include "models/collectives/tree.hpp"
#include "tests/models/collectives/ranks.hpp"

#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace dpusim::collectives;
using dpusim::collectives::test_ranks::iota;

namespace {

/// Tree edges at each rank: its children and its parent.
std::vector<int> edges_at(const std::vector<int>& parent) {
  std::vector<int> edges(parent.size(), 0);
  for (std::size_t r = 0; r < parent.size(); ++r)
    if (parent[r] >= 0) {
      ++edges[r];
      ++edges[static_cast<std::size_t>(parent[r])];
    }
  return edges;
}

/// Every rank reaches the root within n steps (no cycles), so that tree_depth may walk the tree.
bool is_a_tree(const std::vector<int>& parent) {
  for (std::size_t r = 0; r < parent.size(); ++r) {
    int p = static_cast<int>(r);
    for (std::size_t steps = 0; p >= 0; ++steps) {
      if (steps > parent.size() || static_cast<std::size_t>(p) >= parent.size())
        return false;
      p = parent[static_cast<std::size_t>(p)];
    }
  }
  return true;
}

} // namespace

TEST(TreeStructure, BinaryTreeFollowsNcclsBitRule) {
  // ncclGetBtree over 8 ranks: 0 <- 4 <- {2, 6}, 2 <- {1, 3}, 6 <- {5, 7}.
  EXPECT_EQ(btree_parents(8), (std::vector<int>{-1, 2, 4, 2, 0, 6, 4, 6}));
  EXPECT_EQ(tree_depth(btree_parents(8)), 3);
  EXPECT_EQ(btree_parents(1), (std::vector<int>{-1}));
  EXPECT_EQ(btree_parents(2), (std::vector<int>{-1, 0}));
  // Past the end the parent only clears the bit: rank 4 of 5 hangs from 0 (8 is past the end).
  EXPECT_EQ(btree_parents(5), (std::vector<int>{-1, 2, 4, 2, 0}));
}

TEST(TreeStructure, SecondTreeIsMirroredForEvenAndShiftedForOddCounts) {
  EXPECT_EQ(second_tree_parents(8), (std::vector<int>{1, 3, 1, 7, 5, 3, 5, -1}));
  EXPECT_EQ(second_tree_parents(2), (std::vector<int>{1, -1}));
  // Odd: the first tree shifted by one rank (rank r plays rank r-1).
  EXPECT_EQ(second_tree_parents(5), (std::vector<int>{1, -1, 3, 0, 3}));
}

TEST(TreeStructure, NoRankIsAnInnerNodeOfBothTrees) {
  for (int n = 2; n <= 64; ++n) {
    const auto first = btree_parents(n);
    const auto second = second_tree_parents(n);
    ASSERT_TRUE(is_a_tree(first)) << n;
    ASSERT_TRUE(is_a_tree(second)) << n;
    const auto e1 = edges_at(first);
    const auto e2 = edges_at(second);
    int roots1 = 0, roots2 = 0;
    for (int r = 0; r < n; ++r) {
      const auto i = static_cast<std::size_t>(r);
      // Inner (two or three edges) in one tree, a leaf or a one-child root (one edge) in the other.
      EXPECT_FALSE(e1[i] >= 2 && e2[i] >= 2) << "rank " << r << " of " << n;
      EXPECT_LE(e1[i] + e2[i], 4) << "rank " << r << " of " << n;
      EXPECT_LE(e1[i], 3);
      roots1 += first[i] < 0;
      roots2 += second[i] < 0;
    }
    EXPECT_EQ(roots1, 1) << n;
    EXPECT_EQ(roots2, 1) << n;
    // Both are of depth ceil(log2 n) at most.
    int log2 = 0;
    while ((1 << log2) < n)
      ++log2;
    EXPECT_LE(tree_depth(first), log2) << n;
    EXPECT_LE(tree_depth(second), log2) << n;
  }
}

TEST(TreeStructure, DoubleTreeRunsAlongEveryChainAndEveryEdgeBothWays) {
  const double S = 4e9;
  const std::vector<std::vector<int>> chains{{0, 1}, {2, 3}, {4, 5}, {6, 7}};
  const auto dt = double_binary_tree(chains, S);
  ASSERT_EQ(dt.trees.size(), 2U);
  EXPECT_EQ(dt.depth, 2);
  for (const auto& t : dt.trees) {
    // 2 (k-1) m chain hops and 2 (m-1) hops between heads.
    EXPECT_EQ(t.size(), 2U * 1 * 4 + 2U * 3);
    std::set<std::pair<int, int>> pairs;
    for (const auto& h : t) {
      EXPECT_DOUBLE_EQ(h.bytes, S / 2);
      pairs.insert({h.src, h.dst});
      // Between nodes only heads (even GPUs) talk.
      if (h.src / 2 != h.dst / 2) {
        EXPECT_EQ(h.src % 2, 0);
        EXPECT_EQ(h.dst % 2, 0);
      }
    }
    for (const auto& [a, b] : pairs)
      EXPECT_TRUE(pairs.count({b, a})) << a << "->" << b;
  }
  // First tree over 4 nodes: 0 <- 2 <- {1, 3}.
  const auto& first = dt.trees[0];
  EXPECT_EQ(first[0].src, 1); // chain of node 0: 1 -> 0, then 0 -> 1
  EXPECT_EQ(first[0].dst, 0);
  EXPECT_EQ(first[2].src, 3); // node 1's chain, then its head to its parent node 2's head, and back
  EXPECT_EQ(first[2].dst, 2);
  EXPECT_EQ(first[4].src, 2);
  EXPECT_EQ(first[4].dst, 4);
  EXPECT_EQ(first[5].src, 4);
  EXPECT_EQ(first[5].dst, 2);
}

TEST(TreeStructure, AllReduceAcrossNodesHasAPairOfTreesPerNic) {
  const double S = 8e9;
  const auto plan = tree(CollectiveKind::all_reduce, iota(32), S, {.gpus = 8, .nics = 8});
  ASSERT_TRUE(plan.has_value());
  EXPECT_EQ(plan->channels, 8);
  EXPECT_EQ(plan->nodes, 4);
  ASSERT_EQ(plan->trees.size(), 16U);
  EXPECT_EQ(plan->depth, 2);
  EXPECT_EQ(plan->chain_hops, 7);
  EXPECT_EQ(plan->steps, 2 * (2 + 7));
  for (std::size_t t = 0; t < plan->trees.size(); ++t) {
    const int c = static_cast<int>(t / 2);
    for (const auto& h : plan->trees[t]) {
      EXPECT_DOUBLE_EQ(h.bytes, S / 8 / 2);
      // Channel c's chains start at member c: only member c of each node uses the network.
      if (h.src / 8 != h.dst / 8) {
        EXPECT_EQ(h.src % 8, c);
        EXPECT_EQ(h.dst % 8, c);
      }
    }
  }
}

TEST(TreeStructure, ANodeSendsAtMostTwiceItsShareOverTheNetwork) {
  const double S = 1e9;
  for (int m : {2, 3, 4, 7, 8}) {
    const auto plan = tree(CollectiveKind::all_reduce, iota(2 * m), S, {.gpus = 2, .nics = 1});
    ASSERT_TRUE(plan.has_value());
    ASSERT_EQ(plan->channels, 1);
    std::map<int, double> out_of_node;
    for (const auto& t : plan->trees)
      for (const auto& h : t)
        if (h.src / 2 != h.dst / 2)
          out_of_node[h.src / 2] += h.bytes;
    double most = 0;
    for (const auto& [node, bytes] : out_of_node)
      most = std::max(most, bytes);
    // An inner node of one tree (three edges) is a leaf (one edge) of the other: 4 S/2 at most; on two
    // nodes a node is the root of one tree and the leaf of the other: S.
    EXPECT_LE(most, 2 * S) << m;
    if (m == 2) {
      EXPECT_DOUBLE_EQ(most, S);
    }
  }
}

TEST(TreeStructure, OnlyAnAllReduceAcrossNodes) {
  const NodeShape dgx{.gpus = 8, .nics = 8};
  EXPECT_FALSE(tree(CollectiveKind::all_reduce, iota(8), 1e9, dgx).has_value());
  EXPECT_FALSE(tree(CollectiveKind::reduce_scatter, iota(16), 1e9, dgx).has_value());
  EXPECT_FALSE(tree(CollectiveKind::all_gather, iota(16), 1e9, dgx).has_value());
  EXPECT_FALSE(tree(CollectiveKind::all_reduce, iota(16), 0, dgx).has_value());
  EXPECT_TRUE(tree(CollectiveKind::all_reduce, {0, 8}, 1e9, dgx).has_value());
}
