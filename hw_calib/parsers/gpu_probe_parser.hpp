// The CSV printed by dpusim-calib-gpu (hw_calib/gpu/), the CUDA helper of the memory probe:
//   # dpusim-calib-gpu 1
//   # device: <index>,<name>,<compute capability>,<cuda runtime version>
//   test,size,iterations,seconds,rate
//   h2d_pinned,<bytes>,<n>,<mean seconds per copy>,<bytes per second>
//   d2h_pinned,<bytes>,<n>,<seconds>,<bytes per second>
//   gemm_bf16,<m=n=k>,<n>,<seconds per GEMM>,<FLOP per second>
// Lines starting with '#' other than the two above are comments.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace dpusim::calib {

struct GpuProbeRow {
  std::string test; // h2d_pinned | d2h_pinned | gemm_bf16
  double size = 0;  // bytes for copies, m = n = k for GEMMs
  double iterations = 0;
  double seconds = 0;
  double rate = 0; // bytes/s or FLOP/s
};

struct GpuProbeReport {
  int format_version = 0;
  std::string device_name;
  std::string compute_capability;
  std::string cuda_runtime;
  std::vector<GpuProbeRow> rows;
  [[nodiscard]] std::vector<GpuProbeRow> rows_of(std::string_view test) const;
};

/// Throws ParseError on a missing format line, an unknown test or a malformed row.
GpuProbeReport parse_gpu_probe_csv(std::string_view text);

} // namespace dpusim::calib
