// Keeping some replicas of an iteration: their tasks, the shared ones and the dependencies among them,
// weights that keep totals whole, and references renumbered; the GPU-time finish order that picks them.
#include "sim/plan/replica_subset.hpp"

#include <gtest/gtest.h>

using namespace dpusim;

namespace {

/// Three replicas, each a forward of `gpu_s[d]` seconds then a backward of 1 s, feeding one shared
/// collective and the iteration's end.
plan::IterationPlan three_replicas(const std::vector<double>& gpu_s) {
  plan::IterationPlan p;
  const auto add = [&p](engine::TaskKind kind, plan::TaskCategory c, int dp, double amount) {
    engine::Task t;
    t.kind = kind;
    if (kind == engine::TaskKind::delay)
      t.delay_s = amount;
    else if (amount > 0)
      t.loads.push_back({0, amount});
    plan::TaskInfo i;
    i.category = c;
    i.dp = dp;
    const auto id = p.graph.add(std::move(t));
    p.info.push_back(i);
    return id;
  };
  const auto collective = add(engine::TaskKind::transfer, plan::TaskCategory::dp_collective, -1, 0);
  p.end = add(engine::TaskKind::join, plan::TaskCategory::join, -1, 0);
  p.graph.depend(collective, p.end);
  for (int d = 0; d < 3; ++d) {
    const auto f =
        add(engine::TaskKind::work, plan::TaskCategory::forward, d, gpu_s[static_cast<std::size_t>(d)]);
    const auto late = add(engine::TaskKind::delay, plan::TaskCategory::latency, d, 0.5);
    const auto b = add(engine::TaskKind::work, plan::TaskCategory::backward, d, 1.0);
    p.info[static_cast<std::size_t>(b)].data_from = f;
    p.graph.depend(f, late);
    p.graph.depend(late, b);
    p.graph.depend(b, collective);
  }
  p.simulated_replicas = 3;
  return p;
}

} // namespace

TEST(ReplicaSubset, FinishTimesAddGpuTimeAndDelaysAlongEveryPath) {
  const auto p = three_replicas({1.0, 3.0, 2.0});
  const auto finish = plan::compute_finish_times(p);
  // Replica 1: 3 s forward, 0.5 s delay, 1 s backward; the collective and the end wait for it.
  EXPECT_DOUBLE_EQ(finish[static_cast<std::size_t>(p.end)], 4.5);
  EXPECT_DOUBLE_EQ(finish[2 + 3 * 0 + 2], 2.5);
}

TEST(ReplicaSubset, KeepsTheNamedReplicasTheSharedTasksAndTheirDependencies) {
  const auto p = three_replicas({1.0, 3.0, 2.0});
  const auto kept = plan::keep_replicas(p, {1}, 3);
  ASSERT_EQ(kept.graph.size(), 5u); // the collective, the end, and replica 1's three tasks
  EXPECT_EQ(kept.simulated_replicas, 1);
  int replica_tasks = 0;
  for (std::size_t i = 0; i < kept.info.size(); ++i) {
    if (kept.info[i].dp < 0) {
      EXPECT_DOUBLE_EQ(kept.info[i].weight, 1.0);
      continue;
    }
    ++replica_tasks;
    EXPECT_EQ(kept.info[i].dp, 1);
    EXPECT_DOUBLE_EQ(kept.info[i].weight, 3.0); // it stands for all three
    if (kept.info[i].category == plan::TaskCategory::backward) {
      ASSERT_GE(kept.info[i].data_from, 0);
      EXPECT_EQ(kept.info[static_cast<std::size_t>(kept.info[i].data_from)].category,
                plan::TaskCategory::forward);
    }
  }
  EXPECT_EQ(replica_tasks, 3);
  kept.graph.check_acyclic();
  // The slowest replica kept: the end waits as long as it did with all three.
  EXPECT_DOUBLE_EQ(plan::compute_finish_times(kept)[static_cast<std::size_t>(kept.end)], 4.5);
  EXPECT_EQ(kept.info[static_cast<std::size_t>(kept.end)].category, plan::TaskCategory::join);
}

TEST(ReplicaSubset, RefusesToKeepNoReplica) {
  EXPECT_THROW((void)plan::keep_replicas(three_replicas({1, 1, 1}), {}, 3), std::logic_error);
}
