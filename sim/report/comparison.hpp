// The comparison of a scenario's variants: the console table, the sentences that explain each
// difference from the measured quantities, and the CSV.
#pragma once

#include "sim/report/explainer.hpp"
#include "sim/report/variant_result.hpp"

#include <optional>
#include <string>
#include <vector>

namespace dpusim::report {

/// One thing that differs between two explained variants (a function's site or the device), switched
/// alone by a simulation of its own.
struct Switched {
  std::string thing; // "transport", "storage", "encryption", "vswitch", "agents" or "device"
  std::string from;  // the first variant's value: a site (host, nic, dpu_arm) or a device name
  std::string to;    // the second's
  bool back = false; // measured on the second variant with it switched back (the first cannot run it)
  std::optional<double> change_s; // the step change from switching `from` to `to` alone
  std::string why_not;            // why neither variant can run it alone
};

/// What differs between two variants of a comparison, each thing switched alone.
struct PairSwitches {
  std::string first;  // the variant the explanation compares against (the baseline, or the plain NIC)
  std::string second; // the variant explained
  std::vector<Switched> switched;
};

struct Comparison {
  std::string baseline;
  std::vector<VariantResult> results; // baseline first
  std::vector<PairSwitches> switches; // per explained pair; a pair without one names no cause
  [[nodiscard]] double speedup(const VariantResult& r) const;
  [[nodiscard]] const PairSwitches* switches_of(const std::string& first, const std::string& second) const;
};

std::string render_table(const Comparison& c);
/// Host and DPU Arm cores per node by use, for the uses some variant spends time on (empty if none).
std::string render_cores_table(const Comparison& c);
/// One paragraph per non-baseline variant saying how it differs and why, in terms of what was simulated.
/// A cause (a mechanism, or a model's explainer) is named only where the thing it rests on, switched
/// alone, moves the step (Comparison::switches); the paragraph says what each thing moves.
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
