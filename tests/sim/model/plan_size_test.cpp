// How much of a job the plan simulates, and the peer-comparison scenario of tools/peer-benchmark.sh.
#include "sim/input/scenario_loader.hpp"
#include "sim/model/plan_size.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <gtest/gtest.h>

using namespace dpusim;

TEST(PlanSize, ThePeerBenchmarkScenarioHasTheShapeOfSimAIsExample) {
  // bench/scenarios/simai-moe-9216.yaml stands for SimAI's example/workload_analytical.txt, whose
  // header reads TP 2, EP 16, PP 12, VPP 8, GA 24 on 9,216 GPUs, with one transformer layer per model
  // chunk (8 layers per stage); the side-by-side timing is only fair while the file keeps that shape.
  const auto s = input::load_scenario(std::string(DPUSIM_SOURCE_DIR) + "/bench/scenarios/simai-moe-9216.yaml",
                                      dpusim::testing::bundled_catalog());
  const auto& w = s.workload;
  EXPECT_EQ(w.parallelism.tp, 2);
  EXPECT_EQ(w.parallelism.ep, 16);
  EXPECT_EQ(w.parallelism.pp, 12);
  EXPECT_EQ(w.virtual_stages, 8);
  EXPECT_EQ(model::micro_batches_per_replica(w), 24);
  EXPECT_EQ(w.parallelism.world(), 9216.0);
  EXPECT_EQ(s.cluster.nodes * 8, 9216);
  EXPECT_EQ(w.model.layers / (w.parallelism.pp * w.virtual_stages), 1);
  EXPECT_EQ(w.model.experts, 16);
  EXPECT_EQ(w.model.top_k, 2);
  // Its 384 identical replicas run as one representative replica (no model makes them differ).
  EXPECT_TRUE(model::representative_replica(s));
  EXPECT_DOUBLE_EQ(model::planned_tasks(s), 12.0 * 8 * 24 * 2 * 3);
}

TEST(PlanSize, OneReplicaStandsForAllAboveTheTaskOrTheSolverBudget) {
  // Every replica is simulated while the plan stays within 60,000 tasks and 500,000 tasks x replicas
  // (the solver's work grows with both); above either, replica 0 stands for all.
  auto s = input::load_scenario(std::string(DPUSIM_SOURCE_DIR) + "/scenarios/examples/quickstart.yaml",
                                dpusim::testing::bundled_catalog());
  auto& w = s.workload;
  w.parallelism = {};
  w.parallelism.tp = 8;
  w.parallelism.dp = 32;
  w.micro_batch = 1;
  w.global_batch = 32 * 50; // 50 micro-batches a replica: 6 x 50 x 32 = 9,600 tasks, x 32 = 307,200
  EXPECT_FALSE(model::representative_replica(s));
  EXPECT_DOUBLE_EQ(model::planned_tasks(s), 9600.0);
  w.global_batch = 32 * 300; // 57,600 tasks (within 60,000), x 32 = 1,843,200 (above 500,000)
  EXPECT_TRUE(model::representative_replica(s));
  EXPECT_DOUBLE_EQ(model::planned_tasks(s), 1800.0);
  w.parallelism.dp = 1; // a single replica is simulated whole, however large
  w.global_batch = 100000;
  EXPECT_FALSE(model::representative_replica(s));
}
