// Closed-form checks of collectives simulated flow by flow on a fat-tree: a ring all-reduce of S bytes
// over N GPUs takes 2(N-1)/N * S/B + 2(N-1) * alpha (plus the library's base latency).
#include "sim/plan/collective_lowering.hpp"
#include "sim/topology/topology.hpp"
#include "tests/support/collective_rig.hpp"

#include <gtest/gtest.h>

using namespace dpusim;
using dpusim::testing::Rig;

namespace {

std::vector<int> iota(int n, int step = 1) {
  std::vector<int> v;
  for (int i = 0; i < n; ++i)
    v.push_back(i * step);
  return v;
}

} // namespace

TEST(RingAllReduce, RdmaOverTwoLeavesMatchesTheClosedForm) {
  // 64 single-GPU nodes: two leaves of 32, the ring crosses the spine once in each direction.
  Rig rig({.nodes = 64, .gpus = 1, .nics = 1, .pcie_switches = 1, .transport = offload::Transport::rdma});
  ASSERT_EQ(rig.topo->num_leaves(), 2);
  const int n = 64;
  const double s = 1073741824.0;
  const auto low = rig.lowering->ring(plan::CollectiveKind::all_reduce, iota(n), s);
  const double b = rig.hw.nic.line_rate.value.si() * rig.hw.nic.collective_efficiency.value;
  // The slowest step is the one through the spine.
  const double alpha = rig.alpha_network(31, 32);
  const double expected =
      rig.hw.collective.base_latency.value.si() + 2.0 * (n - 1) / n * s / b + 2.0 * (n - 1) * alpha;
  const double simulated = rig.simulate(low);
  EXPECT_NEAR(simulated / expected, 1.0, 0.02)
      << "simulated " << simulated << " s, closed form " << expected << " s";
}

TEST(RingAllReduce, EightGpusPerNodeUseEightRingsOneNicEach) {
  Rig rig({.nodes = 2, .gpus = 8, .nics = 8, .pcie_switches = 8, .transport = offload::Transport::rdma});
  const int n = 16;
  const double s = 4e9;
  const auto low = rig.lowering->ring(plan::CollectiveKind::all_reduce, iota(n), s);
  EXPECT_EQ(low.rings, 8);
  EXPECT_EQ(low.parts.size(), 8u);
  // NVLink (369 GB/s for 7 hops per GPU) never sets the pace of 47 GB/s NICs: only network hops remain.
  EXPECT_FALSE(low.intra_node_hops);
  for (const auto& part : low.parts)
    EXPECT_EQ(part.flows.size(), 2u);
  const double b = rig.hw.nic.line_rate.value.si() * rig.hw.nic.collective_efficiency.value;
  const double bandwidth_term = 2.0 * (n - 1) / n * s / 8 / b;
  const double simulated = rig.simulate(low);
  EXPECT_NEAR(simulated / (bandwidth_term + low.latency_s), 1.0, 0.02);
}

TEST(RingAllReduce, HostTcpIsBoundByTheReceiveCoreOfEachConnection) {
  // One socket thread per connection: a connection runs at the per-core receive rate (42.2 Gb/s), far
  // below the 400 Gb/s link — the closed form of CPU-bound TCP throughput.
  Rig rig({.nodes = 8, .gpus = 1, .nics = 1, .pcie_switches = 1, .transport = offload::Transport::host_tcp});
  const int n = 8;
  const double s = 1e9;
  const auto low = rig.lowering->ring(plan::CollectiveKind::all_reduce, iota(n), s);
  const double per_connection =
      rig.hw.cpu.tcp_rx_rate_per_core.value.si() * rig.hw.collective.socket_threads.value;
  const double expected = 2.0 * (n - 1) / n * s / per_connection + low.latency_s;
  EXPECT_NEAR(rig.simulate(low) / expected, 1.0, 0.02);
  // Every payload byte is charged on both hosts.
  const double payload = 2.0 * (n - 1) / n * s * n;
  EXPECT_NEAR(low.host_cpu_core_s(),
              payload / rig.hw.cpu.tcp_tx_rate_per_core.value.si() +
                  payload / rig.hw.cpu.tcp_rx_rate_per_core.value.si(),
              1e-9 * low.host_cpu_core_s());
}

TEST(RingAllReduce, MoreSocketThreadsMakeHostTcpFaster) {
  Rig one({.nodes = 8, .gpus = 1, .nics = 1, .pcie_switches = 1, .transport = offload::Transport::host_tcp});
  Rig four({.nodes = 8, .gpus = 1, .nics = 1, .pcie_switches = 1, .transport = offload::Transport::host_tcp});
  four.hw.collective.socket_threads.value = 4;
  four.path =
      std::make_unique<datapath::DataPath>(offload::parse_variant("host-tcp"), scenario::Services{}, four.hw);
  four.lowering = std::make_unique<plan::CollectiveLowering>(*four.platform, four.hw, *four.path);
  const auto a = one.lowering->ring(plan::CollectiveKind::all_reduce, iota(8), 1e9);
  const auto b = four.lowering->ring(plan::CollectiveKind::all_reduce, iota(8), 1e9);
  // Compare bandwidth-bound durations: the engine is a singleton, so use the closed form of each
  // lowering's CPU work per connection (4 loads of a quarter each run in parallel).
  double max_load_a = 0;
  double max_load_b = 0;
  for (const auto& part : a.parts)
    for (const auto& l : part.loads)
      max_load_a = std::max(max_load_a, l.amount);
  for (const auto& part : b.parts)
    for (const auto& l : part.loads)
      max_load_b = std::max(max_load_b, l.amount);
  EXPECT_NEAR(max_load_a / max_load_b, 4.0, 1e-9);
}

TEST(PointToPoint, IntraNodeSendUsesNvlinkAndInterNodeUsesTheNics) {
  Rig rig({.nodes = 2, .gpus = 8, .nics = 8, .pcie_switches = 8, .transport = offload::Transport::rdma});
  const auto local = rig.lowering->p2p(0, 1, 1e9);
  const auto remote = rig.lowering->p2p(0, 8, 1e9);
  EXPECT_TRUE(local.nics.empty());
  EXPECT_EQ(remote.nics.size(), 2u);
  EXPECT_NEAR(remote.parts.front().flows.front().bytes, 1e9 / rig.hw.nic.rdma_efficiency.value, 1.0);
}

TEST(Lowered, ZippingStopsWhereAPartWouldGrowTooLarge) {
  // Symmetric rings zip into one part (they progress alike) until the part would hold more than
  // kMaxZippedEntries flows and loads; the next ring then runs as a part of its own.
  auto ring = [](std::size_t flows) {
    plan::Lowered l;
    plan::Transfer t;
    t.flows.assign(flows, engine::Flow{0, 1, 1.0});
    l.parts.push_back(t);
    l.rings = 1;
    return l;
  };
  const std::size_t half = plan::kMaxZippedEntries / 2;
  plan::Lowered all = ring(half);
  all.merge(ring(half), true);
  ASSERT_EQ(all.parts.size(), 1u);
  EXPECT_EQ(all.parts[0].flows.size(), 2 * half);
  all.merge(ring(1), true);
  ASSERT_EQ(all.parts.size(), 2u);
  EXPECT_EQ(all.parts[1].flows.size(), 1u);
  EXPECT_EQ(all.rings, 3);
}

TEST(RingAllReduce, HostTcpStepsRecordTheirSoftwareLatencyTailAndRdmaStepsHaveNone) {
  // A noise model may draw these steps' stack latency: 2(N-1) steps, each waiting for N hops at once.
  Rig tcp({.nodes = 8, .gpus = 1, .nics = 1, .pcie_switches = 1, .transport = offload::Transport::host_tcp});
  const auto t = tcp.lowering->ring(plan::CollectiveKind::all_reduce, iota(8), 1e9);
  EXPECT_EQ(t.tail_steps, 2 * 7);
  EXPECT_EQ(t.tail_hops, 8);
  Rig rdma({.nodes = 8, .gpus = 1, .nics = 1, .pcie_switches = 1, .transport = offload::Transport::rdma});
  EXPECT_EQ(rdma.lowering->ring(plan::CollectiveKind::all_reduce, iota(8), 1e9).tail_steps, 0);
}

TEST(RingSegments, ALongRingRunsAsEvenSegmentsOfItsHops) {
  Rig rig({.nodes = 40, .gpus = 1, .nics = 1, .pcie_switches = 1, .transport = offload::Transport::rdma});
  rig.lowering->set_ring_segment_hops(16);
  const auto low = rig.lowering->ring(plan::CollectiveKind::all_reduce, iota(40), 1e9);
  ASSERT_EQ(low.parts.size(), 3u); // 40 hops: 14, 14 and 12
  EXPECT_EQ(low.parts[0].flows.size(), 14u);
  EXPECT_EQ(low.parts[2].flows.size(), 12u);
  EXPECT_EQ(low.rings, 1);
  rig.lowering->set_ring_segment_hops(plan::kRingSegmentHops);
  EXPECT_EQ(rig.lowering->ring(plan::CollectiveKind::all_reduce, iota(40), 1e9).parts.size(), 1u);
}

TEST(RingSegments, SegmentsTakeTheWholeRingsTimeBesideARingOnPartOfItsNodes) {
  // A ring over 64 nodes shares the NICs of its first 16 with a second ring of half its bytes: those
  // hops run at half the rate until the second ring ends, the others could run at full rate. Whole, the
  // first ring holds every hop to the slowest; in segments of 8 hops the free ones run ahead and end
  // early. Run once whole and once in segments, one after the other in the same simulation: the
  // rings end at the same time.
  Rig rig({.nodes = 64, .gpus = 1, .nics = 1, .pcie_switches = 1, .transport = offload::Transport::rdma});
  auto rings = [&](std::size_t hops) {
    rig.lowering->set_ring_segment_hops(hops);
    plan::Lowered both = rig.lowering->ring(plan::CollectiveKind::all_reduce, iota(64), 1e9);
    both.merge(rig.lowering->ring(plan::CollectiveKind::all_reduce, iota(16), 5e8), false);
    return both;
  };
  const auto whole = rings(1000);
  const auto segmented = rings(8);
  ASSERT_EQ(whole.parts.size(), 2u);
  ASSERT_EQ(segmented.parts.size(), 10u); // 8 segments of the long ring, 2 of the short one
  engine::TaskGraph g;
  const auto first = plan::append_to_graph(g, whole, {});
  const auto second = plan::append_to_graph(g, segmented, {first.last});
  simgrid::Simulator sim(rig.platform->build());
  const auto t = sim.execute(g);
  const double whole_s = t[static_cast<std::size_t>(first.last)].end;
  const double segmented_s = t[static_cast<std::size_t>(second.last)].end - whole_s;
  // The shared NICs set the pace: the long ring takes longer than its NICs alone would allow.
  const double nic_bound = 2.0 * 63 / 64 * 1e9 / (rig.nic() * rig.hw.nic.collective_efficiency.value);
  EXPECT_GT(whole_s, 1.2 * nic_bound);
  EXPECT_NEAR(segmented_s / whole_s, 1.0, 1e-3) << "whole " << whole_s << " s, in segments " << segmented_s;
}
