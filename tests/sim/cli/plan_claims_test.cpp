// The claims of plans/llama3-405b-15t-90d.yaml, plans/llama3-70b-576-gpus-generations.yaml and
// plans/llama3-405b-15t-generations.yaml, on their references (results/plans/..., which the golden test
// holds to what `dpusim plan` gives).
#include "tests/support/golden_tables.hpp"

#include <cmath>
#include <filesystem>
#include <gtest/gtest.h>
#include <map>
#include <string>
#include <vector>

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

TEST(PlanClaims, FourGenerationsAt576GpusAndTheNetworksGrowingShareAsPrecisionFalls) {
  const auto rows =
      dpusim::testing::csv_rows(kSource / "results/plans/llama3-70b-576-gpus-generations/points.csv");
  ASSERT_EQ(rows.size(), 1248u);
  // The simulated row of each node type, precision and variant: its fastest layout.
  std::map<std::string, std::map<std::string, std::string>> best;
  for (const auto& r : rows) {
    if (r.at("tier") == "simulated") {
      const std::string key = r.at("node") + "/" + r.at("precision") + "/" + r.at("variant");
      ASSERT_EQ(best.count(key), 0u) << key;
      best[key] = r;
      EXPECT_NEAR(number(r, "estimated_step_time_s"), number(r, "step_time_s"),
                  0.01 * number(r, "step_time_s"))
          << key;
      EXPECT_EQ(r.at("gpus"), "576");
    }
    // The H100 has neither MXFP8 nor NVFP4 tensor cores.
    if (r.at("node") == "dgx-h100" && (r.at("precision") == "mxfp8" || r.at("precision") == "nvfp4")) {
      EXPECT_NE(r.at("reason").find("has no " + r.at("precision") + " tensor cores"), std::string::npos);
    }
  }
  ASSERT_EQ(best.size(), 28u);
  const auto step = [&](const std::string& node, const std::string& precision, const std::string& variant) {
    return number(best.at(node + "/" + precision + "/" + variant), "step_time_s");
  };
  const auto exposed_share = [&](const std::string& node, const std::string& precision) {
    const auto& r = best.at(node + "/" + precision + "/rdma-nic");
    return number(r, "exposed_comm_s") / number(r, "step_time_s");
  };
  const auto tcp_over_rdma = [&](const std::string& node, const std::string& precision) {
    return step(node, precision, "host-tcp") / step(node, precision, "rdma-nic");
  };
  // Each generation is faster in every format both run, and each lower format faster on each GPU.
  const std::vector<std::string> generations{"dgx-h100", "dgx-b200", "gb200-nvl72", "gb300-nvl72"};
  for (const char* precision : {"bf16", "fp8-cs"})
    for (std::size_t i = 1; i < generations.size(); ++i)
      EXPECT_LT(step(generations[i], precision, "rdma-nic"), step(generations[i - 1], precision, "rdma-nic"))
          << generations[i] << " " << precision;
  for (const auto& node : generations) {
    EXPECT_LT(step(node, "fp8-cs", "rdma-nic"), step(node, "bf16", "rdma-nic")) << node;
    if (node == "dgx-h100")
      continue;
    EXPECT_LT(step(node, "mxfp8", "rdma-nic"), step(node, "fp8-cs", "rdma-nic")) << node;
    EXPECT_GT(step(node, "mxfp8", "rdma-nic"), 0.98 * step(node, "fp8-cs", "rdma-nic")) << node;
    EXPECT_LT(step(node, "nvfp4", "rdma-nic"), step(node, "mxfp8", "rdma-nic")) << node;
    // As compute shrinks, the network's share grows, and so does host TCP's cost over RDMA.
    EXPECT_LT(exposed_share(node, "bf16"), exposed_share(node, "fp8-cs")) << node;
    EXPECT_LT(exposed_share(node, "fp8-cs"), exposed_share(node, "nvfp4")) << node;
    EXPECT_LT(tcp_over_rdma(node, "bf16"), tcp_over_rdma(node, "fp8-cs")) << node;
    EXPECT_LT(tcp_over_rdma(node, "fp8-cs"), tcp_over_rdma(node, "nvfp4")) << node;
  }
  EXPECT_LT(tcp_over_rdma("dgx-h100", "bf16"), tcp_over_rdma("dgx-h100", "fp8-cs"));
  // With RDMA the network never takes more than a fifth of a step.
  for (const auto& [key, r] : best)
    if (r.at("variant") == "rdma-nic") {
      EXPECT_LT(number(r, "exposed_comm_s") / number(r, "step_time_s"), 0.2) << key;
    }
  // The 72-GPU domain against 8-GPU servers of the same GPU count: host TCP costs far less in the rack.
  for (const char* precision : {"bf16", "fp8-cs", "mxfp8", "nvfp4"}) {
    EXPECT_LT(tcp_over_rdma("gb200-nvl72", precision), 1.15) << precision;
    EXPECT_GT(tcp_over_rdma("dgx-b200", precision), 1.25) << precision;
    EXPECT_LT(number(best.at(std::string("gb200-nvl72/") + precision + "/rdma-nic"), "exposed_comm_s"),
              number(best.at(std::string("dgx-b200/") + precision + "/rdma-nic"), "exposed_comm_s"))
        << precision;
  }
  EXPECT_NEAR(1 - step("gb200-nvl72", "bf16", "rdma-nic") / step("dgx-b200", "bf16", "rdma-nic"), 0.075,
              0.005);
  EXPECT_NEAR(1 - step("gb200-nvl72", "bf16", "host-tcp") / step("dgx-b200", "bf16", "host-tcp"), 0.224,
              0.005);
  // The headline: the GB300 racks in NVFP4 with RDMA, fastest and cheapest; the DGX B200 in NVFP4 the least
  // energy.
  const auto& fastest = best.at("gb300-nvl72/nvfp4/rdma-nic");
  EXPECT_EQ(fastest.at("device"), "connectx-8");
  EXPECT_NEAR(number(fastest, "time_to_train_days"), 55.2, 0.3);
  for (const auto& r : rows)
    if (r.at("feasible") == "true") {
      EXPECT_GE(number(r, "time_to_train_days"), number(fastest, "time_to_train_days")) << r.at("point");
      EXPECT_GE(number(r, "cost_usd"), number(fastest, "cost_usd")) << r.at("point");
      EXPECT_GE(number(r, "energy_mwh"), number(best.at("dgx-b200/nvfp4/rdma-nic"), "energy_mwh"))
          << r.at("point");
    }
  EXPECT_NEAR(number(best.at("dgx-h100/bf16/rdma-nic"), "time_to_train_days"), 289.4, 1.0);
}

TEST(PlanClaims, Llama3405BOn15TTokensOnFourGenerationsAt4608Gpus) {
  const auto rows =
      dpusim::testing::csv_rows(kSource / "results/plans/llama3-405b-15t-generations/points.csv");
  ASSERT_EQ(rows.size(), 24u);
  std::map<std::string, std::map<std::string, std::string>> best; // the simulated row of node/precision
  for (const auto& r : rows) {
    EXPECT_EQ(r.at("gpus"), "4608");
    if (r.at("node") == "dgx-h100" && r.at("precision") == "nvfp4") {
      EXPECT_EQ(r.at("feasible"), "false");
      EXPECT_NE(r.at("reason").find("has no nvfp4 tensor cores"), std::string::npos);
      continue;
    }
    ASSERT_EQ(r.at("feasible"), "true") << r.at("point") << ": " << r.at("reason");
    if (r.at("tier") != "simulated")
      continue;
    const std::string key = r.at("node") + "/" + r.at("precision");
    ASSERT_EQ(best.count(key), 0u) << key;
    best[key] = r;
    EXPECT_NEAR(number(r, "estimated_step_time_s"), number(r, "step_time_s"), 0.01 * number(r, "step_time_s"))
        << key;
  }
  ASSERT_EQ(best.size(), 11u);
  const auto at = [&](const std::string& node, const std::string& precision, const std::string& column) {
    return number(best.at(node + "/" + precision), column);
  };
  // The H100 runs plain 1F1B: interleaving fits its memory only with full recomputation, and is slower.
  EXPECT_EQ(best.at("dgx-h100/bf16").at("virtual_stages"), "1");
  for (const auto& r : rows)
    if (r.at("node") == "dgx-h100" && r.at("virtual_stages") == "2" && r.at("feasible") == "true") {
      EXPECT_EQ(r.at("recompute"), "full");
    }
  EXPECT_NEAR(at("dgx-h100", "bf16", "step_time_s"), 22.94, 0.05);
  EXPECT_NEAR(at("dgx-h100", "bf16", "time_to_train_with_failures_days"), 218.5, 0.5);
  // Each generation faster in every format both run; each lower format faster on each GPU.
  const std::vector<std::string> generations{"dgx-h100", "dgx-b200", "gb200-nvl72", "gb300-nvl72"};
  for (const char* precision : {"bf16", "fp8-cs"})
    for (std::size_t i = 1; i < generations.size(); ++i)
      EXPECT_LT(at(generations[i], precision, "step_time_s"),
                at(generations[i - 1], precision, "step_time_s"))
          << generations[i] << " " << precision;
  EXPECT_LT(at("gb300-nvl72", "nvfp4", "step_time_s"), 0.9 * at("gb200-nvl72", "nvfp4", "step_time_s"));
  for (std::size_t i = 1; i < generations.size(); ++i) {
    const auto& node = generations[i];
    EXPECT_LT(at(node, "fp8-cs", "step_time_s"), at(node, "bf16", "step_time_s")) << node;
    EXPECT_LT(at(node, "nvfp4", "step_time_s"), at(node, "fp8-cs", "step_time_s")) << node;
  }
  // The 72-GPU domain against 8-GPU servers in BF16: 8.1% a step, 0.30 s less waiting, lower goodput.
  EXPECT_NEAR(1 - at("gb200-nvl72", "bf16", "step_time_s") / at("dgx-b200", "bf16", "step_time_s"), 0.081,
              0.003);
  EXPECT_NEAR(at("dgx-b200", "bf16", "exposed_comm_s") - at("gb200-nvl72", "bf16", "exposed_comm_s"), 0.30,
              0.02);
  EXPECT_LT(at("gb200-nvl72", "bf16", "goodput"), at("dgx-b200", "bf16", "goodput"));
  // Lower precision shrinks compute more than waiting.
  const auto waiting = [&](const std::string& precision) {
    return at("dgx-b200", precision, "exposed_comm_s") / at("dgx-b200", precision, "step_time_s");
  };
  EXPECT_LT(waiting("bf16"), waiting("fp8-cs"));
  EXPECT_LT(waiting("fp8-cs"), waiting("nvfp4"));
  // The headline: GB300 racks in NVFP4 fastest and cheapest on 64 racks; DGX B200 in NVFP4 the least energy.
  const auto& fastest = best.at("gb300-nvl72/nvfp4");
  EXPECT_EQ(fastest.at("nodes"), "64");
  EXPECT_EQ(fastest.at("device"), "connectx-8");
  EXPECT_NEAR(number(fastest, "time_to_train_with_failures_days"), 44.1, 0.2);
  const auto& frugal = best.at("dgx-b200/nvfp4");
  for (const auto& r : rows)
    if (r.at("feasible") == "true") {
      EXPECT_GE(number(r, "time_to_train_with_failures_days"),
                number(fastest, "time_to_train_with_failures_days"))
          << r.at("point");
      EXPECT_GE(number(r, "cost_usd"), number(fastest, "cost_usd")) << r.at("point");
      EXPECT_GE(number(r, "energy_mwh"), number(frugal, "energy_mwh")) << r.at("point");
    }
}
