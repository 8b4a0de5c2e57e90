// One point of a plan simulated, in whatever process runs it, and its row from what that process
// returns: the serialized result, or why the simulation found the point infeasible (its key and message,
// not a file's place: points.csv must not depend on where the plan lies). `dpusim plan` runs
// simulate_point in a process per point (sim/cli/command_plan.cpp); a test may run one in its own.
#pragma once

#include "models/catalog/catalog.hpp"
#include "sim/planner/plan_file.hpp"
#include "sim/planner/points.hpp"
#include "sim/planner/table.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dpusim::planner {

/// Builds point `index` of the plan again and simulates it (its scenario's first variant): the
/// serialized result, or the infeasible marker and the reason. Throws std::logic_error where the point no
/// longer builds (the same plan and catalog build the same point in every process).
std::string simulate_point(const Plan& plan, const catalog::Catalog& cat, std::size_t index);

/// What simulate_point returned for `point`, as its row (tier simulated, beside its estimated step); an
/// infeasible point's row says why. `infeasible` tells which.
std::vector<std::string> simulated_row(const BuiltPoint& point, const std::string& output,
                                       const SummarySpec& spec, std::optional<double> estimated_step_s,
                                       bool* infeasible = nullptr);

} // namespace dpusim::planner
