#include "models/workload/precision.hpp"

namespace dpusim::workload {

std::string_view precision_name(Precision p) {
  switch (p) {
  case Precision::bf16:
    return "bf16";
  case Precision::fp16:
    return "fp16";
  case Precision::fp8:
    return "fp8";
  case Precision::fp8_cs:
    return "fp8-cs";
  case Precision::mxfp8:
    return "mxfp8";
  case Precision::nvfp4:
    return "nvfp4";
  }
  return "bf16";
}

std::string_view tensor_core_format(Precision p) {
  return p == Precision::fp8_cs ? "fp8" : precision_name(p);
}

bool low_precision(Precision p) {
  return p != Precision::bf16 && p != Precision::fp16;
}

double element_bytes(Precision p) {
  switch (p) {
  case Precision::bf16:
  case Precision::fp16:
    return 2.0;
  case Precision::fp8:
  case Precision::fp8_cs:
    return 1.0;
  case Precision::mxfp8:
    return 1.0 + 1.0 / 32.0; // an 8-bit E8M0 scale per 32 elements (OCP-MX)
  case Precision::nvfp4:
    return 0.5 + 1.0 / 16.0; // 4-bit elements, an 8-bit E4M3 scale per 16 (NV-NVFP4)
  }
  return 2.0;
}

bool amax_pass(Precision p) {
  return p == Precision::fp8_cs || p == Precision::nvfp4;
}

CastCost cast_cost(Precision p, double elements) {
  if (!low_precision(p))
    return {};
  // One kernel reads the 16-bit tensor and writes both layouts (Transformer Engine's fused cast-transpose,
  // or its row- and column-wise MX/NVFP4 quantisation); current scaling first reduces the tensor's
  // absolute maximum in a kernel of its own.
  CastCost c;
  c.quantize_bytes = elements * (2.0 + 2.0 * element_bytes(p));
  if (amax_pass(p))
    c.amax_bytes = elements * 2.0;
  return c;
}

} // namespace dpusim::workload
