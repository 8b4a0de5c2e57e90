#pragma once

#include "models/base/units.hpp"
#include "models/catalog/cited.hpp"
#include "models/catalog/reliability.hpp"
#include "models/compute/gemm_table.hpp"
#include "models/workload/precision.hpp"

#include <array>
#include <optional>
#include <string>

namespace dpusim::catalog {

class EntryReader;

struct GpuSpec {
  std::string name;
  std::string description;
  Cited<units::FlopRate> peak_bf16;
  Cited<units::FlopRate> peak_fp16;
  std::optional<Cited<units::FlopRate>> peak_fp8;    // tensor-wise scaled FP8 (Hopper and later)
  std::optional<Cited<units::FlopRate>> peak_mxfp8;  // block-scaled FP8 (Blackwell)
  std::optional<Cited<units::FlopRate>> peak_nvfp4;  // block-scaled FP4 (Blackwell)
  Cited<units::Bytes> memory;                        // what the device reports (nvidia-smi's total)
  std::optional<Cited<units::Bytes>> context_memory; // taken by the CUDA context before training holds any
  Cited<units::DataRate> hbm_bandwidth;
  Cited<double> hbm_efficiency;               // achieved / peak (STREAM-like)
  Cited<units::DataRate> nvlink_bandwidth;    // per direction
  Cited<double> nvlink_collective_efficiency; // ring all-reduce bus bandwidth / NVLink bandwidth
  Cited<double> nvls_efficiency;              // NVLink SHARP all-reduce algorithm bandwidth / NVLink
                                              // bandwidth; 0 where the NVSwitch cannot reduce (NVLS)
  Cited<units::DataRate> pcie_bandwidth;      // per direction
  Cited<units::Seconds> kernel_floor;         // shortest time any kernel occupies the GPU
  std::optional<Cited<double>> sms;           // streaming multiprocessors (kernels that take some share them)
  Cited<double> compute_capability;           // CUDA's (9.0 for Hopper): NCCL's tuner tables by it
  Cited<units::Power> tdp;
  std::optional<Cited<units::Power>> idle_power; // drawn while it waits (no kernel running)
  std::optional<InterruptionRate> interruptions; // per GPU, from a failure study
  std::string gemm_table_file;
  Citation gemm_table_cite;
  std::optional<Cited<units::FlopRate>> gemm_ceiling; // rescales the table so its best point is this
  compute::GemmTable gemm;                            // loaded, rescaled bf16 table
  // Per precision (indexed as workload::kPrecisions): the best GEMM in its tensor-core format over the
  // best bf16 GEMM, as measured (gemm.speedup) or, where none is given, the peaks' ratio (said so in the
  // citation). Empty where the GPU has no such tensor cores; 1 for bf16 and fp16.
  std::array<std::optional<Cited<double>>, workload::kPrecisions.size()> gemm_speedup;

  /// The dense peak of the precision's tensor-core format; nullptr where the GPU has none.
  [[nodiscard]] const Cited<units::FlopRate>* peak(workload::Precision p) const;
  /// The precisions it runs, as a scenario names them ("bf16, fp16, fp8, fp8-cs").
  [[nodiscard]] std::string precisions() const;
};

GpuSpec read_gpu(EntryReader& r, const std::string& directory);

} // namespace dpusim::catalog
