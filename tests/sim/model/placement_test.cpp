// cluster.placement: a scattered placement is the job's draw (its seed), said in a note, kept by the
// step's draws and drawn anew by each launch; on a non-blocking fabric that sprays packets it costs nothing.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <gtest/gtest.h>
#include <map>
#include <set>
#include <string>

using dpusim::testing::TempDir;

namespace {

/// 64 DGX H100 on a 1:1 fat-tree of 8 leaves, a data-parallel ring across all of them; no congestion
/// control, so only max-min sharing decides.
std::string scenario(const std::string& placement, int seed) {
  return "name: placement\n"
         "cluster:\n"
         "  nodes: 64\n"
         "  node: dgx-h100\n"
         "  nic: connectx-7\n"
         "  dpu: bluefield-3\n"
         "  placement: " +
         placement +
         "\n"
         "  fabric: {topology: fat-tree, tiers: 2, link: 400Gbps, latency: 1us, routing: adaptive}\n"
         "workload:\n"
         "  model: gpt3-13b\n"
         "  seq_len: 2048\n"
         "  global_batch: 512\n"
         "  micro_batch: 1\n"
         "  parallelism: {tp: 8, dp: 64}\n"
         "offload: {baseline: rdma-nic, variants: [dpu]}\n"
         "seed: " +
         std::to_string(seed) + "\n";
}

double step(const TempDir& tmp, const std::string& name, const std::string& text, const std::string& variant,
            std::string* out = nullptr) {
  return dpusim::testing::simulate(tmp, name, text, "step_time_s", out, {"--variant", variant});
}

} // namespace

TEST(Placement, AScatteredPlacementIsTheJobsDrawAndItsNoteSaysWhatItDrew) {
  TempDir tmp;
  std::string printed;
  const double packed = step(tmp, "packed", scenario("packed", 1), "rdma-nic");
  const double a = step(tmp, "a", scenario("scattered", 1), "rdma-nic", &printed);
  const double again = step(tmp, "again", scenario("scattered", 1), "rdma-nic");
  const double other = step(tmp, "other", scenario("scattered", 2), "rdma-nic");
  EXPECT_DOUBLE_EQ(a, again);
  EXPECT_NE(a, other) << "another job seed, another placement";
  // Packed, 56 of the ring's 63 node-to-node hops stay in their leaf; scattered, most cross the spines
  // and collide there under ECMP.
  EXPECT_GT(a, 1.1 * packed);
  EXPECT_NE(printed.find("placement scattered (the job's seed 1): of the 63 pairs of nodes adjacent in rank "
                         "order,"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("against 56 packed"), std::string::npos) << printed;
}

TEST(Placement, OnANonBlockingFabricThatSpraysPacketsPlacementCostsNothing) {
  // The BlueField-3 takes adaptive routing: each tier's equal-cost links act as one, and a 1:1 fat-tree
  // then carries any placement's traffic at the NICs' rate.
  TempDir tmp;
  const double packed = step(tmp, "packed", scenario("packed", 1), "dpu");
  const double scattered = step(tmp, "scattered", scenario("scattered", 1), "dpu");
  EXPECT_NEAR(scattered / packed, 1.0, 0.002);
}

TEST(Placement, TheStepsDrawsKeepThePlacementAndEachLaunchDrawsItsOwn) {
  TempDir tmp;
  const std::string file = tmp.path() + "/s.yaml";
  std::ofstream(file) << scenario("scattered", 1);
  std::map<std::string, std::set<std::string>> steps; // by "launch" and "sample" runs
  for (const auto& [flag, what] : {std::pair<std::string, std::string>{"--samples", "samples"},
                                   std::pair<std::string, std::string>{"--launches", "launches"}}) {
    const auto r = dpusim::testing::run_command({DPUSIM_BINARY, "compare", file, "--variants", "rdma-nic",
                                                 flag, "4", "--out", tmp.path() + "/" + what, "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& row : dpusim::testing::csv_rows(tmp.path() + "/" + what + "/samples.csv"))
      steps[what].insert(row.at("step_time_s"));
  }
  EXPECT_EQ(steps["samples"].size(), 1U) << "nothing else is drawn per step here";
  EXPECT_GE(steps["launches"].size(), 3U);
}
