// The slowest-replica shortcut against the full simulation, over whole runs: the same seeds with
// noise.replicas all and slowest give p50 and p99 steps within 3% (tools/noise-shortcut-check.sh runs
// the larger cases of docs/models/noise.md); auto keeps every replica where the plan is small.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <vector>

using dpusim::testing::run_command;
using dpusim::testing::TempDir;

namespace {

std::string scenario(const std::string& noise) {
  return "name: shortcut\ncluster:\n  nodes: 32\n  node: dgx-h100\n  nic: connectx-7\n  fabric: {topology: "
         "rail-optimized, link: 400Gbps, latency: 1us}\nworkload:\n  model: gpt3-2.7b\n  seq_len: 2048\n"
         "  global_batch: 256\n  micro_batch: 1\n  parallelism: {tp: 4, pp: 2, dp: 32}\n"
         "offload: {baseline: rdma-nic}\nnoise: " +
         noise + "\nseed: 1\n";
}

struct Percentiles {
  double p50 = 0;
  double p99 = 0;
  std::string out;
};

Percentiles run(const TempDir& tmp, const std::string& name, const std::string& text, int samples) {
  const std::string file = tmp.path() + "/" + name + ".yaml";
  std::ofstream(file) << text;
  std::vector<std::string> args{DPUSIM_BINARY, "run", file, "--out", tmp.path() + "/" + name};
  if (samples > 1) // the console table of samples has no notes: one plain run prints them
    args.insert(args.end(), {"--samples", std::to_string(samples)});
  const auto r = run_command(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Percentiles p;
  p.out = r.out;
  // Sampled: the steps' p50 and p99 of distribution.csv; once: the one step of run.csv.
  const auto rows =
      dpusim::testing::csv_rows(tmp.path() + "/" + name + (samples > 1 ? "/distribution.csv" : "/run.csv"));
  if (rows.empty())
    return p;
  p.p50 = std::stod(rows[0].at(samples > 1 ? "p50_step_s" : "step_time_s"));
  p.p99 = std::stod(rows[0].at(samples > 1 ? "p99_step_s" : "step_time_s"));
  return p;
}

} // namespace

TEST(ReplicaShortcut, TheSlowestReplicasGiveTheFullSimulationsPercentiles) {
  TempDir tmp;
  for (const std::string noise :
       {"{gpu_jitter: 0.05, gpu_delay: {mean: 2ms}", "{slow_gpus: {fraction: 0.03, speed: 0.7}"}) {
    const auto all = run(tmp, "all", scenario(noise + ", replicas: all}"), 8);
    const auto slowest = run(tmp, "slowest", scenario(noise + ", replicas: slowest}"), 8);
    EXPECT_NEAR(slowest.p50 / all.p50, 1.0, 0.03) << noise;
    EXPECT_NEAR(slowest.p99 / all.p99, 1.0, 0.03) << noise;
    const auto one = run(tmp, "one", scenario(noise + ", replicas: slowest}"), 1);
    EXPECT_NE(one.out.find("2 of the 32 data-parallel replicas were simulated"), std::string::npos)
        << one.out;
  }
}

TEST(ReplicaShortcut, AutoSimulatesEveryReplicaOfASmallPlan) {
  TempDir tmp;
  const auto p = run(tmp, "auto", scenario("{gpu_jitter: 0.05}"), 1);
  EXPECT_NE(p.out.find("all 32 data-parallel replicas were simulated"), std::string::npos) << p.out;
}

TEST(ReplicaShortcut, TheFaultsNoteSaysWhichReplicasTheNoisyStepsRanOn) {
  // A slow node under noise with the shortcut: all 32 replicas noise-free, the slowest with noise; the
  // faults' notes and the noise's agree (they said "all 32" and "2 of 32" of one run).
  TempDir tmp;
  const auto p =
      run(tmp, "slow",
          scenario("{gpu_jitter: 0.05, replicas: slowest}\nfaults: {slow_nodes: [5], slow_speed: 0.8}"), 1);
  const auto noise = p.out.find(" of the 32 data-parallel replicas were simulated");
  ASSERT_NE(noise, std::string::npos) << p.out;
  const auto k = p.out.substr(p.out.rfind(' ', noise - 1) + 1, noise - p.out.rfind(' ', noise - 1) - 1);
  EXPECT_NE(p.out.find("so all 32 data-parallel replicas were simulated without noise; with noise, the " + k +
                       " of them that reach the synchronous points last"),
            std::string::npos)
      << p.out;
  EXPECT_NE(p.out.find("both with the same noise draws, each simulated on the data-parallel replicas"),
            std::string::npos)
      << p.out;
}
