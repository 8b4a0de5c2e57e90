// `dpusim compare --attribute`: the single-function variants are simulated and each function's share is
// written to attribution.csv.
#include "tests/support/subprocess.hpp"

#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <sstream>

using dpusim::testing::run_command;
using dpusim::testing::TempDir;

TEST(CompareAttribute, WritesEachFunctionsShareAndWhyAMoveCannotRunAlone) {
  TempDir tmp;
  const std::string file = tmp.path() + "/ipsec.yaml";
  std::ofstream(file) << R"(name: ipsec
cluster:
  nodes: 2
  node: dgx-h100
  nic: connectx-7
  fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}
  services: {encryption: ipsec}
workload:
  model: {layers: 4, hidden: 4096, heads: 32, vocab: 32000}
  seq_len: 2048
  global_batch: 16
  micro_batch: 1
  parallelism: {tp: 8, dp: 2}
offload: {baseline: host-tcp, variants: [rdma-nic]}
)";
  const auto r =
      run_command({DPUSIM_BINARY, "compare", file, "--attribute", "--out", tmp.path() + "/out", "-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("attribution of rdma-nic vs host-tcp"), std::string::npos) << r.out;
  std::ifstream in(tmp.path() + "/out/attribution.csv");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string csv = ss.str();
  // RDMA without inline encryption cannot run: transport has no "alone" figure, and says why.
  EXPECT_NE(csv.find("ipsec,rdma-nic,host-tcp,transport,host,nic,,,,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("encryption must be inline"), std::string::npos) << csv;
  // Inline IPsec alone (host TCP, no software AES) makes the step shorter.
  const auto enc = csv.find("ipsec,rdma-nic,host-tcp,encryption,host,nic,");
  ASSERT_NE(enc, std::string::npos) << csv;
  std::stringstream row(csv.substr(enc, csv.find('\n', enc) - enc));
  std::string cell;
  for (int i = 0; i < 8; ++i)
    std::getline(row, cell, ',');
  EXPECT_LT(std::stod(cell), 0.0) << csv; // alone_change_s
  // The comparison itself is unchanged: two variants.
  std::ifstream cmp(tmp.path() + "/out/comparison.csv");
  int lines = 0;
  for (std::string l; std::getline(cmp, l);)
    ++lines;
  EXPECT_EQ(lines, 3);
}

TEST(CompareExplanations, ADpuSlowerThanTheNicIsNotCreditedWithWhatADpuDoesBetter) {
  // Host TCP with IPsec on the BlueField's Arm cores, beside tenant QoS, is far slower than RDMA on the
  // ConnectX-7: its explanation against the NIC names what it runs elsewhere, not the DPU's QoS.
  TempDir tmp;
  const std::string scenario = std::string(DPUSIM_SOURCE_DIR) + "/tests/sim/cli/data/ipsec-on-arm.yaml";
  const auto r = run_command({DPUSIM_BINARY, "compare", scenario, "--out", tmp.path() + "/out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto line = r.out.find("- host-tcp+ipsec-on-arm vs host-tcp:");
  ASSERT_NE(line, std::string::npos) << r.out;
  const std::string text = r.out.substr(line, r.out.find('\n', line) - line);
  EXPECT_EQ(text.find("enforce the other tenants' rate limits"), std::string::npos) << text;
  EXPECT_NE(text.find("Against rdma-nic the DPU changes the step by +"), std::string::npos) << text;
  // What differs from the NIC variant, each switched alone: the functions it runs elsewhere slow it; the
  // BlueField-3 itself (with its QoS) changes nothing.
  const auto against =
      text.find("What differs, each switched alone from rdma-nic towards host-tcp+ipsec-on-arm: ");
  ASSERT_NE(against, std::string::npos) << text;
  const std::string listed = text.substr(against);
  EXPECT_NE(listed.find("transport on the host (rdma-nic: the NIC) +"), std::string::npos) << listed;
  EXPECT_NE(listed.find("encryption on its Arm cores (rdma-nic: the NIC) +"), std::string::npos) << listed;
  const auto device = listed.find("the bluefield-3 (rdma-nic: the connectx-7) ");
  ASSERT_NE(device, std::string::npos) << listed;
  EXPECT_NE(listed.find("nothing by itself", device), std::string::npos) << listed;
}
