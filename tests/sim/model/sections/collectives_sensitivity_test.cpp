// The collectives model's sensitivity pass: where the kernel's TCP carries the collectives, the run gives
// the step with twice the socket transport's threads, and says whether that setting binds the result.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <gtest/gtest.h>
#include <regex>

using dpusim::testing::simulate;
using dpusim::testing::TempDir;

namespace {

std::string scenario(const std::string& baseline, const std::string& model, const std::string& extra = "") {
  return "name: threads\ncluster: {nodes: 4, node: dgx-h100, nic: connectx-7, fabric: {topology: fat-tree, "
         "link: 400Gbps, latency: 1us}}\nworkload: {model: " +
         model + ", seq_len: 2048, global_batch: 64, micro_batch: 1, parallelism: {tp: 8, dp: 4}" + extra +
         "}\noffload: {baseline: " + baseline + "}\n";
}

const std::regex kLine(
    R"(sensitivity: (bound|not bound) by workload\.communication\.socket_threads: with ([0-9]+) socket threads per connection instead of ([0-9]+), the step takes ([0-9.]+) s instead of ([0-9.]+) s)");

} // namespace

TEST(SocketThreads, TheSensitivityLineIsTheStepOfARunAtTwiceTheThreads) {
  // GPT-3 2.7B on 4 nodes over host TCP: the data-parallel reduction is bound by the one core driving
  // each connection, and the line's step is that of the same scenario with socket_threads set to 2.
  TempDir tmp;
  std::string out;
  const double step = simulate(tmp, "one", scenario("host-tcp", "gpt3-2.7b"), "step_time_s", &out);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, kLine)) << out;
  EXPECT_EQ(m[1], "bound");
  EXPECT_EQ(m[2], "2");
  EXPECT_EQ(m[3], "1");
  const double two = simulate(
      tmp, "two", scenario("host-tcp", "gpt3-2.7b", ", communication: {socket_threads: 2}"), "step_time_s");
  EXPECT_NEAR(std::stod(m[4]), two, 1e-4 * two);
  EXPECT_NEAR(std::stod(m[5]), step, 1e-4 * step);
  EXPECT_LT(two, 0.99 * step);
}

TEST(SocketThreads, RdmaHasNoSuchLineAndAComputeBoundRunIsNotBound) {
  TempDir tmp;
  std::string out;
  (void)simulate(tmp, "rdma", scenario("rdma-nic", "gpt3-2.7b"), "step_time_s", &out);
  EXPECT_EQ(out.find("sensitivity:"), std::string::npos) << out;
  // One node: nothing crosses the network, so the threads change nothing.
  const std::string one_node = std::regex_replace(
      std::regex_replace(scenario("host-tcp", "gpt3-2.7b"), std::regex("nodes: 4"), "nodes: 1"),
      std::regex("dp: 4"), "dp: 1");
  (void)simulate(tmp, "alone", one_node, "step_time_s", &out);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, kLine)) << out;
  EXPECT_EQ(m[1], "not bound");
}

TEST(SocketThreads, ThePassRunsItsOwnProbesWhereExpertParallelAllToAllsCrossTheNetwork) {
  // moe-expert-parallel.yaml: each expert-parallel group spans two nodes, so its all-to-alls (timed once
  // by a probe and reused) ride the kernel's TCP too; the line's step is still the run at twice the
  // threads.
  TempDir tmp;
  const std::string bundled = dpusim::testing::read_text(std::string(DPUSIM_SOURCE_DIR) +
                                                         "/scenarios/examples/moe-expert-parallel.yaml");
  std::string out;
  (void)simulate(tmp, "one", bundled, "step_time_s", &out, {"--variant", "host-tcp"});
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, kLine)) << out;
  const double two = simulate(
      tmp, "two",
      dpusim::testing::replaced(bundled, "workload:\n", "workload:\n  communication: {socket_threads: 2}\n"),
      "step_time_s", nullptr, {"--variant", "host-tcp"});
  EXPECT_NEAR(std::stod(m[4]), two, 1e-4 * two);
}
