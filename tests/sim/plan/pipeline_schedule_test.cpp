#include "sim/plan/pipeline_schedule.hpp"

#include <algorithm>
#include <array>
#include <deque>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <tuple>

using dpusim::plan::dualpipev_schedule;
using dpusim::plan::pipeline_schedule;
using dpusim::plan::PipelineOp;

namespace {

/// Every (chunk, micro-batch) appears exactly once forward and once backward, forward first.
void expect_complete(const std::vector<PipelineOp>& ops, int chunks, int micro) {
  std::map<std::pair<int, int>, int> fwd_at;
  std::set<std::pair<int, int>> bwd_seen;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto key = std::make_pair(ops[i].chunk, ops[i].micro);
    if (ops[i].weight) { // a zero-bubble weight op: after its backward
      EXPECT_TRUE(bwd_seen.contains(key)) << "weights before their backward";
      continue;
    }
    if (ops[i].forward) {
      EXPECT_TRUE(fwd_at.emplace(key, static_cast<int>(i)).second) << "forward twice";
    } else {
      ASSERT_TRUE(fwd_at.contains(key)) << "backward before forward";
      EXPECT_TRUE(bwd_seen.insert(key).second) << "backward twice";
    }
  }
  EXPECT_EQ(fwd_at.size(), static_cast<std::size_t>(chunks * micro));
  EXPECT_EQ(bwd_seen.size(), static_cast<std::size_t>(chunks * micro));
}

/// The pairs of `ops` (a forward `with_next`), each a forward and then a backward of another chunk or
/// micro-batch (independent passes); how many.
int independent_pairs(const std::vector<PipelineOp>& ops) {
  int pairs = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].with_next)
      continue;
    ++pairs;
    EXPECT_TRUE(ops[i].forward);
    if (i + 1 == ops.size()) {
      ADD_FAILURE() << "a pair at the end";
      break;
    }
    const auto& b = ops[i + 1];
    EXPECT_FALSE(b.forward);
    EXPECT_FALSE(b.chunk == ops[i].chunk && b.micro == ops[i].micro) << "a pass beside its own backward";
  }
  return pairs;
}

} // namespace

TEST(PipelineSchedule, OneFOneBWarmsUpByTheStagesBehind) {
  // Stage 0 of 4 does 3 warm-up forwards, the last stage none.
  const auto first = pipeline_schedule(0, 4, 1, 8);
  EXPECT_TRUE(first[0].forward && first[1].forward && first[2].forward && first[3].forward);
  EXPECT_FALSE(first[4].forward);
  const auto last = pipeline_schedule(3, 4, 1, 8);
  EXPECT_TRUE(last[0].forward);
  EXPECT_FALSE(last[1].forward);
  for (int s = 0; s < 4; ++s)
    expect_complete(pipeline_schedule(s, 4, 1, 8), 1, 8);
}

TEST(PipelineSchedule, InterleavedFollowsMegatronsOrder) {
  // 2 stages, 2 chunks, 4 micro-batches: stage 0 warms up with 2(p-1) + (v-1)p = 4 chunk-forwards:
  // mb0 and mb1 on chunk 0, then mb0 and mb1 on chunk 1.
  const auto ops = pipeline_schedule(0, 2, 2, 4);
  ASSERT_GE(ops.size(), 5u);
  const std::vector<std::pair<int, int>> warmup{{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  for (std::size_t i = 0; i < warmup.size(); ++i) {
    EXPECT_TRUE(ops[i].forward);
    EXPECT_EQ(std::make_pair(ops[i].chunk, ops[i].micro), warmup[i]);
  }
  // The first backward is the last chunk of the first micro-batch.
  EXPECT_FALSE(ops[5].forward);
  EXPECT_EQ(ops[5].chunk, 1);
  EXPECT_EQ(ops[5].micro, 0);
  for (int s = 0; s < 2; ++s)
    expect_complete(pipeline_schedule(s, 2, 2, 4), 2, 4);
  for (int s = 0; s < 4; ++s)
    expect_complete(pipeline_schedule(s, 4, 3, 8), 3, 8);
}

TEST(PipelineSchedule, CombinedOneFOneBWarmsUpOnceMoreAndPairsIndependentPasses) {
  // Megatron-Core's combined 1F1B: one more warm-up forward, then each forward runs with the backward after
  // it, of another micro-batch (or chunk) whose forward ran earlier; the last backward runs alone.
  for (const auto& [stages, chunks, micro] : {std::tuple{1, 1, 4}, {4, 1, 8}, {2, 2, 4}, {4, 3, 8}})
    for (int s = 0; s < stages; ++s) {
      const auto plain = pipeline_schedule(s, stages, chunks, micro);
      const auto ops = pipeline_schedule(s, stages, chunks, micro, true);
      expect_complete(ops, chunks, micro);
      // The forwards before the first backward: the warm-up, and the first steady-state one if any.
      const int total = chunks * micro;
      auto leading = [](const std::vector<PipelineOp>& o) {
        int n = 0;
        while (n < static_cast<int>(o.size()) && o[static_cast<std::size_t>(n)].forward)
          ++n;
        return n;
      };
      const int plain_warmup = leading(plain) - (leading(plain) < total ? 1 : 0);
      const int warmup = std::min(plain_warmup + 1, total);
      EXPECT_EQ(leading(ops), std::min(warmup + 1, total));
      EXPECT_EQ(independent_pairs(ops), total - warmup);
      EXPECT_FALSE(ops.back().with_next);
    }
}

TEST(PipelineSchedule, DualPipeVRunsEveryChunkOnceAndPairsIndependentPasses) {
  // DeepSeek's DualPipeV on 4 stages and 10 micro-batches (its README's figure), and on others: every
  // (chunk, micro-batch) forward then backward once, each chunk's micro-batches in order, 2 x stages
  // warm-up forwards of chunk 0 less two a stage, and every pair a forward and a backward of different
  // micro-batches (or chunks), the last stage's first pair apart.
  for (const auto& [stages, micro] : {std::pair{4, 10}, {2, 4}, {8, 16}, {8, 20}}) {
    for (int s = 0; s < stages; ++s) {
      const auto ops = dualpipev_schedule(s, stages, micro);
      expect_complete(ops, 2, micro);
      std::array<int, 6> next{0, 0, 0, 0, 0, 0}; // forward chunk 0, 1; backward 0, 1; weights 0, 1
      std::deque<std::pair<int, int>> pending;   // zero-bubble backwards, oldest first
      for (const auto& op : ops) {
        auto& n = next[static_cast<std::size_t>((op.weight ? 4 : op.forward ? 0 : 2) + op.chunk)];
        if (!op.weight) {
          EXPECT_EQ(op.micro, n++);
        }
        if (op.weight_later)
          pending.emplace_back(op.chunk, op.micro);
        if (op.weight) { // the oldest pending backward's weights
          ASSERT_FALSE(pending.empty());
          EXPECT_EQ(std::make_pair(op.chunk, op.micro), pending.front());
          pending.pop_front();
        }
      }
      EXPECT_TRUE(pending.empty());
      // Zero bubble: step 3's and step 7's backwards and half of step 6's.
      const auto deferred = std::count_if(ops.begin(), ops.end(), [](const auto& op) { return op.weight; });
      EXPECT_EQ(deferred, 2 * (stages - s - 1) + s + 1) << s;
      int leading = 0;
      while (ops[static_cast<std::size_t>(leading)].forward &&
             ops[static_cast<std::size_t>(leading)].chunk == 0)
        ++leading;
      EXPECT_EQ(leading, (stages - s - 1) * 2 + 1) << s;
      const int pairs = independent_pairs(ops);
      // The main step's two pairs each time and step 5's one, less the last stage's first.
      const int main = micro - 2 * stages + s + 1;
      EXPECT_EQ(pairs, 2 * main + (stages - s - 1) - (s == stages - 1 ? 1 : 0)) << s;
    }
  }
}
