// A per-node expert dispatch (models/collectives/expert_dispatch.hpp): the chance a token reaches each
#include "tests/models/collectives/ranks.hpp"
// rank and node, once over RDMA per node, then NVLink, and what a node limit saves.
#include "models/collectives/expert_dispatch.hpp"

#include <cmath>
#include <gtest/gtest.h>
#include <limits>
#include <map>
#include <set>

using namespace dpusim::collectives;
using dpusim::collectives::test_ranks::iota;

namespace {

/// Every rank's node: `per_node` consecutive ranks a node.
std::vector<int> nodes_of(int ranks, int per_node) {
  std::vector<int> v;
  for (int r = 0; r < ranks; ++r)
    v.push_back(r / per_node);
  return v;
}

ExpertDispatch dispatch(double token_bytes, int top_k) {
  ExpertDispatch d;
  d.token_bytes = token_bytes;
  d.top_k = top_k;
  return d;
}

/// Bytes the plan moves across nodes and inside them.
std::pair<double, double> network_and_nvlink(const AllToAllPlan& plan, int per_node) {
  double network = 0;
  double nvlink = 0;
  for (const auto& part : plan.parts)
    for (const auto& h : part)
      (h.src / per_node == h.dst / per_node ? nvlink : network) += h.bytes;
  return {network, nvlink};
}

} // namespace

TEST(ExpertDispatch, BalancedReachIsTheChanceThatOneOfKCopiesLandsThere) {
  // 8 nodes of 8 ranks, top-8: a rank is reached with 1 - (1 - 1/64)^8, a node with 1 - (7/8)^8.
  ExpertDispatch d = dispatch(1, 8);
  const auto r = dispatch_reach(d, nodes_of(64, 8));
  for (double x : r.rank)
    EXPECT_NEAR(x, 1 - std::pow(63.0 / 64, 8), 1e-12);
  for (double x : r.node)
    EXPECT_NEAR(x, 1 - std::pow(7.0 / 8, 8), 1e-12);
  // At most 4 nodes (DeepSeek-V3): each node among a token's 4 with chance 1/2, then one of 8 copies on
  // it with 1 - (3/4)^8, on a rank of it with 1 - (31/32)^8.
  d.node_limit = 4;
  const auto limited = dispatch_reach(d, nodes_of(64, 8));
  for (double x : limited.node)
    EXPECT_NEAR(x, 0.5 * (1 - std::pow(0.75, 8)), 1e-12);
  for (double x : limited.rank)
    EXPECT_NEAR(x, 0.5 * (1 - std::pow(31.0 / 32, 8)), 1e-12);
  // A limit at or above the group's nodes limits nothing.
  d.node_limit = 8;
  EXPECT_EQ(dispatch_reach(d, nodes_of(64, 8)).node, r.node);
}

TEST(ExpertDispatch, ATokenCrossesTheNetworkOncePerNodeOnTheSourcesRail) {
  // Two nodes of four, top-2: every network hop connects GPUs of the same position (rail-aligned), and
  // each source sends each remote node token_bytes x its reach, where NCCL's all-to-all sends every copy.
  const double T = 1e9;
  ExpertDispatch d = dispatch(T, 2);
  const auto plan = expert_dispatch(iota(8), d, 4);
  ASSERT_EQ(plan.parts.size(), 2U);
  const double node_reach = 1 - std::pow(0.5, 2);
  std::map<int, double> sent; // source -> bytes over the network
  for (const auto& part : plan.parts)
    for (const auto& h : part)
      if (h.src / 4 != h.dst / 4) {
        EXPECT_EQ(h.src % 4, h.dst % 4) << h.src << " -> " << h.dst;
        sent[h.src] += h.bytes;
      }
  ASSERT_EQ(sent.size(), 8U);
  for (const auto& [src, bytes] : sent)
    EXPECT_NEAR(bytes, T * node_reach, 1);
  const auto per_copy = all_to_all(iota(8), 2 * T, 4, {0, 1, 2, 3}, true);
  EXPECT_LT(network_and_nvlink(plan, 4).first, network_and_nvlink(per_copy, 4).first);
  // The relay forwards to each other GPU of its node what reaches it: 3 peers x 4 remote sources.
  const double rank_reach = 1 - std::pow(7.0 / 8, 2);
  std::map<std::pair<int, int>, double> nvlink;
  for (const auto& part : plan.parts)
    for (const auto& h : part)
      if (h.src / 4 == h.dst / 4)
        nvlink[{h.src, h.dst}] += h.bytes;
  // GPU 0 to GPU 1: its own tokens for GPU 1, and relayed tokens of GPU 4 (same position) for GPU 1.
  EXPECT_NEAR((nvlink[{0, 1}]), 2 * T * rank_reach, 1);
}

TEST(ExpertDispatch, ATighterNodeLimitSendsLessOverTheNetwork) {
  // DeepSeek-V3's group: 64 ranks on 8 nodes, top-8: the network bytes fall with the limit; the NVLink
  // bytes a token takes inside a node rise as its copies crowd onto fewer nodes, not its total reach.
  ExpertDispatch d = dispatch(1e6, 8);
  double previous = std::numeric_limits<double>::infinity();
  for (int m : {8, 4, 2, 1}) {
    d.node_limit = m;
    const double network = network_and_nvlink(expert_dispatch(iota(64), d, 8), 8).first;
    EXPECT_LT(network, previous) << m;
    previous = network;
  }
  // Uneven shares: the busier node is reached more often, and the chances stay probabilities.
  std::vector<double> shares(64, 0.5 / 56);
  for (int r = 0; r < 8; ++r)
    shares[static_cast<std::size_t>(r)] = 0.5 / 8; // node 0 holds half the copies
  d.rank_shares = shares;
  d.node_limit = 4;
  const auto reach = dispatch_reach(d, nodes_of(64, 8));
  EXPECT_GT(reach.node[0], reach.node[1]);
  for (double x : reach.node) {
    EXPECT_GE(x, 0.0);
    EXPECT_LE(x, 1.0);
  }
  auto bad = dispatch(1, 2);
  bad.rank_shares = {1.0};
  EXPECT_THROW((void)expert_dispatch(iota(8), bad, 4), std::invalid_argument);
}

TEST(ExpertDispatch, PartsSplitANodesDispatchByDestinationNode) {
  // Four nodes of four, one part a destination node: each part crosses to one node (and relays there),
  // and the hops carry what one part a node carries.
  const ExpertDispatch d = dispatch(1e9, 2);
  const auto one = expert_dispatch(iota(16), d, 4);
  const auto each = expert_dispatch(iota(16), d, 4, 3);
  ASSERT_EQ(one.parts.size(), 4U);
  ASSERT_EQ(each.parts.size(), 12U);
  std::map<std::pair<int, int>, double> a;
  std::map<std::pair<int, int>, double> b;
  for (const auto& part : one.parts)
    for (const auto& h : part)
      a[{h.src, h.dst}] += h.bytes;
  for (const auto& part : each.parts) {
    std::set<int> crossed_to;
    for (const auto& h : part) {
      b[{h.src, h.dst}] += h.bytes;
      if (h.src / 4 != h.dst / 4)
        crossed_to.insert(h.dst / 4);
    }
    EXPECT_EQ(crossed_to.size(), 1U);
  }
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [hop, bytes] : a)
    EXPECT_NEAR(b.at(hop), bytes, 1e-3);
}
