// What a plan's outputs rest on besides its points: its name, description, tokens, objectives,
// constraints and every stated input (prices, power, restart), as JSON (plan-info.json, published with
// points.csv and pareto.csv), so that a report of the plan shows what its cost and energy figures assume.
#pragma once

#include "sim/planner/table.hpp"

#include <string>

namespace dpusim::planner {

/// plan-info.json of the plan `spec` describes, of `points` points (points.csv's rows, by which a report
/// tells it belongs with them). Deterministic: no wall-clock time, no host names.
std::string render_plan_info(const SummarySpec& spec, std::size_t points);

} // namespace dpusim::planner
