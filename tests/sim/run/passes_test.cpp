// The passes executor (sim/run/passes.hpp) with a model of the test's own: a model that needs a
// counterfactual pass is its class and one registration line; no file of the run names it. Each run is
// simulated in a child process (one SimGrid engine per process).
#include "models/base/yaml_reader.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/model/pass.hpp"
#include "sim/model/registry.hpp"
#include "sim/run/variant_run.hpp"
#include "tests/support/bundled_catalog.hpp"
#include "tests/support/in_child.hpp"

#include <gtest/gtest.h>
#include <stdexcept>

using namespace dpusim;

namespace {

/// A toy "slow kernels" model: every forward pass takes 1.5 times as long, and the model measures what
/// that costs against a pass built without it, with the run's draws and stretches where there are any.
class SlowForward final : public model::Model {
public:
  explicit SlowForward(int passes = 1, bool declared = true) : passes_(passes), declared_(declared) {}
  [[nodiscard]] std::string_view name() const override { return "slow-forward"; }
  [[nodiscard]] std::string_view summary() const override { return "a test's model"; }
  [[nodiscard]] std::vector<report::Output> outputs() const override {
    if (!declared_)
      return {};
    return {{"slow_forward_cost_s", "s", "what the slow forward passes cost", true, false},
            {"slow_forward_drawn", "flag", "1 where the pass had the run's draws", false, false}};
  }
  void shape(plan::IterationPlan& plan, const plan::IterationContext& /*ctx*/) const override {
    for (auto& info : plan.info)
      if (info.category == plan::TaskCategory::forward)
        info.compute_s *= 1.5;
  }
  [[nodiscard]] std::vector<model::PassRequest> passes(const model::PassContext& /*run*/) const override {
    std::vector<model::PassRequest> out;
    for (int k = 0; k < passes_; ++k) {
      model::PassRequest r;
      r.name = "without-slow-forward";
      r.build = [this](model::PassBuild& b) {
        std::erase(b.extensions, static_cast<const plan::IterationExtension*>(this));
      };
      r.reported_apart = "the iteration without slow forward passes";
      out.push_back(std::move(r));
    }
    return out;
  }
  void account(const model::PassContext& /*run*/, const model::PassSteps& steps,
               report::VariantResult& r) const override {
    const auto& without = steps.pass("without-slow-forward");
    r.set_value("slow_forward_cost_s", steps.base.step_s() - without.step_s());
    r.set_value("slow_forward_drawn", without.drawn_s ? 1 : 0);
  }

private:
  int passes_;
  bool declared_;
};

const catalog::Catalog& the_catalog() {
  return dpusim::testing::bundled_catalog();
}

model::Registry with_toy(int passes, bool declared) {
  auto models = model::builtin_models();
  models.push_back(std::make_unique<SlowForward>(passes, declared));
  return model::Registry(std::move(models));
}

/// What a test reads of one run.
struct Outcome {
  bool ok = false;
  bool logic_error = false; // the run refused its models
  double step_s = 0;
  double cost_s = 0;       // slow_forward_cost_s
  double drawn = 0;        // slow_forward_drawn
  double wait_s = 0;       // straggler_wait_s
  bool said_apart = false; // a congestion note on the toy's pass
};

/// The scenario's first variant with the built-in models and, for toy_passes > 0, the toy model asking
/// for that many passes; run in a child process.
Outcome run_in_child(const std::string& text, int toy_passes, bool declared = true) {
  return dpusim::testing::in_child([&] {
    Outcome o;
    try {
      const auto s = input::parse_scenario(yaml::parse_text(text, "test.yaml"), the_catalog());
      const auto registry = with_toy(toy_passes, declared);
      run::RunOptions options;
      options.registry = toy_passes > 0 ? &registry : nullptr;
      const auto r = run::run_variant(s, the_catalog(), s.variants.front(), options);
      o.step_s = r.metrics.step_time_s;
      o.cost_s = r.value("slow_forward_cost_s");
      o.drawn = r.value("slow_forward_drawn");
      o.wait_s = r.value("straggler_wait_s");
      for (const auto& n : r.notes)
        o.said_apart |=
            n.find("congestion (pfc-only) in the iteration without slow forward passes") != std::string::npos;
      o.ok = true;
    } catch (const std::logic_error&) {
      o.logic_error = true;
    } catch (...) {
    }
    return o;
  });
}

const std::string kTwoNodes = R"(name: toy
cluster: {nodes: 2, node: dgx-h100, fabric: {topology: fat-tree, link: 400Gbps, latency: 1us}}
workload:
  model: {layers: 8, hidden: 4096, heads: 32, vocab: 32000}
  seq_len: 2048
  global_batch: 32
  micro_batch: 1
  parallelism: {tp: 8, pp: 1, dp: 2}
offload: {baseline: rdma-nic}
)";

} // namespace

TEST(Passes, AModelsCounterfactualPassMeasuresWhatItCosts) {
  const auto with = run_in_child(kTwoNodes, 1);
  const auto without = run_in_child(kTwoNodes, 0); // the built-in models alone
  ASSERT_TRUE(with.ok && without.ok);
  EXPECT_GT(with.step_s, without.step_s * 1.05); // forward passes are about a third of the compute
  // The pass without the model is the built-in run (to the rounding of a later start on the engine's
  // clock).
  EXPECT_NEAR(with.cost_s, with.step_s - without.step_s, 1e-9 * with.step_s);
  EXPECT_EQ(with.drawn, 0);
}

TEST(Passes, ACounterfactualPassGetsTheRunsDraws) {
  const auto text = kTwoNodes + "noise: {gpu_jitter: 0.05}\n";
  const auto with = run_in_child(text, 1);
  const auto without = run_in_child(text, 0);
  ASSERT_TRUE(with.ok && without.ok);
  EXPECT_EQ(with.drawn, 1);
  // The pass has the same draws as the built-in run's prediction.
  EXPECT_NEAR(with.cost_s, with.step_s - without.step_s, 1e-9 * with.step_s);
  EXPECT_GT(with.wait_s, 0);
}

TEST(Passes, ACounterfactualPassIsStretchedAndReportedApart) {
  const auto text = kTwoNodes + "congestion: {control: pfc-only}\n";
  const auto with = run_in_child(text, 1);
  const auto without = run_in_child(text, 0);
  ASSERT_TRUE(with.ok && without.ok);
  EXPECT_NEAR(with.cost_s, with.step_s - without.step_s, 1e-9 * with.step_s);
  // The data-parallel reduction crosses the fabric over RoCE: congestion says what it did to the pass
  // apart.
  EXPECT_TRUE(with.said_apart);
}

TEST(Passes, TwoPassesOfOneNameAreRefused) {
  const auto o = run_in_child(kTwoNodes, 2);
  EXPECT_TRUE(o.logic_error);
}

TEST(Passes, AnOutputNoModelDeclaresIsAnErrorOfTheRun) {
  // The toy writes slow_forward_cost_s without declaring it: not a silent extra value.
  const auto o = run_in_child(kTwoNodes, 1, false);
  EXPECT_TRUE(o.logic_error);
  EXPECT_FALSE(o.ok);
}
