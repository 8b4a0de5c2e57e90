// Node-wide stalls over whole simulations (noise.node_stalls): a Poisson process per node that stops
// every host core at once. Closed forms: a launch-bound step loses every stall whole, (step / every) x
// duration on average; every GPU of a node waits out the same stalls; a GPU whose queue holds more work
// than a stall lasts does not wait at all.
#include "tests/support/run_csv.hpp"

#include <gtest/gtest.h>
#include <iostream>
#include <string>

using dpusim::testing::mean_of_samples;
using dpusim::testing::simulate;
using dpusim::testing::TempDir;

namespace {

const std::string kTiny = "{layers: 2, hidden: 256, heads: 4, vocab: 1000}";
const std::string kBig = "{layers: 16, hidden: 4096, heads: 32, vocab: 32000}";

/// Data-parallel training of `model` on `nodes` x `gpus` GPUs, `micro` micro-batches per replica, with
/// `noise` (a whole noise: line, or nothing).
std::string job(int nodes, int gpus, const std::string& model, int micro, const std::string& noise) {
  return "name: stalls\ncluster:\n  nodes: " + std::to_string(nodes) +
         "\n  gpus_per_node: " + std::to_string(gpus) +
         "\n  node: dgx-h100\n  nic: connectx-7\n  fabric: {topology: fat-tree, link: 400Gbps, latency: "
         "1us}\nworkload:\n  model: " +
         model + "\n  seq_len: 1024\n  global_batch: " + std::to_string(micro * nodes * gpus) +
         "\n  micro_batch: 1\n  parallelism: {tp: 1, dp: " + std::to_string(nodes * gpus) +
         "}\noffload: {baseline: rdma-nic}\n" + noise + "seed: 1\n";
}

std::string stalls(const std::string& every, const std::string& duration) {
  return "noise: {node_stalls: {every: " + every + ", duration: " + duration + "}}\n";
}

} // namespace

TEST(NodeStalls, ALaunchBoundStepLosesEveryStallWhole) {
  // The tiny model's GPU work is hardly longer than its launches, so a 2 ms stall, far beyond the slack
  // its queue holds, delays the GPU by all of it: the step waits (step / every) x duration on average.
  TempDir tmp;
  const double step = simulate(tmp, "clean", job(1, 1, kTiny, 512, ""), "step_time_s");
  const double wait = mean_of_samples(tmp, "stalled", job(1, 1, kTiny, 512, stalls("10ms", "2ms")), 200,
                                      "straggler_wait_os_s");
  const double expected = step / 0.010 * 0.002;
  EXPECT_NEAR(wait / expected, 1.0, 0.05) << wait << " s against " << expected << " s";
  std::cout << "node stalls, launch-bound: " << wait << " s against " << expected << " s\n";
}

TEST(NodeStalls, EveryGpuOfANodeWaitsOutTheSameStalls) {
  // Eight replicas on one node stall together, so their reduction waits what one replica would; on
  // eight nodes each stalls on its own, and the reduction waits for the unluckiest.
  TempDir tmp;
  const std::string noise = stalls("10ms", "1ms");
  const double one = mean_of_samples(tmp, "one", job(1, 1, kTiny, 32, noise), 50, "straggler_wait_s");
  const double node = mean_of_samples(tmp, "node", job(1, 8, kTiny, 32, noise), 50, "straggler_wait_s");
  const double nodes = mean_of_samples(tmp, "nodes", job(8, 1, kTiny, 32, noise), 50, "straggler_wait_s");
  EXPECT_GT(one, 0);
  EXPECT_NEAR(node / one, 1.0, 0.01) << node << " s against " << one << " s";
  EXPECT_GT(nodes, 1.5 * one) << nodes << " s against " << one << " s";
}

TEST(NodeStalls, AGpuWhoseQueueOutlastsAStallDoesNotWait) {
  // The large model's launches take 6% of its GPU time: the kernels queued ahead outlast a 1 ms stall.
  TempDir tmp;
  EXPECT_EQ(mean_of_samples(tmp, "big", job(1, 1, kBig, 8, stalls("10ms", "1ms")), 20, "straggler_wait_s"),
            0.0);
  // Longer stalls and more frequent ones are never cheaper.
  const double rare =
      mean_of_samples(tmp, "rare", job(1, 1, kTiny, 32, stalls("20ms", "1ms")), 50, "straggler_wait_s");
  const double often =
      mean_of_samples(tmp, "often", job(1, 1, kTiny, 32, stalls("5ms", "1ms")), 50, "straggler_wait_s");
  const double longer =
      mean_of_samples(tmp, "longer", job(1, 1, kTiny, 32, stalls("5ms", "2ms")), 50, "straggler_wait_s");
  EXPECT_LT(rare, often);
  EXPECT_LT(often, longer);
}
