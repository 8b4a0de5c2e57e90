// The most host cores busy at once on one node: each task's core-seconds spread over its span and its
// nodes; against sums worked by hand.
#include "sim/metrics/host_core_peak.hpp"
#include "sim/plan/plan_tasks.hpp"

#include <gtest/gtest.h>

using namespace dpusim;

namespace {

struct Rig {
  plan::IterationPlan plan;
  std::vector<engine::TaskTiming> timings;
  /// A task of `core_s` host core-seconds on `gpus`, running from `start` to `end`.
  void add(std::vector<int> gpus, double core_s, double start, double end,
           engine::TaskKind kind = engine::TaskKind::work, double done = 1) {
    auto info = plan::make_info(plan::TaskCategory::dp_collective, "t");
    info.gpus = std::move(gpus);
    info.host_core_s[static_cast<std::size_t>(plan::CpuUse::transport)] = core_s;
    (void)plan.graph.add(plan::task_of(kind));
    plan.info.push_back(std::move(info));
    timings.push_back({start, end, done});
  }
  [[nodiscard]] double peak(int nodes, int gpus_per_node = 8) const {
    return metrics::peak_busy_host_cores(plan, timings, nodes, gpus_per_node);
  }
};

} // namespace

TEST(HostCorePeak, OverlappingTasksOnANodeAddUpAndOtherNodesDoNot) {
  Rig r;
  r.add({0}, 2.0, 0.0, 1.0);  // node 0: 2 cores over [0, 1]
  r.add({1}, 3.0, 0.5, 1.5);  // node 0: 3 cores over [0.5, 1.5]: 5 at once
  r.add({8}, 4.0, 0.0, 1.0);  // node 1: 4 cores
  r.add({0}, 10.0, 1.5, 2.5); // node 0: 10 cores, starting as the second ends: 10, not 13
  EXPECT_DOUBLE_EQ(r.peak(2), 10.0);
  Rig s;
  s.add({0}, 2.0, 0.0, 1.0);
  s.add({1}, 3.0, 0.5, 1.5);
  s.add({8}, 4.0, 0.0, 1.0);
  EXPECT_DOUBLE_EQ(s.peak(2), 5.0);
}

TEST(HostCorePeak, ACommunicationSharesItsWorkAmongItsNodes) {
  // A ring over four nodes: 8 core-seconds over 2 s is 4 cores, one on each node.
  Rig r;
  r.add({0, 8, 16, 24}, 8.0, 0.0, 2.0);
  EXPECT_DOUBLE_EQ(r.peak(4), 1.0);
  // Two GPUs of one node in it: the node's share is still one of four nodes'.
  Rig s;
  s.add({0, 1, 8, 16, 24}, 8.0, 0.0, 2.0);
  EXPECT_DOUBLE_EQ(s.peak(4), 1.0);
}

TEST(HostCorePeak, BackgroundWorkCountsItsDonePartAndAgentsEveryNode) {
  // A background task stopped at 2 s with 25% of its 100 core-seconds done: 12.5 cores.
  Rig r;
  r.add({0}, 100.0, 0.0, 2.0, engine::TaskKind::background, 0.25);
  EXPECT_DOUBLE_EQ(r.peak(1), 12.5);
  // Agents (no GPU): two tasks of 0.5 cores (2 core-seconds, half done, over 2 s), spread over the two
  // nodes: 0.5 cores a node all along, on top of node 0's own 3 cores.
  Rig s;
  s.add({}, 2.0, 0.0, 2.0, engine::TaskKind::background, 0.5);
  s.add({}, 2.0, 0.0, 2.0, engine::TaskKind::background, 0.5);
  s.add({0}, 3.0, 0.5, 1.5);
  EXPECT_DOUBLE_EQ(s.peak(2), 3.0 + 0.5);
}

TEST(HostCorePeak, ThePeakIsNeverBelowTheMeanAndIsItForSteadyWork) {
  Rig r;
  r.add({0}, 6.0, 0.0, 2.0);
  r.add({8}, 6.0, 0.0, 2.0);
  EXPECT_DOUBLE_EQ(r.peak(2), 3.0); // the mean: 12 core-seconds over 2 nodes and 2 s
  r.add({8}, 1.0, 0.0, 0.1);
  EXPECT_DOUBLE_EQ(r.peak(2), 13.0);
  EXPECT_DOUBLE_EQ(Rig{}.peak(4), 0.0);
}
