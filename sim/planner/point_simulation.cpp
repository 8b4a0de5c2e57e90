#include "sim/planner/point_simulation.hpp"

#include "models/base/input_error.hpp"
#include "sim/planner/economics.hpp"
#include "sim/report/variant_result.hpp"
#include "sim/run/variant_run.hpp"

#include <stdexcept>

namespace dpusim::planner {
namespace {
/// Begins what simulate_point returns for a point its simulation finds infeasible (a serialized result
/// is YAML, which never begins so).
const std::string kInfeasible = "!infeasible ";
} // namespace

std::string simulate_point(const Plan& plan, const catalog::Catalog& cat, std::size_t index) {
  const auto point = build_point(plan, index, cat);
  if (!point.scenario)
    throw std::logic_error("point " + std::to_string(point.index) + " changed: " + point.reason);
  const auto& s = *point.scenario;
  try {
    run::RunOptions run_options;
    run_options.explain = false; // a point's notes are not read
    auto r = run::run_variant(s, cat, s.variants.front(), run_options);
    add_point_facts(s, cat, plan.goodput, r);
    return report::serialize(r);
  } catch (const InputError& e) {
    return kInfeasible + (e.key().empty() ? e.message() : e.key() + ": " + e.message());
  }
}

std::vector<std::string> simulated_row(const BuiltPoint& point, const std::string& output,
                                       const SummarySpec& spec, std::optional<double> estimated_step_s,
                                       bool* infeasible) {
  const bool is_infeasible = output.rfind(kInfeasible, 0) == 0;
  if (infeasible != nullptr)
    *infeasible = is_infeasible;
  if (is_infeasible)
    return point_row(point, nullptr, output.substr(kInfeasible.size()), spec);
  const auto r = report::deserialize(output);
  return point_row(point, &r, {}, spec, "simulated", estimated_step_s);
}

} // namespace dpusim::planner
