// `--samples N`: every variant under N seeds, the files identical whatever --jobs, the distribution
// consistent with the samples, and impossible counts refused as bad input with nothing written.
#include "tests/support/golden_tables.hpp"
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>

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
