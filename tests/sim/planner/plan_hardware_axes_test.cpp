// Plans across hardware generations: a GPU-count axis (each point's nodes follow from its node type), a
// precision axis, and node prices per node type.
#include "models/base/input_error.hpp"
#include "sim/planner/economics.hpp"
#include "sim/planner/plan_file.hpp"
#include "sim/planner/points.hpp"
#include "tests/sim/planner/plan_text.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <gtest/gtest.h>
#include <string>

using namespace dpusim;
using namespace dpusim::planner;

namespace {

const std::string& kScenario = dpusim::testing::kLlama3_8bOnTwoDgxH100;

Plan parse(const std::string& rest) {
  return dpusim::testing::parse_plan_text(kScenario, rest);
}

std::string error_of(const std::string& rest) {
  return dpusim::testing::plan_error_of(kScenario, rest);
}

std::size_t column(const std::string& name) {
  return dpusim::testing::input_column(name);
}

} // namespace

TEST(PlanHardwareAxes, AGpuCountGivesEachNodeTypeTheNodesThatHoldIt) {
  const auto p = parse("axes:\n  node: [dgx-h100, gb200-nvl72]\n  gpus: [144, 288]\n");
  const auto& cat = dpusim::testing::bundled_catalog();
  ASSERT_EQ(point_count(p), 4u);
  // dgx-h100: 18 and 36 nodes of 8; gb200-nvl72: 144 GPUs are 2 racks of 72, 288 are 4.
  const int expected_nodes[] = {18, 36, 2, 4};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto pt = build_point(p, i, cat);
    ASSERT_TRUE(pt.scenario.has_value()) << i << ": " << pt.reason;
    EXPECT_EQ(pt.scenario->cluster.nodes, expected_nodes[i]) << i;
    EXPECT_EQ(pt.inputs[column("nodes")], std::to_string(expected_nodes[i]));
    EXPECT_EQ(pt.inputs[column("gpus")], i % 2 == 0 ? "144" : "288");
    // Data parallelism takes the GPUs over TP 8.
    EXPECT_EQ(pt.scenario->workload.parallelism.dp, (i % 2 == 0 ? 144 : 288) / 8) << i;
  }
}

TEST(PlanHardwareAxes, GpusThatAreNoWholeNumberOfNodesMakeThePointInfeasible) {
  const auto p = parse("axes:\n  node: [dgx-h100, gb200-nvl72]\n  gpus: [64]\n");
  const auto& cat = dpusim::testing::bundled_catalog();
  const auto h100 = build_point(p, 0, cat);
  ASSERT_TRUE(h100.scenario.has_value()) << h100.reason;
  EXPECT_EQ(h100.scenario->cluster.nodes, 8);
  const auto rack = build_point(p, 1, cat);
  EXPECT_FALSE(rack.scenario.has_value());
  EXPECT_EQ(rack.reason, "cluster.nodes: 64 GPUs are not a whole number of gb200-nvl72 nodes (72 GPUs each)");
  EXPECT_EQ(rack.inputs[column("nodes")], "");
  EXPECT_EQ(rack.inputs[column("gpus")], "64");
}

TEST(PlanHardwareAxes, ThePrecisionAxisSetsTheFormatAndAGpuWithoutItIsInfeasible) {
  const auto p = parse("axes:\n  precision: [bf16, fp8-cs, mxfp8]\n");
  const auto& cat = dpusim::testing::bundled_catalog();
  const auto bf16 = build_point(p, 0, cat);
  const auto fp8 = build_point(p, 1, cat);
  ASSERT_TRUE(bf16.scenario && fp8.scenario) << bf16.reason << fp8.reason;
  EXPECT_EQ(fp8.scenario->workload.precision, workload::Precision::fp8_cs);
  EXPECT_EQ(bf16.inputs[column("precision")], "bf16");
  EXPECT_EQ(fp8.inputs[column("precision")], "fp8-cs");
  const auto mx = build_point(p, 2, cat);
  EXPECT_FALSE(mx.scenario.has_value());
  EXPECT_NE(mx.reason.find("has no mxfp8 tensor cores"), std::string::npos) << mx.reason;
  // A precision without a base precision still says which format the point runs.
  EXPECT_EQ(build_point(parse(""), 0, cat).inputs[column("precision")], "bf16");
  EXPECT_NE(
      error_of("axes:\n  precision: [fp6]\n").find("valid values: bf16, fp16, fp8, fp8-cs, mxfp8, nvfp4"),
      std::string::npos);
}

TEST(PlanHardwareAxes, NodesAndGpusAreNotBothAxes) {
  EXPECT_NE(error_of("axes:\n  nodes: [2, 4]\n  gpus: [16, 32]\n").find("nodes or gpus, not both"),
            std::string::npos);
  // The node-count constraints see the nodes the GPU counts make: 16 to 288 GPUs are 2 to 36 DGX H100.
  EXPECT_NE(error_of("axes:\n  gpus: [16, 288]\nconstraints: {max_nodes: 1}\n").find("the fewest is 2"),
            std::string::npos);
  EXPECT_EQ(error_of("axes:\n  gpus: [16, 288]\nconstraints: {min_nodes: 36}\n"), "no error");
}

TEST(PlanHardwareAxes, NodePricesPerTypePriceEachPointsNodes) {
  const auto p = parse("axes:\n  node: [dgx-h100, gb200-nvl72]\n  gpus: [144]\n"
                       "costs: {node: {dgx-h100: 250kUSD, gb200-nvl72: 3.5MUSD}, life: 5y}\n");
  ASSERT_TRUE(p.costs.has_value());
  EXPECT_DOUBLE_EQ(p.costs->for_node("dgx-h100").node.value_or(0), 250e3);
  EXPECT_DOUBLE_EQ(p.costs->for_node("gb200-nvl72").node.value_or(0), 3.5e6);
  EXPECT_FALSE(p.costs->node.has_value()); // no price for a type the plan does not run

  // Two points equal in all but their node price: capex is nodes x that type's price.
  report::VariantResult r;
  r.nodes = 2;
  r.gpus = 144;
  const auto e = point_economics(r, 1e12, 10.0, std::nullopt, std::nullopt, p.costs->for_node("gb200-nvl72"));
  EXPECT_DOUBLE_EQ(*e.capex_usd, 2 * 3.5e6);
}

TEST(PlanHardwareAxes, NodePriceErrorsNameTheTypeAndWhatIsPriced) {
  EXPECT_NE(error_of("axes:\n  node: [dgx-h100, dgx-b200]\ncosts: {node: {dgx-h100: 250kUSD}, life: 5y}\n")
                .find("need one for dgx-b200, a node of this plan's points; priced: dgx-h100"),
            std::string::npos);
  EXPECT_NE(error_of("costs: {node: {dgx-h10: 250kUSD}, life: 5y}\n").find("did you mean \"dgx-h100\"?"),
            std::string::npos);
  // Without a node axis the base's node needs its price.
  EXPECT_NE(error_of("costs: {node: {dgx-b200: 250kUSD}, life: 5y}\n").find("need one for dgx-h100"),
            std::string::npos);
}
