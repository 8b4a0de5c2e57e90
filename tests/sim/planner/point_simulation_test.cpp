// One point of a bundled plan simulated in this process (as `dpusim plan` does in a process per point)
// gives its reference row of points.csv.
#include "sim/planner/point_selection.hpp"
#include "sim/planner/point_simulation.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <fstream>
#include <gtest/gtest.h>
#include <string>

using namespace dpusim;
using namespace dpusim::planner;

TEST(PointSimulation, APointSimulatedHereGivesItsReferenceRow) {
  // plans/gpt3-13b-nodes-offload.yaml, point 1: 2 nodes, RDMA on the ConnectX-7 (simulated, not refined).
  const std::string dir = std::string(DPUSIM_SOURCE_DIR);
  const auto& cat = dpusim::testing::bundled_catalog();
  const auto plan = load_plan(dir + "/plans/gpt3-13b-nodes-offload.yaml", cat);
  const auto spec = summary_spec(plan);
  auto point = build_point(plan, 1, cat);
  ASSERT_TRUE(point.scenario.has_value()) << point.reason;
  const auto estimate = estimate_point(point, cat, plan, spec);
  ASSERT_TRUE(estimate.has_value());
  bool infeasible = true;
  const auto row = simulated_row(point, simulate_point(plan, cat, 1), spec, estimate->step_s, &infeasible);
  EXPECT_FALSE(infeasible);
  std::ifstream reference(dir + "/results/plans/gpt3-13b-nodes-offload/points.csv");
  std::string header;
  std::string line;
  ASSERT_TRUE(std::getline(reference, header) && std::getline(reference, line) &&
              std::getline(reference, line));
  EXPECT_EQ(header + "\n", csv_line(table_columns())); // csv_line ends its line
  EXPECT_EQ(csv_line(row), line + "\n");
}
