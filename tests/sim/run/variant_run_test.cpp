// Whole-iteration properties. One simulation per test: ctest runs each in a process of its own.
#include "models/base/yaml_reader.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/run/variant_run.hpp"
#include "tests/support/bundled_catalog.hpp"
#include "tests/support/in_child.hpp"

#include <gtest/gtest.h>

using namespace dpusim;

namespace {

const catalog::Catalog& the_catalog() {
  return dpusim::testing::bundled_catalog();
}

report::VariantResult simulate(const std::string& text) {
  const auto s = input::parse_scenario(yaml::parse_text(text, "test.yaml"), the_catalog());
  return run::run_variant(s, the_catalog(), s.variants.front(), {});
}

} // namespace

TEST(Iteration, OneF1BBubbleEmergesFromTheSchedule) {
  // 4 pipeline stages, 8 micro-batches, a tiny vocabulary so that stages are equal, fast NVLink sends:
  // the step is (m + p - 1) micro-batch slots of forward + backward, i.e. a bubble of (p-1)/(m+p-1).
  const std::string text = R"(name: bubble
cluster: {nodes: 1, node: dgx-h100, fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}}
workload:
  model: {layers: 16, hidden: 4096, heads: 32, vocab: 128}
  seq_len: 2048
  global_batch: 8
  micro_batch: 1
  parallelism: {tp: 2, pp: 4, dp: 1}
offload: {baseline: rdma-nic}
)";
  const auto r = simulate(text);
  const int m = 8;
  const int p = 4;
  const double slot = (r.metrics.compute_s - 0) / m; // busiest stage's kernels, optimizer included
  const double tp = r.metrics.tp_comm_s / m;
  const double expected = (m + p - 1) * (slot + tp);
  EXPECT_NEAR(r.metrics.step_time_s / expected, 1.0, 0.03);
}

TEST(Iteration, ComputeOnlyStepIsTheSumOfKernelTimes) {
  // One GPU, no parallelism: nothing to communicate, the step is exactly the kernels' time.
  const std::string text = R"(name: single
cluster: {nodes: 1, node: dgx-h100, fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}}
workload:
  model: {layers: 4, hidden: 2048, heads: 16, vocab: 50257}
  seq_len: 2048
  global_batch: 32
  micro_batch: 4
  parallelism: {tp: 8, dp: 1}
offload: {baseline: host-tcp}
)";
  const auto r = simulate(text);
  EXPECT_NEAR(r.metrics.step_time_s, r.metrics.compute_s + r.metrics.tp_comm_s, 1e-9 * r.metrics.step_time_s);
  // No inter-node traffic, no TCP: the host only runs the launch threads.
  EXPECT_EQ(r.metrics.host_busy_cores_by_use[static_cast<std::size_t>(plan::CpuUse::transport)], 0.0);
}

TEST(Iteration, ExpertParallelAllToAllsAreSimulatedOnceAndExposedInEveryLayer) {
  // 4 MoE layers, 2 micro-batches, the expert-parallel group spanning both nodes: every layer
  // dispatches and combines in the forward and backward passes, 16 all-to-alls per micro-batch.
  const std::string text = R"(name: moe
cluster: {nodes: 2, node: dgx-h100, fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}}
workload:
  model: {layers: 4, hidden: 2048, heads: 16, vocab: 32000, activation: swiglu, ffn: 8192, experts: 8, top_k: 2, expert_ffn: 4096}
  seq_len: 2048
  global_batch: 4
  micro_batch: 1
  parallelism: {tp: 8, dp: 2, ep: 2}
offload: {baseline: rdma-nic}
)";
  const auto r = simulate(text);
  ASSERT_GT(r.ep_collective_s, 0.0);
  EXPECT_EQ(r.ep_collectives_reused, 2 * 16 * 2); // both replicas' tasks
  EXPECT_NEAR(r.metrics.ep_comm_s, 2 * 16 * r.ep_collective_s, 1e-9);
  // Synchronous inside each layer: never hidden behind compute.
  EXPECT_GE(r.metrics.step_time_s, r.metrics.compute_s + r.metrics.tp_comm_s + r.metrics.ep_comm_s - 1e-9);
  // 2048 tokens / 8 TP ranks x 2 copies x 2048 x 2 B = 2 MiB per rank; half leaves the node over a 400G
  // NIC (50 GB/s): at least 21 us.
  EXPECT_GT(r.ep_collective_s, 1048576.0 / 50e9);
}

TEST(Iteration, ContextParallelRanksExchangeKeysAndValuesAndReduceGradientsTogether) {
  // dp = 1 but cp = 2 across the two nodes: the two context-parallel ranks hold the same weights, so
  // their gradients are still reduced, and each layer gathers the other rank's keys and values.
  const std::string text = R"(name: cp
cluster: {nodes: 2, node: dgx-h100, fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}}
workload:
  model: {layers: 4, hidden: 4096, heads: 32, kv_heads: 8, vocab: 32000, activation: swiglu, ffn: 14336}
  seq_len: 8192
  global_batch: 2
  micro_batch: 1
  parallelism: {tp: 8, dp: 1, cp: 2}
offload: {baseline: rdma-nic}
)";
  const auto r = simulate(text);
  EXPECT_GT(r.metrics.dp_comm_s, 0.0);
  ASSERT_GT(r.cp_collective_s, 0.0);
  EXPECT_EQ(r.cp_collectives_reused, 2 * 4 * 3); // 2 micro-batches x 4 layers x (1 forward + 2 backward)
  EXPECT_GE(r.metrics.cp_comm_s, 0.0);
  EXPECT_LE(r.metrics.cp_comm_s, 2 * 4 * 3 * r.cp_collective_s + 1e-12);
  EXPECT_GE(r.metrics.step_time_s, r.metrics.compute_s + r.metrics.tp_comm_s + r.metrics.cp_comm_s - 1e-9);
}

namespace {

/// checkpoint_step_s of the scenario's first variant, simulated in a child process (one SimGrid engine
/// per process), with the synchronous checkpoint's writes simulated alone or within the whole iteration.
double checkpoint_step_in_child(const std::string& text, const std::string& variant, bool writes_alone) {
  return dpusim::testing::in_child(
      [&] {
        double v = -1;
        try {
          const auto s = input::parse_scenario(yaml::parse_text(text, "test.yaml"), the_catalog());
          run::RunOptions o;
          o.checkpoint_writes_alone = writes_alone;
          for (const auto& candidate : s.variants)
            if (candidate.name == variant)
              v = run::run_variant(s, the_catalog(), candidate, o).metrics.checkpoint_step_s;
        } catch (...) {
        }
        return v;
      },
      -1.0);
}

} // namespace

TEST(Iteration, ASynchronousCheckpointsWritesAloneGiveTheWholeIterationsStep) {
  // The shortcut (writes simulated alone, added to the plain step) against the iteration that writes
  // one, simulated whole: host TCP, RDMA, a BlueField and SNAP, with and without a pipeline.
  const std::string base = R"(name: ck
cluster:
  nodes: 4
  node: dgx-h100
  nic: connectx-7
  fabric: {topology: fat-tree, tiers: 2, link: 400Gbps, latency: 1us}
  storage: {servers: 3, link: 100Gbps, read_rate: 8GB/s, write_rate: 4GB/s}
workload:
  model: gpt3-2.7b
  seq_len: 2048
  global_batch: 64
  micro_batch: 2
  parallelism: PARALLELISM
  checkpoint: {every: 10, mode: sync}
offload: {baseline: host-tcp, variants: [rdma-nic, dpu, {name: snap, placement: "rdma-nic+storage=dpu_arm"}]}
)";
  for (const std::string parallelism : {"{tp: 2, dp: 16}", "{tp: 2, pp: 2, dp: 8}"}) {
    std::string text = base;
    text.replace(text.find("PARALLELISM"), 11, parallelism);
    for (const char* variant : {"host-tcp", "rdma-nic", "dpu", "snap"}) {
      const double alone = checkpoint_step_in_child(text, variant, true);
      const double whole = checkpoint_step_in_child(text, variant, false);
      ASSERT_GT(whole, 0.0) << parallelism << " " << variant;
      EXPECT_NEAR(alone, whole, 1e-9 * whole) << parallelism << " " << variant;
    }
  }
}
