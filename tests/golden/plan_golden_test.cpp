// Every bundled plan (plans/*.yaml) is a golden test: `dpusim plan` must reproduce its reference
// results/plans/<plan name>/points.csv and pareto.csv within a relative tolerance of 1e-6 on every number
// and exactly on every other cell, and its plan-info.json byte for byte (regenerate with
// tools/regenerate-results.sh after a deliberate model change).
#include "tests/support/golden_tables.hpp"
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <set>

namespace fs = std::filesystem;
using namespace dpusim::testing;

namespace {

class PlanGolden : public ::testing::TestWithParam<std::string> {};

} // namespace

TEST(PlanGoldenSet, HasABundledPlan) {
  EXPECT_FALSE(bundled_inputs("plans").empty());
}

TEST_P(PlanGolden, PlanReproducesTheReferencePoints) {
  const std::string file = GetParam();
  const fs::path dir = fs::path(DPUSIM_SOURCE_DIR) / "results/plans" / input_name(file);
  ASSERT_TRUE(fs::exists(dir / "points.csv"))
      << "no reference in " << dir << " (run tools/regenerate-results.sh)";
  ASSERT_TRUE(fs::exists(dir / "pareto.csv"))
      << "no reference in " << dir << " (run tools/regenerate-results.sh)";
  TempDir tmp;
  const auto r = run_command({DPUSIM_BINARY, "plan", file, "--out", tmp.path(), "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> variants;
  for (const auto& row : dpusim::testing::csv_rows(fs::path(tmp.path()) / "points.csv"))
    variants.insert(row.at("variant"));
  if (variants.size() > 1) { // a plan of one variant has no offload to compare
    EXPECT_NE(r.out.find("what offload changes"), std::string::npos) << r.out;
  }
  EXPECT_NE(r.out.find("fastest to train: point "), std::string::npos) << r.out;
  expect_same_table(fs::path(tmp.path()) / "points.csv", dir / "points.csv");
  expect_same_table(fs::path(tmp.path()) / "pareto.csv", dir / "pareto.csv");
  // What the plan states (its name, prices, power, restart, constraints), as its report shows them.
  ASSERT_TRUE(fs::exists(dir / "plan-info.json")) << "no reference in " << dir;
  EXPECT_EQ(read_text(fs::path(tmp.path()) / "plan-info.json"), read_text(dir / "plan-info.json"));
}

INSTANTIATE_TEST_SUITE_P(Bundled, PlanGolden, ::testing::ValuesIn(bundled_inputs("plans")),
                         [](const ::testing::TestParamInfo<std::string>& param_info) {
                           return test_name_of(param_info.param);
                         });
