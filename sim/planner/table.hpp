// points.csv: one row per point of a plan, its inputs, whether it is feasible (and why not), and what
// its simulation gives; and the console summary drawn from those rows alone, so that `dpusim plan`
// and `dpusim merge` of its shards print the same thing.
#pragma once

#include "sim/planner/plan_file.hpp"
#include "sim/planner/points.hpp"
#include "sim/report/variant_result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dpusim::planner {

/// The header of points.csv: "point", the inputs (input_columns()), then the results.
const std::vector<std::string>& table_columns();

/// What the summary needs of a plan besides its rows (also written beside a shard's rows).
struct SummarySpec {
  std::string name;
  std::string description;
  double train_tokens = 0;
  std::vector<Objective> objectives;
  Constraints constraints;
  // What the rows are computed with (point_row only: merge has the rows already).
  std::optional<GoodputSpec> goodput;
  std::optional<PowerSpec> power;
  std::optional<CostSpec> costs;
  // What the summary needs of them (also in a shard's shard.yaml).
  std::optional<double> life_s;    // capex amortised over it: the break-even premium per device
  double device_premium = 0;       // with capex: the plan's DPU price less its NIC price
  bool cloud = false;              // a cloud price per GPU-hour: the break-even premium per device-hour
  std::vector<std::string> stated; // the plan's stated inputs (restart, PUE, prices), echoed
};
SummarySpec summary_spec(const Plan& plan);

/// A point's row (cells in table_columns() order): `result` when there is one, else `reason`. `tier`
/// says where the result comes from (simulated | estimated); `estimated_step_s` is the estimator's step
/// where it has one.
std::vector<std::string> point_row(const BuiltPoint& point, const report::VariantResult* result,
                                   const std::string& reason, const SummarySpec& spec,
                                   std::string_view tier = "simulated",
                                   std::optional<double> estimated_step_s = std::nullopt);

/// One CSV line (RFC 4180 quoting where a cell needs it), ending in '\n'.
std::string csv_line(const std::vector<std::string>& cells);
/// Splits CSV text into rows of cells; throws std::runtime_error on a malformed quote.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

/// points.csv: the header, then `rows` (ordered by point).
std::string render_points_csv(const std::vector<std::vector<std::string>>& rows);

/// pareto.csv (summary.cpp): the header, then the rows within the constraints that no other such row beats on
/// every one of time to train, cost and energy (those the rows have) and on one strictly.
std::string render_pareto_csv(const std::vector<std::vector<std::string>>& rows);

/// The best point per objective among those within the constraints, and what the variants change
/// (summary.cpp).
std::string render_summary(const std::vector<std::vector<std::string>>& rows, const SummarySpec& spec);

} // namespace dpusim::planner
