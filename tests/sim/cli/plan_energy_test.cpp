// A planner's energy and fabric, on a user's plan: Llama 3 70B on 2T tokens within 30 days, 32 to 192
// DGX H100 on a 400 Gb/s rail-optimized fabric of SN5600 (tests/sim/cli/data/plan-70b/). The fabric is
// what a builder buys (spines sized to the leaves, docs/planner.md "The fabric's bill"), and each node
// draws its platform's power beside its GPUs, so a larger cluster does not come out as the least energy
// per run.
#include "tests/support/golden_tables.hpp"
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using dpusim::testing::csv_rows;
using dpusim::testing::run_command;
using dpusim::testing::TempDir;

TEST(PlanEnergy, EnergyPerRunRisesWithTheNodesAndTheFabricIsSizedToItsLeaves) {
  TempDir tmp;
  const fs::path plan = fs::path(DPUSIM_SOURCE_DIR) / "tests/sim/cli/data/plan-70b/plan.yaml";
  const auto r = run_command({DPUSIM_BINARY, "plan", plan.string(), "--out", tmp.path(), "--jobs", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_rows(fs::path(tmp.path()) / "points.csv");
  ASSERT_EQ(rows.size(), 36u);
  // Rail groups of 64 nodes (128-port leaves at 400G, half down): 8 rail leaves per group, each with 64
  // up-links, on the fewest spines that hold them.
  const std::map<std::string, std::string> switches = {{"32", "12"}, {"48", "12"},  {"64", "12"},
                                                       {"96", "24"}, {"128", "24"}, {"192", "37"}};
  std::map<std::string, double> energy; // (pp, variant, nodes) -> MWh per run
  for (const auto& row : rows) {
    ASSERT_EQ(row.at("feasible"), "true") << row.at("reason");
    EXPECT_EQ(row.at("switches"), switches.at(row.at("nodes"))) << row.at("nodes");
    // What a DGX H100 draws while training (LATIF24: about 8.4 kW at most, 10.2 kW rated), with its
    // share of the fabric, not the 4.6-4.8 kW of its GPUs, NICs and busy cores alone.
    const double per_node_kw = std::stod(row.at("power_kw")) / 1.3 / std::stod(row.at("nodes"));
    EXPECT_GT(per_node_kw, 6.5) << row.at("point");
    EXPECT_LT(per_node_kw, 9.5) << row.at("point");
    energy[row.at("pp") + "/" + row.at("variant") + "/" + row.at("nodes")] = std::stod(row.at("energy_mwh"));
  }
  // Whole rail groups (64, 128, 192 nodes): more nodes, more energy per run, for every layout and variant
  // (a partly filled group carries its whole group's fabric).
  for (const char* pp : {"4", "8"})
    for (const char* variant : {"host-tcp", "rdma-nic", "dpu"}) {
      const std::string key = std::string(pp) + "/" + variant + "/";
      EXPECT_LT(energy.at(key + "64"), energy.at(key + "128")) << key;
      EXPECT_LT(energy.at(key + "128"), energy.at(key + "192")) << key;
    }
  // The least energy within the deadline is not the largest cluster.
  const auto least = r.out.find("least energy: point ");
  ASSERT_NE(least, std::string::npos) << r.out;
  const std::string line = r.out.substr(least, r.out.find('\n', least) - least);
  EXPECT_EQ(line.find(": 192 x dgx-h100"), std::string::npos) << line;
  EXPECT_NE(line.find(": 128 x dgx-h100"), std::string::npos) << line;
}
