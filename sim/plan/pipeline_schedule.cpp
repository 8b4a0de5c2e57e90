#include "sim/plan/pipeline_schedule.hpp"

#include <algorithm>

namespace dpusim::plan {

std::vector<PipelineOp> pipeline_schedule(int stage, int stages, int virtual_stages, int micro_batches,
                                          bool combined) {
  std::vector<PipelineOp> ops;
  const int m = micro_batches;
  const int extra = combined ? 1 : 0;
  if (virtual_stages <= 1) {
    const int warmup = std::min(stages - stage - 1 + extra, m);
    for (int mb = 0; mb < warmup; ++mb)
      ops.push_back({true, 0, mb});
    for (int i = 0; i < m - warmup; ++i) {
      ops.push_back({true, 0, warmup + i, combined});
      ops.push_back({false, 0, i});
    }
    for (int mb = m - warmup; mb < m; ++mb)
      ops.push_back({false, 0, mb});
    return ops;
  }
  // Megatron-LM's interleaved schedule: the k-th forward (backward) of this stage runs model chunk
  // (k / stages) % v (its mirror for backward) on micro-batch (k / (stages * v)) * stages + k % stages.
  const int v = virtual_stages;
  const int total = m * v;
  auto micro_of = [&](int k) { return (k / (stages * v)) * stages + k % stages; };
  auto fwd = [&](int k) { return PipelineOp{true, (k / stages) % v, micro_of(k)}; };
  auto bwd = [&](int k) { return PipelineOp{false, v - 1 - (k / stages) % v, micro_of(k)}; };
  const int warmup = std::min((stages - stage - 1) * 2 + (v - 1) * stages + extra, total);
  int f = 0;
  int b = 0;
  for (; f < warmup; ++f)
    ops.push_back(fwd(f));
  while (f < total) {
    ops.push_back(fwd(f++));
    ops.back().with_next = combined;
    ops.push_back(bwd(b++));
  }
  while (b < total)
    ops.push_back(bwd(b++));
  return ops;
}

} // namespace dpusim::plan
