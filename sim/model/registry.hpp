// Every model of the simulator, in one table (see model.hpp): the source of the accepted scenario keys
// and their "did you mean", of `dpusim schema --keys` and `dpusim models`, of the calibration
// parameters a profile may set, of the checks a scenario must pass and of the host-side tasks and
// notes of a run. The order of registration is the order of keys in messages and of tasks in a plan.
#pragma once

#include "models/calibration/profile.hpp"
#include "sim/model/model.hpp"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace dpusim::model {

class Registry {
public:
  explicit Registry(std::vector<std::unique_ptr<Model>> models);

  [[nodiscard]] const std::vector<std::unique_ptr<Model>>& models() const { return models_; }
  [[nodiscard]] const Model* find(std::string_view name) const;
  /// Every key of every model, in registration order.
  [[nodiscard]] const std::vector<Key>& keys() const { return keys_; }
  [[nodiscard]] const Key* find_key(std::string_view path) const;
  /// The name of the model that declared `path` first (empty for an unknown key).
  [[nodiscard]] std::string_view owner(std::string_view path) const;
  /// The names of the keys directly under `section` ("" for the file's top level, "cluster.storage",
  /// "offload.variants[]" for the items of a list), in the order they were first declared.
  [[nodiscard]] std::vector<std::string_view> keys_under(std::string_view section) const;
  [[nodiscard]] const CalibrationBinding* binding(std::string_view parameter) const;
  /// The models' explainers that have something to say, in registration order.
  [[nodiscard]] std::vector<report::Explainer> explainers() const;
  /// Every model's CSV columns, in registration order: its own, then its outputs for comparison.csv.
  [[nodiscard]] std::vector<report::Column> columns() const;
  /// The outputs that samples.csv carries beside comparison.csv's columns, as columns.
  [[nodiscard]] std::vector<report::Column> sample_columns() const;
  /// Every model's declared outputs, in registration order, with the model's name.
  [[nodiscard]] std::vector<std::pair<std::string_view, report::Output>> outputs() const;
  /// The output `name` is (null: no model declares it).
  [[nodiscard]] const report::Output* output(std::string_view name) const;
  /// The models as iteration extensions, in registration order.
  [[nodiscard]] std::vector<const plan::IterationExtension*> extensions() const;

private:
  std::vector<std::unique_ptr<Model>> models_;
  std::vector<Key> keys_;
  std::vector<const Model*> owners_; // by key
  std::vector<CalibrationBinding> bindings_;
  std::vector<std::pair<std::string_view, report::Output>> outputs_;
};

/// The models built into dpusim, in registration order (registry.cpp lists them): a registry of one's
/// own (a test's, with a model of its own added) starts from them.
std::vector<std::unique_ptr<Model>> builtin_models();

/// The registry of the models built into dpusim.
const Registry& registry();

/// Every problem of a scenario built in memory, each with the key it concerns; empty when it can run.
Problems check_scenario(const scenario::Scenario& s, const catalog::Catalog& cat);

/// The parts one variant runs on: the catalog's, a profile's values in their place (with `profile`),
/// then what the scenario's models configure. `take_shape` (or the scenario's calibration_shape) takes
/// the profile's core counts even where its machine differs from the node.
scenario::Hardware hardware_for(const scenario::Scenario& s, const catalog::Catalog& cat,
                                const offload::Variant& variant, const calibration::Profile* profile,
                                const std::string& profile_path, bool take_shape = false);

/// Puts a profile's values in place of the catalog's through the registry's bindings, recording each
/// value in hw.calibrated (unused where no model of this variant takes it).
/// A parameter of the machine's shape (a core count) is taken only where the profile's machine has the
/// node's shape, or with `take_shape`; per-core rates always are.
void apply_calibration(scenario::Hardware& hw, const calibration::Profile& profile, const std::string& path,
                       bool take_shape = false);

} // namespace dpusim::model
