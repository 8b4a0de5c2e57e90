// Plan files: what they accept, the points they span, and the errors they give (at their line, naming
// the key and what is valid).
#include "models/base/input_error.hpp"
#include "sim/planner/plan_file.hpp"
#include "sim/planner/points.hpp"
#include "tests/sim/planner/plan_text.hpp"
#include "tests/support/bundled_catalog.hpp"

#include <gtest/gtest.h>
#include <set>
#include <string>

using namespace dpusim;
using namespace dpusim::planner;

namespace {

// An inline base scenario: 2 nodes of 8 H100s, GPT-3 13B at TP 8.
const std::string kScenario = R"(scenario:
  name: base
  cluster:
    nodes: 2
    node: dgx-h100
    fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}
  workload:
    model: gpt3-13b
    seq_len: 2048
    global_batch: 64
    micro_batch: 1
    parallelism: {tp: 8, dp: 2}
  offload: {baseline: host-tcp, variants: [rdma-nic, {name: roce, placement: "rdma-nic"}]}
)";

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

TEST(PlanFile, WithoutAxesIsTheBaseScenarioOncePerVariant) {
  const auto p = parse("");
  EXPECT_EQ(p.name, "p");
  EXPECT_DOUBLE_EQ(p.train_tokens, 3e11);
  ASSERT_EQ(p.axes.size(), 1u); // the base's variants
  EXPECT_EQ(p.axes[0].spec->name, "variants");
  ASSERT_EQ(point_count(p), 3u);
  const auto roce = build_point(p, 2, dpusim::testing::bundled_catalog());
  ASSERT_TRUE(roce.scenario) << roce.reason;
  EXPECT_EQ(roce.scenario->variants.front().name, "roce");
  EXPECT_EQ(roce.inputs[column("variant")], "roce");
  EXPECT_EQ(roce.inputs[column("dp")], "2");
  EXPECT_EQ(roce.inputs[column("seed")], "1");
  EXPECT_EQ(p.objectives, std::vector<Objective>{Objective::time_to_train});
}

TEST(PlanFile, PointsAreTheCartesianProductWithVariantsFastest) {
  const auto p = parse(R"(axes:
  variants: [host-tcp, rdma-nic]
  nodes: {from: 2, to: 8, times: 2}
  seeds: [1, 7]
)");
  ASSERT_EQ(point_count(p), 12u); // 3 node counts x 2 seeds x 2 variants
  // Axes enumerate in their documented order whatever the file's: nodes, seeds, variants.
  ASSERT_EQ(p.axes.size(), 3u);
  EXPECT_EQ(p.axes[0].spec->name, "nodes");
  EXPECT_EQ(p.axes[1].spec->name, "seeds");
  EXPECT_EQ(p.axes[2].spec->name, "variants");
  EXPECT_EQ(point_choice(p, 0), (std::vector<std::size_t>{0, 0, 0}));
  EXPECT_EQ(point_choice(p, 1), (std::vector<std::size_t>{0, 0, 1}));
  EXPECT_EQ(point_choice(p, 2), (std::vector<std::size_t>{0, 1, 0}));
  EXPECT_EQ(point_choice(p, 11), (std::vector<std::size_t>{2, 1, 1}));
  const auto last = build_point(p, 11, dpusim::testing::bundled_catalog());
  ASSERT_TRUE(last.scenario) << last.reason;
  EXPECT_EQ(last.scenario->cluster.nodes, 8);
  EXPECT_EQ(last.scenario->seed, 7u);
  EXPECT_EQ(last.scenario->variants.front().name, "rdma-nic");
  // Data parallelism takes the GPUs the base's TP leaves: 64 / 8.
  EXPECT_EQ(last.scenario->workload.parallelism.dp, 8);
  EXPECT_EQ(last.inputs[column("gpus")], "64");
}

TEST(PlanFile, RangesStepOrMultiply) {
  const auto add = parse("axes:\n  nodes: {from: 2, to: 9, step: 3}\n");
  ASSERT_EQ(add.axes[0].values.size(), 3u);
  EXPECT_EQ(add.axes[0].values[2].count, 8);
  const auto one = parse("axes:\n  nodes: {from: 4, to: 4}\n");
  EXPECT_EQ(one.axes[0].values.size(), 1u);
}

TEST(PlanFile, FabricServicesAndWorkloadAxesOverrideTheirKeys) {
  const auto p = parse(R"(axes:
  topology: [rail-optimized]
  link: [800Gbps]
  oversubscription: ["2:1"]
  encryption: [ipsec]
  overlay: [vxlan]
  recompute: [full]
  zero: [1]
  micro_batch: [2]
  global_batch: [128]
  variants: [rdma-nic]
)");
  const auto pt = build_point(p, 0, dpusim::testing::bundled_catalog());
  ASSERT_TRUE(pt.scenario) << pt.reason;
  EXPECT_EQ(pt.scenario->cluster.fabric.kind, topology::FabricKind::rail_optimized);
  EXPECT_DOUBLE_EQ(pt.scenario->cluster.fabric.link.si(), 100e9);
  EXPECT_DOUBLE_EQ(pt.scenario->cluster.fabric.oversubscription, 2.0);
  EXPECT_EQ(pt.scenario->workload.micro_batch, 2);
  EXPECT_EQ(pt.scenario->workload.global_batch, 128);
  EXPECT_EQ(pt.inputs[column("oversubscription")], "2:1");
  EXPECT_EQ(pt.scenario->cluster.services.encryption, offload::Encryption::ipsec);
  EXPECT_TRUE(pt.scenario->cluster.services.overlay);
  EXPECT_EQ(pt.scenario->workload.recompute, workload::Recompute::full);
  EXPECT_EQ(pt.scenario->workload.zero_stage, 1);
  EXPECT_EQ(pt.inputs[column("encryption")], "ipsec");
  EXPECT_EQ(pt.inputs[column("zero")], "1");
}

TEST(PlanFile, AnInvalidPointIsInfeasibleWithTheReadersReason) {
  const auto p = parse(R"(axes:
  parallelism: [{tp: 8}, {tp: 4, pp: 2, dp: 2}, {tp: 3}, {tp: 1}]
  variants: [host-tcp]
)");
  const auto& cat = dpusim::testing::bundled_catalog();
  const auto tp8 = build_point(p, 0, cat);
  ASSERT_TRUE(tp8.scenario) << tp8.reason;
  EXPECT_EQ(tp8.scenario->workload.parallelism.dp, 2);
  const auto pp2 = build_point(p, 1, cat);
  ASSERT_TRUE(pp2.scenario) << pp2.reason;
  EXPECT_EQ(pp2.scenario->workload.parallelism.pp, 2);
  const auto tp3 = build_point(p, 2, cat);
  EXPECT_FALSE(tp3.scenario);
  EXPECT_NE(tp3.reason.find("does not divide the 16 GPUs"), std::string::npos) << tp3.reason;
  EXPECT_EQ(tp3.inputs[column("dp")], "");
  const auto tp1 = build_point(p, 3, cat); // 13B unsharded on one H100
  EXPECT_FALSE(tp1.scenario);
  EXPECT_NE(tp1.reason.find("does not fit in GPU memory"), std::string::npos) << tp1.reason;
  EXPECT_EQ(tp1.reason.rfind("workload", 0), 0u) << "the reason starts with its key: " << tp1.reason;
}

TEST(PlanFile, AVariantThePointCannotRunIsInfeasible) {
  const auto p = parse("axes:\n  variants: [host-tcp+encryption=nic]\n");
  const auto pt = build_point(p, 0, dpusim::testing::bundled_catalog());
  EXPECT_FALSE(pt.scenario);
  EXPECT_NE(pt.reason.find("encrypts nothing"), std::string::npos) << pt.reason;
}

TEST(PlanFile, ReadsObjectivesAndConstraints) {
  const auto p =
      parse("objectives: [nodes, host_cores]\nconstraints: {deadline: 3w, max_nodes: 2, min_nodes: 1}\n");
  EXPECT_EQ(p.objectives, (std::vector<Objective>{Objective::nodes, Objective::host_cores}));
  EXPECT_DOUBLE_EQ(*p.constraints.deadline_days, 21.0);
  EXPECT_EQ(*p.constraints.max_nodes, 2);
}

TEST(PlanFile, ParsesDaysAndTokens) {
  EXPECT_DOUBLE_EQ(*parse_days("90d"), 90);
  EXPECT_DOUBLE_EQ(*parse_days("36h"), 1.5);
  EXPECT_DOUBLE_EQ(*parse_days("2 days"), 2);
  EXPECT_FALSE(parse_days("90"));
  EXPECT_FALSE(parse_days("-1d"));
  EXPECT_FALSE(parse_days("d"));
  EXPECT_DOUBLE_EQ(*parse_tokens("15T"), 15e12);
  EXPECT_DOUBLE_EQ(*parse_tokens("3e11"), 3e11);
  EXPECT_DOUBLE_EQ(*parse_tokens("1.5B"), 1.5e9);
  EXPECT_FALSE(parse_tokens("many"));
  EXPECT_FALSE(parse_tokens("3X"));
}

TEST(PlanFile, ErrorsNameTheLineTheKeyAndWhatIsValid) {
  // The plan's own keys start at line 16, after name, train_tokens and the 13 lines of the scenario.
  EXPECT_EQ(error_of("axes:\n  nodez: [2]\n"),
            "17:3 axes.nodez: unknown key; did you mean \"node\"? (valid keys "
            "here: node, nic, dpu, nodes, gpus, topology, tiers, link, "
            "oversubscription, routing, encryption, overlay, parallelism, recompute, zero, "
            "precision, global_batch, micro_batch, seeds, variants)")
      << "unknown axis";
  EXPECT_NE(error_of("axes:\n  nodes: {from: 8, to: 4}\n").find("17:10 axes.nodes: empty range: from 8 to 4"),
            std::string::npos);
  EXPECT_NE(error_of("axes:\n  nodes: []\n").find("17:10 axes.nodes: an axis needs at least one value"),
            std::string::npos);
  EXPECT_NE(error_of("axes:\n  nodes: [2, 2]\n").find("\"2\" is listed twice"), std::string::npos);
  EXPECT_NE(error_of("axes:\n  link: [fast]\n").find("17:10 axes.link[0]"), std::string::npos);
  EXPECT_NE(error_of("axes:\n  node: [dgx-h10]\n").find("did you mean \"dgx-h100\"?"), std::string::npos);
  EXPECT_NE(error_of("axes:\n  variants: [rdma-nicc]\n").find("axes.variants[0]"), std::string::npos);
  EXPECT_NE(error_of("axes:\n  parallelism: [{tp: 8, tq: 2}]\n").find("axes.parallelism[0].tq: unknown key"),
            std::string::npos);
  EXPECT_NE(error_of("constraints: {min_nodes: 4, max_nodes: 2}\n")
                .find("contradictory constraints: min_nodes 4 is above max_nodes 2"),
            std::string::npos);
  EXPECT_NE(
      error_of("axes:\n  nodes: [4, 8]\nconstraints: {max_nodes: 2}\n")
          .find("contradictory constraints: max_nodes 2 is below every point's node count (the fewest is 4)"),
      std::string::npos);
  EXPECT_NE(error_of("constraints: {deadline: 90}\n").find("expected a duration in days"), std::string::npos);
  EXPECT_NE(error_of("axes:\n  zero: [4]\n").find("17:10 axes.zero[0]: must be at most 3"),
            std::string::npos);
  EXPECT_NE(error_of("axes:\n  zero: {from: 0, to: 3}\n").find("expected a list of values, found a mapping"),
            std::string::npos);
  EXPECT_NE(error_of("axes:\n  encryption: [ipsek]\n").find("did you mean \"ipsec\"?"), std::string::npos);
  EXPECT_NE(
      error_of("objectives: [speed]\n").find("valid values: time_to_train, nodes, host_cores, cost, energy"),
      std::string::npos);
}

// The inline base scenario with storage servers and periodic checkpoints, which goodput needs.
const std::string kCheckpointed = R"(scenario:
  name: base
  cluster:
    nodes: 2
    node: dgx-h100
    fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}
    storage: {servers: 2, link: 400Gbps, read_rate: 20GB/s}
  workload:
    model: gpt3-13b
    seq_len: 2048
    global_batch: 64
    micro_batch: 1
    parallelism: {tp: 8, dp: 2}
    checkpoint: {every: 100}
  offload: {baseline: rdma-nic, variants: [dpu]}
)";

Plan parse_checkpointed(const std::string& rest) {
  return parse_plan(yaml::parse_text("name: p\ntrain_tokens: 300B\n" + kCheckpointed + rest, "plan.yaml"),
                    dpusim::testing::bundled_catalog());
}

TEST(PlanFile, ReadsGoodputPowerAndCosts) {
  const auto p =
      parse_checkpointed("goodput: {restart: 20min, rates: {gpu: 12000FIT, node: 0.01/d}}\n"
                         "power: {pue: 1.25, energy_price: 0.1USD/kWh, switch: 1.5kW}\n"
                         "costs: {node: 250kUSD, dpu: 2500USD, life: 5y, host_core_hour: 0.04USD}\n"
                         "objectives: [cost, energy]\n"
                         "constraints: {budget: 2MUSD, power_cap: 200kW}\n");
  ASSERT_TRUE(p.goodput && p.power && p.costs);
  EXPECT_DOUBLE_EQ(p.goodput->restart_s, 1200.0);
  EXPECT_DOUBLE_EQ(*p.goodput->gpu_rate, 12000.0 / (1e9 * 3600.0));
  EXPECT_DOUBLE_EQ(*p.goodput->node_rate, 0.01 / 86400.0);
  EXPECT_FALSE(p.goodput->device_rate);
  EXPECT_DOUBLE_EQ(p.power->pue, 1.25);
  EXPECT_DOUBLE_EQ(*p.power->usd_per_kwh, 0.1);
  EXPECT_DOUBLE_EQ(*p.power->switch_watts, 1500.0);
  EXPECT_DOUBLE_EQ(*p.costs->host_core_hour, 0.04);
  EXPECT_DOUBLE_EQ(*p.costs->node, 250000.0);
  EXPECT_DOUBLE_EQ(*p.costs->dpu, 2500.0);
  EXPECT_FALSE(p.costs->nic);
  EXPECT_DOUBLE_EQ(*p.costs->life_s, 5 * 365 * 86400.0);
  EXPECT_DOUBLE_EQ(*p.constraints.budget_usd, 2e6);
  EXPECT_DOUBLE_EQ(*p.constraints.power_cap_kw, 200.0);
  ASSERT_EQ(p.objectives.size(), 2u);
  EXPECT_EQ(p.objectives[0], Objective::cost);
  EXPECT_EQ(p.objectives[1], Objective::energy);
}

TEST(PlanFile, ParsesRatesPricesAndLives) {
  EXPECT_DOUBLE_EQ(*parse_failure_rate("3600/h"), 1.0);
  EXPECT_DOUBLE_EQ(*parse_failure_rate("86400/d"), 1.0);
  EXPECT_DOUBLE_EQ(*parse_failure_rate("3.6e12FIT"), 1.0);
  EXPECT_FALSE(parse_failure_rate("0.0003")); // no unit
  EXPECT_FALSE(parse_failure_rate("-1/h"));
  // A negative exponent, as the docs and the error message write rates.
  EXPECT_DOUBLE_EQ(*parse_failure_rate("2.9e-4/d"), 2.9e-4 / 86400.0);
  EXPECT_DOUBLE_EQ(*parse_failure_rate("1e-6/h"), 1e-6 / 3600.0);
  EXPECT_FALSE(parse_failure_rate("1e-/h"));
  EXPECT_FALSE(parse_failure_rate("1-6/h"));
  EXPECT_DOUBLE_EQ(*parse_energy_price("120USD/MWh"), 0.12);
  EXPECT_FALSE(parse_energy_price("0.12"));
  EXPECT_DOUBLE_EQ(*parse_life("48months"), 48 * 30 * 86400.0);
  EXPECT_FALSE(parse_life("5"));
}

TEST(PlanFile, EconomicsErrorsNameTheLineAndTheKey) {
  auto err = [](const std::string& rest) {
    try {
      (void)parse_checkpointed(rest);
    } catch (const InputError& e) {
      return fmt::format("{}:{} {}: {}", e.where().line, e.where().column, e.key(), e.message());
    }
    return std::string("no error");
  };
  EXPECT_NE(err("costs: {node: 300000, life: 5y}\n").find("18:15 costs.node: \"300000\" has no unit"),
            std::string::npos);
  EXPECT_NE(err("costs: {gpu_hour: -2USD}\n").find("costs.gpu_hour"), std::string::npos);
  EXPECT_NE(err("goodput: {restart: 20min, rates: {gpu: 0.0003}}\n").find("with its unit"),
            std::string::npos);
  EXPECT_NE(err("goodput: {restart: -5min}\n").find("goodput.restart"), std::string::npos);
  EXPECT_NE(err("goodput: {}\n").find("restart"), std::string::npos); // never a default restart time
  EXPECT_NE(err("costs: {node: 300kUSD}\n").find("costs.life"), std::string::npos);
  EXPECT_NE(err("costs: {node: 300kUSD, gpu_hour: 2USD}\n").find("not both"), std::string::npos);
  EXPECT_NE(err("power: {pue: 0.8}\n").find("power.pue"), std::string::npos);
  EXPECT_NE(err("power: {pue: 1.2, energy_price: 0.1}\n").find("USD/kWh"), std::string::npos);
  EXPECT_NE(err("constraints: {budget: 1MUSD}\n").find("needs a costs section"), std::string::npos);
  EXPECT_NE(err("objectives: [energy]\n").find("needs a power section"), std::string::npos);
  // Goodput needs a checkpoint write time to simulate.
  EXPECT_NE(error_of("goodput: {restart: 20min}\n").find("workload.checkpoint"), std::string::npos);
}

TEST(PlanFile, AnInvalidBaseScenarioIsAnErrorAtItsLine) {
  const std::string text = "name: p\ntrain_tokens: 1B\n" + kScenario;
  std::string bad = text;
  bad.replace(bad.find("global_batch: 64"), 16, "global_batch: 63");
  try {
    (void)parse_plan(yaml::parse_text(bad, "plan.yaml"), dpusim::testing::bundled_catalog());
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 12);
    EXPECT_EQ(e.key(), "workload.global_batch"); // the scenario's own keys
  }
}

TEST(PlanFile, TooManyPointsIsAnError) {
  EXPECT_NE(error_of("axes:\n  nodes: {from: 1, to: 1000}\n  seeds: {from: 1, to: 1000}\n")
                .find("more than 100000 points"),
            std::string::npos);
}

// parallelism: auto spans every layout Megatron could run on the plan's GPUs: tp a power of two within a
// node dividing GPT-3 13B's 40 heads, pp a divisor of its 40 layers, tp x pp dividing 16 or 32 GPUs, and
// interleaving where each chunk keeps at least two layers.
TEST(PlanFile, AutoParallelismSpansTheLayoutsThatDivideThePlansGpus) {
  const auto p = parse("axes:\n  nodes: [2, 4]\n  parallelism: auto\n");
  ASSERT_EQ(p.axes[1].spec->name, "parallelism");
  std::set<std::string> layouts;
  for (const auto& v : p.axes[1].values) {
    layouts.insert(v.text);
    EXPECT_EQ(v.tp & (v.tp - 1), 0) << v.text;
    EXPECT_LE(v.tp, 8) << v.text;
    EXPECT_EQ(40 % v.pp, 0) << v.text;
    EXPECT_TRUE(32 % (v.tp * v.pp) == 0) << v.text;
    EXPECT_FALSE(v.dp.has_value()) << "data parallelism takes the GPUs left over";
    if (v.virtual_stages) {
      EXPECT_GE(40 / (v.pp * *v.virtual_stages), 2) << v.text;
    }
  }
  // tp 1, 2, 4, 8 x pp 1, 2, 4, 8 but tp 8 x pp 8 (64 GPUs); interleaved, for each tp: pp 2 with 2 or 4
  // chunks (10, 5 layers), pp 4 with 2 (5).
  EXPECT_EQ(layouts.size(), 15u + 4 * 3);
  EXPECT_TRUE(layouts.contains("tp8.pp1.cp1.ep1.dprest"));
  EXPECT_TRUE(layouts.contains("tp4.pp2.cp1.ep1.dprest.v4"));
  EXPECT_FALSE(layouts.contains("tp4.pp5.cp1.ep1.dprest")) << "20 GPUs divide neither 16 nor 32";
  EXPECT_NE(error_of("axes:\n  parallelism: everything\n").find("expected a list of values or auto"),
            std::string::npos);
}

// recompute: auto takes, point by point, the least recomputation the point's memory allows.
TEST(PlanFile, AutoRecomputeTakesTheLeastThatFits) {
  const auto p = parse("axes:\n  parallelism: [{tp: 8}, {tp: 2}, {tp: 1}]\n  recompute: [auto]\n"
                       "  variants: [rdma-nic]\n");
  const auto& cat = dpusim::testing::bundled_catalog();
  const auto tp8 = build_point(p, 0, cat);
  const auto tp2 = build_point(p, 1, cat);
  const auto tp1 = build_point(p, 2, cat);
  ASSERT_TRUE(tp8.scenario.has_value()) << tp8.reason;
  EXPECT_EQ(tp8.inputs[column("recompute")], "none");
  // At TP 2 the 13B's weights, gradients and optimizer state alone take 97 GiB: nothing makes it fit.
  EXPECT_FALSE(tp2.scenario.has_value());
  EXPECT_NE(tp2.reason.find("does not fit in GPU memory"), std::string::npos) << tp2.reason;
  EXPECT_FALSE(tp1.scenario.has_value());
}

TEST(PlanFile, ARoutingAxisSetsTheFabricsRouting) {
  const auto p = parse("axes:\n  routing: [ecmp, pinned]\n  variants: [rdma-nic]\n");
  const auto& cat = dpusim::testing::bundled_catalog();
  const auto pinned = build_point(p, 1, cat);
  ASSERT_TRUE(pinned.scenario.has_value()) << pinned.reason;
  EXPECT_EQ(pinned.inputs[column("routing")], "pinned");
  EXPECT_EQ(pinned.scenario->cluster.fabric.routing, topology::Routing::pinned);
  EXPECT_NE(error_of("axes:\n  routing: [hashed]\n").find("valid values: ecmp, adaptive, pinned"),
            std::string::npos);
}
