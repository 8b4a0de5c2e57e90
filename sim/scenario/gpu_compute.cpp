#include "sim/scenario/gpu_compute.hpp"

namespace dpusim::scenario {

compute::GpuComputeModel gpu_compute(const Hardware& hw) {
  compute::GpuComputeParams gp;
  gp.gemm_bf16 = hw.gpu.gemm;
  for (std::size_t i = 0; i < gp.speedup.size(); ++i)
    if (const auto& s = hw.gpu.gemm_speedup.at(i))
      gp.speedup.at(i) = s->value;
  gp.hbm_bandwidth = hw.gpu.hbm_bandwidth.value * hw.gpu.hbm_efficiency.value;
  gp.kernel_floor = hw.gpu.kernel_floor.value;
  gp.sms = hw.gpu.sms ? static_cast<int>(hw.gpu.sms->value) : 0;
  return compute::GpuComputeModel(gp);
}

} // namespace dpusim::scenario
