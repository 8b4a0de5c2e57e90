// The points of a plan: the cartesian product of its axes, each the base scenario with the axes'
// keys overridden in its YAML tree and then read by the scenario reader, so that a point gets every
// default and check a scenario file gets. A point the reader rejects is infeasible, with the reader's
// message (its key and what is wrong) as the reason.
#pragma once

#include "sim/planner/plan_file.hpp"
#include "sim/scenario/rank_memory.hpp"
#include "sim/scenario/scenario.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dpusim::planner {

/// The number of points (1 for a plan without axes: the base scenario alone).
std::size_t point_count(const Plan& plan);

/// For each of plan.axes, the index of the value point `index` takes (the first axis varies slowest).
std::vector<std::size_t> point_choice(const Plan& plan, std::size_t index);

/// The inputs every row of points.csv states, in this order (input_values gives them for a point).
const std::vector<std::string>& input_columns();

struct BuiltPoint {
  std::size_t index = 0;
  YAML::Node tree;                 // the base scenario with the point's overrides
  std::vector<std::string> inputs; // by input_columns()
  std::optional<scenario::Scenario> scenario;
  std::string reason;                        // why it is infeasible (then no scenario)
  std::optional<scenario::MemoryFit> memory; // its GPU memory, with the scenario
};

/// Builds point `index`: its scenario, or the reason it has none. Never throws for the point's own
/// problems.
BuiltPoint build_point(const Plan& plan, std::size_t index, const catalog::Catalog& catalog);

} // namespace dpusim::planner
