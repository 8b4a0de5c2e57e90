// The catalog's H100 as the stage costs see it: its GEMM throughput, HBM bandwidth, kernel floor and SMs.
#pragma once

#include "models/catalog/catalog.hpp"
#include "models/compute/gpu_compute.hpp"

#include <filesystem>

namespace dpusim::testing {

inline compute::GpuComputeModel catalog_h100() {
  static const auto cat =
      catalog::Catalog::load(std::filesystem::path(DPUSIM_SOURCE_DIR) / "models/catalog/data");
  const auto* g = cat.gpu("h100-sxm");
  compute::GpuComputeParams p;
  p.gemm_bf16 = g->gemm;
  p.hbm_bandwidth = g->hbm_bandwidth.value * g->hbm_efficiency.value;
  p.kernel_floor = g->kernel_floor.value;
  p.sms = static_cast<int>(g->sms->value);
  return compute::GpuComputeModel(p);
}

} // namespace dpusim::testing
