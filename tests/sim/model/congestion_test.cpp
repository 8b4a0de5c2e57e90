// The congestion: section on whole runs: off, links are shared max-min as before; on, RoCE transfers are
// stretched by pauses and rate control and the run says what that cost, and the bundled PFC-only
// scenario makes its claim.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <regex>
#include <string>
#include <tuple>

using dpusim::testing::simulate;
using dpusim::testing::TempDir;

namespace {

const std::string kJob = R"(name: congestion
cluster:
  nodes: 40
  node: dgx-h100
  nic: connectx-7
  fabric: {topology: fat-tree, tiers: 2, link: 800Gbps, latency: 1us, oversubscription: "2:1"}
workload:
  model: mixtral-8x7b
  seq_len: 4096
  global_batch: 160
  micro_batch: 1
  parallelism: {tp: 8, dp: 40, ep: 8}
offload: {baseline: rdma-nic}
seed: 1
)";

/// What the run's congestion note says it cost per step, and the step.
std::pair<double, double> cost_and_step(const TempDir& tmp, const std::string& name,
                                        const std::string& text) {
  std::string out;
  const double step = simulate(tmp, name, text, "step_time_s", &out);
  const std::regex cost(R"(they cost ([0-9.]+) s per step)");
  std::smatch m;
  if (!std::regex_search(out, m, cost))
    return {-1, step};
  return {std::stod(m[1]), step};
}

} // namespace

TEST(Congestion, PfcAloneAndDcqcnCostTheHashedFabricWhatTheRunSays) {
  TempDir tmp;
  const double maxmin = simulate(tmp, "off", kJob, "step_time_s");
  const auto [pfc_cost, pfc_step] = cost_and_step(tmp, "pfc", kJob + "congestion: {control: pfc-only}\n");
  const auto [dcqcn_cost, dcqcn_step] =
      cost_and_step(tmp, "dcqcn", kJob + "congestion: {control: dcqcn-paper}\n");
  ASSERT_GE(pfc_cost, 0);
  ASSERT_GE(dcqcn_cost, 0);
  EXPECT_GT(pfc_step, maxmin * 1.01) << "ECMP collisions on 2:1 up-links pause the senders";
  EXPECT_NEAR(pfc_cost, pfc_step - maxmin, 1e-4) << "the cost is against the same iteration shared max-min";
  // The experts' all-to-alls are short: DCQCN's start (line rate, cuts, climbing back) is a share of each.
  EXPECT_GT(dcqcn_step, maxmin * 1.005);
  EXPECT_NEAR(dcqcn_cost, dcqcn_step - maxmin, 1e-4);
}

TEST(Congestion, TheBundledPfcOnlyScenarioMakesItsClaim) {
  // scenarios/examples/moe-pfc-pauses.yaml: pauses cost the hashed ConnectX-7 variant, not the adaptively
  // routed BlueField-3 one; DCQCN costs both a little more than PFC alone: the all-to-alls are short.
  TempDir tmp;
  const std::string file = std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/moe-pfc-pauses.yaml";
  auto costs = [&](const std::string& name, const std::string& yaml) {
    const auto r = dpusim::testing::run_text(tmp, "compare", name, yaml);
    std::map<std::string, std::pair<double, double>> found; // per cent of the step, worst stretch
    for (
        const auto& [v, g] : dpusim::testing::by_variant(
            r.out,
            std::regex(
                R"(note \(([a-z-]+)\): congestion \([a-z-]+\): [0-9]+ of [0-9]+ RDMA transfers[^;]*; they cost ([0-9.]+) s per step \(\+([0-9.]+)%,[^;]*(; the worst, [a-z -]+, takes ([0-9.]+)x as long)?)")))
      found[v] = {std::stod(g.at(1)), g.at(3).empty() ? 1.0 : std::stod(g.at(3))};
    return std::make_pair(found, r.out);
  };
  const std::string text = dpusim::testing::read_text(file);
  const auto [pfc, out] = costs("pfc", text);
  ASSERT_EQ(pfc.size(), 2u) << out;
  EXPECT_NEAR(pfc.at("rdma-nic").first, 1.5, 0.7) << "per cent of the step";
  EXPECT_NEAR(pfc.at("rdma-nic").second, 1.6, 0.15);
  EXPECT_LT(pfc.at("dpu").first, 0.1);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      out, m,
      std::regex(
          R"(note \(rdma-nic\): congestion[^\n]*the most paused port, [^,]+, had its sender paused ([0-9]+)% of the time)")))
      << out;
  EXPECT_NEAR(std::stod(m[1]), 40, 10);
  const auto [rate_control, out2] =
      costs("dcqcn", dpusim::testing::replaced(text, "control: pfc-only", "control: dcqcn-paper"));
  ASSERT_EQ(rate_control.size(), 2u) << out2;
  EXPECT_NEAR(rate_control.at("rdma-nic").first, 2.6, 1.0);
  EXPECT_NEAR(rate_control.at("dpu").first, 2.1, 1.0);
  EXPECT_GT(rate_control.at("dpu").first, pfc.at("dpu").first + 1.0) << "DCQCN slower than PFC alone here";
}

TEST(Congestion, TheBundledTenantScenarioShowsPausesEnforcingTheSharesOfTheUplinks) {
  // scenarios/examples/tenants-pfc-qos.yaml: other tenants' flows and the job's own overload the 8:1
  // up-links and PFC pauses the job's NICs most of the time, but every flow crossing an up-link is held to
  // its share of it anyway: the pauses cost neither variant more than half a per cent, and the DPU's QoS
  // is worth what it is with links shared max-min.
  TempDir tmp;
  const auto r = dpusim::testing::compare_bundled(tmp, "tenants-pfc-qos");
  const auto notes = dpusim::testing::by_variant(
      r.out,
      std::regex(
          R"(note \(([a-z-]+)\): congestion \(pfc-only\): [^;]*; they cost ([0-9.]+) s per step \(\+([0-9.]+)%,)"));
  std::map<std::string, double> percent;
  for (const auto& [v, groups] : notes)
    percent[v] = std::stod(groups.at(1));
  ASSERT_EQ(percent.size(), 2u) << r.out;
  EXPECT_LT(percent.at("rdma-nic"), 0.5);
  EXPECT_LT(percent.at("dpu"), 0.5);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(
      r.out, m,
      std::regex(
          R"(note \(rdma-nic\): congestion[^\n]*the most paused port, [^,]+, had its sender paused ([0-9]+)% of the time)")))
      << r.out;
  EXPECT_GT(std::stod(m[1]), 70) << "the NICs are paused most of the time";
  const auto rows = dpusim::testing::csv_rows(tmp.path() + "/out/comparison.csv");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_NEAR(std::stod(rows[0].at("step_time_s")) / std::stod(rows[1].at("step_time_s")), 1.38, 0.05);
}

TEST(Congestion, TheBundledCheckpointIncastScenarioMakesItsClaim) {
  // scenarios/examples/checkpoint-incast-pfc.yaml: in the job's PFC priority the writes' pauses stop the
  // gradient traffic too; in a priority of their own they slow only the writes; a separate storage fabric
  // or DCQCN loses nothing.
  TempDir tmp;
  const std::string text = dpusim::testing::read_text(std::string(DPUSIM_SOURCE_DIR) +
                                                      "/scenarios/examples/checkpoint-incast-pfc.yaml");
  auto checkpoint_note = [&](const std::string& name, const std::string& yaml) {
    const auto r = dpusim::testing::run_text(tmp, "run", name, yaml);
    const std::regex note(
        R"(in the iteration that writes a checkpoint \([^)]*\): ([0-9]+) of ([0-9]+) RoCE transfers[^;]*; it takes ([0-9.]+) s longer \(\+([0-9.]+)%\))");
    std::smatch m;
    EXPECT_TRUE(std::regex_search(r.out, m, note)) << r.out;
    return std::make_tuple(std::stoi(m[1]), std::stoi(m[2]), std::stod(m[4]));
  };
  auto with = [&](const std::string& from, const std::string& to) {
    return dpusim::testing::replaced(text, from, to);
  };
  const auto [slowed, all, percent] = checkpoint_note("shared", text);
  // Most transfers, the gradients' included: each data-parallel ring crosses NICs that write.
  EXPECT_GE(2 * slowed, all) << slowed << " of " << all;
  EXPECT_NEAR(percent, 680, 100);
  const auto [own_slowed, own_all, own_percent] =
      checkpoint_note("own", with("control: pfc-only}", "control: pfc-only, storage_class: separate}"));
  EXPECT_EQ(own_slowed, 32) << "the 32 nodes' writes only, of " << own_all;
  EXPECT_LT(own_percent, 0.1) << "the writes are asynchronous: their own pace costs the step nothing";
  const auto [f_slowed, f_all, f_percent] = checkpoint_note(
      "fabric", with("write_rate: 40GB/s}", "write_rate: 40GB/s, fabric: separate, node_link: 200Gbps}"));
  EXPECT_EQ(f_slowed, 0);
  EXPECT_LT(f_percent, 0.1);
  const auto [d_slowed, d_all, d_percent] =
      checkpoint_note("dcqcn", with("control: pfc-only", "control: dcqcn-paper"));
  EXPECT_EQ(d_slowed, 0);
  EXPECT_LT(d_percent, 0.1);
}

TEST(Congestion, TheBundledQueuePairScenarioMakesItsClaim) {
  // scenarios/examples/dp-queue-pairs-pfc.yaml: one queue pair per connection collides; the pauses enforce
  // the collisions' max-min shares and add nothing; the BlueField-3's adaptive routing and four queue
  // pairs on the ConnectX-7 both win the collisions back.
  TempDir tmp;
  const std::string text = dpusim::testing::read_text(std::string(DPUSIM_SOURCE_DIR) +
                                                      "/scenarios/examples/dp-queue-pairs-pfc.yaml");
  auto steps = [&](const std::string& name, const std::string& yaml) {
    (void)dpusim::testing::run_text(tmp, "compare", name, yaml);
    const auto rows = dpusim::testing::csv_rows(tmp.path() + "/" + name + "/comparison.csv");
    return std::make_pair(std::stod(rows.at(0).at("step_time_s")), std::stod(rows.at(1).at("step_time_s")));
  };
  const auto [nic, dpu] = steps("one", text);
  EXPECT_NEAR(nic / dpu, 1.33, 0.05);
  const auto [nic_maxmin, dpu_maxmin] =
      steps("maxmin", dpusim::testing::replaced(text, "congestion: {control: pfc-only}\n", ""));
  EXPECT_NEAR(nic / nic_maxmin, 1.0, 0.005) << "PFC adds nothing to the collisions' shares";
  const auto [nic4, dpu4] = steps(
      "four", dpusim::testing::replaced(text, "  precision: bf16\n",
                                        "  precision: bf16\n  communication: {qps_per_connection: 4}\n"));
  EXPECT_NEAR(nic4 / dpu, 1.0, 0.01)
      << "four queue pairs on the ConnectX-7 match the BlueField's adaptive routing";
  EXPECT_NEAR(dpu4 / dpu, 1.0, 0.01);
}

TEST(Congestion, APresetThatMarksAboveXoffSaysItsRateControlDoesNothing) {
  // dcqcn-mlx's Kmin grows with the line rate (100 KB per 25 Gb/s) past the XOFF of its 1 MB port buffer
  // at 400 and 800 Gb/s: the run says PFC pauses there before ECN marks anything.
  TempDir tmp;
  std::string out;
  (void)simulate(tmp, "mlx", kJob + "congestion: {control: dcqcn-mlx}\n", "step_time_s", &out);
  const std::regex said(
      R"(on its ([0-9]+) Gb/s ports ECN marking starts at ([0-9]+) KB, above PFC's XOFF of ([0-9]+) KB)");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, said)) << out;
  EXPECT_EQ(std::stoi(m[2]), 100 * std::stoi(m[1]) / 25) << "Kmin scaled with the line rate";
  EXPECT_GT(std::stoi(m[2]), std::stoi(m[3]));
}
