// Runs a variant as passes (docs/architecture.md, "Passes"): the prediction's build and the passes models
// ask for (sim/model/pass.hpp) are built before the platform exists; on it the probes are simulated and
// applied to every pass in one place; every pass runs with links shared max-min, is stretched by the
// models that stretch (congestion), and then runs again with the draws of the model that perturbs
// (noise); each model finally reads its passes' step times. No model is named here.
#pragma once

#include "sim/metrics/iteration_metrics.hpp"
#include "sim/model/model.hpp"
#include "sim/model/pass.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/simgrid/simulator.hpp"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace dpusim::run {

/// What every pass's iteration is built from.
struct PassInputs {
  const scenario::Scenario& scenario;
  const offload::Variant& variant;
  const scenario::Hardware& hardware;
  const datapath::DataPath& path;
  const std::vector<plan::StageCosts>& costs;
  platform::RouteRegistry& routes;
  plan::CollectiveLowering& lowering;
  bool representative; // one data-parallel replica stands for all
  const plan::HostSide& host;
  bool parts_allowed = true; // a pass may be simulated in parts where nothing draws or stretches
  bool explain = true;       // model::PassContext::explain
};

class PassExecutor {
public:
  /// Builds the prediction's iteration and every pass `models` ask for (and, where a model builds every
  /// replica, their every-replica twins), declaring their routes.
  PassExecutor(const PassInputs& in, std::vector<const model::Model*> models);
  ~PassExecutor();
  PassExecutor(const PassExecutor&) = delete;
  PassExecutor& operator=(const PassExecutor&) = delete;

  /// Simulates every pass on the built platform; `in` receives the probes' durations.
  void run(simgrid::Simulator& simulator, const model::RunContext& run, metrics::MetricsInputs& in,
           const simgrid::Simulator::Progress& progress);

  /// The models' outputs: the stretches' on the prediction's build (with `clean` as the result's
  /// metrics), then, with the prediction's metrics in place, each model's in registry order.
  void report(report::VariantResult& r) const;

  /// The prediction's build, stretched, without draws (what the models' reports and the ECMP note read).
  [[nodiscard]] const plan::IterationPlan& base() const;
  /// The iteration the result is: the prediction's build with the draws where there are any.
  [[nodiscard]] const plan::IterationPlan& prediction() const;
  [[nodiscard]] const std::vector<engine::TaskTiming>& prediction_timings() const;
  [[nodiscard]] const metrics::IterationMetrics& clean_metrics() const { return clean_metrics_; }
  [[nodiscard]] const metrics::IterationMetrics& prediction_metrics() const { return prediction_metrics_; }
  /// The prediction's build before any stretch, where one stretched it; else null.
  [[nodiscard]] const plan::IterationPlan* unstretched() const;
  /// What the stretches found on the prediction's build, for the link outputs (null: nothing stretches).
  [[nodiscard]] const plan::CongestionSummary* congestion() const;
  /// Whether a model stretches this run's passes (even where nothing in this variant is stretched).
  [[nodiscard]] bool stretches() const { return !stretches_.empty(); }

private:
  struct Pass;
  struct Parts;
  [[nodiscard]] plan::IterationPlan build(const model::PassBuild& b, bool representative,
                                          const Parts* parts) const;
  static simgrid::Simulator::Flaps flaps(const Pass& p);
  std::vector<engine::TaskTiming> stretch(Pass& p, const std::vector<engine::TaskTiming>& clean,
                                          std::vector<std::unique_ptr<model::Stretch>>& stretches);

  const PassInputs& inputs_;
  std::vector<const model::Model*> models_;
  std::vector<Pass> passes_; // [0]: the prediction's build
  model::PassSteps steps_;
  const model::Model* perturber_ = nullptr;
  std::unique_ptr<model::Perturbation> perturbation_;
  std::vector<std::unique_ptr<model::Stretch>> stretches_;
  // the stretches of each pass reported apart, by its index in passes_
  std::vector<std::pair<std::size_t, std::vector<std::unique_ptr<model::Stretch>>>> stretches_apart_;
  std::optional<plan::IterationPlan> unstretched_;
  std::optional<plan::IterationPlan> drawn_;
  std::vector<engine::TaskTiming> base_timings_;
  std::vector<engine::TaskTiming> drawn_timings_;
  metrics::IterationMetrics clean_metrics_;
  metrics::IterationMetrics prediction_metrics_;
  // set by run
  simgrid::Simulator* simulator_ = nullptr;
  simgrid::Simulator::Progress progress_;
  bool probes_stretched_ = false;
};

} // namespace dpusim::run
