#include "sim/model/registry.hpp"

#include "models/base/text_distance.hpp"
#include "models/calibration/parameters.hpp"
#include "models/calibration/plausibility.hpp"
#include "sim/model/calibration_machine.hpp"
#include "sim/model/gpu_profiles.hpp"
#include "sim/report/variant_result.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>

namespace dpusim::model {

// The models, one registration line each. Core models first (their keys give the order of the
// scenario's sections), then the parallelisms' probes, the host-side work in the order its tasks join
// the plan, and the offload variants.
std::unique_ptr<Model> make_scenario_model();
std::unique_ptr<Model> make_cluster_model();
std::unique_ptr<Model> make_fabric_model();
std::unique_ptr<Model> make_services_model();
std::unique_ptr<Model> make_storage_model();
std::unique_ptr<Model> make_workload_model();
std::unique_ptr<Model> make_parallelism_model();
std::unique_ptr<Model> make_expert_parallel_model();
std::unique_ptr<Model> make_expert_routing_model();
std::unique_ptr<Model> make_context_parallel_model();
std::unique_ptr<Model> make_pipeline_model();
std::unique_ptr<Model> make_memory_model();
std::unique_ptr<Model> make_input_pipeline_model();
std::unique_ptr<Model> make_agents_model();
std::unique_ptr<Model> make_tenants_model();
std::unique_ptr<Model> make_collectives_model();
std::unique_ptr<Model> make_checkpoint_model();
std::unique_ptr<Model> make_transport_model();
std::unique_ptr<Model> make_offload_model();
std::unique_ptr<Model> make_validation_model();
std::unique_ptr<Model> make_faults_model();
std::unique_ptr<Model> make_noise_model();
std::unique_ptr<Model> make_congestion_model();
std::unique_ptr<Model> make_placement_model();

std::vector<std::unique_ptr<Model>> builtin_models() {
  std::vector<std::unique_ptr<Model>> m;
  m.push_back(make_scenario_model());
  m.push_back(make_cluster_model());
  m.push_back(make_fabric_model());
  m.push_back(make_services_model());
  m.push_back(make_storage_model());
  m.push_back(make_workload_model());
  m.push_back(make_parallelism_model());
  m.push_back(make_expert_parallel_model());
  m.push_back(make_expert_routing_model());
  m.push_back(make_context_parallel_model());
  m.push_back(make_pipeline_model());
  m.push_back(make_memory_model());
  m.push_back(make_input_pipeline_model());
  m.push_back(make_agents_model());
  m.push_back(make_tenants_model());
  m.push_back(make_collectives_model());
  m.push_back(make_checkpoint_model());
  m.push_back(make_transport_model());
  m.push_back(make_offload_model());
  m.push_back(make_validation_model());
  m.push_back(make_faults_model());
  m.push_back(make_noise_model());
  m.push_back(make_congestion_model());
  m.push_back(make_placement_model());
  return m;
}

const Registry& registry() {
  static const Registry r(builtin_models());
  return r;
}

Registry::Registry(std::vector<std::unique_ptr<Model>> models) : models_(std::move(models)) {
  for (const auto& m : models_) {
    for (const auto& k : m->keys()) {
      const auto same =
          std::find_if(keys_.begin(), keys_.end(), [&](const Key& o) { return o.path == k.path; });
      if (same == keys_.end()) {
        keys_.push_back(k);
        owners_.push_back(m.get());
      } else if (same->kind != "section" || k.kind != "section")
        throw std::logic_error(fmt::format("scenario key {} is declared by two models", k.path));
    }
    for (const auto& b : m->calibration()) {
      if (calibration::find_parameter(b.parameter) == nullptr)
        throw std::logic_error(
            fmt::format("model {} binds an unknown calibration parameter {}", m->name(), b.parameter));
      if (binding(b.parameter) != nullptr)
        throw std::logic_error(fmt::format("calibration parameter {} is bound twice", b.parameter));
      bindings_.push_back(b);
    }
    for (const auto& o : m->outputs()) {
      if (std::any_of(outputs_.begin(), outputs_.end(),
                      [&o](const auto& d) { return d.second.name == o.name; }))
        throw std::logic_error(fmt::format("output {} is declared by two models", o.name));
      outputs_.emplace_back(m->name(), o);
    }
  }
}

std::string_view Registry::owner(std::string_view path) const {
  for (std::size_t i = 0; i < keys_.size(); ++i)
    if (keys_[i].path == path)
      return owners_[i]->name();
  return {};
}

const Model* Registry::find(std::string_view name) const {
  for (const auto& m : models_)
    if (m->name() == name)
      return m.get();
  return nullptr;
}

const Key* Registry::find_key(std::string_view path) const {
  for (const auto& k : keys_)
    if (k.path == path)
      return &k;
  return nullptr;
}

std::vector<std::string_view> Registry::keys_under(std::string_view section) const {
  std::vector<std::string_view> out;
  for (const auto& k : keys_) {
    std::string_view rest = k.path;
    if (!section.empty()) {
      if (rest.size() <= section.size() + 1 || rest.substr(0, section.size()) != section ||
          rest[section.size()] != '.')
        continue;
      rest.remove_prefix(section.size() + 1);
    }
    if (rest.find('.') == std::string_view::npos)
      out.push_back(rest);
  }
  return out;
}

const CalibrationBinding* Registry::binding(std::string_view parameter) const {
  for (const auto& b : bindings_)
    if (b.parameter == parameter)
      return &b;
  return nullptr;
}

std::vector<report::Explainer> Registry::explainers() const {
  std::vector<report::Explainer> out;
  for (const auto& m : models_)
    if (const auto e = m->explainer();
        e.cause != nullptr || e.unchanged != nullptr || e.dpu_over_nic != nullptr || e.also != nullptr)
      out.push_back(e);
  return out;
}

namespace {

report::Column column_of(const report::Output& o) {
  return {std::string(o.name),
          [name = std::string(o.name)](const report::VariantResult& r) { return r.value(name); }};
}

} // namespace

std::vector<report::Column> Registry::columns() const {
  std::vector<report::Column> out;
  for (const auto& m : models_) {
    for (const auto& c : m->columns())
      out.push_back(c);
    for (const auto& o : m->outputs())
      if (o.comparison)
        out.push_back(column_of(o));
  }
  return out;
}

std::vector<report::Column> Registry::sample_columns() const {
  std::vector<report::Column> out;
  for (const auto& [model, o] : outputs_)
    if (o.samples && !o.comparison)
      out.push_back(column_of(o));
  return out;
}

std::vector<std::pair<std::string_view, report::Output>> Registry::outputs() const {
  return outputs_;
}

const report::Output* Registry::output(std::string_view name) const {
  for (const auto& [model, o] : outputs_)
    if (report::matches(o, name))
      return &o;
  return nullptr;
}

std::vector<const plan::IterationExtension*> Registry::extensions() const {
  std::vector<const plan::IterationExtension*> out;
  out.reserve(models_.size());
  for (const auto& m : models_)
    out.push_back(m.get());
  return out;
}

Problems check_scenario(const scenario::Scenario& s, const catalog::Catalog& cat) {
  Problems out;
  for (const auto& m : registry().models())
    m->check(s, cat, out);
  return out;
}

namespace {

/// What a parameter describes in the scenario: its DPU's Arm side or its node.
std::string device_of(const std::string& parameter, const scenario::Hardware& hw) {
  return parameter.rfind("dpu_arm.", 0) == 0 ? hw.nic.name : hw.node.name;
}

} // namespace

void apply_calibration(scenario::Hardware& hw, const calibration::Profile& profile, const std::string& path,
                       bool take_shape) {
  using catalog::Citation;
  for (const auto& p : profile.parameters) {
    const auto* def = calibration::find_parameter(p.key);
    scenario::CalibratedValue cv{p.key,
                                 calibration::format_parameter_value(*def, p.value),
                                 std::string(calibration::provenance_name(p.provenance)),
                                 false,
                                 {}};
    const Citation cite{Citation::Kind::calibration, fmt::format("{} ({}, {})", p.key, cv.provenance, path)};
    const auto* b = registry().binding(p.key);
    const auto now = b != nullptr && b->current != nullptr ? b->current(hw) : std::nullopt;
    if (now && *now != p.value && !take_shape)
      cv.note = fmt::format("not taken: the profile's machine has {:g}, the scenario's {} {:g} (its per-core "
                            "rates are taken; calibration_shape: apply takes this too)",
                            p.value, device_of(p.key, hw), *now);
    else if (b != nullptr)
      cv.used = b->apply(hw, p.value, cite);
    if (now && *now != p.value && take_shape && cv.used)
      cv.note = fmt::format("the profile's machine shape replaces the {}'s {:g} (calibration_shape: apply)",
                            device_of(p.key, hw), *now);
    hw.calibrated.push_back(std::move(cv));
  }
}

scenario::Hardware hardware_for(const scenario::Scenario& s, const catalog::Catalog& cat,
                                const offload::Variant& variant, const calibration::Profile* profile,
                                const std::string& profile_path, bool take_shape) {
  auto hw = scenario::resolve_hardware(s, cat, variant);
  const auto stacks = gpu_profile_names(cat);
  hw.gpu_performance = fmt::format(
      "the catalog's {} kernel figures (measured GEMM throughput and HBM bandwidth), not validated "
      "end to end against a training framework (docs/validation.md); validated software stacks: gpu_profile: "
      "{}",
      hw.gpu.name, stacks.empty() ? std::string("none in this catalog") : join(stacks, " | "));
  if (!s.gpu_profile.empty()) {
    // The software stack's GPU figures first; a measured profile of the user's own replaces them.
    const auto path = gpu_profile_path(cat, s.gpu_profile).string();
    const auto stack = calibration::load_profile(path);
    apply_calibration(hw, stack, path);
    const auto description = stack.machine.find("description");
    hw.gpu_performance = fmt::format("gpu_profile {}{}{}", s.gpu_profile,
                                     description == stack.machine.end() ? "" : ": " + description->second,
                                     stack.notes.empty() ? "" : "; " + stack.notes.front());
  }
  if (profile != nullptr) {
    hw.profile_path = profile_path;
    apply_calibration(hw, *profile, profile_path, take_shape || s.calibration_shape);
    hw.calibration_differences = machine_differences(*profile, hw);
    for (const auto& implausible : calibration::implausible_values(*profile))
      hw.calibration_differences.push_back(
          fmt::format("the profile's {}; it is applied as measured", implausible));
    for (const auto& cv : hw.calibrated)
      if (cv.used && cv.key.rfind("gpu.", 0) == 0) {
        hw.gpu_performance = fmt::format("measured by dpusim-calib on the user's GPU ({}), in place of {}",
                                         profile_path, hw.gpu_performance);
        break;
      }
  }
  for (const auto& m : registry().models())
    m->configure(s, hw);
  return hw;
}

} // namespace dpusim::model
