#include "sim/plan/pipeline_schedule.hpp"

#include <gtest/gtest.h>
#include <map>
#include <set>

using dpusim::plan::pipeline_schedule;
using dpusim::plan::PipelineOp;

namespace {

/// Every (chunk, micro-batch) appears exactly once forward and once backward, forward first.
void expect_complete(const std::vector<PipelineOp>& ops, int chunks, int micro) {
  std::map<std::pair<int, int>, int> fwd_at;
  std::set<std::pair<int, int>> bwd_seen;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto key = std::make_pair(ops[i].chunk, ops[i].micro);
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
