// Megatron-Core's combined 1F1B: a forward and a backward pass of two micro-batches layer by layer, each
// all-to-all beside the other pass's computation. Closed forms at the limits and the bounds any step keeps.
#include "models/workload/ep_overlap.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <random>

using namespace dpusim::workload;

namespace {

ChunkPass uniform(int layers, double pre, double mlp, bool exchanges = true) {
  ChunkPass p;
  p.layers.assign(static_cast<std::size_t>(layers), LayerPass{pre, mlp, exchanges});
  return p;
}

} // namespace

TEST(EpOverlap, ComputationBesideACommunicationLosesTheSmsOnlyWhileItRuns) {
  EXPECT_DOUBLE_EQ(beside_s(3.0, 0.0, 0.25), 3.0); // nothing beside it: all the SMs
  EXPECT_DOUBLE_EQ(beside_s(0.0, 2.0, 0.25), 2.0); // nothing to hide behind
  EXPECT_DOUBLE_EQ(beside_s(3.0, 2.0, 0.25), 3.5); // 2 s at 3/4 of the SMs, the rest (1.5 s) at full
  EXPECT_DOUBLE_EQ(beside_s(1.0, 2.0, 0.25), 2.0); // the computation fits on the SMs left
  EXPECT_DOUBLE_EQ(beside_s(3.0, 2.0, 0.0), 3.0);  // no SMs taken: the longer of the two
}

TEST(EpOverlap, EqualComputationAndAllToAllsHalveTheStep) {
  // Every part 1 s: alone a layer's pass takes 1 + 1 + 2 x 1 = 4 s; beside each other a pair of layers takes
  // four phases of 1 s, against 8 s one after the other.
  const auto f = uniform(3, 1.0, 1.0);
  const auto b = uniform(3, 1.0, 1.0);
  EXPECT_DOUBLE_EQ(alone_s(f, 1.0), 12.0);
  EXPECT_DOUBLE_EQ(combined_step_s(f, b, 1.0, 0.0), 12.0);
  EXPECT_DOUBLE_EQ(alone_s(f, 1.0) + alone_s(b, 1.0), 24.0);
}

TEST(EpOverlap, WithoutAllToAllsNothingChanges) {
  auto f = uniform(4, 0.7, 1.3);
  auto b = uniform(5, 1.1, 2.9);
  f.after_s = 0.4;
  b.before_s = 0.6;
  b.layers[2].recompute_s = 0.5;
  EXPECT_DOUBLE_EQ(combined_step_s(f, b, 0.0, 0.2), alone_s(f, 0.0) + alone_s(b, 0.0));
  // Dense layers exchange nothing, whatever an all-to-all would take.
  const auto dense = uniform(4, 0.7, 1.3, false);
  const auto dense_b = uniform(4, 1.1, 2.9, false);
  EXPECT_DOUBLE_EQ(combined_step_s(dense, dense_b, 5.0, 0.2), alone_s(dense, 5.0) + alone_s(dense_b, 5.0));
}

TEST(EpOverlap, CommunicationBoundLayersAreTheAllToAllsEndToEnd) {
  // No computation: each pair's four all-to-alls run one after the other, as they would alone.
  const auto f = uniform(2, 0.0, 0.0);
  const auto b = uniform(2, 0.0, 0.0);
  EXPECT_DOUBLE_EQ(combined_step_s(f, b, 1.5, 0.15), 2 * 4 * 1.5);
}

TEST(EpOverlap, LayersBeyondTheShorterPassAndRecomputationRunAlone) {
  auto f = uniform(1, 1.0, 1.0);
  auto b = uniform(3, 1.0, 1.0);
  b.layers[0].recompute_s = 2.0;
  b.layers[0].recompute_exchanges = true;
  // One pair (4 s) after the recomputation and its two all-to-alls (4 s); two backward layers alone (8 s).
  EXPECT_DOUBLE_EQ(combined_step_s(f, b, 1.0, 0.0), 4.0 + 4.0 + 8.0);
}

TEST(EpOverlap, AStepLiesBetweenItsLongerStreamAndItsPassesInSeries) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.0, 2.0);
  for (int trial = 0; trial < 200; ++trial) {
    ChunkPass f;
    ChunkPass b;
    for (int l = 0; l < 6; ++l) {
      f.layers.push_back({u(rng), u(rng), l % 3 != 0});
      b.layers.push_back({u(rng), u(rng), l % 2 == 0});
    }
    const double a2a = u(rng);
    const double share = u(rng) / 10;
    const double step = combined_step_s(f, b, a2a, share);
    double compute = 0;
    double comm = 0;
    for (const auto* p : {&f, &b})
      for (const auto& l : p->layers) {
        compute += l.pre_s + l.mlp_s;
        comm += l.exchanges ? 2 * a2a : 0.0;
      }
    EXPECT_GE(step + 1e-12, std::max(compute, comm));
    // Never longer than the two passes one after the other, nor shorter without the SMs taken.
    EXPECT_LE(step, alone_s(f, a2a) + alone_s(b, a2a) + 1e-12);
    EXPECT_LE(combined_step_s(f, b, a2a, 0.0), step + 1e-12);
  }
}
