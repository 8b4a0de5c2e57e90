// The number formats a training job runs its linear layers in, as Transformer Engine and Megatron-Core
// run them: the projections of attention and of the feed-forward block (and the experts') compute their
// three GEMMs (forward, data gradient, weight gradient) in the low-precision format, from operands cast
// to it by quantisation kernels; attention's own products, the router, the output layer, norms, softmax
// and the optimizer stay in 16 or 32 bits. Sources and the cost model: docs/models/precision.md.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>

namespace dpusim::workload {

enum class Precision {
  bf16,
  fp16,
  fp8,    // FP8 with one scale per tensor from an amax history (Transformer Engine's delayed scaling)
  fp8_cs, // FP8 with one scale per tensor from the tensor itself (current scaling)
  mxfp8,  // OCP MX FP8: an E8M0 scale per block of 32 elements (Blackwell tensor cores)
  nvfp4,  // NVFP4: E2M1 elements, an E4M3 scale per block of 16 and one FP32 scale per tensor
};
inline constexpr std::array kPrecisions = {Precision::bf16,   Precision::fp16,  Precision::fp8,
                                           Precision::fp8_cs, Precision::mxfp8, Precision::nvfp4};
static_assert(static_cast<std::size_t>(kPrecisions.back()) + 1 == kPrecisions.size(),
              "kPrecisions lists every precision in declaration order: tables are indexed by it");

/// The name a scenario writes (bf16, fp16, fp8, fp8-cs, mxfp8, nvfp4).
std::string_view precision_name(Precision p);
/// The tensor-core format the precision's GEMMs run in, as the catalog's peaks name it: fp8 for both
/// tensor-wise FP8 recipes, the precision's own name otherwise.
std::string_view tensor_core_format(Precision p);
/// True where the linear layers run below 16 bits.
bool low_precision(Precision p);
/// HBM bytes one element takes in the format, its block scales included: 2 for bf16/fp16, 1 for FP8,
/// 1 + 1/32 for MXFP8, 1/2 + 1/16 for NVFP4.
double element_bytes(Precision p);
/// True where every cast first reads its tensor for the scale (current scaling: fp8-cs, and NVFP4's
/// per-tensor scale); delayed scaling takes the scale from past steps and updates the history in the cast.
bool amax_pass(Precision p);

/// The quantisation of one tensor of `elements` 16-bit values into the two layouts the GEMMs that use it
/// read (row-wise for one product, column-wise for the other: Hopper's FP8 GEMMs take only one operand
/// layout, and block scales run along the reduced dimension): HBM bytes read and written, and kernels.
struct CastCost {
  double amax_bytes = 0;     // the scale's reduction over the tensor (current scaling), its own kernel
  double quantize_bytes = 0; // the cast: the 16-bit tensor read, both layouts written
  [[nodiscard]] double bytes() const { return amax_bytes + quantize_bytes; }
  [[nodiscard]] int kernels() const { return (amax_bytes > 0 ? 1 : 0) + (quantize_bytes > 0 ? 1 : 0); }
};
CastCost cast_cost(Precision p, double elements);

} // namespace dpusim::workload
