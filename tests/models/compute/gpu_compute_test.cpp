#include "models/compute/gpu_compute.hpp"

#include <cmath>
#include <gtest/gtest.h>

using namespace dpusim;

namespace {
compute::GemmTable small_table() {
  std::vector<compute::GemmPoint> pts;
  for (double m : {256.0, 1024.0, 4096.0})
    for (double n : {256.0, 1024.0, 4096.0})
      for (double k : {256.0, 1024.0, 4096.0})
        pts.push_back({1, m, n, k, 1e12 * std::log2(m * n * k)}); // grows with size
  return compute::GemmTable(pts);
}
} // namespace

TEST(GemmTable, ReturnsMeasuredValuesAtMeasuredShapes) {
  const auto t = small_table();
  EXPECT_NEAR(t.achieved(1, 1024, 256, 4096).si() / (1e12 * std::log2(1024.0 * 256 * 4096)), 1.0, 1e-12);
}

TEST(GemmTable, InterpolatesBetweenAndClampsBeyondTheMeasuredRange) {
  const auto t = small_table();
  const double lo = t.achieved(1, 1024, 1024, 1024).si();
  const double hi = t.achieved(1, 4096, 4096, 4096).si();
  const double mid = t.achieved(1, 2048, 2048, 2048).si();
  EXPECT_GT(mid, lo);
  EXPECT_LT(mid, hi);
  EXPECT_DOUBLE_EQ(t.achieved(1, 16384, 16384, 16384).si(), hi);
  // Batch folds into m.
  EXPECT_DOUBLE_EQ(t.achieved(4, 1024, 256, 4096).si(), t.achieved(1, 4096, 256, 4096).si());
}

TEST(GpuCompute, GemmTimeIsFlopsOverAchievedThroughputOrTheMemoryFloor) {
  compute::GpuComputeParams p;
  p.gemm_bf16 = small_table();
  p.hbm_bandwidth = units::gbyte_per_s(3000);
  p.kernel_floor = units::microseconds(5);
  compute::GpuComputeModel model(p);
  const workload::Gemm big{"big", 1, 4096, 4096, 4096};
  EXPECT_NEAR(model.gemm_time(big, workload::Precision::bf16).si(),
              big.flops() / p.gemm_bf16.achieved(1, 4096, 4096, 4096).si(), 1e-15);
  // Every GEMM runs the bf16 table in 16-bit precisions.
  EXPECT_DOUBLE_EQ(model.gemm_time(big, workload::Precision::fp16).si(),
                   model.gemm_time(big, workload::Precision::bf16).si());
  // A very skinny GEMM is bound by moving its operands.
  const workload::Gemm skinny{"skinny", 1, 1, 65536, 65536};
  const double bytes = (1.0 * 65536 + 65536.0 * 65536) * 2 + 65536.0 * 2;
  EXPECT_NEAR(model.gemm_time(skinny, workload::Precision::bf16).si(), bytes / 3000e9, 1e-12);
  // A tiny kernel still occupies the GPU for the floor.
  EXPECT_DOUBLE_EQ(model.memory_time({"tiny", 64}).si(), 5e-6);
}

TEST(GpuCompute, OnlyALinearLayersGemmRunsAtTheFormatsMeasuredSpeedup) {
  using workload::Precision;
  compute::GpuComputeParams p;
  p.gemm_bf16 = small_table();
  p.hbm_bandwidth = units::gbyte_per_s(3000);
  p.kernel_floor = units::microseconds(5);
  p.speedup.at(static_cast<std::size_t>(Precision::fp8)) = 1.765;
  p.speedup.at(static_cast<std::size_t>(Precision::nvfp4)) = 3.9;
  const compute::GpuComputeModel model(p);
  workload::Gemm linear{"fc1", 1, 4096, 4096, 4096};
  linear.linear = true;
  const workload::Gemm scores{"attn_scores", 1, 4096, 4096, 4096};
  const double bf16 = model.gemm_time(scores, Precision::bf16).si();
  EXPECT_NEAR(model.gemm_time(linear, Precision::fp8).si() * 1.765, bf16, 1e-12);
  EXPECT_NEAR(model.gemm_time(linear, Precision::nvfp4).si() * 3.9, bf16, 1e-12);
  // Attention's products, the router and the output layer stay in 16 bits.
  EXPECT_DOUBLE_EQ(model.gemm_time(scores, Precision::fp8).si(), bf16);
  // A skinny linear GEMM reads its operands at the format's bytes: FP8 halves the operands' traffic.
  workload::Gemm skinny{"skinny", 1, 1, 65536, 65536, true};
  const double operands = 1.0 * 65536 + 65536.0 * 65536;
  EXPECT_NEAR(model.gemm_time(skinny, Precision::fp8).si(), (operands * 1.0 + 65536.0 * 2) / 3000e9, 1e-12);
}
