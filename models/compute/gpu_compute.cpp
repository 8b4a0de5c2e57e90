#include "models/compute/gpu_compute.hpp"

#include <algorithm>

namespace dpusim::compute {

units::Seconds GpuComputeModel::gemm_time(const workload::Gemm& g, workload::Precision precision) const {
  double rate = p_.gemm_bf16.achieved(g.batch, g.m, g.n, g.k).si();
  double in_bytes = 2.0;
  if (g.linear) { // only a linear layer's GEMMs run in the job's format (precision.hpp)
    rate *= speedup(precision);
    in_bytes = workload::element_bytes(precision);
  }
  const double compute_s = g.flops() / rate;
  // Operands in, result out (16-bit output): a floor for shapes too skinny to reuse data.
  const double bytes = g.batch * ((g.m * g.k + g.k * g.n) * in_bytes + g.m * g.n * 2.0);
  const double memory_s = bytes / p_.hbm_bandwidth.si();
  return units::seconds(std::max({compute_s, memory_s, p_.kernel_floor.si()}));
}

units::Seconds GpuComputeModel::memory_time(const workload::MemoryOp& op) const {
  return units::seconds(std::max(op.bytes / p_.hbm_bandwidth.si(), p_.kernel_floor.si()));
}

units::Seconds GpuComputeModel::time(const workload::LayerWork& work, workload::Precision precision) const {
  units::Seconds t;
  for (const auto& g : work.gemms)
    t += gemm_time(g, precision);
  for (const auto& op : work.memory_ops)
    t += memory_time(op);
  return t;
}

units::Seconds GpuComputeModel::stream_time(double bytes, int kernels) const {
  return units::seconds(std::max(bytes / p_.hbm_bandwidth.si(), p_.kernel_floor.si() * kernels));
}

} // namespace dpusim::compute
