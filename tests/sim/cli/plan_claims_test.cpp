// The claims of plans/llama3-405b-15t-90d.yaml, on its reference (results/plans/..., which the golden
// test holds to what `dpusim plan` gives).
#include "tests/support/golden_tables.hpp"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <string>

namespace {

const std::filesystem::path kSource = DPUSIM_SOURCE_DIR;

double number(const std::map<std::string, std::string>& row, const std::string& column) {
  return std::stod(row.at(column));
}

} // namespace

TEST(PlanClaims, Llama3On15TTokensIn90DaysNeeds16kGpusInterleaved) {
  const auto rows = dpusim::testing::csv_rows(kSource / "results/plans/llama3-405b-15t-90d/points.csv");
  ASSERT_EQ(rows.size(), 18u);
  std::map<std::string, double> days; // by nodes/virtual_stages/variant
  for (const auto& r : rows) {
    ASSERT_EQ(r.at("feasible"), "true") << r.at("point");
    const std::string key = r.at("nodes") + "/" + r.at("virtual_stages") + "/" + r.at("variant");
    days[key] = number(r, "time_to_train_with_failures_days");
    const bool within = r.at("within_constraints") == "true";
    // Only 2,048 nodes, interleaved, with RDMA (on either device), make 90 days.
    EXPECT_EQ(within,
              r.at("nodes") == "2048" && r.at("virtual_stages") == "2" && r.at("variant") != "host-tcp")
        << key << ": " << days[key] << " days";
    // Interleaving's fit is uncertain (Megatron's warm-up does not fit, 1F1B's count does); plain
    // 1F1B fits.
    EXPECT_EQ(r.at("memory_fit"), r.at("virtual_stages") == "2" ? "uncertain" : "fits") << key;
    // The fastest estimate of each node count and variant, the interleaved one, is simulated.
    EXPECT_EQ(r.at("tier"), r.at("virtual_stages") == "2" ? "simulated" : "estimated") << key;
    if (r.at("tier") == "simulated") {
      const double est = number(r, "estimated_step_time_s");
      const double sim = number(r, "step_time_s");
      EXPECT_NEAR(est, sim, 0.01 * sim) << key;
    }
  }
  // LLAMA3 Table 4: 400 TFLOP/s per GPU on 16,384 H100s.
  for (const auto& r : rows)
    if (r.at("nodes") == "2048" && r.at("virtual_stages") == "2" && r.at("variant") == "rdma-nic") {
      EXPECT_NEAR(number(r, "tflops_per_gpu"), 400.0, 0.03 * 400.0);
    }
  // The BlueField-3 trains as fast as the ConnectX-7: nothing of this job runs on its Arm cores.
  for (const char* at : {"512/2", "1024/2", "2048/2", "2048/1"})
    EXPECT_NEAR(days[std::string(at) + "/dpu"], days[std::string(at) + "/rdma-nic"],
                1e-3 * days[std::string(at) + "/rdma-nic"])
        << at;
  // Host TCP is slower at every size; plain 1F1B misses the deadline even on 2,048 nodes.
  for (const char* at : {"512/1", "512/2", "1024/1", "1024/2", "2048/1", "2048/2"})
    EXPECT_GT(days[std::string(at) + "/host-tcp"], days[std::string(at) + "/rdma-nic"]) << at;
  EXPECT_GT(days["2048/1/rdma-nic"], 90.0);
  EXPECT_LT(days["2048/2/rdma-nic"], 90.0);
}
