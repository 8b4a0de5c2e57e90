// A rack-wide NVLink domain (gb200-nvl72: 18 trays of 4 GPUs) against the same trays as servers of their
// own (a catalog node of one tray, the user's): the same GPUs compute alike, and the data-parallel
// traffic that stays in the rack crosses NVLink instead of the NICs. A rack whose trays do not add up is
// refused with its file and line.
#include "tests/support/golden_tables.hpp"
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <string>

namespace fs = std::filesystem;
using dpusim::testing::run_command;
using dpusim::testing::TempDir;

namespace {

const fs::path kSource = DPUSIM_SOURCE_DIR;

/// The bundled catalog, with a GB200 compute tray as a server of its own (the NVL72 rack's tray, its
/// GPUs joined to no other tray's).
fs::path catalog_with_a_lone_tray(const TempDir& tmp) {
  const fs::path dir = fs::path(tmp.path()) / "catalog";
  fs::copy(kSource / "models/catalog/data", dir, fs::copy_options::recursive);
  std::string text = dpusim::testing::read_text(dir / "node/gb200-nvl72.yaml");
  std::ofstream(dir / "node/gb200-tray.yaml")
      << "name: gb200-tray\ndescription: one GB200 compute tray alone\n"
         "source: DGXGB200-UG\ngpu: gb200\ncpu: grace\nnic: connectx-7\n"
         "gpus: 4\ncpu_sockets: 2\nnics: 4\npcie_switches: 2\npcie_uplink: 450GB/s\n"
         "pcie_latency: 0.1us\nnvlink_latency: 0.1us\nhost_memory: 960GB\npower: 5.4kW\n";
  return dir;
}

std::string scenario(const fs::path& dir, const std::string& node, int nodes, const std::string& baseline) {
  const fs::path file = dir / (node + "-" + baseline + ".yaml");
  std::ofstream(file) << "name: " << node << "\ncluster:\n  nodes: " << nodes << "\n  node: " << node
                      << "\n  fabric: {topology: rail-optimized, link: 400Gbps, latency: 1us}\n"
                         "workload:\n  model: gpt3-13b\n  seq_len: 2048\n  global_batch: 576\n"
                         "  micro_batch: 1\n  parallelism: {tp: 4, dp: 36}\noffload: {baseline: "
                      << baseline << "}\n";
  return file.string();
}

std::map<std::string, std::string> run(const TempDir& tmp, const fs::path& catalog, const std::string& node,
                                       int nodes, const std::string& baseline = "rdma-nic") {
  const std::string out = tmp.path() + "/out-" + node + "-" + baseline;
  const auto r = run_command({DPUSIM_BINARY, "run", scenario(fs::path(tmp.path()), node, nodes, baseline),
                              "--catalog", catalog.string(), "--out", out, "--quiet"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0)
    return {};
  return dpusim::testing::csv_rows(fs::path(out) / "run.csv").at(0);
}

double value(const std::map<std::string, std::string>& row, const std::string& column) {
  return std::stod(row.at(column));
}

} // namespace

TEST(NvlinkDomain, TheRackKeepsItsDataParallelTrafficOnNvlink) {
  TempDir tmp;
  const auto catalog = catalog_with_a_lone_tray(tmp);
  for (const std::string baseline : {"rdma-nic", "host-tcp"}) {
    const auto rack = run(tmp, catalog, "gb200-nvl72", 2, baseline);
    const auto trays = run(tmp, catalog, "gb200-tray", 36, baseline);
    ASSERT_FALSE(rack.empty());
    ASSERT_FALSE(trays.empty());
    EXPECT_EQ(rack.at("gpus"), trays.at("gpus"));
    // The same GPUs compute the same work; tensor parallelism stays in a tray either way.
    EXPECT_NEAR(value(rack, "compute_s"), value(trays, "compute_s"), 1e-9 * value(trays, "compute_s"));
    EXPECT_NEAR(value(rack, "tp_comm_s"), value(trays, "tp_comm_s"), 0.01 * value(trays, "tp_comm_s"));
    // 17 of every 18 data-parallel ring hops stay in a rack, on NVLink at 900 GB/s, not on a 400 Gb/s NIC.
    EXPECT_LT(value(rack, "dp_comm_s"), 0.5 * value(trays, "dp_comm_s")) << baseline;
    EXPECT_LT(value(rack, "step_time_s"), value(trays, "step_time_s")) << baseline;
  }
}

TEST(NvlinkDomain, ARackWhoseTraysDoNotAddUpIsRefusedWithItsLine) {
  TempDir tmp;
  const auto catalog = catalog_with_a_lone_tray(tmp);
  const fs::path node = catalog / "node/gb200-nvl72.yaml";
  std::string text = dpusim::testing::read_text(node);
  const auto at = text.find("trays: {value: 18,");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 18, "trays: {value: 16,");
  std::ofstream(node) << text;
  const std::string out = tmp.path() + "/out";
  const auto r =
      run_command({DPUSIM_BINARY, "run", scenario(fs::path(tmp.path()), "gb200-nvl72", 2, "rdma-nic"),
                   "--catalog", catalog.string(), "--out", out, "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("gb200-nvl72.yaml:7"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("72 gpus do not split evenly over its 16 trays"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

TEST(NvlinkDomain, AgentsRunOnEachTraysOwnCores) {
  TempDir tmp;
  const auto catalog = catalog_with_a_lone_tray(tmp);
  const fs::path file = fs::path(tmp.path()) / "agents.yaml";
  const auto with_agents = [&](int cores) {
    std::ofstream(file)
        << "name: agents\ncluster:\n  nodes: 1\n  node: gb200-nvl72\n"
           "  fabric: {topology: rail-optimized, link: 400Gbps, latency: 1us}\n"
           "  services: {agents: "
        << cores
        << "}\nworkload:\n  model: gpt3-2.7b\n  seq_len: 2048\n  global_batch: 72\n"
           "  micro_batch: 1\n  parallelism: {tp: 4, dp: 18}\noffload: {baseline: rdma-nic}\n";
    return run_command({DPUSIM_BINARY, "run", file.string(), "--catalog", catalog.string(), "--out",
                        tmp.path() + "/agents-" + std::to_string(cores), "--quiet"});
  };
  // A tray has 2 Grace CPUs of 72 cores: 144 cores of agents fit on each, 145 do not.
  EXPECT_EQ(with_agents(144).exit_code, 0);
  const auto refused = with_agents(145);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("exceed the 144 host cores of a tray of a gb200-nvl72"), std::string::npos)
      << refused.err;
}
