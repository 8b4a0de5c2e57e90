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
