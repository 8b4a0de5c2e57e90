#include "sim/planner/point_selection.hpp"

#include "models/base/input_error.hpp"
#include "sim/estimate/step_estimate.hpp"
#include "sim/planner/economics.hpp"
#include "sim/planner/journal.hpp"

#include <algorithm>
#include <yaml-cpp/yaml.h>

namespace dpusim::planner {

std::string configuration_of(const BuiltPoint& p) {
  static const std::set<std::string> layout = {
      "tp", "pp", "cp", "ep", "dp", "virtual_stages", "recompute", "zero", "micro_batch"};
  std::string key;
  for (std::size_t c = 0; c < input_columns().size() && c < p.inputs.size(); ++c)
    if (layout.count(input_columns()[c]) == 0)
      key += p.inputs[c] + '\x1f';
  return key;
}

std::optional<PointEstimate> estimate_point(const BuiltPoint& p, const catalog::Catalog& cat,
                                            const Plan& plan, const SummarySpec& spec) {
  try {
    auto r = estimate::estimated_result(*p.scenario, cat);
    add_point_facts(*p.scenario, cat, plan.goodput, r);
    return PointEstimate{r.metrics.step_time_s, r.metrics.tokens_per_s,
                         point_row(p, &r, {}, spec, "estimated", r.metrics.step_time_s)};
  } catch (const estimate::NotEstimated&) {
    return std::nullopt;
  } catch (const InputError&) { // what the simulation would find wrong: it says so for the point
    return std::nullopt;
  } catch (const std::invalid_argument&) { // a fabric that cannot hold the cluster: likewise
    return std::nullopt;
  }
}

Selection select_points(const Plan& plan, const catalog::Catalog& cat, const SummarySpec& spec, int refine,
                        const Shard& shard, std::uint64_t key) {
  Selection out;
  out.journal_key = key;
  std::map<std::string, std::vector<std::pair<double, std::size_t>>> by_configuration;
  const std::size_t total = point_count(plan);
  for (std::size_t i = 0; i < total; ++i) {
    if (!shard.holds(i) && refine < 0)
      continue;
    auto p = build_point(plan, i, cat);
    std::optional<PointEstimate> est;
    if (p.scenario) {
      est = estimate_point(p, cat, plan, spec);
      if (refine >= 0 && est)
        by_configuration[configuration_of(p)].emplace_back(-est->tokens_per_s, i);
      else if (refine >= 0)
        out.simulated.insert(i);
    }
    if (!shard.holds(i))
      continue;
    out.journal_key = fnv1a(YAML::Dump(p.tree) + "\n", out.journal_key);
    out.feasible.push_back(p.scenario.has_value());
    out.estimates.push_back(std::move(est));
    p.scenario.reset();
    p.tree.reset(); // rebinds (operator= would write a null into the tree and keep it)
    out.points.push_back(std::move(p));
  }
  for (auto& [configuration, ranked] : by_configuration) {
    std::sort(ranked.begin(), ranked.end()); // fastest estimate first, ties by point
    for (std::size_t r = 0; r < ranked.size() && r < static_cast<std::size_t>(refine); ++r)
      out.simulated.insert(ranked[r].second);
  }
  return out;
}

Pending pending_points(Selection& selection, const std::map<std::size_t, std::vector<std::string>>& kept,
                       const SummarySpec& spec, int refine) {
  Pending out;
  auto& points = selection.points;
  out.rows.resize(points.size());
  for (std::size_t k = 0; k < points.size(); ++k) {
    if (!selection.feasible[k]) {
      out.rows[k] = point_row(points[k], nullptr, points[k].reason, spec);
      points[k] = BuiltPoint{points[k].index, {}, {}, {}, {}, {}}; // its row is all it needed
    } else if (refine >= 0 && selection.simulated.count(points[k].index) == 0) {
      out.rows[k] = selection.estimates[k]->row;
    } else if (const auto it = kept.find(points[k].index); it != kept.end()) {
      out.rows[k] = it->second;
    } else {
      out.to_run.push_back(k);
    }
  }
  return out;
}

} // namespace dpusim::planner
