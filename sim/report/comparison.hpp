// The comparison of a scenario's variants: the console table, the sentences that explain each
// difference from the measured quantities, and the CSV.
#pragma once

#include "sim/report/explainer.hpp"
#include "sim/report/variant_result.hpp"

#include <string>
#include <vector>

namespace dpusim::report {

struct Comparison {
  std::string baseline;
  std::vector<VariantResult> results; // baseline first
  [[nodiscard]] double speedup(const VariantResult& r) const;
};

std::string render_table(const Comparison& c);
/// Host and DPU Arm cores per node by use, for the uses some variant spends time on (empty if none).
std::string render_cores_table(const Comparison& c);
/// One paragraph per non-baseline variant saying how it differs and why, in terms of what was simulated;
/// the models' explainers (model::Registry::explainers) add what only they can say.
std::vector<std::string> explain(const Comparison& c, const std::vector<Explainer>& explainers);
/// The models' columns (model::Registry::columns) follow the core metrics.
std::string render_csv(const Comparison& c, const std::vector<Column>& model_columns);
/// What was simulated flow by flow and what was reused, for one variant.
std::string render_simulation_summary(const VariantResult& r);
/// "GPU performance: ..." — which GPU figures the run used and how far they are validated.
std::string render_gpu_performance(const VariantResult& r);
/// "from calibration: key = value (provenance); ...", or empty when no profile was applied.
std::string render_calibration(const VariantResult& r);

} // namespace dpusim::report
