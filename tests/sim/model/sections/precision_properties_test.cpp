// Precisions in whole iterations (docs/models/precision.md): a low-precision format speeds only the linear
// layers' GEMMs, by the GPU's measured speed-up, and pays for its casts.
#include "tests/support/golden_tables.hpp"
#include "tests/support/run_csv.hpp"

#include <gtest/gtest.h>

using dpusim::testing::simulate;
using dpusim::testing::TempDir;

namespace {
std::string quickstart(const std::string& node, const std::string& precision) {
  std::string text =
      dpusim::testing::read_text(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml");
  text = dpusim::testing::replaced(text, "node: dgx-h100", "node: " + node);
  return dpusim::testing::replaced(text, "precision: bf16", "precision: " + precision);
}
} // namespace

TEST(PrecisionProperties, FP8OnAnH100SpeedsTheLinearLayersByItsMeasuredSpeedupNotThePeaks) {
  // GPT-3 13B on 64 H100: the linear layers' GEMMs run 1.765x faster (MAMF), attention's products and
  // the memory-bound kernels do not, and the casts add memory-bound work: the compute shrinks by less
  // than 1.765x. Current scaling reads every cast tensor once more.
  TempDir tmp;
  const double bf16 = simulate(tmp, "bf16", quickstart("dgx-h100", "bf16"), "compute_s");
  const double fp8 = simulate(tmp, "fp8", quickstart("dgx-h100", "fp8"), "compute_s");
  const double fp8_cs = simulate(tmp, "fp8cs", quickstart("dgx-h100", "fp8-cs"), "compute_s");
  EXPECT_LT(bf16 / fp8, 1.765);
  EXPECT_GT(bf16 / fp8, 1.15); // GEMMs are most of this job's compute (1.27x when this was written)
  EXPECT_GT(fp8_cs, fp8);
  EXPECT_LT(fp8_cs, bf16);
}

TEST(PrecisionProperties, OnABlackwellNvfp4IsFasterThanMxfp8IsFasterThanBf16) {
  TempDir tmp;
  const double bf16 = simulate(tmp, "bf16", quickstart("dgx-b200", "bf16"), "compute_s");
  const double mxfp8 = simulate(tmp, "mxfp8", quickstart("dgx-b200", "mxfp8"), "compute_s");
  const double nvfp4 = simulate(tmp, "nvfp4", quickstart("dgx-b200", "nvfp4"), "compute_s");
  EXPECT_LT(mxfp8, bf16);
  EXPECT_LT(nvfp4, mxfp8);
  EXPECT_GT(nvfp4, bf16 / 3.934); // never beyond the linear layers' own speed-up
}

TEST(PrecisionProperties, AGb300RackRunsTheGb200sBf16AndItsOwnFp4) {
  // Llama 3 70B on 4 NVL72 racks: the GB300's BF16 peak and (assumed) matmul ceiling are the GB200's, so
  // its BF16 compute is the GB200's; its dense NVFP4 is 1.5x the GB200's.
  TempDir tmp;
  const std::string gb200 = dpusim::testing::read_text(std::string(DPUSIM_SOURCE_DIR) +
                                                       "/scenarios/examples/gb200-nvl72-racks.yaml");
  std::string gb300 = dpusim::testing::replaced(gb200, "node: gb200-nvl72", "node: gb300-nvl72");
  gb300 = dpusim::testing::replaced(gb300, "nic: connectx-7", "nic: connectx-8");
  gb300 = dpusim::testing::replaced(gb300, "link: 400Gbps", "link: 800Gbps");
  const double bf16_gb200 = simulate(tmp, "gb200", gb200, "compute_s");
  const double bf16_gb300 = simulate(tmp, "gb300", gb300, "compute_s");
  EXPECT_NEAR(bf16_gb300, bf16_gb200, 1e-9 * bf16_gb200);
  const double nvfp4_gb200 = simulate(
      tmp, "gb200-fp4", dpusim::testing::replaced(gb200, "precision: bf16", "precision: nvfp4"), "compute_s");
  const double nvfp4_gb300 = simulate(
      tmp, "gb300-fp4", dpusim::testing::replaced(gb300, "precision: bf16", "precision: nvfp4"), "compute_s");
  EXPECT_LT(nvfp4_gb300, nvfp4_gb200);
  EXPECT_LT(nvfp4_gb300, bf16_gb300 / 2);
}

TEST(PrecisionProperties, ParametersGatheredInFp8MoveHalfTheBytes) {
  // GPT-3 13B on 64 H100 with the distributed optimizer over 8 replicas: with fp8_param_gather the
  // parameter all-gathers carry 1 byte a parameter instead of 2, so the data-parallel communication
  // shrinks, and the reduce-scatters (fp32 gradients) do not change.
  TempDir tmp;
  const std::string base =
      dpusim::testing::replaced(quickstart("dgx-h100", "fp8"), "precision: fp8", "precision: fp8\n  zero: 1");
  const std::string fp8_params =
      dpusim::testing::replaced(base, "zero: 1", "zero: 1\n  fp8_param_gather: true");
  const double dp = simulate(tmp, "base", base, "dp_comm_s");
  const double dp_fp8 = simulate(tmp, "fp8params", fp8_params, "dp_comm_s");
  EXPECT_LT(dp_fp8, dp);
  EXPECT_GT(dp_fp8, 0.5 * dp); // the gradients' reduce-scatter stays in fp32
}

TEST(PrecisionProperties, ADgxB300RunsOnItsOwn800GigabitNicsAndItsFp4) {
  // GPT-3 13B on 8 DGX B300 (each node's own ConnectX-8, an 800 Gb/s fabric) beside 8 DGX B200
  // (ConnectX-7): with RDMA the 800 Gb/s NICs shorten the exposed communication; host TCP is bound by
  // the host's cores, not the NIC, and gains nothing; NVFP4 takes the B300's compute below half its BF16.
  TempDir tmp;
  auto own_nics = [](const std::string& node) {
    std::string text = quickstart(node, "bf16");
    text = dpusim::testing::replaced(text, "  nic: connectx-7\n", "");
    text = dpusim::testing::replaced(text, "link: 400Gbps", "link: 800Gbps");
    return dpusim::testing::replaced(text, "variants: [rdma-nic, dpu]", "variants: [rdma-nic]");
  };
  const auto b200 = own_nics("dgx-b200");
  const auto b300 = own_nics("dgx-b300");
  const std::vector<std::string> rdma{"--variant", "rdma-nic"};
  EXPECT_LT(simulate(tmp, "b300", b300, "exposed_comm_s", nullptr, rdma),
            0.95 * simulate(tmp, "b200", b200, "exposed_comm_s", nullptr, rdma));
  const double tcp_b300 = simulate(tmp, "b300t", b300, "exposed_comm_s");
  const double tcp_b200 = simulate(tmp, "b200t", b200, "exposed_comm_s");
  EXPECT_NEAR(tcp_b300, tcp_b200, 0.01 * tcp_b200);
  const double bf16 = simulate(tmp, "b300c", b300, "compute_s", nullptr, rdma);
  const double nvfp4 =
      simulate(tmp, "b300f", dpusim::testing::replaced(b300, "precision: bf16", "precision: nvfp4"),
               "compute_s", nullptr, rdma);
  EXPECT_LT(nvfp4, bf16 / 1.8);
}
