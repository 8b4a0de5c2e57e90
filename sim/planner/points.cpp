#include "sim/planner/points.hpp"

#include "sim/input/scenario_loader.hpp"
#include "sim/scenario/rank_memory.hpp"

#include <fmt/format.h>
#include <memory>

namespace dpusim::planner {

namespace {

/// The scalar at a dotted key of the tree, "" where there is none (never adds a node).
std::string text_at(const YAML::Node& tree, std::string_view key) {
  YAML::Node at;
  at.reset(tree);
  std::size_t start = 0;
  while (start <= key.size()) {
    auto end = key.find('.', start);
    if (end == std::string_view::npos)
      end = key.size();
    const std::string segment(key.substr(start, end - start));
    if (!at.IsMap())
      return {};
    const YAML::Node& const_at = at;
    YAML::Node next = const_at[segment];
    if (!next.IsDefined())
      return {};
    at.reset(next);
    start = end + 1;
  }
  return at.IsScalar() ? at.Scalar() : std::string();
}

/// Sets a dotted key of the tree (whose parents exist, as they do in a valid base scenario).
void set_at(YAML::Node tree, std::string_view key, const YAML::Node& value) {
  const auto dot = key.find('.');
  const std::string head(key.substr(0, dot));
  if (dot == std::string_view::npos) {
    tree[head] = value;
    return;
  }
  if (!tree[head].IsMap())
    tree[head] = YAML::Node(YAML::NodeType::Map);
  set_at(tree[head], key.substr(dot + 1), value);
}

scenario::MemoryFit memory_of(const scenario::Scenario& s, const catalog::Catalog& cat) {
  return scenario::memory_fit(s.workload,
                              scenario::usable_gpu_memory(*cat.gpu(cat.node(s.cluster.node)->gpu)));
}

std::optional<long long> whole(const std::string& text) {
  if (text.empty() || text.size() > 18 ||
      !std::all_of(text.begin(), text.end(), [](unsigned char ch) { return std::isdigit(ch) != 0; }))
    return std::nullopt;
  return std::stoll(text);
}

} // namespace

std::size_t point_count(const Plan& plan) {
  std::size_t n = 1;
  for (const auto& a : plan.axes)
    n *= a.values.size();
  return n;
}

std::vector<std::size_t> point_choice(const Plan& plan, std::size_t index) {
  std::vector<std::size_t> choice(plan.axes.size());
  for (std::size_t i = plan.axes.size(); i-- > 0;) {
    const auto n = plan.axes[i].values.size();
    choice[i] = index % n;
    index /= n;
  }
  return choice;
}

const std::vector<std::string>& input_columns() {
  static const std::vector<std::string> columns = {"nodes",        "gpus",        "node",
                                                   "nic",          "dpu",         "topology",
                                                   "tiers",        "link",        "oversubscription",
                                                   "routing",      "encryption",  "overlay",
                                                   "tp",           "pp",          "cp",
                                                   "ep",           "dp",          "virtual_stages",
                                                   "recompute",    "zero",        "precision",
                                                   "global_batch", "micro_batch", "seed",
                                                   "variant"};
  return columns;
}

BuiltPoint build_point(const Plan& plan, std::size_t index, const catalog::Catalog& cat) {
  BuiltPoint p;
  p.index = index;
  p.tree = YAML::Clone(plan.scenario);
  const auto choice = point_choice(plan, index);
  const AxisValue* parallelism = nullptr;
  std::string variant;
  bool recompute_auto = false;
  std::optional<std::int64_t> gpus_axis;
  for (std::size_t i = 0; i < plan.axes.size(); ++i) {
    const auto& axis = plan.axes[i];
    const auto& value = axis.values[choice[i]];
    switch (axis.spec->kind) {
    case AxisKind::parallelism:
      parallelism = &value;
      break;
    case AxisKind::variant: {
      // The point runs this variant alone: the base's other variants need not suit the point.
      YAML::Node offload(YAML::NodeType::Map);
      offload["baseline"] = YAML::Clone(value.node);
      p.tree["offload"] = offload;
      variant = value.text;
      break;
    }
    default:
      if (axis.spec->name == "gpus")
        gpus_axis = value.count; // the nodes follow below, from the point's node type
      else if (axis.spec->name == "recompute" && value.text == "auto")
        recompute_auto = true; // chosen below: the least that fits
      else
        set_at(p.tree, axis.spec->scenario_key, YAML::Clone(value.node));
    }
  }

  // The parallelism: the axis's, or the base's degrees; data parallelism takes the GPUs left over
  // unless the entry gives it.
  const std::string base_tp = text_at(p.tree, "workload.parallelism.tp");
  const std::string base_pp = text_at(p.tree, "workload.parallelism.pp");
  const std::string base_cp = text_at(p.tree, "workload.parallelism.cp");
  const auto* node = cat.node(text_at(p.tree, "cluster.node"));
  const auto per_node = whole(text_at(p.tree, "cluster.gpus_per_node"));
  if (gpus_axis && node != nullptr) {
    // A GPU count: as many nodes of the point's type as hold them, or none where they do not add up.
    const long long per = per_node.value_or(node->gpus.value);
    if (per > 0 && *gpus_axis % per == 0) {
      p.tree["cluster"]["nodes"] = std::to_string(*gpus_axis / per);
    } else {
      p.tree["cluster"]["nodes"] = "";
      p.reason = fmt::format("cluster.nodes: {} GPUs are not a whole number of {} nodes ({} GPUs each)",
                             *gpus_axis, text_at(p.tree, "cluster.node"), per);
    }
  }
  const auto nodes = whole(text_at(p.tree, "cluster.nodes"));
  const long long gpus = !p.reason.empty() && gpus_axis ? *gpus_axis
                         : nodes && node != nullptr     ? *nodes * per_node.value_or(node->gpus.value)
                                                        : 0;
  const bool nodes_known = p.reason.empty();
  std::string dp_text = text_at(p.tree, "workload.parallelism.dp");
  if (parallelism != nullptr) {
    YAML::Node par(YAML::NodeType::Map);
    par["tp"] = parallelism->tp;
    par["pp"] = parallelism->pp;
    if (parallelism->cp > 1)
      par["cp"] = parallelism->cp;
    if (parallelism->ep > 1)
      par["ep"] = parallelism->ep;
    if (parallelism->virtual_stages)
      par["virtual_stages"] = *parallelism->virtual_stages;
    if (parallelism->first_stage_layers)
      par["first_stage_layers"] = *parallelism->first_stage_layers;
    if (parallelism->last_stage_layers)
      par["last_stage_layers"] = *parallelism->last_stage_layers;
    const long long model_parallel =
        static_cast<long long>(parallelism->tp) * parallelism->pp * parallelism->cp;
    if (parallelism->dp) {
      dp_text = std::to_string(*parallelism->dp);
    } else if (gpus > 0 && gpus % model_parallel == 0) {
      dp_text = std::to_string(gpus / model_parallel);
    } else {
      dp_text.clear();
      if (nodes_known)
        p.reason =
            fmt::format("workload.parallelism: tp x cp x pp = {} x {} x {} = {} does not divide the {} GPUs",
                        parallelism->tp, parallelism->cp, parallelism->pp, model_parallel, gpus);
    }
    if (!dp_text.empty())
      par["dp"] = dp_text;
    p.tree["workload"]["parallelism"] = par;
  } else {
    const long long model_parallel =
        whole(base_tp).value_or(1) * whole(base_pp).value_or(1) * whole(base_cp).value_or(1);
    if (gpus > 0 && gpus % model_parallel == 0) {
      dp_text = std::to_string(gpus / model_parallel);
      p.tree["workload"]["parallelism"]["dp"] = dp_text;
    } else {
      dp_text.clear();
      if (nodes_known)
        p.reason = fmt::format("workload.parallelism: tp x cp x pp = {} does not divide the {} GPUs",
                               model_parallel, gpus);
    }
  }

  // The scenario, read and checked; with recompute auto, the least recomputation that it accepts (none,
  // then selective, then full: each costs time, so the least that fits is the one Megatron users pick).
  if (p.reason.empty()) {
    const auto file = std::make_shared<const std::string>(plan.scenario_file);
    const std::vector<std::string> tries =
        recompute_auto ? std::vector<std::string>{"none", "selective", "full"} : std::vector<std::string>{""};
    // An uncertain fit (rank_memory.hpp) is taken only where no more recomputation fits for sure.
    std::string uncertain;
    for (const auto& recompute : tries) {
      if (!recompute.empty())
        p.tree["workload"]["recompute"] = recompute;
      try {
        p.scenario = input::parse_scenario(yaml::Node(p.tree, file, "", Location{*file, 1, 1}), cat);
        p.reason.clear();
        p.memory = memory_of(*p.scenario, cat);
        if (p.memory->verdict == scenario::MemoryFit::Verdict::fits || recompute.empty())
          break;
        if (uncertain.empty())
          uncertain = recompute;
      } catch (const InputError& e) {
        p.reason = e.key().empty() ? e.message() : fmt::format("{}: {}", e.key(), e.message());
      }
    }
    if (!uncertain.empty() && p.memory->verdict != scenario::MemoryFit::Verdict::fits) {
      p.tree["workload"]["recompute"] = uncertain;
      p.scenario = input::parse_scenario(yaml::Node(p.tree, file, "", Location{*file, 1, 1}), cat);
      p.reason.clear();
      p.memory = memory_of(*p.scenario, cat);
    }
  }

  const auto degree = [&](std::string_view key) {
    const auto t = text_at(p.tree, fmt::format("workload.parallelism.{}", key));
    return t.empty() ? std::string("1") : t;
  };
  const std::string seed = text_at(p.tree, "seed");
  p.inputs = {text_at(p.tree, "cluster.nodes"),
              gpus > 0 ? std::to_string(gpus) : std::string(),
              text_at(p.tree, "cluster.node"),
              text_at(p.tree, "cluster.nic"),
              text_at(p.tree, "cluster.dpu"),
              text_at(p.tree, "cluster.fabric.topology"),
              text_at(p.tree, "cluster.fabric.tiers"),
              text_at(p.tree, "cluster.fabric.link"),
              text_at(p.tree, "cluster.fabric.oversubscription"),
              text_at(p.tree, "cluster.fabric.routing"),
              text_at(p.tree, "cluster.services.encryption"),
              text_at(p.tree, "cluster.services.overlay"),
              degree("tp"),
              degree("pp"),
              degree("cp"),
              degree("ep"),
              dp_text,
              degree("virtual_stages"),
              text_at(p.tree, "workload.recompute"),
              text_at(p.tree, "workload.zero"),
              p.scenario ? std::string(workload::precision_name(p.scenario->workload.precision))
                         : text_at(p.tree, "workload.precision"),
              text_at(p.tree, "workload.global_batch"),
              text_at(p.tree, "workload.micro_batch"),
              seed.empty() ? std::to_string(plan.base_seed) : seed,
              variant};
  return p;
}

} // namespace dpusim::planner
