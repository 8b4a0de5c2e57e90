// A model of the simulator — the input pipeline, checkpoints, other tenants, a parallelism's probe, next
// stragglers or congestion — declares in one place what it takes and what it adds: its scenario keys
// (with unit, default and meaning), the calibration parameters it consumes and the fields they set, the
// checks a scenario held in memory must pass, the tasks it adds to an iteration, and the notes it
// writes in the report. The registry (registry.hpp) lists every model; the scenario reader, the schema,
// `dpusim models`, the calibration and the run all read it from there.
#pragma once

#include "models/base/yaml_reader.hpp"
#include "models/catalog/catalog.hpp"
#include "models/catalog/cited.hpp"
#include "sim/engine/platform_decl.hpp"
#include "sim/plan/iteration_extension.hpp"
#include "sim/report/column.hpp"
#include "sim/report/explainer.hpp"
#include "sim/scenario/hardware.hpp"
#include "sim/scenario/scenario.hpp"

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dpusim::report {
struct VariantResult;
}
namespace dpusim::plan {
struct IterationPlan;
}
namespace dpusim::topology {
class Topology;
struct ClusterLayout;
struct Failures;
} // namespace dpusim::topology
namespace dpusim::datapath {
class DataPath;
}

namespace dpusim::metrics {
struct IterationMetrics;
struct MetricsInputs;
} // namespace dpusim::metrics

namespace dpusim::model {

// A run's passes (pass.hpp; a model that asks for or alters passes includes it).
struct PassRequest;
struct PassContext;
struct PassSteps;
struct RunContext;
class Perturbation;
class Stretch;

/// One scenario key. `path` is dotted from the file's root ("cluster.storage.servers"); a section (a
/// mapping of further keys) has the kind "section".
struct Key {
  std::string_view path;
  std::string_view kind;          // section | count | number | fraction | ratio | data rate | ...
  std::string_view default_value; // "required", "—" (absent: the feature is off), or the default
  std::string_view description;
};

/// What is wrong with a scenario, and the key it concerns. `related`, when set, names another key the
/// message refers to (the YAML reader adds where it is in the file).
struct Problem {
  Problem(std::string k, std::string m, std::string r = {})
      : key(std::move(k)), message(std::move(m)), related(std::move(r)) {}
  std::string key;
  std::string message;
  std::string related;
};
using Problems = std::vector<Problem>;

/// A calibration parameter (models/calibration/parameters.hpp) and the hardware field it sets. `apply`
/// returns false where the field does not exist in this variant (no Arm cores on a plain NIC): the
/// profile's value is then reported as unused.
struct CalibrationBinding {
  std::string_view parameter;
  std::string_view field;
  bool (*apply)(scenario::Hardware& hw, double si_value, const catalog::Citation& cite);
  /// For a parameter of the machine's shape (a core count) rather than a per-core rate: the value the
  /// scenario's hardware has now, to compare with the profile's (nullopt: the field does not exist).
  std::optional<double> (*current)(const scenario::Hardware& hw) = nullptr;
};

/// What a model may read when it explains a finished run.
struct RunView {
  const scenario::Scenario& scenario;
  const offload::Variant& variant;
  const scenario::Hardware& hardware;
  const topology::Topology& topology;
  const datapath::DataPath& path;
  const plan::IterationPlan& iteration;
  const plan::HostSide& host;
  bool representative; // one data-parallel replica stood for all
};

class Model : public plan::IterationExtension {
public:
  ~Model() override = default;

  [[nodiscard]] virtual std::string_view name() const = 0;
  [[nodiscard]] virtual std::string_view summary() const = 0;
  [[nodiscard]] virtual std::vector<Key> keys() const { return {}; }
  [[nodiscard]] virtual std::vector<CalibrationBinding> calibration() const { return {}; }
  /// Appends what is wrong with `s` for this model (nothing when it is consistent).
  virtual void check(const scenario::Scenario& s, const catalog::Catalog& cat, Problems& out) const {
    (void)s;
    (void)cat;
    (void)out;
  }
  /// A top-level section of the scenario this model reads itself into Scenario::extensions (empty:
  /// none); `read` gets the section's mapping.
  [[nodiscard]] virtual std::string_view section() const { return {}; }
  virtual void read(yaml::Map section, scenario::Scenario& s) const {
    (void)section;
    (void)s;
  }
  /// Whether this model makes data-parallel replicas differ, so that one cannot stand for all.
  [[nodiscard]] virtual bool replicas_differ(const scenario::Scenario& s) const {
    (void)s;
    return false;
  }
  /// Whether this model has every replica's tasks built even where a few are simulated (it picks them
  /// from the whole plan): the planned-task budget then counts every replica.
  [[nodiscard]] virtual bool builds_every_replica(const scenario::Scenario& s) const {
    (void)s;
    return false;
  }
  /// Changes the cluster's layout before its topology is built (the share of the up-links other tenants
  /// are held to). Nothing by default.
  virtual void shape_layout(const scenario::Scenario& s, const offload::Variant& v,
                            topology::ClusterLayout& layout) const {
    (void)s;
    (void)v;
    (void)layout;
  }
  /// Adds what it takes down in the built topology (routes go around it). Nothing by default.
  virtual void add_failures(const scenario::Scenario& s, const topology::Topology& topo,
                            topology::Failures& out) const {
    (void)s;
    (void)topo;
    (void)out;
  }
  /// Changes the built platform before it is simulated (a link below its rate). Nothing by default.
  virtual void shape_platform(const scenario::Scenario& s, const topology::Topology& topo,
                              engine::PlatformDecl& platform) const {
    (void)s;
    (void)topo;
    (void)platform;
  }
  /// Sets what the scenario asks of the hardware beyond the catalog and the profile (after both).
  virtual void configure(const scenario::Scenario& s, scenario::Hardware& hw) const {
    (void)s;
    (void)hw;
  }
  /// What it adds to the explanation of a comparison (no hook set: nothing).
  [[nodiscard]] virtual report::Explainer explainer() const { return {}; }
  /// Its columns in the run's CSV, after the core metrics, in registry order (then its outputs').
  [[nodiscard]] virtual std::vector<report::Column> columns() const { return {}; }
  /// The values it writes into a run's result (report::Output): writing one it does not declare is an
  /// error of the run.
  [[nodiscard]] virtual std::vector<report::Output> outputs() const { return {}; }
  /// Adds to the result of a finished run of one variant: its notes, and the fields this model owns.
  virtual void report(const RunView& run, report::VariantResult& result) const {
    (void)run;
    (void)result;
  }
  /// The passes it asks for beside the prediction (pass.hpp), whose steps account() reads; none by default.
  [[nodiscard]] virtual std::vector<PassRequest> passes(const PassContext& run) const;
  /// Whether it draws into or stretches every pass of `s`'s runs (perturbation() or stretch() may then
  /// return one).
  [[nodiscard]] virtual bool alters_passes(const scenario::Scenario& s) const {
    (void)s;
    return false;
  }
  /// Its draws, made once the prediction's build has run without them (`clean`, timed with `in`); at most
  /// one model of a run draws. None by default.
  [[nodiscard]] virtual std::unique_ptr<Perturbation> perturbation(const RunContext& run,
                                                                   const metrics::IterationMetrics& clean,
                                                                   const metrics::MetricsInputs& in) const;
  /// How it stretches every pass after its run with links shared max-min; none by default.
  [[nodiscard]] virtual std::unique_ptr<Stretch> stretch(const RunContext& run) const;
  /// Reads the step times of the passes it asked for and adds its outputs (after the run, with the
  /// prediction's metrics in `r`). Nothing by default.
  virtual void account(const PassContext& run, const PassSteps& steps, report::VariantResult& r) const;
  /// Tasks this model adds to the iteration (plan::IterationExtension); none by default.
  void add_tasks(plan::HostWork& work, const plan::IterationContext& ctx) const override {
    (void)work;
    (void)ctx;
  }
};

} // namespace dpusim::model
