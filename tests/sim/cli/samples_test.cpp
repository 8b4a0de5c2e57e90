// `--samples N` (steps of one job) and `--launches M` (launches of it): every variant under each pair of
// seeds, the files identical whatever --jobs, the distribution consistent with the samples, step-level
// and job-level randomness kept apart, and impossible counts refused as bad input with nothing written.
#include "tests/support/golden_tables.hpp"
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using dpusim::testing::run_command;
using dpusim::testing::TempDir;

namespace {

const std::string kScenario = R"(name: samples
cluster:
  nodes: 16
  node: dgx-h100
  nic: connectx-7
  fabric: {topology: fat-tree, tiers: 2, link: 400Gbps, latency: 1us, oversubscription: "1:1"}
workload:
  model: {layers: 4, hidden: 4096, heads: 32, vocab: 32000}
  seq_len: 2048
  global_batch: 128
  micro_batch: 1
  parallelism: {tp: 2, dp: 64}
offload: {baseline: rdma-nic, variants: [host-tcp]}
seed: 3
)";

std::string read(const fs::path& p) {
  return dpusim::testing::read_text(p);
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

/// distribution.csv's rows of `variant` over `over` ("steps" or "launches").
std::vector<std::map<std::string, std::string>> distribution(const fs::path& dir, const std::string& variant,
                                                             const std::string& over) {
  std::vector<std::map<std::string, std::string>> out;
  for (auto& r : dpusim::testing::csv_rows(dir / "distribution.csv"))
    if (r.at("variant") == variant && r.at("over") == over)
      out.push_back(std::move(r));
  return out;
}

} // namespace

TEST(Samples, CompareWritesEverySampleAndTheSameFilesWhateverTheJobs) {
  TempDir tmp;
  const std::string file = tmp.path() + "/s.yaml";
  std::ofstream(file) << kScenario;
  const auto one = run_command({DPUSIM_BINARY, "compare", file, "--samples", "5", "--jobs", "1", "--out",
                                tmp.path() + "/one", "--quiet"});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  const auto two = run_command({DPUSIM_BINARY, "compare", file, "--samples", "5", "--jobs", "2", "--out",
                                tmp.path() + "/two", "--quiet"});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  for (const char* f : {"samples.csv", "distribution.csv", "comparison.csv"})
    EXPECT_EQ(read(tmp.path() + "/one/" + f), read(tmp.path() + "/two/" + f)) << f;
  EXPECT_EQ(lines(read(tmp.path() + "/one/samples.csv")), 1u + 2u * 5u);
  EXPECT_EQ(lines(read(tmp.path() + "/one/distribution.csv")), 1u + 2u);
  // Sample 0 is the scenario's own seed: comparison.csv is what a plain compare writes.
  const auto plain = run_command({DPUSIM_BINARY, "compare", file, "--out", tmp.path() + "/plain", "--quiet"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_EQ(read(tmp.path() + "/one/comparison.csv"), read(tmp.path() + "/plain/comparison.csv"));
}

TEST(Samples, ImpossibleCountsAreBadInputAndWriteNothing) {
  TempDir tmp;
  const std::string file = tmp.path() + "/s.yaml";
  std::ofstream(file) << kScenario;
  for (const char* n : {"0", "-3", "100001", "many"}) {
    const auto r = run_command({DPUSIM_BINARY, "run", file, "--samples", n, "--out", tmp.path() + "/o"});
    EXPECT_EQ(r.exit_code, 2) << n;
    EXPECT_NE(r.err.find("--samples"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(tmp.path() + "/o")) << n;
  }
}

TEST(Samples, ImpossibleJobCountsAreBadInputAndWriteNothing) {
  TempDir tmp;
  const std::string file = tmp.path() + "/s.yaml";
  std::ofstream(file) << kScenario;
  for (const char* command : {"run", "compare"})
    for (const char* n : {"0", "-1", "1025", "many"}) {
      const auto r = run_command(
          {DPUSIM_BINARY, command, file, "--samples", "2", "--jobs", n, "--out", tmp.path() + "/o"});
      EXPECT_EQ(r.exit_code, 2) << command << " " << n;
      EXPECT_NE(r.err.find("--jobs"), std::string::npos) << r.err;
      EXPECT_FALSE(fs::exists(tmp.path() + "/o")) << n;
    }
  const auto v =
      run_command({DPUSIM_BINARY, "validate", std::string(DPUSIM_SOURCE_DIR) + "/scenarios/validation",
                   "--jobs", "5000", "--out", tmp.path() + "/v"});
  EXPECT_EQ(v.exit_code, 2);
  EXPECT_NE(v.err.find("--jobs must be between 1 and 1024, found 5000"), std::string::npos) << v.err;
  EXPECT_FALSE(fs::exists(tmp.path() + "/v"));
}

TEST(Samples, LaunchesTimesSamplesIsAGridOfJobSeedsAndStepSeeds) {
  TempDir tmp;
  const std::string file = tmp.path() + "/s.yaml";
  std::ofstream(file) << kScenario;
  const auto r = run_command({DPUSIM_BINARY, "compare", file, "--launches", "3", "--samples", "2", "--out",
                              tmp.path() + "/g", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = dpusim::testing::csv_rows(tmp.path() + "/g/samples.csv");
  ASSERT_EQ(rows.size(), 2u * 3u * 2u);         // by run, then variant
  std::map<std::string, std::string> job_seed;  // by launch
  std::map<std::string, std::string> step_seed; // by sample
  for (std::size_t k = 0; k < rows.size(); ++k) {
    const auto& row = rows[k];
    const std::size_t run = k / 2;
    EXPECT_EQ(row.at("launch"), std::to_string(run / 2)) << k;
    EXPECT_EQ(row.at("sample"), std::to_string(run % 2)) << k;
    // One job seed per launch, the same step seeds in every launch; launch 0 and sample 0 the scenario's.
    EXPECT_EQ(job_seed.try_emplace(row.at("launch"), row.at("seed")).first->second, row.at("seed")) << k;
    EXPECT_EQ(step_seed.try_emplace(row.at("sample"), row.at("step_seed")).first->second, row.at("step_seed"))
        << k;
  }
  EXPECT_EQ(job_seed.at("0"), "3");
  EXPECT_EQ(step_seed.at("0"), "3");
  EXPECT_EQ(job_seed.size(), 3u);
  EXPECT_NE(job_seed.at("1"), job_seed.at("2"));
  EXPECT_NE(step_seed.at("0"), step_seed.at("1"));
  // Per variant: the steps of each launch, then the launches.
  for (const char* v : {"rdma-nic", "host-tcp"}) {
    const auto steps = distribution(tmp.path() + "/g", v, "steps");
    ASSERT_EQ(steps.size(), 3u) << v;
    for (std::size_t l = 0; l < steps.size(); ++l) {
      EXPECT_EQ(steps[l].at("launch"), std::to_string(l));
      EXPECT_EQ(steps[l].at("count"), "2");
    }
    const auto launches = distribution(tmp.path() + "/g", v, "launches");
    ASSERT_EQ(launches.size(), 1u) << v;
    EXPECT_EQ(launches[0].at("count"), "3");
    EXPECT_EQ(launches[0].at("launch"), "");
  }
  EXPECT_EQ(lines(read(tmp.path() + "/g/distribution.csv")), 1u + 2u * 4u);
}

TEST(Samples, EcmpHashLuckIsTheJobsDrawNotTheSteps) {
  // One queue pair per connection under PFC alone: where ECMP puts the data-parallel rings' flows sets the
  // step. That is fixed for a job's life: its steps all take the same time (there is no step noise here),
  // while its launches differ.
  TempDir tmp;
  const std::string file = std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/dp-queue-pairs-pfc.yaml";
  const auto r = run_command({DPUSIM_BINARY, "run", file, "--launches", "6", "--samples", "3", "--out",
                              tmp.path() + "/h", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto steps = distribution(tmp.path() + "/h", "rdma-nic", "steps");
  ASSERT_EQ(steps.size(), 6u);
  for (const auto& s : steps)
    EXPECT_EQ(std::stod(s.at("stdev_step_s")), 0.0) << "launch " << s.at("launch");
  const auto launches = distribution(tmp.path() + "/h", "rdma-nic", "launches");
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_GT(std::stod(launches[0].at("max_step_s")) / std::stod(launches[0].at("p50_step_s")), 1.05);
}

TEST(Samples, SlowGpusAreTheJobsDrawAndJitterTheSteps) {
  TempDir tmp;
  auto with = [&](const std::string& noise) {
    std::string text = kScenario;
    text.replace(text.find("seed: 3"), 7, "noise: " + noise + "\nseed: 3");
    return text;
  };
  const std::string slow = tmp.path() + "/slow.yaml";
  std::ofstream(slow) << with("{slow_gpus: {fraction: 0.005, speed: 0.8}}");
  auto r = run_command({DPUSIM_BINARY, "run", slow, "--launches", "6", "--samples", "3", "--out",
                        tmp.path() + "/slow", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& s : distribution(tmp.path() + "/slow", "rdma-nic", "steps"))
    EXPECT_EQ(std::stod(s.at("stdev_step_s")), 0.0) << "launch " << s.at("launch");
  EXPECT_GT(std::stod(distribution(tmp.path() + "/slow", "rdma-nic", "launches").at(0).at("stdev_step_s")),
            0.0);

  const std::string jitter = tmp.path() + "/jitter.yaml";
  std::ofstream(jitter) << with("{gpu_jitter: 0.05}");
  r = run_command(
      {DPUSIM_BINARY, "run", jitter, "--samples", "4", "--out", tmp.path() + "/jitter", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GT(std::stod(distribution(tmp.path() + "/jitter", "rdma-nic", "steps").at(0).at("stdev_step_s")),
            0.0);
  // A sample's step seed, given as the scenario's step_seed, reproduces that sample.
  const auto rows = dpusim::testing::csv_rows(tmp.path() + "/jitter/samples.csv");
  ASSERT_EQ(rows.size(), 4u);
  std::ofstream(tmp.path() + "/again.yaml")
      << with("{gpu_jitter: 0.05}") << "step_seed: " << rows[2].at("step_seed") << "\n";
  r = run_command(
      {DPUSIM_BINARY, "run", tmp.path() + "/again.yaml", "--out", tmp.path() + "/again", "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(dpusim::testing::csv_rows(tmp.path() + "/again/run.csv").at(0).at("step_time_s"),
            rows[2].at("step_time_s"));
  EXPECT_NE(rows[2].at("step_time_s"), rows[0].at("step_time_s"));
}

TEST(Samples, ImpossibleLaunchCountsAreBadInputAndWriteNothing) {
  TempDir tmp;
  const std::string file = tmp.path() + "/s.yaml";
  std::ofstream(file) << kScenario;
  for (const std::vector<std::string>& args : {std::vector<std::string>{"--launches", "0"},
                                               {"--launches", "many"},
                                               {"--launches", "100001"},
                                               {"--launches", "1000", "--samples", "1000"}}) {
    std::vector<std::string> command{DPUSIM_BINARY, "compare", file, "--out", tmp.path() + "/o"};
    command.insert(command.end(), args.begin(), args.end());
    const auto r = run_command(command);
    EXPECT_EQ(r.exit_code, 2) << args.at(1);
    EXPECT_NE(r.err.find("--launches"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(tmp.path() + "/o")) << args.at(1);
  }
}
