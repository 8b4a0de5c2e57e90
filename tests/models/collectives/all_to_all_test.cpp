#include "models/collectives/all_to_all.hpp"
#include "tests/models/collectives/ranks.hpp"

#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace dpusim::collectives;
using dpusim::collectives::test_ranks::iota;

namespace {

const std::vector<int> kRails{0, 1, 2, 3}; // one NIC per GPU, four GPUs per node

} // namespace

TEST(AllToAllStructure, OneNodeSendsEveryPairItsShare) {
  const double S = 4e9;
  const auto plan = all_to_all(iota(4), S, 4, kRails, true);
  EXPECT_EQ(plan.nodes, 1);
  ASSERT_EQ(plan.parts.size(), 1U);
  ASSERT_EQ(plan.parts[0].size(), 12U);
  for (const auto& h : plan.parts[0]) {
    EXPECT_NE(h.src, h.dst);
    EXPECT_DOUBLE_EQ(h.bytes, S / 4);
  }
  // In ascending (src, dst) order.
  for (std::size_t i = 1; i < plan.parts[0].size(); ++i) {
    const auto& a = plan.parts[0][i - 1];
    const auto& b = plan.parts[0][i];
    EXPECT_TRUE(a.src < b.src || (a.src == b.src && a.dst < b.dst));
  }
}

TEST(AllToAllStructure, ForwardingMakesTheNetworkTrafficRailAligned) {
  const double S = 8e9;
  const auto plan = all_to_all(iota(8), S, 4, kRails, true); // two nodes of four
  ASSERT_EQ(plan.parts.size(), 2U);
  EXPECT_EQ(plan.nodes, 2);
  for (std::size_t j = 0; j < plan.parts.size(); ++j) {
    double network = 0;
    int network_hops = 0;
    for (const auto& h : plan.parts[j]) {
      EXPECT_EQ(h.src / 4, static_cast<int>(j)) << "a part holds the hops leaving its node";
      if (h.src / 4 == h.dst / 4)
        continue;
      ++network_hops;
      EXPECT_EQ(h.src % 4, h.dst % 4) << h.src << " -> " << h.dst;
      // The GPU on the destination's rail carries its node's four shares for that destination.
      EXPECT_DOUBLE_EQ(h.bytes, 4 * S / 8);
      network += h.bytes;
    }
    EXPECT_EQ(network_hops, 4);
    // (N - k)/N S per rank, k ranks.
    EXPECT_DOUBLE_EQ(network, (8.0 - 4) / 8 * S * 4);
  }
  // Inside the node each GPU sends its own share to each local peer and one forwarded share (for the
  // remote GPU on the peer's rail): 2 S/N per peer.
  std::map<std::pair<int, int>, double> intra;
  for (const auto& h : plan.parts[0])
    if (h.dst / 4 == 0)
      intra[{h.src, h.dst}] += h.bytes;
  EXPECT_EQ(intra.size(), 12U);
  for (const auto& [pair, bytes] : intra)
    EXPECT_DOUBLE_EQ(bytes, 2 * S / 8);
}

TEST(AllToAllStructure, WithoutForwardingTheSourceSendsEveryShare) {
  const double S = 8e9;
  const auto plan = all_to_all(iota(8), S, 4, kRails, false);
  ASSERT_EQ(plan.parts.size(), 2U);
  int network_hops = 0;
  double total = 0;
  for (const auto& h : plan.parts[0]) {
    EXPECT_DOUBLE_EQ(h.bytes, S / 8);
    network_hops += h.src / 4 != h.dst / 4;
    total += h.bytes;
  }
  EXPECT_EQ(network_hops, 16);
  EXPECT_EQ(plan.parts[0].size(), 4U * 7);
  EXPECT_DOUBLE_EQ(total, 4 * 7 * S / 8); // every rank's send buffer less its own share
}

TEST(AllToAllStructure, FewerNicsSpreadTheForwardingOverTheGpusOfARail) {
  // Two NICs for four GPUs: GPUs 0, 1 on rail 0 and 2, 3 on rail 1.
  const auto plan = all_to_all(iota(8), 8e9, 4, {0, 0, 1, 1}, true);
  std::map<int, int> via_count; // forwarding GPU -> remote destinations it sends to
  for (const auto& h : plan.parts[0])
    if (h.dst / 4 == 1) {
      EXPECT_EQ(h.src % 4 / 2, h.dst % 4 / 2);
      // Of the four shares for a destination, its rail's two GPUs send their own and one relayed each.
      EXPECT_DOUBLE_EQ(h.bytes, 2 * 8e9 / 8) << h.src << " -> " << h.dst;
      ++via_count[h.src];
    }
  // Every GPU of node 0 sends to the remote GPUs on its rail; none relays all the traffic.
  EXPECT_EQ(via_count.size(), 4U);
  for (const auto& [gpu, count] : via_count)
    EXPECT_EQ(count, 2) << gpu;
}

TEST(AllToAllStructure, NothingForOneRankOrNoBytes) {
  EXPECT_TRUE(all_to_all({5}, 1e9, 4, kRails, true).parts.empty());
  EXPECT_TRUE(all_to_all(iota(8), 0, 4, kRails, true).parts.empty());
}

TEST(AllToAllStructure, SharesSendEachRankItsPartOfEverySendersBytes) {
  // Uneven expert routing: every rank sends S x shares[i] to rank i, forwarded as without shares; the
  // bytes reaching each rank from the others add to (N - 1) S shares[i]. Uniform shares are the plain plan.
  const double S = 8e9;
  const std::vector<double> shares{0.3, 0.1, 0.1, 0.1, 0.2, 0.05, 0.1, 0.05};
  const auto plan = all_to_all(iota(8), S, 4, kRails, true, shares);
  std::map<int, double> into; // final hops only: a forwarded share enters its rail GPU first
  for (const auto& part : plan.parts)
    for (const auto& h : part)
      into[h.dst] += h.bytes;
  for (int dst = 0; dst < 8; ++dst) {
    // Into dst: the 7 others' shares, plus what its node forwards through it for remote GPUs on its rail
    // (the three local others' share of the remote GPU on dst's rail).
    const int remote_on_rail = dst < 4 ? dst + 4 : dst - 4;
    EXPECT_NEAR(into[dst], 7 * S * shares[dst] + 3 * S * shares[remote_on_rail], 1) << dst;
  }
  const auto uniform = all_to_all(iota(8), S, 4, kRails, true, std::vector<double>(8, 1.0 / 8));
  const auto plain = all_to_all(iota(8), S, 4, kRails, true);
  ASSERT_EQ(uniform.parts.size(), plain.parts.size());
  for (std::size_t p = 0; p < plain.parts.size(); ++p) {
    ASSERT_EQ(uniform.parts[p].size(), plain.parts[p].size());
    for (std::size_t i = 0; i < plain.parts[p].size(); ++i)
      EXPECT_DOUBLE_EQ(uniform.parts[p][i].bytes, plain.parts[p][i].bytes);
  }
  EXPECT_THROW((void)all_to_all(iota(8), S, 4, kRails, true, {0.5, 0.5}), std::invalid_argument);
}

TEST(AllToAllStructure, PartsSplitANodesSendsByRunsOfDestinationNodes) {
  // Five nodes of four GPUs; each node's sends as two parts: the next two nodes on from it, then the
  // two after. The same hops carry the same bytes as in one part a node, only grouped differently.
  const double S = 20e9;
  const auto one = all_to_all(iota(20), S, 4, kRails, true);
  const auto two = all_to_all(iota(20), S, 4, kRails, true, {}, 2);
  ASSERT_EQ(one.parts.size(), 5U);
  ASSERT_EQ(two.parts.size(), 10U);
  EXPECT_EQ(two.nodes, 5);
  auto total = [](const AllToAllPlan& plan) {
    std::map<std::pair<int, int>, double> hops;
    for (const auto& part : plan.parts)
      for (const auto& h : part)
        hops[{h.src, h.dst}] += h.bytes;
    return hops;
  };
  const auto a = total(one);
  const auto b = total(two);
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [hop, bytes] : a)
    EXPECT_NEAR(b.at(hop), bytes, 1e-3) << hop.first << " -> " << hop.second;
  for (std::size_t p = 0; p < two.parts.size(); ++p) {
    const int node = static_cast<int>(p) / 2;
    std::set<int> reached; // the nodes this part's network hops go to
    for (const auto& h : two.parts[p]) {
      EXPECT_EQ(h.src / 4, node) << "a part holds hops leaving its node";
      if (h.dst / 4 != node)
        reached.insert(h.dst / 4);
    }
    const int first = p % 2 == 0 ? 1 : 3; // counted on from the node itself
    EXPECT_EQ(reached, (std::set<int>{(node + first) % 5, (node + first + 1) % 5})) << "part " << p;
  }
  // At most one part a destination node; none for no part.
  EXPECT_EQ(all_to_all(iota(20), S, 4, kRails, true, {}, 64).parts.size(), 20U);
  EXPECT_THROW((void)all_to_all(iota(20), S, 4, kRails, true, {}, 0), std::invalid_argument);
}
