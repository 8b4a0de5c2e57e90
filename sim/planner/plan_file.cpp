#include "sim/planner/plan_file.hpp"

#include "models/core/text_distance.hpp"
#include "sim/input/scenario_loader.hpp"
#include "sim/offload/variant.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <set>

namespace dpusim::planner {

namespace {
constexpr std::int64_t kMaxCount = 1'000'000;
} // namespace

const std::vector<AxisSpec>& axis_specs() {
  constexpr std::int64_t kAny = std::numeric_limits<std::int64_t>::max();
  static const std::vector<AxisSpec> specs = {
      {"node", "cluster.node", AxisKind::text, "catalog node types"},
      {"nic", "cluster.nic", AxisKind::text, "catalog NICs"},
      {"dpu", "cluster.dpu", AxisKind::text, "catalog DPUs"},
      {"nodes",
       "cluster.nodes",
       AxisKind::count,
       "node counts: a list, or a range {from, to, step | times}",
       {},
       1,
       kMaxCount,
       true},
      {"topology",
       "cluster.fabric.topology",
       AxisKind::choice,
       "fabric topologies",
       {"fat-tree", "rail-optimized"}},
      {"tiers", "cluster.fabric.tiers", AxisKind::count, "fabric tiers: 2 | 3", {}, 2, 3},
      {"link", "cluster.fabric.link", AxisKind::rate, "leaf-spine link speeds (400Gbps)"},
      {"oversubscription", "cluster.fabric.oversubscription", AxisKind::ratio,
       "leaf oversubscription (\"2:1\")"},
      {"encryption",
       "cluster.services.encryption",
       AxisKind::choice,
       "encryption in transit",
       {"none", "ipsec", "tls"}},
      {"overlay", "cluster.services.overlay", AxisKind::choice, "tenant overlays", {"none", "vxlan"}},
      {"parallelism", "workload.parallelism", AxisKind::parallelism,
       "{tp, pp, cp, ep, dp, virtual_stages} mappings; without dp, the GPUs left over"},
      {"recompute",
       "workload.recompute",
       AxisKind::choice,
       "activation recomputation",
       {"none", "selective", "full"}},
      {"zero", "workload.zero", AxisKind::count, "ZeRO stages: 0 to 3", {}, 0, 3},
      {"global_batch",
       "workload.global_batch",
       AxisKind::count,
       "sequences per iteration",
       {},
       1,
       kMaxCount,
       true},
      {"micro_batch",
       "workload.micro_batch",
       AxisKind::count,
       "sequences per micro-batch",
       {},
       1,
       kMaxCount,
       true},
      {"seeds", "seed", AxisKind::count, "seeds: a list, or a range {from, to}", {}, 0, kAny, true},
      {"variants", "offload", AxisKind::variant,
       "offload variants: names from the scenario or placements (rdma-nic+storage=dpu_arm)"},
  };
  return specs;
}

std::string_view objective_name(Objective o) {
  switch (o) {
  case Objective::time_to_train:
    return "time_to_train";
  case Objective::nodes:
    return "nodes";
  case Objective::host_cores:
    return "host_cores";
  }
  return "?";
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
      const bool plain = !number.empty() && end == number.c_str() + number.size() &&
                         std::all_of(number.begin(), number.end(), [](unsigned char ch) {
                           return std::isdigit(ch) != 0 || ch == '.' || ch == 'e' || ch == 'E' || ch == '+';
                         });
      if (!plain || !std::isfinite(v) || v <= 0)
        return std::nullopt;
      return v * scale;
    }
  }
  if (suffix_required)
    return std::nullopt;
  return number_with_suffix(text, {{"", 1.0}}, true);
}

void expect_plain_count(const yaml::Node& n, std::int64_t min, std::int64_t max, AxisValue& v) {
  v.count = n.as_int(min, max);
  v.text = std::to_string(v.count);
}

AxisValue read_parallelism(const yaml::Node& n) {
  AxisValue v;
  auto m = n.as_map();
  m.declare({"tp", "pp", "cp", "ep", "dp", "virtual_stages"});
  auto degree = [&](std::string_view key) -> std::optional<int> {
    if (auto d = m.optional(key))
      return static_cast<int>(d->as_int(1, kMaxCount));
    return std::nullopt;
  };
  v.tp = degree("tp").value_or(1);
  v.pp = degree("pp").value_or(1);
  v.cp = degree("cp").value_or(1);
  v.ep = degree("ep").value_or(1);
  v.dp = degree("dp");
  v.virtual_stages = degree("virtual_stages");
  m.finish();
  v.text = fmt::format("tp{}.pp{}.cp{}.ep{}.dp{}", v.tp, v.pp, v.cp, v.ep,
                       v.dp ? std::to_string(*v.dp) : std::string("rest"));
  if (v.virtual_stages)
    v.text += fmt::format(".v{}", *v.virtual_stages);
  return v;
}

void check_catalog_name(const yaml::Node& n, const std::vector<std::string>& names, std::string_view what) {
  const std::string name = n.as_string();
  if (std::find(names.begin(), names.end(), name) != names.end())
    return;
  const std::string hint = did_you_mean(name, names);
  n.fail(fmt::format("the catalog has no {} \"{}\"{}; valid: {}", what, name,
                     hint.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", hint),
                     join(names)));
}

/// The base scenario's variants given a name of their own ({name, placement}), by name.
using NamedVariants = std::map<std::string, YAML::Node, std::less<>>;

AxisValue read_value(const AxisSpec& spec, const yaml::Node& n, const catalog::Catalog& cat,
                     const NamedVariants& named) {
  AxisValue v;
  switch (spec.kind) {
  case AxisKind::count:
    expect_plain_count(n, spec.min, spec.max, v);
    break;
  case AxisKind::text:
    v.text = n.as_string();
    if (spec.name == "node")
      check_catalog_name(n, cat.node_names(), "node");
    else
      check_catalog_name(n, cat.nic_names(), spec.name == "nic" ? "NIC" : "DPU");
    break;
  case AxisKind::choice:
    v.text = n.as_choice(spec.choices);
    break;
  case AxisKind::rate:
    (void)n.as_quantity<units::DataRate>();
    v.text = n.as_string();
    break;
  case AxisKind::ratio:
    v.text = n.as_string();
    try {
      if (units::parse_ratio(v.text) < 1.0)
        n.fail(fmt::format("must be at least 1:1, found \"{}\"", v.text));
    } catch (const units::UnitError& e) {
      n.fail(e.what());
    }
    break;
  case AxisKind::parallelism:
    v = read_parallelism(n);
    break;
  case AxisKind::variant:
    if (n.is_map()) {
      auto m = n.as_map();
      m.declare({"name", "placement"});
      v.text = m.required("name").as_string();
      const auto placement = m.required("placement", "a preset with +function=site changes");
      try {
        (void)offload::parse_variant(placement.as_string());
      } catch (const std::invalid_argument& e) {
        placement.fail(e.what());
      }
      m.finish();
    } else {
      v.text = n.as_string();
      if (const auto it = named.find(v.text); it != named.end()) {
        v.node = YAML::Clone(it->second);
        return v;
      }
      try {
        v.text = offload::parse_variant(v.text).name;
      } catch (const std::invalid_argument& e) {
        n.fail(e.what());
      }
    }
    break;
  }
  v.node = YAML::Clone(n.raw());
  return v;
}

/// A range {from, to, step} or {from, to, times}: every value from `from` up to `to` inclusive.
std::vector<AxisValue> read_range(const AxisSpec& spec, const yaml::Node& n) {
  auto m = n.as_map();
  m.declare({"from", "to", "step", "times"});
  const auto from_node = m.required("from", "the first value");
  const auto from = from_node.as_int(spec.min, std::min(spec.max, kMaxCount));
  const auto to =
      m.required("to", "the last value (included)").as_int(spec.min, std::min(spec.max, kMaxCount));
  const auto step_node = m.optional("step");
  const auto times_node = m.optional("times");
  if (step_node && times_node)
    times_node->fail("a range takes step (adds) or times (multiplies), not both");
  if (to < from)
    n.fail(fmt::format("empty range: from {} to {} holds no value (to must be at least from)", from, to));
  const std::int64_t step = step_node ? step_node->as_int(1, kMaxCount) : 1;
  const std::int64_t times = times_node ? times_node->as_int(2, kMaxCount) : 0;
  if (times != 0 && from < 1)
    from_node.fail("a range with times starts at 1 or more");
  m.finish();
  std::vector<AxisValue> out;
  for (std::int64_t x = from; x <= to; x = times != 0 ? x * times : x + step) {
    AxisValue v;
    v.count = x;
    v.text = std::to_string(x);
    v.node = YAML::Node(v.text);
    out.push_back(std::move(v));
    if (out.size() > kMaxPoints)
      n.fail(fmt::format("this range holds more than {} values", kMaxPoints));
  }
  return out;
}

Axis read_axis(const AxisSpec& spec, const yaml::Node& n, const catalog::Catalog& cat,
               const NamedVariants& named) {
  Axis axis{&spec, {}};
  if (n.is_map() && spec.range) {
    axis.values = read_range(spec, n);
    return axis;
  }
  if (!n.is_sequence())
    n.fail(
        fmt::format("expected a list of values{}, found {}", spec.range ? " or a range {from, to}" : "",
                    n.is_map() ? "a mapping" : fmt::format("\"{}\"", n.is_null() ? "" : n.raw().Scalar())));
  const auto items = n.as_sequence().items();
  if (items.empty())
    n.fail("an axis needs at least one value, found an empty list");
  std::set<std::string> seen;
  for (const auto& item : items) {
    auto v = read_value(spec, item, cat, named);
    if (!seen.insert(v.text).second)
      item.fail(fmt::format("\"{}\" is listed twice on this axis", v.text));
    axis.values.push_back(std::move(v));
  }
  return axis;
}

std::vector<std::string> axis_names() {
  std::vector<std::string> names;
  for (const auto& s : axis_specs())
    names.emplace_back(s.name);
  return names;
}

/// The node counts a plan's points can take: its nodes axis, or the base scenario's.
std::pair<std::int64_t, std::int64_t> node_range(const Plan& p, std::int64_t base_nodes) {
  for (const auto& a : p.axes)
    if (a.spec->name == "nodes") {
      std::int64_t lo = std::numeric_limits<std::int64_t>::max();
      std::int64_t hi = 0;
      for (const auto& v : a.values) {
        lo = std::min(lo, v.count);
        hi = std::max(hi, v.count);
      }
      return {lo, hi};
    }
  return {base_nodes, base_nodes};
}

} // namespace

std::optional<double> parse_days(std::string_view text) {
  return number_with_suffix(text, {{"days", 1.0}, {"d", 1.0}, {"h", 1.0 / 24}, {"w", 7.0}}, true);
}

std::optional<double> parse_tokens(std::string_view text) {
  return number_with_suffix(text, {{"K", 1e3}, {"M", 1e6}, {"B", 1e9}, {"G", 1e9}, {"T", 1e12}}, false);
}

Plan parse_plan(const yaml::Node& root, const catalog::Catalog& cat) {
  Plan p;
  p.file = root.file();
  auto m = root.as_map();
  m.declare({"name", "description", "scenario", "train_tokens", "axes", "objectives", "constraints"});
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
  std::int64_t base_nodes = 0;
  {
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
    base_nodes = s.cluster.nodes;
    p.base_seed = s.seed;
    p.scenario = base.raw();
    p.scenario_file = base.file();
  }
  // The base's variants: the default variants axis, and the names a variants axis may use.
  NamedVariants named;
  std::vector<AxisValue> base_variants;
  {
    const YAML::Node& raw = p.scenario;
    const YAML::Node offload = raw["offload"];
    std::vector<YAML::Node> listed{offload["baseline"]};
    if (offload["variants"].IsSequence())
      for (const auto& item : offload["variants"])
        listed.push_back(item);
    std::set<std::string> seen;
    for (const auto& item : listed) {
      AxisValue v;
      v.node = YAML::Clone(item);
      v.text = item.IsMap() ? item["name"].Scalar() : offload::parse_variant(item.Scalar()).name;
      if (item.IsMap())
        named.emplace(v.text, item);
      if (seen.insert(v.text).second)
        base_variants.push_back(std::move(v));
    }
  }

  const auto tokens = m.required("train_tokens", "the tokens to train on, e.g. 300B or 3e11");
  const auto parsed_tokens = parse_tokens(tokens.as_string());
  if (!parsed_tokens || *parsed_tokens < 1 || *parsed_tokens > 1e18)
    tokens.fail(fmt::format("expected a token count from 1 to 1e18, a number with an optional suffix K, M, B "
                            "or T (300B, 1.5T, 3e11), found \"{}\"",
                            tokens.as_string()));
  p.train_tokens = *parsed_tokens;

  if (auto axes = m.optional("axes")) {
    auto am = axes->as_map();
    const auto names = axis_names();
    std::vector<std::string_view> keys(names.begin(), names.end());
    am.declare(keys);
    for (const auto& spec : axis_specs())
      if (auto n = am.optional(spec.name))
        p.axes.push_back(read_axis(spec, *n, cat, named));
    am.finish();
  }
  if (p.axes.empty() || p.axes.back().spec->kind != AxisKind::variant)
    p.axes.push_back(Axis{&axis_specs().back(), std::move(base_variants)});
  std::size_t points = 1;
  for (const auto& a : p.axes) {
    points *= a.values.size();
    if (points > kMaxPoints)
      m.required("axes").fail(fmt::format("the axes span more than {} points", kMaxPoints));
  }

  if (auto objectives = m.optional("objectives")) {
    const auto items = objectives->as_sequence().items();
    if (items.empty())
      objectives->fail("expected at least one objective: time_to_train, nodes or host_cores");
    for (const auto& item : items) {
      const auto o = item.as_choice({"time_to_train", "nodes", "host_cores"});
      const Objective obj = o == "time_to_train" ? Objective::time_to_train
                            : o == "nodes"       ? Objective::nodes
                                                 : Objective::host_cores;
      if (std::find(p.objectives.begin(), p.objectives.end(), obj) != p.objectives.end())
        item.fail(fmt::format("objective {} is listed twice", o));
      p.objectives.push_back(obj);
    }
  } else {
    p.objectives = {Objective::time_to_train};
  }

  if (auto constraints = m.optional("constraints")) {
    auto cm = constraints->as_map();
    cm.declare({"deadline", "max_nodes", "min_nodes"});
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
    const auto [lo, hi] = node_range(p, base_nodes);
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
  m.finish();
  return p;
}

Plan load_plan(const std::string& path, const catalog::Catalog& cat) {
  return parse_plan(yaml::load_file(path), cat);
}

} // namespace dpusim::planner
