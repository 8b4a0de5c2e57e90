// The order in which one pipeline stage runs its forward and backward passes: 1F1B (PipeDream-Flush, as
// in Megatron-LM) and Megatron-LM's interleaved 1F1B with several model chunks per GPU. The dependencies
// between stages are the caller's; bubbles emerge from them, not from a formula.
#pragma once

#include <vector>

namespace dpusim::plan {

struct PipelineOp {
  bool forward = true;
  int chunk = 0;          // model chunk on this GPU (0 .. virtual_stages-1)
  int micro = 0;          // micro-batch
  bool with_next = false; // a forward that runs as one combined step with the backward after it
  // Zero-bubble (DualPipeV): a backward that computes only its input gradients, its weight gradients left
  // to a later weight op; and such a weight op, of the oldest backward whose weight gradients are pending.
  bool weight_later = false;
  bool weight = false;
};

/// Ops of pipeline stage `stage` (0-based) of `stages`, for `micro_batches` micro-batches and
/// `virtual_stages` model chunks per GPU (1: plain 1F1B). Interleaving requires micro_batches to be a
/// multiple of stages, as in Megatron-LM. `combined`: Megatron-Core's combined 1F1B (expert-parallel
/// overlap): one more forward in the warm-up, so that each steady-state forward and the backward after it
/// are independent, and each such pair marked to run as one step (megatron/core/pipeline_parallel/
/// schedules.py: "we schedule one extra micro-batch forward step before the 1f1b stages").
std::vector<PipelineOp> pipeline_schedule(int stage, int stages, int virtual_stages, int micro_batches,
                                          bool combined = false);

/// Ops of pipeline stage `stage` of `stages` under DualPipeV (DUALPIPE-REPO `dualpipe/dualpipev.py`,
/// `DualPipeV.step`): two model chunks a stage in a V (chunk 0 is virtual stage `stage`, chunk 1 is
/// 2 stages - 1 - stage), `micro_batches` (at least 2 x stages) each through both, in its eight steps:
/// (stages - stage - 1) x 2 forwards of chunk 0; stage + 1 pairs of forwards of chunks 0 and 1; stages -
/// stage - 1 times a backward of chunk 1 and a forward of chunk 1; micro_batches - 2 stages + stage + 1
/// times a forward of chunk 0 with a backward of chunk 1, then a forward of chunk 1 with a backward of
/// chunk 0 (each pair one overlapped step, `with_next`, except the last stage's first, which it does not
/// overlap); stages - stage - 1 times a backward of chunk 1 and a forward of chunk 1 with a backward of
/// chunk 0; then the remaining backwards, chunk 1 before chunk 0. Each chunk's micro-batches run in order.
/// Zero bubble as the code has it: the backwards of step 3, the second half of step 6's and step 7's
/// compute their input gradients only (`weight_later`), and weight ops (`weight`: steps 3, 7 and 8) compute
/// the oldest such backward's weight gradients.
std::vector<PipelineOp> dualpipev_schedule(int stage, int stages, int micro_batches);

/// The model chunk (virtual pipeline stage, 0 .. stages*virtual_stages-1) that chunk `chunk` of stage
/// `stage` holds: chunks are dealt round-robin, chunk c of stage s is virtual stage c*stages + s.
inline int virtual_stage(int stage, int stages, int chunk) {
  return chunk * stages + stage;
}

} // namespace dpusim::plan
