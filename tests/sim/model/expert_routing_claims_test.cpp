// Uneven expert routing: the bundled DeepSeek-V3 scenario makes its claims.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <gtest/gtest.h>
#include <map>
#include <string>

using dpusim::testing::TempDir;

namespace {

/// step_time_s and ep_comm_s of each variant of `yaml`, compared.
std::map<std::string, std::map<std::string, double>> compare(const TempDir& tmp, const std::string& name,
                                                              const std::string& yaml) {
  const auto r = dpusim::testing::run_text(tmp, "compare", name, yaml);
  std::map<std::string, std::map<std::string, double>> out;
  for (const auto& row : dpusim::testing::csv_rows(tmp.path() + "/" + name + "/comparison.csv"))
    for (const char* column : {"step_time_s", "ep_comm_s", "compute_s"})
      out[row.at("variant")][column] = std::stod(row.at(column));
  EXPECT_EQ(out.size(), 2U) << r.out << r.err;
  return out;
}

} // namespace

TEST(ExpertRoutingClaims, TheBusiestExpertCostsAQuarterOfTheStepAndNoNicWinsItBack) {
  // scenarios/examples/moe-uneven-experts.yaml: under a Zipf law (s = 0.2) the step is about 1.28x the
  // balanced one, mostly in the all-to-alls into the busiest ranks; the BlueField-3 routed adaptively
  // takes the same step as the ConnectX-7; a capacity factor of 1.1 brings it to about 1.04x.
  TempDir tmp;
  const std::string text = dpusim::testing::read_text(std::string(DPUSIM_SOURCE_DIR) +
                                                      "/scenarios/examples/moe-uneven-experts.yaml");
  const std::string zipf_line = "  routing: {load: zipf, zipf_exponent: 0.2}\n";
  ASSERT_NE(text.find(zipf_line), std::string::npos);
  const auto uneven = compare(tmp, "uneven", text);
  const auto balanced = compare(tmp, "balanced", dpusim::testing::replaced(text, zipf_line, ""));
  const auto capped =
      compare(tmp, "capped",
              dpusim::testing::replaced(text, zipf_line,
                                        "  routing: {load: zipf, zipf_exponent: 0.2, capacity_factor: 1.1}\n"));
  for (const auto* v : {"rdma-nic", "dpu"}) {
    const auto& u = uneven.at(v);
    const auto& b = balanced.at(v);
    EXPECT_NEAR(u.at("step_time_s") / b.at("step_time_s"), 1.28, 0.03) << v;
    // Most of it in the all-to-alls, the rest in the busiest ranks' expert GEMMs.
    const double comm = u.at("ep_comm_s") - b.at("ep_comm_s");
    const double compute = u.at("compute_s") - b.at("compute_s");
    EXPECT_GT(compute, 0.0) << v;
    EXPECT_GT(comm, compute) << v;
    EXPECT_NEAR(capped.at(v).at("step_time_s") / b.at("step_time_s"), 1.04, 0.02) << v;
  }
  EXPECT_NEAR(uneven.at("dpu").at("step_time_s") / uneven.at("rdma-nic").at("step_time_s"), 1.0, 0.002);
  EXPECT_NEAR(uneven.at("dpu").at("ep_comm_s") / uneven.at("rdma-nic").at("ep_comm_s"), 1.0, 0.002);
}
