// Other tenants on the job's fabric: the bundled shared-fabric scenario makes its claim.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <gtest/gtest.h>
#include <map>
#include <string>

using dpusim::testing::TempDir;

TEST(Tenants, TheBundledSharedFabricScenarioMakesItsClaim) {
  // scenarios/examples/shared-fabric-tenants.yaml: sharing plainly, every data-parallel ring of the job
  // (one per tensor-parallel rank, each its own communicator) takes one share of the oversubscribed
  // up-links beside each of the other tenants' flows, so RDMA still gains on host TCP; with the
  // BlueField's QoS on the other tenants the job is about twice as fast as the baseline.
  TempDir tmp;
  const auto r = dpusim::testing::compare_bundled(tmp, "shared-fabric-tenants");
  std::map<std::string, double> step;
  for (const auto& row : dpusim::testing::csv_rows(tmp.path() + "/out/comparison.csv"))
    step[row.at("variant")] = std::stod(row.at("step_time_s"));
  ASSERT_EQ(step.size(), 3U) << r.out;
  EXPECT_NEAR(step.at("host-tcp") / step.at("rdma-nic"), 1.53, 0.1);
  EXPECT_NEAR(step.at("host-tcp") / step.at("dpu"), 2.12, 0.15);
  EXPECT_GT(step.at("rdma-nic") / step.at("dpu"), 1.25);
}
