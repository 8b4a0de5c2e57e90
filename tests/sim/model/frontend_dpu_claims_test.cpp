// A front-end DPU beside the SuperNICs: the bundled GB300 NVL72 scenario makes its claim.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <gtest/gtest.h>
#include <map>
#include <string>

using dpusim::testing::TempDir;

TEST(FrontEndDpu, TheBundledGb300ScenarioBuysHostCoresAndCheckpointTimeButNoStepTime) {
  // scenarios/examples/gb300-nvl72-frontend-dpu.yaml: the training traffic never crosses the tray's
  // BlueField-3, so the step is the same in every variant; SNAP on its Arm cores writes the checkpoint
  // about 4x faster than the host client's one NFS connection and as fast as RDMA within 2%, and the
  // agents leave the Grace cores for the Arm cores.
  TempDir tmp;
  const auto r = dpusim::testing::compare_bundled(tmp, "gb300-nvl72-frontend-dpu");
  std::map<std::string, std::map<std::string, std::string>> by_variant;
  for (const auto& row : dpusim::testing::csv_rows(tmp.path() + "/out/comparison.csv"))
    by_variant[row.at("variant")] = row;
  ASSERT_EQ(by_variant.size(), 3U) << r.out;
  auto value = [&](const std::string& variant, const std::string& column) {
    return std::stod(by_variant.at(variant).at(column));
  };
  const std::string host = "rdma-nic+storage=host";
  const std::string snap = "rdma-nic+storage=dpu_arm+agents=dpu_arm";
  const std::string rdma = "rdma-nic";
  for (const auto& v : {snap, rdma}) {
    EXPECT_NEAR(value(v, "step_time_s"), value(host, "step_time_s"), 1e-9 * value(host, "step_time_s")) << v;
    EXPECT_EQ(by_variant.at(v).at("device"), "connectx-8") << v;
  }
  auto write = [&](const std::string& v) { return value(v, "checkpoint_step_s") - value(v, "step_time_s"); };
  EXPECT_NEAR(write(host) / write(snap), 4.15, 0.3);
  EXPECT_NEAR(write(snap) / write(rdma), 1.0, 0.02);
  EXPECT_NEAR(value(host, "host_cores_agents"), 72, 0.5); // 4 cores on each of the 18 trays
  EXPECT_EQ(value(snap, "host_cores_agents"), 0);
  EXPECT_GT(value(snap, "arm_cores_agents"), 72);
  EXPECT_LT(value(snap, "step_with_checkpoints_s"), value(host, "step_with_checkpoints_s"));
  EXPECT_GT(value(snap, "step_with_checkpoints_s"), 0.99 * value(host, "step_with_checkpoints_s"));
}
