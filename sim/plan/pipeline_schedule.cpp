#include "sim/plan/pipeline_schedule.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <stdexcept>

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

std::vector<PipelineOp> dualpipev_schedule(int stage, int stages, int micro_batches) {
  std::vector<PipelineOp> ops;
  std::array<int, 2> next_f{0, 0};
  std::array<int, 2> next_b{0, 0};
  const auto f = [&](int chunk, bool with_next = false) {
    ops.push_back({true, chunk, next_f[static_cast<std::size_t>(chunk)]++, with_next});
  };
  std::deque<PipelineOp> pending; // backwards whose weight gradients wait, oldest first
  const auto b = [&](int chunk, bool zero_bubble = false) {
    ops.push_back({false, chunk, next_b[static_cast<std::size_t>(chunk)]++, false, zero_bubble});
    if (zero_bubble)
      pending.push_back(ops.back());
  };
  const auto weight = [&] {
    if (pending.empty())
      throw std::logic_error("DualPipeV: a weight step with no backward pending");
    ops.push_back({false, pending.front().chunk, pending.front().micro, false, false, true});
    pending.pop_front();
  };
  const int n = stages;
  const int r = stage;
  for (int i = 0; i < (n - r - 1) * 2; ++i) // 1: forwards of chunk 0
    f(0);
  for (int i = 0; i < r + 1; ++i) { // 2: forwards of chunks 0 and 1
    f(0);
    f(1);
  }
  for (int i = 0; i < n - r - 1; ++i) { // 3: a backward of chunk 1 and its weights, a forward of chunk 1
    b(1, true);
    weight();
    f(1);
  }
  for (int i = 0; i < micro_batches - 2 * n + r + 1; ++i) { // 4: the main step, two overlapped pairs
    f(0, !(i == 0 && r == n - 1));
    b(1);
    f(1, true);
    b(0);
  }
  for (int i = 0; i < n - r - 1; ++i) { // 5: a backward of chunk 1, then an overlapped pair
    b(1);
    f(1, true);
    b(0);
  }
  bool zero_bubble = false;
  for (int i = 0; i < r + 1; ++i) { // 6: backwards of chunks 1 and 0, from the middle on zero-bubble
    if (i == (r + 1) / 2 && r % 2 == 1)
      zero_bubble = true;
    b(1, zero_bubble);
    if (i == (r + 1) / 2 && r % 2 == 0)
      zero_bubble = true;
    b(0, zero_bubble);
  }
  for (int i = 0; i < n - r - 1; ++i) { // 7: a pending backward's weights, a backward of chunk 0
    weight();
    b(0, true);
  }
  for (int i = 0; i < r + 1; ++i) // 8: the pending weights
    weight();
  if (!pending.empty())
    throw std::logic_error("DualPipeV: backwards left with their weights pending");
  return ops;
}

} // namespace dpusim::plan
