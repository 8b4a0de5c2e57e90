// A validated software stack's GPU profile, named in a scenario: it replaces the catalog's kernel
// figures (the 2020-21 A100 stack reaches less than today's kernels), and every run says which figures
// it used and how far they are validated.
#include "tests/support/run_csv.hpp"

#include <gtest/gtest.h>

using dpusim::testing::simulate;
using dpusim::testing::TempDir;

namespace {

const std::string kA100 = R"(name: stack
cluster: {nodes: 1, node: dgx-a100, fabric: {topology: fat-tree, link: 200Gbps, latency: 1us}}
workload: {model: gpt3-2.7b, seq_len: 2048, global_batch: 16, micro_batch: 1, parallelism: {tp: 8, dp: 1}}
offload: {baseline: rdma-nic}
)";

} // namespace

TEST(GpuProfile, ANamedStackReplacesTheCatalogsKernelFiguresAndTheRunSaysSo) {
  TempDir tmp;
  std::string kernels_out;
  std::string stack_out;
  const double kernels = simulate(tmp, "kernels", kA100, "step_time_s", &kernels_out);
  const double stack =
      simulate(tmp, "stack", kA100 + "gpu_profile: megatron-a100-ngc2012\n", "step_time_s", &stack_out);
  EXPECT_GT(stack, 1.05 * kernels) << "the 2020-21 stack's fitted GEMM ceiling is below the catalog's";
  EXPECT_NE(kernels_out.find("GPU performance: the catalog's a100-sxm-80gb kernel figures"),
            std::string::npos)
      << kernels_out;
  EXPECT_NE(kernels_out.find("not validated end to end"), std::string::npos) << kernels_out;
  EXPECT_NE(stack_out.find("GPU performance: gpu_profile megatron-a100-ngc2012"), std::string::npos)
      << stack_out;
  EXPECT_NE(stack_out.find("validated on 26 published Megatron-LM rows"), std::string::npos) << stack_out;
}
