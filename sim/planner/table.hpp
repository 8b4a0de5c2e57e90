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
  double train_tokens = 0;
  std::vector<Objective> objectives;
  Constraints constraints;
};
SummarySpec summary_spec(const Plan& plan);

/// A point's row (cells in table_columns() order): `result` when it was simulated, else `reason`.
std::vector<std::string> point_row(const BuiltPoint& point, const report::VariantResult* result,
                                   const std::string& reason, const SummarySpec& spec);

/// One CSV line (RFC 4180 quoting where a cell needs it), ending in '\n'.
std::string csv_line(const std::vector<std::string>& cells);
/// Splits CSV text into rows of cells; throws std::runtime_error on a malformed quote.
std::vector<std::vector<std::string>> parse_csv(const std::string& text);

/// points.csv: the header, then `rows` (ordered by point).
std::string render_points_csv(const std::vector<std::vector<std::string>>& rows);

/// The best point per objective among those within the constraints, and what the variants change.
std::string render_summary(const std::vector<std::vector<std::string>>& rows, const SummarySpec& spec);

} // namespace dpusim::planner
