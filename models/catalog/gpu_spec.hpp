#pragma once

#include "models/catalog/cited.hpp"
#include "models/catalog/reliability.hpp"
#include "models/compute/gemm_table.hpp"
#include "models/core/units.hpp"

#include <optional>
#include <string>

namespace dpusim::catalog {

class EntryReader;

struct GpuSpec {
  std::string name;
  std::string description;
  Cited<units::FlopRate> peak_bf16;
  Cited<units::FlopRate> peak_fp16;
  std::optional<Cited<units::FlopRate>> peak_fp8;
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
  Cited<units::Power> tdp;
  std::optional<Cited<units::Power>> idle_power; // drawn while it waits (no kernel running)
  std::optional<InterruptionRate> interruptions; // per GPU, from a failure study
  std::string gemm_table_file;
  Citation gemm_table_cite;
  std::optional<Cited<units::FlopRate>> gemm_ceiling; // rescales the table so its best point is this
  compute::GemmTable gemm;                            // loaded, rescaled bf16 table
};

GpuSpec read_gpu(EntryReader& r, const std::string& directory);

} // namespace dpusim::catalog
