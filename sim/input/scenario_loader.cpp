#include "sim/input/scenario_loader.hpp"

#include "sim/input/section_readers.hpp"
#include "sim/model/registry.hpp"
#include "sim/model/sections/offload_model.hpp"
#include "sim/offload/variant.hpp"
#include "sim/scenario/hardware.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <unordered_map>

namespace dpusim::input {

using namespace scenario;

namespace {

/// Where `key` ("workload.parallelism.ep", "offload.variants[1]") is in the file: its value, or the
/// nearest enclosing mapping that is there when the key itself is missing.
Location locate(const yaml::Node& root, const std::string& key) {
  // YAML::Node's operator= writes into the node it refers to: reset() rebinds without touching the file.
  YAML::Node at;
  at.reset(root.raw());
  std::size_t start = 0;
  while (start < key.size()) {
    auto end = key.find('.', start);
    if (end == std::string::npos)
      end = key.size();
    std::string segment = key.substr(start, end - start);
    std::optional<std::size_t> index;
    if (const auto bracket = segment.find('['); bracket != std::string::npos) {
      index = std::stoul(segment.substr(bracket + 1));
      segment.resize(bracket);
    }
    YAML::Node next;
    bool found = false;
    if (at.IsMap())
      for (const auto& kv : at)
        if (kv.first.IsScalar() && kv.first.Scalar() == segment) {
          next.reset(kv.second);
          found = true;
        }
    if (found && index) {
      found = next.IsSequence() && *index < next.size();
      if (found)
        next.reset(next[*index]);
    }
    if (!found)
      break;
    at.reset(next);
    start = end + 1;
  }
  return yaml::Node(at, std::make_shared<const std::string>(root.file()), key, Location{root.file(), 1, 1})
      .location();
}

} // namespace

Scenario parse_scenario(const yaml::Node& root, const catalog::Catalog& cat) {
  Scenario s;
  s.file = root.file();
  auto m = root.as_map();
  m.declare(keys_of(""));
  s.name = m.required("name", "a short name for the scenario").as_string();
  if (auto d = m.optional("description"))
    s.description = d->as_string();
  s.cluster = read_cluster(m.required("cluster").as_map(), cat);
  s.workload = read_workload(m.required("workload").as_map(), cat);

  const auto offload = m.required("offload", "{baseline: ..., variants: [...]}");
  auto om = offload.as_map();
  om.declare(keys_of("offload"));
  std::vector<std::string> variant_keys;                 // by variant of s.variants: where the file lists it
  std::unordered_map<std::string, std::size_t> index_of; // a variant's name -> its place in s.variants
  const auto frontend = scenario::frontend_functions(s.cluster, cat);
  auto read_variant = [&](const yaml::Node& n) {
    std::string spec;
    std::string given_name;
    if (n.is_map()) {
      auto vm = n.as_map();
      vm.declare(keys_of("offload.variants[]"));
      const auto name_node = vm.required("name");
      given_name = name_node.as_string();
      if (!model::plain_variant_name(given_name))
        name_node.fail("a variant name has 1 to 64 letters, digits, '-', '_', '.', '+' or '='");
      spec = vm.required("placement", "a preset with +function=site changes, e.g. rdma-nic+storage=dpu_arm")
                 .as_string();
      vm.finish();
    } else {
      spec = n.as_string();
    }
    offload::Variant v;
    try {
      v = offload::parse_variant(spec, frontend);
    } catch (const std::invalid_argument& e) {
      n.fail(e.what());
    }
    if (!given_name.empty())
      v.name = given_name;
    const auto [same, added] = index_of.try_emplace(v.name, s.variants.size());
    if (added) { // the same variant listed again runs once
      s.variants.push_back(std::move(v));
      variant_keys.push_back(n.path());
      return;
    }
    const auto& first = s.variants[same->second];
    if (first.placement != v.placement || first.on_dpu != v.on_dpu)
      n.fail(fmt::format("variant \"{}\" is listed twice with different placements (the baseline and "
                         "variants share one list of names); give this one another name: {{name: ..., "
                         "placement: {}}}",
                         v.name, spec));
  };
  read_variant(om.required("baseline", "a variant name"));
  s.baseline = s.variants.front().name;
  if (auto vs = om.optional("variants"))
    for (const auto& item : vs->as_sequence().items())
      read_variant(item);
  om.finish();
  if (auto seed = m.optional("seed"))
    s.seed = static_cast<std::uint64_t>(seed->as_int(0, std::numeric_limits<std::int64_t>::max()));
  if (auto seed = m.optional("step_seed"))
    s.step_seed = static_cast<std::uint64_t>(seed->as_int(0, std::numeric_limits<std::int64_t>::max()));
  if (auto c = m.optional("calibration")) {
    std::filesystem::path p = c->as_string();
    if (p.is_relative())
      p = std::filesystem::path(s.file).parent_path() / p;
    s.calibration = p.string();
  }
  if (auto g = m.optional("gpu_profile"))
    s.gpu_profile = g->as_string();
  if (auto shape = m.optional("calibration_shape"))
    s.calibration_shape = shape->as_choice({"auto", "apply"}) == "apply";
  if (auto v = m.optional("validation")) {
    auto vm = v->as_map();
    vm.declare(keys_of("validation"));
    Validation val;
    val.metric = vm.required("metric").as_choice({"tflops_per_gpu", "iteration_time_ms", "mfu"});
    val.published = vm.required("published", "the published value of the metric").as_number(1e-9, 1e12);
    val.table = vm.required("table", "a name grouping rows of one published table").as_string();
    val.source = vm.required("source", "where the published value comes from").as_string();
    if (auto a = vm.optional("assumptions"))
      for (const auto& item : a->as_sequence().items())
        val.assumptions.push_back(item.as_string());
    vm.finish();
    s.validation = val;
  }
  for (const auto& model : model::registry().models())
    if (const auto section = model->section(); !section.empty())
      if (auto n = m.optional(section))
        model->read(n->as_map(), s);
  m.finish();

  // The models' checks, each problem placed where its key is in the file. A variant's key names its
  // place in the file's list (duplicates were dropped from s.variants).
  const auto problems = model::check_scenario(s, cat);
  if (!problems.empty()) {
    const auto& p = problems.front();
    std::string key = p.key;
    for (std::size_t i = 0; i < s.variants.size(); ++i)
      if (key == (i == 0 ? std::string("offload.baseline") : fmt::format("offload.variants[{}]", i - 1))) {
        key = variant_keys[i];
        break;
      }
    std::string message = p.message;
    if (!p.related.empty()) {
      const auto at = locate(root, p.related);
      message += fmt::format(" ({} at {}:{})", p.related, at.line, at.column);
    }
    throw InputError(locate(root, key), key, message);
  }
  return s;
}

offload::Variant variant_for(const Scenario& s, const catalog::Catalog& cat, const std::string& spec) {
  if (const auto* named = s.find_variant(spec))
    return *named;
  auto v = offload::parse_variant(spec, scenario::frontend_functions(s.cluster, cat));
  if (auto why = model::variant_problem(s, cat, v); !why.empty())
    throw std::invalid_argument(why);
  return v;
}

Scenario load_scenario(const std::string& path, const catalog::Catalog& cat) {
  return parse_scenario(yaml::load_file(path), cat);
}

} // namespace dpusim::input
