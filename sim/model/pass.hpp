// A run's passes as models declare them (run::PassExecutor, sim/run/passes.hpp, runs them). The prediction
// is the iteration every model adds its tasks to. Beside it a model may ask for a counterfactual pass
// ("the step without me", "the step that also writes a checkpoint"), may draw into every pass (noise:
// a Perturbation) and may stretch every pass after its uncongested run (congestion: a Stretch); it then
// reads the step times of the passes it asked for (PassSteps). Nothing here runs SimGrid.
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/datapath/data_path.hpp"
#include "sim/engine/platform_decl.hpp"
#include "sim/engine/task_graph.hpp"
#include "sim/metrics/iteration_metrics.hpp"
#include "sim/plan/congestion_analysis.hpp"
#include "sim/plan/iteration_plan.hpp"
#include "sim/platform/route_registry.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/scenario/scenario.hpp"

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::report {
struct VariantResult;
}
namespace dpusim::topology {
class Topology;
}

namespace dpusim::model {

/// How a pass's iteration is built (before the platform exists: its routes are declared with it).
struct PassBuild {
  std::vector<const plan::IterationExtension*> extensions; // the models whose tasks it holds
  plan::HostSide host;                                     // the host-side work it does
  /// Only the host's tasks (e.g. a checkpoint's writes, timed after a plain iteration).
  bool host_tasks_only = false;
  /// Set by the executor: no model draws into or stretches this run's passes, so a pass may be
  /// simulated in parts whose times add up.
  bool plain = false;
};

/// What a model may read when it decides which passes it asks for.
struct PassContext {
  const scenario::Scenario& scenario;
  const offload::Variant& variant;
  const scenario::Hardware& hardware;
  const datapath::DataPath& path;
  /// The run's notes are read: a model may ask for passes that only explain the result.
  bool explain = true;
};

/// A simulation a model asks for beside the prediction.
struct PassRequest {
  std::string name; // unique within a run ("fault-free", "checkpoint")
  /// What it builds differently from the prediction (starting from the prediction's build).
  std::function<void(PassBuild&)> build;
  /// The hardware it runs on instead of the variant's (a setting at another value): its data path,
  /// collectives and host-side work follow from it, on the same platform. Empty: the variant's.
  std::function<void(scenario::Hardware&)> hardware;
  /// Noise-free only: the run's draws are not made into it.
  bool undrawn = false;
  /// Its step is read only with the run's draws in it, where there are any: a noise-free run of it is
  /// then skipped unless a stretch needs it.
  bool drawn_only = false;
  /// Where a model stretches the passes, it says what it did to this one apart, as "in <what>".
  std::string reported_apart;
  /// The platform's flapping links stay up in this pass (the same platform otherwise).
  bool steady_links = false;
};

/// One pass's step times.
struct PassStep {
  double clean_s = 0;            // noise-free (after any stretch); 0 where it was not simulated
  double unstretched_s = 0;      // noise-free, before any stretch
  std::optional<double> drawn_s; // with the run's draws, where there are any
  bool host_tasks_only = false;  // built as its host's tasks alone (PassBuild::host_tasks_only)
  /// The step the model compares: drawn where there are draws, else noise-free.
  [[nodiscard]] double step_s() const { return drawn_s ? *drawn_s : clean_s; }
};

/// What the executor measured: the prediction's build and every requested pass, by name.
struct PassSteps {
  PassStep base;                          // the prediction's build
  std::map<std::string, PassStep> passes; // by PassRequest::name
  /// The prediction's build with one part of the draws alone (Perturbation::parts), by part.
  std::map<std::string, double> parts;
  /// The pass a model asked for (a logic error where nobody asked for it).
  [[nodiscard]] const PassStep& pass(const std::string& name) const;
};

/// What a model's perturbation or stretch may read of the run.
struct RunContext {
  const scenario::Scenario& scenario;
  const catalog::Catalog& catalog;
  const offload::Variant& variant;
  const scenario::Hardware& hardware;
  const topology::Topology& topology;
  const datapath::DataPath& path;
  platform::RouteRegistry& routes;
  const engine::PlatformDecl& platform;
  const plan::HostSide& host;
};

/// A topology edge's rate in bytes/s as the platform simulates it (a degraded link below its rate).
std::function<double(std::int32_t)> link_capacity(const topology::Topology& topo,
                                                  const engine::PlatformDecl& platform);

/// Draws that make an iteration differ from the noise-free one, the same in every pass.
class Perturbation {
public:
  virtual ~Perturbation() = default;
  /// `clean` with the draws in it, or nothing where there is nothing to draw. `whole`, where the run
  /// built it, holds every data-parallel replica's tasks of the same pass (Model::builds_every_replica).
  /// `part` is empty for every draw, else one of parts(): that part alone.
  /// `pass` names the pass (empty: the prediction's build).
  virtual std::optional<plan::IterationPlan> draw(const plan::IterationPlan& clean,
                                                  const plan::IterationPlan* whole, std::string_view pass,
                                                  std::string_view part) = 0;
  /// Parts of the draws each simulated alone on the prediction's build, to share what they cost.
  [[nodiscard]] virtual std::vector<std::string> parts() const { return {}; }
  /// Adds its outputs once every pass has run (`steps.base.drawn_s` is the prediction).
  virtual void report(const PassSteps& steps, report::VariantResult& r) const = 0;
};

/// Stretches each pass's transfers after its run shared links max-min (congestion's outer step).
class Stretch {
public:
  virtual ~Stretch() = default;
  /// Whether it stretches anything in this variant (where not, its reports still run).
  [[nodiscard]] virtual bool active() const = 0;
  /// The same stretch, its record empty, for another pass.
  [[nodiscard]] virtual std::unique_ptr<Stretch> fresh() const = 0;
  /// Stretches the probes of `plan` (each timed alone by `time`); true where any changed.
  virtual bool
  stretch_probes(plan::IterationPlan& plan,
                 const std::function<std::vector<engine::TaskTiming>(const engine::TaskGraph&)>& time) = 0;
  /// Stretches `plan`'s transfers, `clean` being its run with links shared max-min; true where any
  /// changed.
  virtual bool stretch(plan::IterationPlan& plan, const std::vector<engine::TaskTiming>& clean) = 0;
  /// Adds what it did to the prediction's build (`steps.base`).
  virtual void report(const PassSteps& steps, report::VariantResult& r) const = 0;
  /// Adds what it did to a pass reported apart (`what`: PassRequest::reported_apart).
  virtual void report_pass(const std::string& name, const std::string& what, const PassStep& step,
                           report::VariantResult& r) const = 0;
  /// The congestion it found, for the link outputs (null: none).
  [[nodiscard]] virtual const plan::CongestionSummary* congestion() const { return nullptr; }
};

} // namespace dpusim::model
