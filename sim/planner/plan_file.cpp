#include "sim/planner/plan_file.hpp"

#include "models/base/text_distance.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/offload/variant.hpp"
#include "sim/planner/plan_sections.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fmt/format.h>
#include <set>

namespace dpusim::planner {

std::string_view objective_name(Objective o) {
  switch (o) {
  case Objective::time_to_train:
    return "time_to_train";
  case Objective::nodes:
    return "nodes";
  case Objective::host_cores:
    return "host_cores";
  case Objective::cost:
    return "cost";
  case Objective::energy:
    return "energy";
  }
  return "?";
}

const std::vector<std::string>& objective_names() {
  static const std::vector<std::string> names{"time_to_train", "nodes", "host_cores", "cost", "energy"};
  return names;
}

Objective objective_named(const std::string& name) {
  const auto& names = objective_names();
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end())
    throw std::invalid_argument("no objective " + name);
  return static_cast<Objective>(it - names.begin());
}

namespace {

std::optional<double> number_with_suffix(std::string_view text,
                                         const std::vector<std::pair<std::string_view, double>>& suffixes,
                                         bool suffix_required) {
  for (const auto& [suffix, scale] : suffixes) {
    if (text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix) {
      std::string number(text.substr(0, text.size() - suffix.size()));
      while (!number.empty() && number.back() == ' ')
        number.pop_back();
      char* end = nullptr;
      const double v = std::strtod(number.c_str(), &end);
      // Digits, a point and an exponent (whose sign may be negative: 2.9e-4); no sign of its own.
      bool plain = !number.empty() && end == number.c_str() + number.size();
      for (std::size_t i = 0; plain && i < number.size(); ++i) {
        const unsigned char ch = static_cast<unsigned char>(number[i]);
        const bool exponent_sign =
            (ch == '-' || ch == '+') && i > 0 && (number[i - 1] == 'e' || number[i - 1] == 'E');
        plain = std::isdigit(ch) != 0 || ch == '.' || ch == 'e' || ch == 'E' || ch == '+' || exponent_sign;
      }
      if (!plain || !std::isfinite(v) || v <= 0)
        return std::nullopt;
      return v * scale;
    }
  }
  if (suffix_required)
    return std::nullopt;
  return number_with_suffix(text, {{"", 1.0}}, true);
}

} // namespace

std::optional<double> parse_days(std::string_view text) {
  return number_with_suffix(text, {{"days", 1.0}, {"d", 1.0}, {"h", 1.0 / 24}, {"w", 7.0}}, true);
}

std::optional<double> parse_tokens(std::string_view text) {
  return number_with_suffix(text, {{"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"G", 1e9}, {"T", 1e12}}, false);
}

std::optional<double> parse_failure_rate(std::string_view text) {
  return number_with_suffix(text,
                            {{"FIT", 1.0 / (1e9 * 3600.0)},
                             {"/h", 1.0 / 3600.0},
                             {"/d", 1.0 / 86400.0},
                             {"/y", 1.0 / (365.0 * 86400.0)}},
                            true);
}

std::optional<double> parse_energy_price(std::string_view text) {
  return number_with_suffix(text, {{"USD/kWh", 1.0}, {"USD/MWh", 1e-3}}, true);
}

std::optional<double> parse_life(std::string_view text) {
  return number_with_suffix(text,
                            {{"years", 365.0 * 86400.0},
                             {"y", 365.0 * 86400.0},
                             {"months", 30.0 * 86400.0},
                             {"days", 86400.0},
                             {"d", 86400.0}},
                            true);
}

namespace {

/// What the plan reader takes from its base scenario besides its tree.
struct Base {
  std::int64_t nodes = 0;
  bool checkpoints = false;
  SearchSpace space;
};

/// The base scenario (`scenario`: a path relative to the plan, or the scenario inline), read and checked
/// as a scenario file on its own: its tree, file and seed into `p`.
Base read_base(const yaml::Node& scenario, Plan& p, const catalog::Catalog& cat) {
  Base out;
  auto& space = out.space;
  // yaml::Node is not assigned to (YAML::Node's operator= would write into the plan's tree).
  std::optional<yaml::Node> loaded;
  if (!scenario.is_map()) {
    std::filesystem::path path = scenario.as_string();
    if (path.is_relative())
      path = std::filesystem::path(p.file).parent_path() / path;
    try {
      loaded.emplace(yaml::load_file(path.string()));
    } catch (const InputError& e) {
      scenario.fail(fmt::format("the base scenario cannot be read: {}", e.what()));
    }
  }
  const yaml::Node& base = loaded ? *loaded : scenario;
  // The base must be a valid scenario on its own: its errors are at its own lines.
  const auto s = input::parse_scenario(base, cat);
  out.nodes = s.cluster.nodes;
  out.checkpoints = s.workload.checkpoint.has_value();
  space.model = s.workload.model;
  space.seq_len = s.workload.seq_len;
  const auto* base_node = cat.node(s.cluster.node);
  space.gpus_per_node = s.cluster.gpus_per_node > 0 ? s.cluster.gpus_per_node
                        : base_node != nullptr      ? base_node->gpus.value
                                                    : 1;
  p.base_seed = s.seed;
  p.scenario = base.raw();
  p.scenario_file = base.file();
  return out;
}

/// The base's variants: the default variants axis; `named` gets the names a variants axis may use.
std::vector<AxisValue> base_variants(const Plan& p, NamedVariants& named) {
  std::vector<AxisValue> out;
  const YAML::Node& raw = p.scenario;
  const YAML::Node offload = raw["offload"];
  std::vector<YAML::Node> listed{offload["baseline"]};
  // A key the base lacks is a zombie node in yaml-cpp, whose type may not be asked (it throws).
  if (const YAML::Node variants = offload["variants"]; variants.IsDefined() && variants.IsSequence())
    for (const auto& item : variants)
      listed.push_back(item);
  std::set<std::string> seen;
  for (const auto& item : listed) {
    AxisValue v;
    v.node = YAML::Clone(item);
    v.text = item.IsMap() ? item["name"].Scalar() : offload::parse_variant(item.Scalar()).name;
    if (item.IsMap())
      named.emplace(v.text, item);
    if (seen.insert(v.text).second)
      out.push_back(std::move(v));
  }
  return out;
}

/// The axes section: each axis in the specs' order, a parallelism axis over the GPU counts the axes
/// before it give.
void read_axes(const yaml::Node& axes, Plan& p, const catalog::Catalog& cat, const NamedVariants& named,
               SearchSpace& space, std::int64_t base_nodes) {
  auto am = axes.as_map();
  const auto names = axis_names();
  std::vector<std::string_view> keys(names.begin(), names.end());
  am.declare(keys);
  for (const auto& spec : axis_specs())
    if (auto n = am.optional(spec.name)) {
      if (spec.kind == AxisKind::parallelism) { // the axes before it give the nodes and their GPUs
        std::vector<long long> per_node{space.gpus_per_node};
        std::vector<long long> node_counts{base_nodes};
        for (const auto& a : p.axes) {
          if (a.spec->name == "node") {
            per_node.clear();
            for (const auto& v : a.values)
              if (const auto* node = cat.node(v.text))
                per_node.push_back(node->gpus.value);
          }
          if (a.spec->name == "nodes") {
            node_counts.clear();
            for (const auto& v : a.values)
              node_counts.push_back(v.count);
          }
        }
        const Axis* gpus_axis = nullptr;
        for (const auto& a : p.axes)
          if (a.spec->name == "gpus")
            gpus_axis = &a;
        if (gpus_axis != nullptr)
          for (const auto& v : gpus_axis->values)
            space.gpu_counts.insert(v.count);
        else
          for (const long long g : per_node)
            for (const long long count : node_counts)
              space.gpu_counts.insert(g * count);
        space.gpus_per_node = static_cast<int>(*std::max_element(per_node.begin(), per_node.end()));
        space.gpus = *space.gpu_counts.rbegin();
      }
      p.axes.push_back(read_axis(spec, *n, cat, named, space));
    }
  am.finish();
  if (auto g = am.optional("gpus"); g && am.optional("nodes"))
    g->fail("a plan's axes give nodes or gpus, not both: with gpus each point's nodes follow from its "
            "node type");
}

/// The objectives section (time to train alone without one).
void read_objectives(yaml::Map& m, Plan& p) {
  if (auto objectives = m.optional("objectives")) {
    const auto items = objectives->as_sequence().items();
    if (items.empty())
      objectives->fail("expected at least one objective: " + join(objective_names(), ", "));
    for (const auto& item : items) {
      const auto o = item.as_choice(objective_names());
      const Objective obj = objective_named(o);
      if (std::find(p.objectives.begin(), p.objectives.end(), obj) != p.objectives.end())
        item.fail(fmt::format("objective {} is listed twice", o));
      p.objectives.push_back(obj);
    }
  } else {
    p.objectives = {Objective::time_to_train};
  }
}

/// The constraints section; `budget` and `power_cap` get their keys (they need sections read later).
void read_constraints(const yaml::Node& constraints, Plan& p, const catalog::Catalog& cat, const Base& base,
                      std::optional<yaml::Node>& budget_node, std::optional<yaml::Node>& power_cap_node) {
  auto cm = constraints.as_map();
  cm.declare({"deadline", "max_nodes", "min_nodes", "budget", "power_cap"});
  if (auto b = cm.optional("budget")) {
    budget_node.emplace(*b);
    p.constraints.budget_usd = b->as_quantity<units::Money>().si();
  }
  if (auto c = cm.optional("power_cap")) {
    power_cap_node.emplace(*c);
    p.constraints.power_cap_kw = c->as_quantity<units::Power>().si() / 1e3;
  }
  if (auto d = cm.optional("deadline")) {
    const auto days = parse_days(d->as_string());
    if (!days)
      d->fail(fmt::format("expected a duration in days, hours or weeks (90d, 36h, 2w), found \"{}\"",
                          d->as_string()));
    p.constraints.deadline_days = *days;
  }
  std::optional<yaml::Node> max_node = cm.optional("max_nodes");
  std::optional<yaml::Node> min_node = cm.optional("min_nodes");
  if (max_node)
    p.constraints.max_nodes = static_cast<int>(max_node->as_int(1, kMaxCount));
  if (min_node)
    p.constraints.min_nodes = static_cast<int>(min_node->as_int(1, kMaxCount));
  cm.finish();
  const auto [lo, hi] = node_range(p, base.nodes, cat, base.space.gpus_per_node);
  if (p.constraints.max_nodes && p.constraints.min_nodes &&
      *p.constraints.min_nodes > *p.constraints.max_nodes)
    min_node->fail(fmt::format("contradictory constraints: min_nodes {} is above max_nodes {}",
                               *p.constraints.min_nodes, *p.constraints.max_nodes));
  if (p.constraints.max_nodes && *p.constraints.max_nodes < lo)
    max_node->fail(fmt::format("contradictory constraints: max_nodes {} is below every point's node count "
                               "(the fewest is {})",
                               *p.constraints.max_nodes, lo));
  if (p.constraints.min_nodes && *p.constraints.min_nodes > hi)
    min_node->fail(fmt::format("contradictory constraints: min_nodes {} is above every point's node count "
                               "(the most is {})",
                               *p.constraints.min_nodes, hi));
}

} // namespace

Plan parse_plan(const yaml::Node& root, const catalog::Catalog& cat) {
  Plan p;
  p.file = root.file();
  auto m = root.as_map();
  m.declare({"name", "description", "scenario", "train_tokens", "refine", "axes", "objectives", "constraints",
             "goodput", "power", "costs"});
  const auto name_node = m.required("name", "a short name for the plan");
  p.name = name_node.as_string();
  if (!std::all_of(
          p.name.begin(), p.name.end(),
          [](unsigned char ch) { return std::isalnum(ch) != 0 || ch == '-' || ch == '_' || ch == '.'; }) ||
      p.name.front() == '.')
    name_node.fail(
        "a plan name has letters, digits, '-', '_' and '.' (not first): it names the output directory");
  if (auto d = m.optional("description"))
    p.description = d->as_string();

  // The base scenario: a path relative to the plan, or the scenario itself inline.
  const auto scenario =
      m.required("scenario", "a scenario file (relative to the plan) or an inline scenario");
  auto base = read_base(scenario, p, cat);
  // The base's variants: the default variants axis, and the names a variants axis may use.
  NamedVariants named;
  auto variants = base_variants(p, named);

  const auto tokens = m.required("train_tokens", "the tokens to train on, e.g. 300B or 3e11");
  const auto parsed_tokens = parse_tokens(tokens.as_string());
  if (!parsed_tokens || *parsed_tokens < 1 || *parsed_tokens > 1e18)
    tokens.fail(fmt::format("expected a token count from 1 to 1e18, a number with an optional suffix K, M, B "
                            "or T (300B, 1.5T, 3e11), found \"{}\"",
                            tokens.as_string()));
  p.train_tokens = *parsed_tokens;
  if (auto refine = m.optional("refine"))
    p.refine = static_cast<int>(refine->as_int(0, static_cast<std::int64_t>(kMaxPoints)));

  if (auto axes = m.optional("axes"))
    read_axes(*axes, p, cat, named, base.space, base.nodes);
  if (p.axes.empty() || p.axes.back().spec->kind != AxisKind::variant)
    p.axes.push_back(Axis{&axis_specs().back(), std::move(variants)});
  std::size_t points = 1;
  for (const auto& a : p.axes) {
    points *= a.values.size();
    if (points > kMaxPoints)
      m.required("axes").fail(fmt::format("the axes span more than {} points", kMaxPoints));
  }

  read_objectives(m, p);
  std::optional<yaml::Node> budget_node;
  std::optional<yaml::Node> power_cap_node;
  if (auto constraints = m.optional("constraints"))
    read_constraints(*constraints, p, cat, base, budget_node, power_cap_node);
  read_economics(m, p, base.checkpoints, cat);
  // What an objective or constraint needs of the plan.
  if (auto objectives = m.optional("objectives")) {
    for (const auto& item : objectives->as_sequence().items()) {
      const auto o = item.as_string();
      if (o == "cost" && !p.costs)
        item.fail("objective cost needs a costs section (prices per node, NIC, DPU, switch, link, or per "
                  "GPU-hour)");
      if (o == "energy" && !p.power)
        item.fail("objective energy needs a power section (pue, energy_price)");
    }
  }
  if (budget_node && !p.costs)
    budget_node->fail("a budget needs a costs section: without prices no point has a cost");
  if (power_cap_node && !p.power)
    power_cap_node->fail("a power cap needs a power section (pue)");
  m.finish();
  return p;
}

Plan load_plan(const std::string& path, const catalog::Catalog& cat) {
  return parse_plan(yaml::load_file(path), cat);
}

} // namespace dpusim::planner
