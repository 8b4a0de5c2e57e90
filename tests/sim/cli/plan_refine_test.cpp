// `dpusim plan --refine K` (and a plan's `refine: K`): every feasible point estimated, only the K
// fastest estimates of each configuration simulated, the rest rows of their estimate; the estimate
// ranks the bundled layout search as the simulation does and, without ECMP collisions, comes within
// 5% of it.
#include "tests/support/golden_tables.hpp"
#include "tests/support/subprocess.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <numeric>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using dpusim::testing::csv_rows;
using dpusim::testing::read_text;
using dpusim::testing::run_command;
using dpusim::testing::TempDir;

namespace {

const fs::path kSource = DPUSIM_SOURCE_DIR;
using Row = std::map<std::string, std::string>;

std::vector<Row> plan_rows(const TempDir& tmp, const std::string& plan, const std::string& out,
                           const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{DPUSIM_BINARY, "plan", plan, "--out", tmp.path() + "/" + out, "--quiet"};
  args.insert(args.end(), extra.begin(), extra.end());
  const auto r = run_command(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return csv_rows(fs::path(tmp.path()) / out / "points.csv");
}

/// Spearman's rank correlation of two equally long series (no ties expected; ties ranked by order).
double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  const auto ranks = [](const std::vector<double>& v) {
    std::vector<std::size_t> order(v.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return v[x] < v[y]; });
    std::vector<double> r(v.size());
    for (std::size_t i = 0; i < order.size(); ++i)
      r[order[i]] = static_cast<double>(i);
    return r;
  };
  const auto ra = ranks(a);
  const auto rb = ranks(b);
  double d2 = 0;
  for (std::size_t i = 0; i < ra.size(); ++i)
    d2 += (ra[i] - rb[i]) * (ra[i] - rb[i]);
  const auto n = static_cast<double>(a.size());
  return 1 - 6 * d2 / (n * (n * n - 1));
}

TEST(PlanRefine, SimulatesOnlyTheFastestEstimatesOfEachConfiguration) {
  // 45 points: 5 node counts x 3 layouts x 3 variants; a configuration is (nodes, variant).
  TempDir tmp;
  const auto plan = (kSource / "plans/gpt3-13b-nodes-offload.yaml").string();
  const auto full = csv_rows(kSource / "results/plans/gpt3-13b-nodes-offload/points.csv");
  const auto rows = plan_rows(tmp, plan, "refined", {"--refine", "1"});
  ASSERT_EQ(rows.size(), full.size());
  std::map<std::string, std::vector<std::size_t>> by_configuration;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].at("feasible") == "true")
      by_configuration[rows[i].at("nodes") + "/" + rows[i].at("variant")].push_back(i);
  ASSERT_GT(by_configuration.size(), 5u);
  for (const auto& [configuration, points] : by_configuration) {
    std::size_t simulated = 0;
    std::size_t fastest = points.front();
    for (auto i : points) {
      const auto& r = rows[i];
      ASSERT_FALSE(r.at("estimated_step_time_s").empty());
      if (std::stod(r.at("estimated_step_time_s")) < std::stod(rows[fastest].at("estimated_step_time_s")))
        fastest = i;
      if (r.at("tier") == "simulated") {
        ++simulated;
        EXPECT_EQ(r, full[i]) << "a refined point is the full run's row, point " << i;
      } else {
        EXPECT_EQ(r.at("tier"), "estimated");
        EXPECT_EQ(r.at("step_time_s"), r.at("estimated_step_time_s"));
        EXPECT_EQ(r.at("estimated_step_time_s"), full[i].at("estimated_step_time_s"));
      }
    }
    EXPECT_EQ(simulated, 1u) << configuration;
    EXPECT_EQ(rows[fastest].at("tier"), "simulated") << configuration;
  }
  // Infeasible points are the same rows either way.
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (full[i].at("feasible") != "true") {
      EXPECT_EQ(rows[i], full[i]);
    }
  }
}

TEST(PlanRefine, ZeroSimulatesNothingAndShardsMergeToTheSameTable) {
  TempDir tmp;
  const auto plan = (kSource / "plans/auto-parallelism-sc21-7.5b.yaml").string();
  const auto none = plan_rows(tmp, plan, "none", {"--refine", "0"});
  for (const auto& r : none)
    EXPECT_NE(r.at("tier"), "simulated");
  (void)plan_rows(tmp, plan, "serial", {"--refine", "3"});
  (void)plan_rows(tmp, plan, "s1", {"--refine", "3", "--shard", "1/2"});
  (void)plan_rows(tmp, plan, "s2", {"--refine", "3", "--shard", "2/2"});
  const auto merged = run_command({DPUSIM_BINARY, "merge", tmp.path() + "/s1", tmp.path() + "/s2", "--out",
                                   tmp.path() + "/merged", "--quiet"});
  ASSERT_EQ(merged.exit_code, 0) << merged.err;
  EXPECT_EQ(read_text(fs::path(tmp.path()) / "merged/points.csv"),
            read_text(fs::path(tmp.path()) / "serial/points.csv"));
  // A shard of one refinement does not merge with a shard of another.
  (void)plan_rows(tmp, plan, "other", {"--refine", "4", "--shard", "2/2"});
  const auto mixed = run_command(
      {DPUSIM_BINARY, "merge", tmp.path() + "/s1", tmp.path() + "/other", "--out", tmp.path() + "/mixed"});
  EXPECT_EQ(mixed.exit_code, 2) << mixed.out;
}

TEST(PlanRefine, TheEstimateRanksTheBundledSearchAsTheSimulationDoes) {
  // Every layout of SC'21's 7.5B cluster, simulated in full (its reference) and estimated.
  std::vector<double> simulated;
  std::vector<double> estimated;
  for (const auto& r : csv_rows(kSource / "results/plans/auto-parallelism-sc21-7.5b/points.csv"))
    if (r.at("feasible") == "true") {
      simulated.push_back(std::stod(r.at("step_time_s")));
      estimated.push_back(std::stod(r.at("estimated_step_time_s")));
    }
  ASSERT_EQ(simulated.size(), 70u);
  EXPECT_GE(spearman(simulated, estimated), 0.9);
  // The same search with path pinning (no ECMP collisions): every point within 5%.
  TempDir tmp;
  std::string text = read_text(kSource / "plans/auto-parallelism-sc21-7.5b.yaml");
  text.replace(text.find("scenario: ../"), 13, "scenario: " + (kSource / "").string());
  text.replace(text.find("axes:\n"), 6, "axes:\n  routing: [pinned]\n");
  const auto path = tmp.path() + "/pinned.yaml";
  std::ofstream(path) << text;
  std::size_t feasible = 0;
  double worst = 0;
  for (const auto& r : plan_rows(tmp, path, "pinned"))
    if (r.at("feasible") == "true") {
      ++feasible;
      const double sim = std::stod(r.at("step_time_s"));
      const double est = std::stod(r.at("estimated_step_time_s"));
      worst = std::max(worst, std::abs(est - sim) / sim);
      EXPECT_NEAR(est, sim, 0.05 * sim) << "point " << r.at("point");
    }
  EXPECT_EQ(feasible, 70u);
  RecordProperty("worst_relative_error", std::to_string(worst));
}

TEST(PlanRefine, TheBundledSearchRefinesItsTwentyFastestEstimates) {
  // plans/search-gpt3-175b-512xh100.yaml: 1,248 points, `refine: 20`.
  const auto rows = csv_rows(kSource / "results/plans/search-gpt3-175b-512xh100/points.csv");
  ASSERT_EQ(rows.size(), 1248u);
  std::vector<std::pair<double, std::size_t>> by_estimate;
  std::size_t simulated = 0;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].at("feasible") == "true") {
      by_estimate.emplace_back(std::stod(rows[i].at("estimated_step_time_s")), i);
      simulated += rows[i].at("tier") == "simulated" ? 1 : 0;
    }
  EXPECT_EQ(simulated, 20u);
  std::sort(by_estimate.begin(), by_estimate.end());
  for (std::size_t k = 0; k < 20; ++k)
    EXPECT_EQ(rows[by_estimate[k].second].at("tier"), "simulated") << k;
  // The claim: the fastest simulated layout beats the base scenario's TP 8 x PP 8 (micro-batch 1,
  // ZeRO 0, no interleaving).
  double best = 1e300;
  double base = 0;
  for (const auto& r : rows) {
    if (r.at("feasible") != "true")
      continue;
    if (r.at("tier") == "simulated")
      best = std::min(best, std::stod(r.at("step_time_s")));
    if (r.at("tp") == "8" && r.at("pp") == "8" && r.at("virtual_stages") == "1" &&
        r.at("micro_batch") == "1" && r.at("zero") == "0")
      base = std::stod(r.at("step_time_s"));
  }
  ASSERT_GT(base, 0.0);
  EXPECT_LT(best, base);
}

TEST(PlanRefine, ANegativeCountIsBadInput) {
  TempDir tmp;
  const auto r = run_command({DPUSIM_BINARY, "plan", (kSource / "plans/gpt3-13b-nodes-offload.yaml").string(),
                              "--refine", "-1", "--out", tmp.path() + "/x"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--refine"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(tmp.path() + "/x"));
}

} // namespace
