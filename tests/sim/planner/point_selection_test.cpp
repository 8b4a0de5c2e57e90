// Which points a plan run simulates, decided without a process: build, estimate, rank per configuration
// (refine), split by shard, and what a journal already holds.
#include "sim/planner/point_selection.hpp"
#include "tests/sim/planner/plan_text.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <gtest/gtest.h>
#include <string>

using namespace dpusim;
using namespace dpusim::planner;

namespace {

// Three layouts (the last needs 32 GPUs: infeasible on 16) for each of two variants: two configurations.
const std::string kAxes = R"(axes:
  parallelism: [{tp: 8}, {tp: 4}, {tp: 8, pp: 4}]
  variants: [host-tcp, rdma-nic]
)";

Plan the_plan() {
  return dpusim::testing::parse_plan_text(dpusim::testing::kLlama3_8bOnTwoDgxH100, kAxes);
}

} // namespace

TEST(PointSelection, RefineKeepsTheFastestEstimateOfEachConfiguration) {
  const auto plan = the_plan();
  const auto& cat = dpusim::testing::bundled_catalog();
  const auto spec = summary_spec(plan);
  const auto all = select_points(plan, cat, spec, -1, Shard{}, 0);
  ASSERT_EQ(all.points.size(), 6u);
  EXPECT_TRUE(all.simulated.empty()); // refine < 0: every feasible point runs
  const auto one = select_points(plan, cat, spec, 1, Shard{}, 0);
  ASSERT_EQ(one.points.size(), 6u);
  ASSERT_EQ(one.simulated.size(), 2u); // one per variant
  // Within each variant the simulated point has the most tokens per second of its estimates.
  for (const std::size_t s : one.simulated) {
    ASSERT_TRUE(one.estimates[s].has_value());
    for (std::size_t k = 0; k < one.points.size(); ++k)
      if (k != s && one.estimates[k] && configuration_of(one.points[k]) == configuration_of(one.points[s])) {
        EXPECT_GE(one.estimates[s]->tokens_per_s, one.estimates[k]->tokens_per_s) << k << " vs " << s;
      }
  }
  // The infeasible layout has no estimate and no scenario kept.
  std::size_t infeasible = 0;
  for (std::size_t k = 0; k < one.points.size(); ++k) {
    EXPECT_FALSE(one.points[k].scenario.has_value());
    if (!one.feasible[k]) {
      ++infeasible;
      EXPECT_FALSE(one.estimates[k].has_value());
      EXPECT_FALSE(one.points[k].reason.empty());
    }
  }
  EXPECT_EQ(infeasible, 2u);
}

TEST(PointSelection, ShardsSplitThePointsButRankAcrossThePlan) {
  const auto plan = the_plan();
  const auto& cat = dpusim::testing::bundled_catalog();
  const auto spec = summary_spec(plan);
  const auto whole = select_points(plan, cat, spec, 1, Shard{}, 7);
  const auto first = select_points(plan, cat, spec, 1, Shard{1, 2}, 7);
  const auto second = select_points(plan, cat, spec, 1, Shard{2, 2}, 7);
  ASSERT_EQ(first.points.size() + second.points.size(), whole.points.size());
  for (const auto& p : first.points)
    EXPECT_EQ(p.index % 2, 0u);
  for (const auto& p : second.points)
    EXPECT_EQ(p.index % 2, 1u);
  EXPECT_EQ(first.simulated, whole.simulated);
  EXPECT_EQ(second.simulated, whole.simulated);
  EXPECT_NE(first.journal_key, second.journal_key); // each shard journals its own points
  EXPECT_NE(whole.journal_key, 7u);
}

TEST(PointSelection, PendingPointsTakeTheFinalRowsAndLeaveTheRestToRun) {
  const auto plan = the_plan();
  const auto& cat = dpusim::testing::bundled_catalog();
  const auto spec = summary_spec(plan);
  // refine 1: the infeasible points' rows are their reasons, the unranked feasible ones their estimates,
  // and the two ranked first run, unless the journal kept one.
  auto selection = select_points(plan, cat, spec, 1, Shard{}, 0);
  const std::size_t kept_point = *selection.simulated.begin();
  const std::map<std::size_t, std::vector<std::string>> kept{{kept_point, {"kept"}}};
  const auto pending = pending_points(selection, kept, spec, 1);
  ASSERT_EQ(pending.rows.size(), 6u);
  ASSERT_EQ(pending.to_run.size(), 1u);
  EXPECT_EQ(selection.simulated.count(selection.points[pending.to_run[0]].index), 1u);
  EXPECT_NE(selection.points[pending.to_run[0]].index, kept_point);
  EXPECT_EQ(pending.rows[kept_point], std::vector<std::string>{"kept"});
  for (std::size_t k = 0; k < 6; ++k) {
    if (!selection.feasible[k]) {
      EXPECT_FALSE(pending.rows[k].empty());
    } else if (selection.simulated.count(k) == 0) {
      EXPECT_EQ(pending.rows[k], selection.estimates[k]->row);
    }
  }
  // refine < 0: every feasible point runs.
  auto every = select_points(plan, cat, spec, -1, Shard{}, 0);
  EXPECT_EQ(pending_points(every, {}, spec, -1).to_run.size(), 4u);
}
