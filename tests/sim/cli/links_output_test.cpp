// `dpusim run --links FILE`: the per-link usage CSV, hottest link first, written only after a successful
// run; a path that cannot be written fails the run with the path named and writes nothing. `dpusim
// compare --links` writes each variant's into the comparison's outputs.
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using dpusim::testing::run_command;
using dpusim::testing::TempDir;

namespace {

const fs::path kSource = DPUSIM_SOURCE_DIR;
const std::string kQuickstart = (kSource / "scenarios/examples/quickstart.yaml").string();
const std::string kHeader = "link,kind,tier,capacity_gbps,bytes,mean_utilisation,peak_utilisation";

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream in(line);
  std::string cell;
  while (std::getline(in, cell, ','))
    out.push_back(cell);
  if (!line.empty() && line.back() == ',')
    out.emplace_back();
  return out;
}

std::vector<std::string> lines_of(const fs::path& file) {
  std::ifstream in(file);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

} // namespace

TEST(LinksOutput, RunWritesEveryCrossedLinkHottestFirst) {
  TempDir tmp;
  const fs::path links = fs::path(tmp.path()) / "links.csv";
  const auto r = run_command({DPUSIM_BINARY, "run", kQuickstart, "--variant", "rdma-nic", "--out",
                              tmp.path() + "/out", "--links", links.string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(links);
  ASSERT_GT(lines.size(), 1U);
  EXPECT_EQ(lines.front(), kHeader);
  const std::set<std::string> kinds{"nvlink", "pcie", "nic_port", "fabric"};
  std::set<std::string> tiers;
  std::set<std::string> names;
  double previous = 2;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto cells = split(lines[i]);
    ASSERT_EQ(cells.size(), 7U) << lines[i];
    EXPECT_TRUE(names.insert(cells[0]).second) << cells[0] << " twice";
    EXPECT_NE(cells[0].find("->"), std::string::npos) << cells[0];
    EXPECT_EQ(kinds.count(cells[1]), 1U) << lines[i];
    tiers.insert(cells[2]);
    EXPECT_GT(std::stod(cells[3]), 0) << lines[i];
    EXPECT_GT(std::stod(cells[4]), 0) << lines[i];
    const double mean = std::stod(cells[5]);
    EXPECT_LE(mean, previous) << "not sorted by mean utilisation at " << lines[i];
    EXPECT_LE(mean, 1 + 1e-6) << lines[i];
    EXPECT_GE(std::stod(cells[6]), mean - 1e-9) << "peak below mean at " << lines[i];
    previous = mean;
  }
  // 8 nodes of 8 NICs fill one leaf of 64 ports: the gradient all-reduce goes NIC to leaf to NIC.
  EXPECT_EQ(tiers, (std::set<std::string>{"intra-node", "leaf-nic", "nic-leaf"}));
  EXPECT_TRUE(fs::exists(fs::path(tmp.path()) / "out/run.csv"));
}

TEST(LinksOutput, ACongestionScenarioAddsItsColumns) {
  TempDir tmp;
  const fs::path links = fs::path(tmp.path()) / "links.csv";
  const auto r =
      run_command({DPUSIM_BINARY, "run", (kSource / "scenarios/examples/moe-pfc-pauses.yaml").string(),
                   "--out", tmp.path() + "/out", "--links", links.string(), "--quiet"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto lines = lines_of(links);
  ASSERT_GT(lines.size(), 1U);
  EXPECT_EQ(lines.front(), kHeader + ",pause_fraction,ecn_marked,dcqcn_utilisation,queue_kb");
  int recorded = 0;
  std::set<std::string> tiers;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const auto cells = split(lines[i]);
    ASSERT_EQ(cells.size(), 11U) << lines[i];
    tiers.insert(cells[2]);
    if (!cells[7].empty()) {
      ++recorded;
      EXPECT_EQ(cells[1], "fabric") << "the analysis records switch-to-switch ports: " << lines[i];
    } else {
      EXPECT_TRUE(cells[8].empty() && cells[9].empty() && cells[10].empty()) << lines[i];
    }
  }
  EXPECT_GT(recorded, 0) << "no link with the congestion analysis's values";
  // Its leaves and spines: the all-to-alls cross both directions of the up-links.
  EXPECT_EQ(tiers, (std::set<std::string>{"intra-node", "leaf-nic", "nic-leaf", "leaf-spine", "spine-leaf"}));
}

TEST(LinksOutput, AnUnwritablePathFailsNamingItAndWritesNothing) {
  TempDir tmp;
  const fs::path blocker = fs::path(tmp.path()) / "blocker";
  std::ofstream(blocker) << "a file, not a directory\n";
  const fs::path links = blocker / "links.csv";
  const auto r = run_command({DPUSIM_BINARY, "run", kQuickstart, "--out", tmp.path() + "/out", "--links",
                              links.string(), "--quiet"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find(blocker.string()), std::string::npos) << r.err;
  std::vector<std::string> files;
  for (const auto& e : fs::recursive_directory_iterator(tmp.path()))
    files.push_back(fs::relative(e.path(), tmp.path()).string());
  EXPECT_EQ(files, std::vector<std::string>{"blocker"});
}

TEST(LinksOutput, CannotBeCombinedWithSamples) {
  TempDir tmp;
  const auto r = run_command({DPUSIM_BINARY, "run", kQuickstart, "--samples", "2", "--out", tmp.path(),
                              "--links", tmp.path() + "/links.csv", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--links"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(fs::path(tmp.path()) / "links.csv"));
}

// compare --links: one file per variant, each the one `run --variant V --links` writes, published with
// comparison.csv and listed in run-info.json; no scratch file left behind.
TEST(LinksOutput, CompareWritesEachVariantsLinksWithTheComparison) {
  TempDir tmp;
  const std::string out = tmp.path() + "/compare";
  const auto c = run_command({DPUSIM_BINARY, "compare", kQuickstart, "--links", "--out", out, "--quiet"});
  ASSERT_EQ(c.exit_code, 0) << c.err;
  for (const char* variant : {"host-tcp", "rdma-nic", "dpu"}) {
    const fs::path file = fs::path(out) / (std::string("links-") + variant + ".csv");
    ASSERT_TRUE(fs::exists(file)) << file;
    const fs::path alone = fs::path(tmp.path()) / (std::string(variant) + ".csv");
    const auto r = run_command({DPUSIM_BINARY, "run", kQuickstart, "--variant", variant, "--links",
                                alone.string(), "--out", tmp.path() + "/run", "--quiet"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(lines_of(file), lines_of(alone)) << variant;
  }
  const auto info = lines_of(fs::path(out) / "run-info.json");
  std::string joined;
  for (const auto& l : info)
    joined += l;
  EXPECT_NE(joined.find("links-rdma-nic.csv"), std::string::npos);
  const auto samples = run_command(
      {DPUSIM_BINARY, "compare", kQuickstart, "--links", "--samples", "2", "--out", tmp.path() + "/s"});
  EXPECT_EQ(samples.exit_code, 2);
  EXPECT_NE(samples.err.find("--links"), std::string::npos) << samples.err;
  EXPECT_FALSE(fs::exists(tmp.path() + "/s"));
}

TEST(LinksOutput, HelpDescribesIt) {
  const auto r = run_command({DPUSIM_BINARY, "run", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--links"), std::string::npos) << r.out;
}
