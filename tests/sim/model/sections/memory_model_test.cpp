// The memory check through whole runs and plans: a layout that fits only if the framework's interleaved
// schedule keeps no more micro-batches in flight than 1F1B runs, and says so; the planner's row gives
// its memory and verdict, and `recompute: [auto]` takes the least recomputation that fits for sure.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <string>

using namespace dpusim::testing;

namespace {

// GPT-3 13B at 20,480 tokens on TP 8 x PP 4: stage 0 keeps 4 micro-batches under 1F1B (58.1 GiB) and,
// interleaved over 2 chunks, Megatron's warm-up of 11 chunks (83.5 GiB) against the H100's 79.3.
std::string scenario(int virtual_stages) {
  return "name: interleaved\n"
         "cluster: {nodes: 4, node: dgx-h100, fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}}\n"
         "workload:\n"
         "  model: gpt3-13b\n"
         "  seq_len: 20480\n"
         "  global_batch: 8\n"
         "  micro_batch: 1\n"
         "  attention: flash\n"
         "  parallelism: {tp: 8, pp: 4, dp: 1, virtual_stages: " +
         std::to_string(virtual_stages) +
         "}\n"
         "offload: {baseline: rdma-nic}\n";
}

constexpr const char* kWarning = "GPU memory may not suffice";

} // namespace

TEST(MemoryModel, AnUncertainFitRunsWithAWarningThatGivesBothCounts) {
  TempDir tmp;
  std::string out;
  const double step = simulate(tmp, "v2", scenario(2), "step_time_s", &out);
  EXPECT_GT(step, 0);
  EXPECT_NE(out.find(std::string("note: ") + kWarning), std::string::npos) << out;
  EXPECT_NE(out.find("needs 83.5 GiB"), std::string::npos) << out;
  EXPECT_NE(out.find("than 1F1B needs 58.1 GiB"), std::string::npos) << out;
  const auto info = read_text(tmp.path() + "/v2/run-info.json");
  EXPECT_NE(info.find(kWarning), std::string::npos) << info;

  std::string plain;
  (void)simulate(tmp, "v1", scenario(1), "step_time_s", &plain);
  EXPECT_EQ(plain.find(kWarning), std::string::npos) << plain;
}

TEST(MemoryModel, ThePlannerStatesTheFitAndAutoRecomputationPrefersASureOne) {
  TempDir tmp;
  std::ofstream(tmp.path() + "/base.yaml") << scenario(2);
  std::ofstream(tmp.path() + "/plan.yaml") << "name: fit\nscenario: base.yaml\ntrain_tokens: 1B\n"
                                              "axes:\n  recompute: [none, auto]\n";
  const auto r = run_command({DPUSIM_BINARY, "plan", tmp.path() + "/plan.yaml", "--out", tmp.path() + "/p"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The fastest point (no recomputation) fits only with 1F1B's count, and the summary says so.
  EXPECT_NE(r.out.find("GPU memory uncertain: 83.5 GiB with Megatron's interleaved warm-up"),
            std::string::npos)
      << r.out;
  const auto rows = csv_rows(tmp.path() + "/p/points.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].at("recompute"), "none");
  EXPECT_EQ(rows[0].at("feasible"), "true");
  EXPECT_EQ(rows[0].at("memory_fit"), "uncertain");
  EXPECT_NEAR(std::stod(rows[0].at("gpu_memory_gib")), 83.5, 0.05);
  // Flash attention keeps what selective recomputation keeps: only full recomputation fits for sure.
  EXPECT_EQ(rows[1].at("recompute"), "full");
  EXPECT_EQ(rows[1].at("memory_fit"), "fits");
  EXPECT_LT(std::stod(rows[1].at("gpu_memory_gib")), 79.25);
}
