// The faults model through whole simulations: one slow node bounds a data-parallel step (the others
// wait for it at every synchronous step, as simulated), and a slower node is never faster.
#include "tests/support/run_csv.hpp"

#include <gtest/gtest.h>

using dpusim::testing::simulate;
using dpusim::testing::TempDir;

namespace {

double step_time(const TempDir& tmp, const std::string& name, const std::string& faults) {
  const std::string scenario = R"(name: faults
cluster: {nodes: 4, node: dgx-h100, fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}}
workload:
  model: gpt3-2.7b
  seq_len: 2048
  global_batch: 128
  micro_batch: 2
  parallelism: {tp: 2, dp: 16}
offload: {baseline: rdma-nic}
)" + faults;
  std::string out;
  const double step = simulate(tmp, name, scenario, "step_time_s", &out);
  if (!faults.empty()) {
    EXPECT_NE(out.find("note: faults: node"), std::string::npos) << out;
  }
  return step;
}

} // namespace

TEST(Faults, OneSlowNodeBoundsADataParallelStep) {
  TempDir tmp;
  const double healthy = step_time(tmp, "healthy", "");
  const double one = step_time(tmp, "one", "faults: {slow_nodes: [2], slow_speed: 0.5}\n");
  const double all = step_time(tmp, "all", "faults: {slow_nodes: [0, 1, 2, 3], slow_speed: 0.5}\n");
  EXPECT_GT(one, 1.5 * healthy) << "half-speed GPUs on one node must slow the whole step";
  EXPECT_NEAR(one / all, 1.0, 0.02) << "every replica waits for the slow one: as slow as all slow";
}

TEST(Faults, ASlowerNodeIsNeverFaster) {
  TempDir tmp;
  double previous = step_time(tmp, "s100", "");
  for (const char* speed : {"0.9", "0.7", "0.5", "0.3"}) {
    const double t = step_time(tmp, std::string("s") + speed,
                               std::string("faults: {slow_nodes: [1], slow_speed: ") + speed + "}\n");
    EXPECT_GE(t, previous * (1 - 1e-9)) << "slow_speed " << speed;
    previous = t;
  }
}
