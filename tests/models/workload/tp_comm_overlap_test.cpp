// Transformer Engine's overlap of tensor-parallel communication with GEMMs: the closed forms of its three
// methods at their limits, and a layer's exposed communication.
#include "models/workload/tp_comm_overlap.hpp"

#include <gtest/gtest.h>

using namespace dpusim::workload;

TEST(TpCommOverlap, RingExchangeHidesTheGatherBehindALongerGemmButItsFirstChunk) {
  // tp = 8: 7 transfers of C/7 beside 8 GEMM chunks of G/8.
  EXPECT_DOUBLE_EQ(ring_exchange_s(8.0, 1.0, 8), 8.0);           // the gather hides entirely
  EXPECT_DOUBLE_EQ(ring_exchange_s(1.0, 7.0, 8), 7.0 + 1.0 / 8); // transfer-bound: all of it, plus a chunk
  EXPECT_DOUBLE_EQ(ring_exchange_s(2.0, 3.0, 1), 5.0);           // nothing to exchange with: in series
}

TEST(TpCommOverlap, PipelinedReduceScatterExposesTheLastChunkAndSlowsTheGemm) {
  // 4 splits; the communication takes a quarter of the SMs, so the GEMM runs 4/3 as long.
  EXPECT_DOUBLE_EQ(pipelined_s(3.0, 0.4, 4, 0.25), 4.0 + 0.1); // 3 s alone, 4 s beside the communication
  EXPECT_DOUBLE_EQ(pipelined_s(1.0, 8.0, 4, 0.0), 0.25 + 3 * 2.0 + 2.0); // communication-bound
}

TEST(TpCommOverlap, BulkTakesTheLongerOfTheTwo) {
  EXPECT_DOUBLE_EQ(bulk_s(3.0, 1.0, 0.25), 4.0);
  EXPECT_DOUBLE_EQ(bulk_s(1.0, 5.0, 0.25), 5.0);
}

TEST(TpCommOverlap, LayerExposureIsWhatTheGemmsCannotHide) {
  TpOverlapGemms g{1, 1, 1, 1, 1, 1, 1, 1};
  TpOverlapConfig c{.tp = 8, .pipeline_splits = 4, .comm_sm_share = 0.0};
  // Each communication (0.5 s) below its GEMM (1 s): what stays exposed is the pipelined
  // reduce-scatters' last chunks (0.5 / 4 each), nothing in the backward pass.
  EXPECT_DOUBLE_EQ(forward_exposed_s(g, c, 0.5), 2 * 0.125);
  EXPECT_DOUBLE_EQ(backward_exposed_s(g, c, 0.5), 0.0);
  // Without any GEMM to hide behind, every communication is exposed in full (plus nothing).
  TpOverlapGemms none{};
  EXPECT_DOUBLE_EQ(forward_exposed_s(none, c, 0.5), 4 * 0.5);
  EXPECT_DOUBLE_EQ(backward_exposed_s(none, c, 0.5), 4 * 0.5);
  // The SMs the pipelined and bulk kernels take slow the GEMMs beside them.
  c.comm_sm_share = 16.0 / 132;
  EXPECT_GT(forward_exposed_s(g, c, 0.5), 2 * 0.125);
  EXPECT_GT(backward_exposed_s(g, c, 0.5), 0.0);
}

TEST(TpCommOverlap, WithoutTheOverlapEachAllReduceCountsWhole) {
  const auto plain = tp_each_s(std::nullopt, TpOverlapConfig{}, 2.0);
  EXPECT_DOUBLE_EQ(plain.forward_s, 2.0);
  EXPECT_DOUBLE_EQ(plain.backward_s, 2.0);
  const auto overlapped = tp_each_s(TpOverlapGemms{}, TpOverlapConfig{.tp = 8}, 2.0);
  EXPECT_DOUBLE_EQ(overlapped.forward_s, 2.0); // nothing to hide behind: two halves per all-reduce
  EXPECT_DOUBLE_EQ(overlapped.backward_s, 2.0);
}
