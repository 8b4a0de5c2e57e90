// Time a GPU takes for a layer's kernels: GEMMs at the throughput measured for their shape (bounded by
// HBM bandwidth for skinny shapes), memory-bound kernels at the achieved HBM bandwidth; no kernel takes
// less than the GPU's kernel floor (launch and tail effects of tiny kernels). Parameters come from the GPU's
// catalog entry or a calibration profile.
#pragma once

#include "models/base/units.hpp"
#include "models/compute/gemm_table.hpp"
#include "models/workload/transformer.hpp"

#include <array>

namespace dpusim::compute {

struct GpuComputeParams {
  GemmTable gemm_bf16; // measured bf16 throughput over shapes
  // Per precision (indexed as workload::kPrecisions): the best GEMM throughput in it over the best bf16
  // GEMM's, applied to the bf16 table for a linear layer's GEMMs (1 for bf16 and fp16).
  std::array<double, workload::kPrecisions.size()> speedup = {1, 1, 1, 1, 1, 1};
  units::DataRate hbm_bandwidth; // achieved HBM bandwidth (peak x measured efficiency)
  units::Seconds kernel_floor;   // shortest time any kernel occupies the GPU
  int sms = 0;                   // streaming multiprocessors (0: not in the catalog)
};

class GpuComputeModel {
public:
  explicit GpuComputeModel(GpuComputeParams params) : p_(std::move(params)) {}

  [[nodiscard]] units::Seconds gemm_time(const workload::Gemm& g, workload::Precision precision) const;
  [[nodiscard]] units::Seconds memory_time(const workload::MemoryOp& op) const;
  /// Sum over the kernels of `work`.
  [[nodiscard]] units::Seconds time(const workload::LayerWork& work, workload::Precision precision) const;
  /// Time of a purely memory-bound pass over `bytes` (e.g. the optimizer step).
  [[nodiscard]] units::Seconds stream_time(double bytes, int kernels) const;

  [[nodiscard]] const GpuComputeParams& params() const { return p_; }
  [[nodiscard]] double speedup(workload::Precision precision) const {
    return p_.speedup.at(static_cast<std::size_t>(precision));
  }

private:
  GpuComputeParams p_;
};

} // namespace dpusim::compute
