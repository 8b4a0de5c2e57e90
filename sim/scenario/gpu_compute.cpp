#include "sim/scenario/gpu_compute.hpp"

namespace dpusim::scenario {

compute::GpuComputeModel gpu_compute(const Hardware& hw) {
  compute::GpuComputeParams gp;
  gp.gemm_bf16 = hw.gpu.gemm;
  gp.fp8_speedup = hw.gpu.peak_fp8 ? hw.gpu.peak_fp8->value / hw.gpu.peak_bf16.value : 1.0;
  gp.hbm_bandwidth = hw.gpu.hbm_bandwidth.value * hw.gpu.hbm_efficiency.value;
  gp.kernel_floor = hw.gpu.kernel_floor.value;
  gp.sms = hw.gpu.sms ? static_cast<int>(hw.gpu.sms->value) : 0;
  return compute::GpuComputeModel(gp);
}

} // namespace dpusim::scenario
