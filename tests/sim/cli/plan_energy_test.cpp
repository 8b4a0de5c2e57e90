// A planner's energy and fabric, on a user's plan: Llama 3 70B on 2T tokens within 30 days, 32 to 192
// DGX H100 on a 400 Gb/s rail-optimized fabric of SN5600 (tests/sim/cli/data/plan-70b/). The fabric is
// what a builder buys (spines sized to the leaves, docs/planner.md "The fabric's bill"), and each node
// draws its platform's power beside its GPUs, so a larger cluster does not come out as the least energy
// per run.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <fstream>
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

TEST(PlanEnergy, AFabricTheUserHasIsCountedForEveryPointAndAClusterThatNeedsMoreIsInfeasible) {
  // The same plan on the fabric of a 128-node rail-optimized cluster the user already has: 16 leaves and
  // 8 spines, counted for 64 and 128 nodes alike; 192 nodes need 24 leaves and are refused with why.
  TempDir tmp;
  const fs::path data = fs::path(DPUSIM_SOURCE_DIR) / "tests/sim/cli/data/plan-70b";
  const std::string fabric = R"(oversubscription: "1:1"})";
  std::string base = dpusim::testing::read_text((data / "base.yaml").string());
  base =
      dpusim::testing::replaced(base, fabric, R"(oversubscription: "1:1", owned: {leaves: 16, spines: 8}})");
  std::string plan = dpusim::testing::read_text((data / "plan.yaml").string());
  plan = dpusim::testing::replaced(plan, "nodes: [32, 48, 64, 96, 128, 192]", "nodes: [64, 128, 192]");
  plan = dpusim::testing::replaced(plan, "    - {tp: 8, pp: 8, virtual_stages: 5}\n", "");
  plan = dpusim::testing::replaced(plan, "variants: [host-tcp, rdma-nic, dpu]", "variants: [rdma-nic]");
  std::ofstream(tmp.path() + "/base.yaml") << base;
  std::ofstream(tmp.path() + "/plan.yaml") << plan;
  const auto r =
      run_command({DPUSIM_BINARY, "plan", tmp.path() + "/plan.yaml", "--out", tmp.path() + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto rows = csv_rows(fs::path(tmp.path()) / "out/points.csv");
  ASSERT_EQ(rows.size(), 3u);
  std::map<std::string, const std::map<std::string, std::string>*> by_nodes; // nodes -> its row
  for (const auto& row : rows)
    by_nodes[row.at("nodes")] = &row;
  for (const char* n : {"64", "128"}) {
    EXPECT_EQ(by_nodes.at(n)->at("feasible"), "true") << n;
    EXPECT_EQ(by_nodes.at(n)->at("switches"), "24") << n << " nodes: all 24 switches the user has";
  }
  EXPECT_EQ(by_nodes.at("192")->at("feasible"), "false");
  EXPECT_NE(by_nodes.at("192")->at("reason").find("cluster.fabric.owned.leaves: 16 leaf switches stated, but "
                                                  "192 nodes on this fabric need 24"),
            std::string::npos)
      << by_nodes.at("192")->at("reason");
}
