// The axes section of a plan file (docs/planner.md): the axes a plan may have, each value read at its
// line and key, ranges, and `parallelism: auto`'s search over the layouts Megatron could run.
#include "models/base/text_distance.hpp"
#include "models/workload/precision.hpp"
#include "sim/offload/variant.hpp"
#include "sim/planner/plan_sections.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <set>

namespace dpusim::planner {

namespace {

std::vector<std::string> precision_names() {
  std::vector<std::string> names;
  for (const auto p : workload::kPrecisions)
    names.emplace_back(workload::precision_name(p));
  return names;
}
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
      {"gpus",
       "cluster.nodes",
       AxisKind::count,
       "GPU counts, in place of nodes: each point has as many nodes of its type as hold them (a list, or a "
       "range {from, to, step | times})",
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
      {"routing",
       "cluster.fabric.routing",
       AxisKind::choice,
       "how switches choose among equal-cost ports",
       {"ecmp", "adaptive", "pinned"}},
      {"encryption",
       "cluster.services.encryption",
       AxisKind::choice,
       "encryption in transit",
       {"none", "ipsec", "tls"}},
      {"overlay", "cluster.services.overlay", AxisKind::choice, "tenant overlays", {"none", "vxlan"}},
      {"parallelism", "workload.parallelism", AxisKind::parallelism,
       "{tp, pp, cp, ep, dp, virtual_stages, first_stage_layers, last_stage_layers} mappings (without dp, "
       "the GPUs left over), or auto: every "
       "layout Megatron could run (docs/planner.md)"},
      {"recompute",
       "workload.recompute",
       AxisKind::choice,
       "activation recomputation; auto: the least that fits in GPU memory",
       {"none", "selective", "full", "auto"}},
      {"zero", "workload.zero", AxisKind::count, "ZeRO stages: 0 to 3", {}, 0, 3},
      {"precision", "workload.precision", AxisKind::choice,
       "the linear layers' number format (docs/models/precision.md); a GPU without it makes its points "
       "infeasible",
       precision_names()},
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

namespace {

void expect_plain_count(const yaml::Node& n, std::int64_t min, std::int64_t max, AxisValue& v) {
  v.count = n.as_int(min, max);
  v.text = std::to_string(v.count);
}

AxisValue read_parallelism(const yaml::Node& n) {
  AxisValue v;
  auto m = n.as_map();
  m.declare({"tp", "pp", "cp", "ep", "dp", "virtual_stages", "first_stage_layers", "last_stage_layers"});
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
  v.first_stage_layers = degree("first_stage_layers");
  v.last_stage_layers = degree("last_stage_layers");
  m.finish();
  v.text = fmt::format("tp{}.pp{}.cp{}.ep{}.dp{}", v.tp, v.pp, v.cp, v.ep,
                       v.dp ? std::to_string(*v.dp) : std::string("rest"));
  if (v.virtual_stages)
    v.text += fmt::format(".v{}", *v.virtual_stages);
  if (v.first_stage_layers)
    v.text += fmt::format(".first{}", *v.first_stage_layers);
  if (v.last_stage_layers)
    v.text += fmt::format(".last{}", *v.last_stage_layers);
  return v;
}

void check_catalog_name(const yaml::Node& n, const std::vector<std::string>& names, std::string_view what,
                        const catalog::Catalog& cat, std::string_view kind) {
  const std::string name = n.as_string();
  if (std::find(names.begin(), names.end(), name) != names.end())
    return;
  if (const auto* b = cat.broken_entry(kind, name)) // an entry that cannot be read: its own error
    n.fail(fmt::format("the catalog's {} entry \"{}\" cannot be read: {}", what, name, b->error.what()));
  const std::string hint = did_you_mean(name, names);
  n.fail(fmt::format("the catalog has no {} \"{}\"{}; valid: {}", what, name,
                     hint.empty() ? std::string() : fmt::format(" (did you mean \"{}\"?)", hint),
                     join(names)));
}

/// The base scenario's variants given a name of their own ({name, placement}), by name.

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
      check_catalog_name(n, cat.node_names(), "node", cat, "node");
    else
      check_catalog_name(n, cat.nic_names(), spec.name == "nic" ? "NIC" : "DPU", cat, "nic");
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

bool divides(long long d, long long n) {
  return d > 0 && n % d == 0;
}

/// Every layout Megatron could run the model with, data parallelism taking the GPUs left over (docs/
/// planner.md, "Searching the parallelism"): tensor parallelism a power of two inside a node dividing the
/// heads, the key-value heads and the feed-forward sizes; pipeline parallelism a divisor of the layers, with
/// 1, 2 or 4 model chunks per GPU (at least two layers each); context parallelism from 32k tokens; expert
/// parallelism a power of two dividing the experts; tp x pp x cp dividing the GPUs of some point. Which of
/// them divide a given point's GPUs and fit its memory the point says.
std::vector<AxisValue> auto_parallelism(const SearchSpace& s) {
  const auto& m = s.model;
  std::vector<int> tps;
  for (int tp = 1; tp <= s.gpus_per_node; tp *= 2)
    if (divides(tp, m.heads) && divides(tp, m.kv_heads) && divides(tp, m.ffn) &&
        (!m.moe() || divides(tp, m.expert_ffn)))
      tps.push_back(tp);
  std::vector<int> cps{1};
  for (int cp = 2; s.seq_len >= 32768 && cp <= 16; cp *= 2)
    if (divides(2LL * cp, s.seq_len))
      cps.push_back(cp);
  std::vector<int> eps{1};
  for (int ep = 2; m.moe() && ep <= m.experts; ep *= 2)
    if (divides(ep, m.experts))
      eps.push_back(ep);
  std::vector<AxisValue> out;
  for (const int tp : tps)
    for (int pp = 1; pp <= m.layers; ++pp) {
      if (!divides(pp, m.layers) || static_cast<long long>(tp) * pp > s.gpus)
        continue;
      for (const int v : {1, 2, 4}) {
        if (v > 1 &&
            (pp < 2 || !divides(static_cast<long long>(pp) * v, m.layers) || m.layers / (pp * v) < 2))
          continue;
        for (const int cp : cps)
          for (const int ep : eps) {
            const long long model_parallel = static_cast<long long>(tp) * pp * cp;
            if (std::none_of(s.gpu_counts.begin(), s.gpu_counts.end(),
                             [&](long long g) { return divides(model_parallel, g); }))
              continue; // no point has GPUs it divides
            AxisValue a;
            a.tp = tp;
            a.pp = pp;
            a.cp = cp;
            a.ep = ep;
            if (v > 1)
              a.virtual_stages = v;
            a.node = YAML::Node(YAML::NodeType::Map);
            a.node["tp"] = tp;
            a.node["pp"] = pp;
            if (cp > 1)
              a.node["cp"] = cp;
            if (ep > 1)
              a.node["ep"] = ep;
            if (v > 1)
              a.node["virtual_stages"] = v;
            a.text = fmt::format("tp{}.pp{}.cp{}.ep{}.dprest{}", tp, pp, cp, ep,
                                 v > 1 ? fmt::format(".v{}", v) : "");
            out.push_back(std::move(a));
          }
      }
    }
  return out;
}

} // namespace

Axis read_axis(const AxisSpec& spec, const yaml::Node& n, const catalog::Catalog& cat,
               const NamedVariants& named, const SearchSpace& space) {
  Axis axis{&spec, {}};
  if (spec.kind == AxisKind::parallelism && n.is_scalar() && n.raw().Scalar() == "auto") {
    axis.values = auto_parallelism(space);
    if (axis.values.empty())
      n.fail(fmt::format("no layout divides the model {} ({} heads, {} layers) on {} GPUs", space.model.name,
                         space.model.heads, space.model.layers, space.gpus));
    return axis;
  }
  if (n.is_map() && spec.range) {
    axis.values = read_range(spec, n);
    return axis;
  }
  if (!n.is_sequence())
    n.fail(
        fmt::format("expected a list of values{}{}, found {}", spec.range ? " or a range {from, to}" : "",
                    spec.kind == AxisKind::parallelism ? " or auto" : "",
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
std::pair<std::int64_t, std::int64_t> node_range(const Plan& p, std::int64_t base_nodes,
                                                 const catalog::Catalog& cat, std::int64_t base_per_node) {
  std::vector<std::int64_t> per_node{base_per_node};
  for (const auto& a : p.axes)
    if (a.spec->name == "node") {
      per_node.clear();
      for (const auto& v : a.values)
        if (const auto* node = cat.node(v.text))
          per_node.push_back(node->gpus.value);
    }
  for (const auto& a : p.axes)
    if (a.spec->name == "gpus") { // the node counts the GPU counts make on each of the plan's node types
      std::int64_t lo = std::numeric_limits<std::int64_t>::max();
      std::int64_t hi = 0;
      for (const auto& v : a.values)
        for (const auto per : per_node)
          if (per > 0 && v.count % per == 0) {
            lo = std::min(lo, v.count / per);
            hi = std::max(hi, v.count / per);
          }
      return hi == 0 ? std::pair<std::int64_t, std::int64_t>{0, 0} : std::pair{lo, hi};
    }
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

} // namespace dpusim::planner
