// NCCL's tuner model: its latencies and bandwidths come out of NCCL 2.30's formulas for hand-worked
// inputs, its pick is the least predicted time among what applies, and what NCCL would not run (NVLS
// across nodes without CollNet, LL128 over sockets, a restriction) is never picked.
#include "models/collectives/nccl_tuner.hpp"

#include <gtest/gtest.h>

using namespace dpusim::collectives;

namespace {

/// A DGX H100-like node: 8 GPUs, NVLink at 370 GB/s of ring bus bandwidth, 8 NICs of 50 GB/s.
TunerInput dgx_h100(int nodes, int per_node = 8) {
  TunerInput in;
  in.kind = CollectiveKind::all_reduce;
  in.nodes = nodes;
  in.ranks = nodes * per_node;
  in.generation = GpuGeneration::hopper;
  in.channels = 2 * per_node;
  in.intra_gbps = 370;
  in.inter_gbps = 50.0 * per_node;
  in.nvlink_gbps = 450;
  in.nvls = true;
  return in;
}

const TunerEntry& entry(const std::vector<TunerEntry>& table, TunerAlgorithm a, TunerProtocol p) {
  for (const auto& e : table)
    if (e.algorithm == a && e.protocol == p)
      return e;
  throw std::logic_error("no such entry");
}

} // namespace

TEST(NcclTuner, GenerationsFollowTheComputeCapability) {
  EXPECT_EQ(gpu_generation(7.0), GpuGeneration::volta);
  EXPECT_EQ(gpu_generation(8.0), GpuGeneration::ampere);
  EXPECT_EQ(gpu_generation(9.0), GpuGeneration::hopper);
  EXPECT_EQ(gpu_generation(10.3), GpuGeneration::blackwell);
}

TEST(NcclTuner, RingLatenciesAreNcclsBasePlusItsPerStepLatencies) {
  // One node of 8: 14 NVLink steps. LL: 6.6 + 14 x 0.6; Simple: 8.4 + 14 x 3.4.
  const auto one = tuner_table(dgx_h100(1));
  EXPECT_NEAR(entry(one, TunerAlgorithm::ring, TunerProtocol::ll).latency_us, 6.6 + 14 * 0.6, 1e-9);
  EXPECT_NEAR(entry(one, TunerAlgorithm::ring, TunerProtocol::simple).latency_us, 8.4 + 14 * 3.4, 1e-9);
  // Two nodes of 8: 30 steps, 2 across the network (14 us for Simple), the 28 others at the larger of
  // NVLink's 3.4 us and the network post overhead (1 us x 3 for Simple on an Intel host).
  const auto two = tuner_table(dgx_h100(2));
  EXPECT_NEAR(entry(two, TunerAlgorithm::ring, TunerProtocol::simple).latency_us, 8.4 + 28 * 3.4 + 2 * 14.0,
              1e-9);
  // Tree: 6.8 + 2 x (7 x 0.6 + log2(2) x 5.0) for LL.
  EXPECT_NEAR(entry(two, TunerAlgorithm::tree, TunerProtocol::ll).latency_us, 6.8 + 2 * (7 * 0.6 + 5.0),
              1e-9);
  // NVLS-tree: 25 inside the node and 2 x log2(nodes) x 20.9 across.
  EXPECT_NEAR(entry(tuner_table(dgx_h100(4)), TunerAlgorithm::nvls_tree, TunerProtocol::simple).latency_us,
              25 + 2 * 2 * 20.9, 1e-9);
}

TEST(NcclTuner, BandwidthsAreNcclsRefinementsOfTheBusBandwidth) {
  const auto in = dgx_h100(1);
  const auto t = tuner_table(in);
  const double ratio = 8.0 / 14.0; // ranks / steps: bus to algorithm bandwidth of a ring all-reduce
  EXPECT_NEAR(entry(t, TunerAlgorithm::ring, TunerProtocol::simple).bandwidth_gbps, 370 * ratio, 1e-9);
  // LL: half, at most Hopper's single-node LL cap (141 GB/s).
  EXPECT_NEAR(entry(t, TunerAlgorithm::ring, TunerProtocol::ll).bandwidth_gbps, 141.0 * ratio, 1e-9);
  // LL128: 0.92 of it, at most 36.7 GB/s a channel.
  EXPECT_NEAR(entry(t, TunerAlgorithm::ring, TunerProtocol::ll128).bandwidth_gbps,
              std::min(370 * 0.92, 16 * 36.7) * ratio, 1e-9);
  // NVLS on one node: the ring's NVLink x 0.85 x (c-1)/c x 2 (an all-reduce pipelines two operations),
  // at most NVLink's own 450 GB/s.
  EXPECT_NEAR(entry(t, TunerAlgorithm::nvls, TunerProtocol::simple).bandwidth_gbps,
              std::min(370 * 0.85 * 15 / 16 * 2, 450.0) * ratio, 1e-9);
  // NVLS has only Simple; nothing NVLS-tree on one node, nor a tree on it here.
  EXPECT_EQ(entry(t, TunerAlgorithm::nvls, TunerProtocol::ll).bandwidth_gbps, 0);
  EXPECT_EQ(entry(t, TunerAlgorithm::nvls_tree, TunerProtocol::simple).bandwidth_gbps, 0);
}

TEST(NcclTuner, ThePickIsTheLeastPredictedTimeAtEverySize) {
  for (const int nodes : {1, 2, 4, 64}) {
    const auto in = dgx_h100(nodes);
    for (double bytes = 8; bytes <= 8e9; bytes *= 4) {
      const auto pick = tuner_choice(in, bytes);
      ASSERT_TRUE(pick.has_value());
      const double t = tuner_time_us(in, *pick, bytes);
      for (const auto& e : tuner_table(in)) {
        const double other = tuner_time_us(in, e, bytes);
        if (other >= 0) {
          EXPECT_LE(t, other) << nodes << " nodes, " << bytes << " B";
        }
      }
    }
  }
}

TEST(NcclTuner, SmallSizesGoToLowLatencyProtocolsAndLargeOnesToSimple) {
  const auto one = dgx_h100(1);
  EXPECT_EQ(tuner_choice(one, 8)->protocol, TunerProtocol::ll);
  EXPECT_EQ(tuner_choice(one, 8e9)->algorithm, TunerAlgorithm::nvls);
  // Many nodes: the tree's log2 depth wins the small sizes; the ring or NVLS-tree the large ones.
  const auto many = dgx_h100(64);
  EXPECT_EQ(tuner_choice(many, 8)->algorithm, TunerAlgorithm::tree);
  EXPECT_EQ(tuner_choice(many, 8e9)->protocol, TunerProtocol::simple);
  // Without NVLink SHARP (A100): the ring for a large all-reduce on one node.
  auto a100 = dgx_h100(1);
  a100.generation = GpuGeneration::ampere;
  a100.nvls = false;
  EXPECT_EQ(tuner_choice(a100, 8e9)->algorithm, TunerAlgorithm::ring);
}

TEST(NcclTuner, WhatNcclWouldNotRunIsNeverPicked) {
  // A reduce-scatter across nodes: NVLS needs CollNet there, the tree is an all-reduce's.
  auto rs = dgx_h100(4);
  rs.kind = CollectiveKind::reduce_scatter;
  for (double bytes = 8; bytes <= 8e9; bytes *= 16)
    EXPECT_EQ(tuner_choice(rs, bytes)->algorithm, TunerAlgorithm::ring) << bytes;
  // Over sockets (no GPUDirect): no LL128 across nodes.
  auto tcp = dgx_h100(2);
  tcp.gpudirect = false;
  for (double bytes = 8; bytes <= 8e9; bytes *= 4)
    EXPECT_NE(tuner_choice(tcp, bytes)->protocol, TunerProtocol::ll128) << bytes;
  // One GPU a node: no NVLS.
  const auto single = dgx_h100(4, 1);
  for (double bytes = 8; bytes <= 8e9; bytes *= 4)
    EXPECT_NE(tuner_choice(single, bytes)->algorithm, TunerAlgorithm::nvls_tree) << bytes;
  // NCCL_ALGO and NCCL_PROTO restrict the pick; an all-to-all is not the tuner's.
  auto pinned = dgx_h100(2);
  pinned.algorithm = TunerAlgorithm::ring;
  pinned.protocol = TunerProtocol::simple;
  const auto p = tuner_choice(pinned, 8);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->algorithm, TunerAlgorithm::ring);
  EXPECT_EQ(p->protocol, TunerProtocol::simple);
  auto a2a = dgx_h100(2);
  a2a.kind = CollectiveKind::all_to_all;
  EXPECT_FALSE(tuner_choice(a2a, 1e6).has_value());
}

TEST(NcclTuner, TheTreeIsCorrectedAtMediumSizesAndTheRingPlateausAcrossNodes) {
  const auto in = dgx_h100(4);
  const auto table = tuner_table(in);
  const auto& tree = entry(table, TunerAlgorithm::tree, TunerProtocol::simple);
  // 64 KiB: log2(65536 / 64) = 10, Simple's factor there 0.6.
  EXPECT_NEAR(tuner_time_us(in, tree, 65536), tree.latency_us + 65536 / (1000 * tree.bandwidth_gbps * 0.6),
              1e-9);
  const auto& ring = entry(table, TunerAlgorithm::ring, TunerProtocol::simple);
  // At 64 bytes or more per channel and rank, the ring's latency counts 1.4 times (Ampere and later).
  const double big = 64.0 * 16 * 32;
  EXPECT_NEAR(tuner_time_us(in, ring, big), 1.4 * ring.latency_us + big / (1000 * ring.bandwidth_gbps), 1e-9);
  EXPECT_NEAR(tuner_time_us(in, ring, 8), ring.latency_us + 8 / (1000 * ring.bandwidth_gbps), 1e-9);
}

TEST(NcclTuner, ABroadcastOrAReduceRunsOnTheRingAtEveryStepsLatency) {
  for (const auto kind : {CollectiveKind::broadcast, CollectiveKind::reduce}) {
    auto in = dgx_h100(2);
    in.kind = kind;
    for (double bytes = 8; bytes <= 8e9; bytes *= 8)
      EXPECT_EQ(tuner_choice(in, bytes)->algorithm, TunerAlgorithm::ring) << bytes;
    // 16 steps (NCCL's nsteps for them: the ranks) across nodes at the network's LL latency (2.7 us),
    // Simple's at the tree's (14 us); the bus bandwidth is the algorithm bandwidth.
    const auto t = tuner_table(in);
    EXPECT_NEAR(entry(t, TunerAlgorithm::ring, TunerProtocol::ll).latency_us, 6.6 + 16 * 2.7, 1e-9);
    EXPECT_NEAR(entry(t, TunerAlgorithm::ring, TunerProtocol::simple).latency_us, 8.4 + 16 * 14.0, 1e-9);
    EXPECT_NEAR(entry(t, TunerAlgorithm::ring, TunerProtocol::simple).bandwidth_gbps, 370, 1e-9);
  }
}
