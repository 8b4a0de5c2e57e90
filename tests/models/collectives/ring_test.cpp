#include "models/collectives/ring.hpp"

#include <gtest/gtest.h>
#include <set>

using namespace dpusim::collectives;

namespace {

std::vector<int> iota(int n, int from = 0) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i)
    v.push_back(from + i);
  return v;
}

/// Every rank is left once and entered once, and following the hops from the first returns to it
/// after visiting every rank.
void expect_one_cycle(const Channel& ring, std::size_t n) {
  ASSERT_EQ(ring.size(), n);
  std::set<int> from, to;
  for (const auto& h : ring) {
    from.insert(h.src);
    to.insert(h.dst);
    EXPECT_NE(h.src, h.dst);
  }
  EXPECT_EQ(from.size(), n);
  EXPECT_EQ(from, to);
  for (std::size_t i = 0; i < n; ++i)
    EXPECT_EQ(ring[i].dst, ring[(i + 1) % n].src);
}

constexpr NodeShape kDgx{.gpus = 8, .nics = 8};

} // namespace

TEST(RingStructure, OneNodeIsOneRingInRankOrder) {
  const double S = 1e9;
  const auto plan = ring(CollectiveKind::all_reduce, iota(8), S, kDgx);
  EXPECT_EQ(plan.rings, 1);
  EXPECT_EQ(plan.nodes, 1);
  EXPECT_EQ(plan.steps, 14);
  EXPECT_DOUBLE_EQ(plan.hop_bytes, 2.0 * 7 / 8 * S);
  ASSERT_EQ(plan.channels.size(), 1U);
  expect_one_cycle(plan.channels[0], 8);
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(plan.channels[0][static_cast<std::size_t>(i)].src, i);
    EXPECT_EQ(plan.channels[0][static_cast<std::size_t>(i)].dst, (i + 1) % 8);
    EXPECT_DOUBLE_EQ(plan.channels[0][static_cast<std::size_t>(i)].bytes, plan.hop_bytes);
  }
}

TEST(RingStructure, ReduceScatterAndAllGatherMoveHalfAsMuchInHalfTheSteps) {
  const double S = 3e8;
  for (auto kind : {CollectiveKind::reduce_scatter, CollectiveKind::all_gather}) {
    const auto plan = ring(kind, iota(4), S, kDgx);
    EXPECT_EQ(plan.steps, 3);
    EXPECT_DOUBLE_EQ(plan.hop_bytes, 3.0 / 4 * S);
  }
}

TEST(RingStructure, AcrossNodesOneRingPerNicEachLeavingThroughAnotherGpu) {
  const double S = 8e9;
  const auto plan = ring(CollectiveKind::all_reduce, iota(16), S, kDgx);
  EXPECT_EQ(plan.rings, 8);
  EXPECT_EQ(plan.nodes, 2);
  EXPECT_EQ(plan.steps, 30);
  EXPECT_DOUBLE_EQ(plan.hop_bytes, 2.0 * 15 / 16 * S / 8);
  ASSERT_EQ(plan.channels.size(), 8U);
  std::set<int> leaving_node0;
  for (std::size_t c = 0; c < plan.channels.size(); ++c) {
    const auto& r = plan.channels[c];
    expect_one_cycle(r, 16);
    // Ring c enters every node at member c.
    EXPECT_EQ(r.front().src, static_cast<int>(c));
    int network = 0;
    for (const auto& h : r)
      if (h.src / 8 != h.dst / 8) {
        ++network;
        if (h.src / 8 == 0)
          leaving_node0.insert(h.src);
      }
    EXPECT_EQ(network, 2);
  }
  EXPECT_EQ(leaving_node0.size(), 8U);
}

TEST(RingStructure, FewerNicsThanGpusSpreadTheRingsOverTheMembers) {
  const auto plan = ring(CollectiveKind::all_reduce, iota(16), 1e9, {.gpus = 8, .nics = 4});
  ASSERT_EQ(plan.rings, 4);
  std::set<int> entries;
  for (const auto& r : plan.channels)
    entries.insert(r.front().src);
  EXPECT_EQ(entries, (std::set<int>{0, 2, 4, 6}));
}

TEST(RingStructure, RanksAreOrderedByNodeWhateverTheInputOrder) {
  const auto plan = ring(CollectiveKind::all_gather, {9, 0, 8, 1}, 1e6, kDgx);
  ASSERT_EQ(plan.rings, 2);
  const auto& r0 = plan.channels[0];
  EXPECT_EQ(r0[0].src, 0);
  EXPECT_EQ(r0[0].dst, 1);
  EXPECT_EQ(r0[1].dst, 8);
  EXPECT_EQ(r0[2].dst, 9);
  EXPECT_EQ(r0[3].dst, 0);
  const auto& r1 = plan.channels[1];
  EXPECT_EQ(r1[0].src, 1);
  EXPECT_EQ(r1[0].dst, 0);
  EXPECT_EQ(r1[1].dst, 9);
}

TEST(RingStructure, NothingForOneRankOrNoBytes) {
  EXPECT_TRUE(ring(CollectiveKind::all_reduce, {3}, 1e9, kDgx).channels.empty());
  EXPECT_TRUE(ring(CollectiveKind::all_reduce, {}, 1e9, kDgx).channels.empty());
  const auto none = ring(CollectiveKind::all_reduce, iota(8), 0, kDgx);
  EXPECT_TRUE(none.channels.empty());
  EXPECT_EQ(none.rings, 0);
  EXPECT_EQ(none.steps, 0);
}

TEST(RingStructure, NvlinkHopsMatterInsideANodeOrWhenNotClearlyFaster) {
  const auto one_node = ring(CollectiveKind::all_reduce, iota(8), 1e9, kDgx);
  EXPECT_TRUE(ring_nvlink_hops_matter(one_node, kDgx, 1.0, 1e12));
  const auto two_nodes = ring(CollectiveKind::all_reduce, iota(16), 1e9, kDgx); // 8 rings
  // 7 NVLink hops at 450 GB/s against one network hop at 47 GB/s: NVLink needs 0.73 of the time.
  EXPECT_FALSE(ring_nvlink_hops_matter(two_nodes, kDgx, 450e9, 47e9));
  // 7 hops at 300 GB/s against one at 47 GB/s: 1.1 of the time: NVLink can set the pace.
  EXPECT_TRUE(ring_nvlink_hops_matter(two_nodes, kDgx, 300e9, 47e9));
  const auto one_gpu_per_node = ring(CollectiveKind::all_reduce, {0, 1}, 1e9, {.gpus = 1, .nics = 1});
  EXPECT_TRUE(ring_nvlink_hops_matter(one_gpu_per_node, {.gpus = 1, .nics = 1}, 1.0, 1e12));
}

TEST(RingStructure, ABroadcastIsAChainFromTheRootAndAReduceTheSameChainBackToIt) {
  // Two nodes of eight: eight rings (one per NIC), each a chain of 15 hops of S/8 that starts at the root
  // (rank 0) and visits every other rank once; the reduce is each hop reversed.
  const double S = 8e8;
  const auto bcast = ring(CollectiveKind::broadcast, iota(16), S, kDgx);
  const auto reduce = ring(CollectiveKind::reduce, iota(16), S, kDgx);
  EXPECT_EQ(bcast.rings, 8);
  EXPECT_EQ(bcast.steps, 15);
  EXPECT_DOUBLE_EQ(bcast.hop_bytes, S / 8);
  ASSERT_EQ(bcast.channels.size(), 8U);
  ASSERT_EQ(reduce.channels.size(), 8U);
  for (std::size_t c = 0; c < bcast.channels.size(); ++c) {
    const auto& chain = bcast.channels[c];
    ASSERT_EQ(chain.size(), 15U);
    EXPECT_EQ(chain.front().src, 0) << c;
    std::set<int> reached{0};
    for (std::size_t i = 0; i < chain.size(); ++i) {
      if (i > 0) {
        EXPECT_EQ(chain[i].src, chain[i - 1].dst);
      }
      EXPECT_TRUE(reached.insert(chain[i].dst).second) << "rank " << chain[i].dst << " reached twice";
      EXPECT_DOUBLE_EQ(chain[i].bytes, S / 8);
      EXPECT_EQ(reduce.channels[c][i].src, chain[i].dst);
      EXPECT_EQ(reduce.channels[c][i].dst, chain[i].src);
    }
    EXPECT_EQ(reached.size(), 16U);
  }
}
